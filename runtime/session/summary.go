package session

import (
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Where a step runs, as the Summary says it.
const (
	WhereHost     = "host, compiled"        // a Go step planned once
	WhereFallback = "host, fallback"        // the interpreter packer
	WhereGPU      = "GPU, one CUDA graph"   // the batch's graph, timed with events
	WhereWait     = "host, waiting for GPU" // the host blocked on the batch's event
	WhereAlone    = "GPU, step alone"       // a step of the graph launched on its own (Profile)
)

// StepCost is one step of the plan and what it cost so far.
type StepCost struct {
	// Step says what the step does (the op and its node for host steps
	// and layers, the graph's nodes for the GPU).
	Step string
	// Where is WhereHost, WhereFallback, WhereGPU, WhereWait or
	// WhereAlone.
	Where string
	// Calls and Total are the runs so far and their time: wall time on
	// the host, device time (events) for the GPU.
	Calls int64
	Total time.Duration
}

// Mean is the mean time of a call.
func (c StepCost) Mean() time.Duration {
	if c.Calls == 0 {
		return 0
	}
	return c.Total / time.Duration(c.Calls)
}

// Summary is the session's plan and the measured cost of each step.
type Summary struct {
	Device  string
	Slots   int
	Packers []string // per layer
	Dense   string   // the dense backend
	// DeviceSteps names the ops computed on the device in the batch's
	// graph (their op, node and kernels): their time is in the graph's
	// row (Profile times each launch).
	DeviceSteps []string
	Batches     int64
	Steps       []StepCost
	// Graphs lists the graphs captured so far, one line each: the batch
	// size and its nodes.
	Graphs []string
}

// String prints the summary as a table.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "session on %s: %d slots, %d batches\n", s.Device, s.Slots, s.Batches)
	for i, p := range s.Packers {
		fmt.Fprintf(&b, "  layer %d packer: %s\n", i, p)
	}
	if s.Dense != "" {
		fmt.Fprintf(&b, "  dense layers: %s\n", s.Dense)
	}
	for _, d := range s.DeviceSteps {
		fmt.Fprintf(&b, "  device step: %s\n", d)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "calls\tmean µs\ttotal ms\t\t")
	for _, c := range s.Steps {
		fmt.Fprintf(tw, "%d\t%.1f\t%.2f\t\t%s: %s\n", c.Calls, float64(c.Mean().Nanoseconds())/1e3, float64(c.Total.Nanoseconds())/1e6, c.Where, c.Step)
	}
	tw.Flush()
	for _, g := range s.Graphs {
		fmt.Fprintf(&b, "  graph: %s\n", g)
	}
	return b.String()
}

// timeEvery: one batch in timeEvery per slot records the device-time
// events around its graph (the GPU row of the Summary); the others record
// only the event the host waits for.
const timeEvery = 4

// The fixed rows of the stats.
const (
	statFeeds = iota
	statStage
	statCapture
	statPrepare
	statLaunch
	statGPU
	statWait
	statCopyOut
	statFixed
)

// stats accumulates the steps' costs.
type stats struct {
	mu      sync.Mutex
	rows    []StepCost
	batches int64
	graphs  map[int64]string
	device  string
	slots   int
	packers []string
	dense   string
	profile []StepCost // the last Profile's rows
}

func newStats(s *Session) *stats {
	p := s.plan
	st := &stats{graphs: map[int64]string{}, device: s.cctx.Device().String(), slots: s.opts.Slots, dense: s.backend.Name()}
	if s.denseNote != "" {
		st.dense += "; " + s.denseNote
	}
	if len(p.dense) == 0 {
		st.dense = ""
	}
	st.rows = make([]StepCost, statFixed)
	st.rows[statFeeds] = StepCost{Step: fmt.Sprintf("check the feeds the session reads (%d of %d placeholders; the packers check theirs as they pack)", len(p.ownFeeds), len(p.feeds)), Where: WhereHost}
	st.rows[statStage] = StepCost{Step: fmt.Sprintf("stage the host values the device reads into pinned memory (%d)", len(p.uploads)), Where: WhereHost}
	st.rows[statCapture] = StepCost{Step: "capture and instantiate a graph (a new batch size or input size)", Where: WhereHost}
	st.rows[statPrepare] = StepCost{Step: "find the batch's device buffers and graph", Where: WhereHost}
	st.rows[statLaunch] = StepCost{Step: fmt.Sprintf("launch the batch's graph and record its events (device time: one batch in %d)", timeEvery), Where: WhereHost}
	st.rows[statGPU] = StepCost{Step: "the batch's graph on the device", Where: WhereGPU}
	st.rows[statWait] = StepCost{Step: "wait for the batch's graph", Where: WhereWait}
	st.rows[statCopyOut] = StepCost{Step: "outputs from pinned memory", Where: WhereHost}
	row := func(c StepCost) int {
		st.rows = append(st.rows, c)
		return len(st.rows) - 1
	}
	for _, hs := range p.pre {
		hs.statID = row(StepCost{Step: fmt.Sprintf("%s (node %q) before the graph", hs.op.Name(), hs.node), Where: WhereHost})
	}
	for _, ls := range p.layers {
		where := WhereHost
		if _, fallback := ls.packer.(*interpPacker); fallback {
			where = WhereFallback
		}
		ls.statID = row(StepCost{Step: fmt.Sprintf("pack %s (node %q, %d columns) into pinned memory: %s", ls.op.Name(), ls.node, len(ls.layer.Columns), ls.packer.Name()), Where: where})
		st.packers = append(st.packers, ls.packer.Name())
	}
	for _, hs := range p.post {
		hs.statID = row(StepCost{Step: fmt.Sprintf("%s (node %q) after the graph", hs.op.Name(), hs.node), Where: WhereHost})
	}
	return st
}

// add counts a call of row id that started at t, and returns now.
func (st *stats) add(id int, t time.Time) time.Time {
	now := time.Now()
	st.mu.Lock()
	st.rows[id].Calls++
	st.rows[id].Total += now.Sub(t)
	st.mu.Unlock()
	return now
}

func (st *stats) addGPU(d time.Duration) {
	st.mu.Lock()
	st.rows[statGPU].Calls++
	st.rows[statGPU].Total += d
	st.mu.Unlock()
}

func (st *stats) batch() {
	st.mu.Lock()
	st.batches++
	st.mu.Unlock()
}

// graph records the nodes of a graph captured for a batch of b rows.
func (st *stats) graph(b int64, desc string) {
	st.mu.Lock()
	st.graphs[b] = desc
	st.mu.Unlock()
}

// Summary returns the plan and the costs measured so far.
func (s *Session) Summary() *Summary {
	st := s.stats
	st.mu.Lock()
	defer st.mu.Unlock()
	sum := &Summary{Device: st.device, Slots: st.slots, Packers: st.packers, Dense: st.dense, Batches: st.batches,
		DeviceSteps: s.plan.deviceSummary()}
	for i, r := range st.rows {
		if r.Calls == 0 && (i == statStage && len(s.plan.uploads) == 0 || i == statGPU && s.opts.NoTiming) {
			continue
		}
		sum.Steps = append(sum.Steps, r)
	}
	sum.Steps = append(sum.Steps, st.profile...)
	var bs []int64
	for b := range st.graphs {
		bs = append(bs, b)
	}
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j] < bs[j-1]; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	for _, b := range bs {
		sum.Graphs = append(sum.Graphs, fmt.Sprintf("batch %d: %s", b, st.graphs[b]))
	}
	return sum
}

// ResetStats zeroes the measured costs (the plan stays), e.g. after a
// warm-up.
func (s *Session) ResetStats() {
	st := s.stats
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := range st.rows {
		st.rows[i].Calls, st.rows[i].Total = 0, 0
	}
	st.batches = 0
}
