package pass

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Timer is a node of a timing tree (--mlir-timing): a name, the wall time
// spent in it, and children in first-use order. A driver makes the root
// with NewTimer, times its own phases with Start ("Parser", "Output"),
// passes the root as Config.Timing, and writes WriteReport at the end.
// Methods on a nil *Timer do nothing.
type Timer struct {
	Name     string
	Wall     time.Duration
	Children []*Timer
	keys     map[string]*Timer
}

// NewTimer returns a root timer.
func NewTimer() *Timer { return &Timer{Name: "Total"} }

func (t *Timer) add(d time.Duration) {
	if t != nil {
		t.Wall += d
	}
}

// Nest returns the child named name, creating it on first use.
func (t *Timer) Nest(name string) *Timer { return t.nest("name:"+name, name) }

func (t *Timer) child(i int, name string) *Timer {
	return t.nest(fmt.Sprintf("elem:%d:%s", i, name), name)
}

func (t *Timer) nest(key, name string) *Timer {
	if t == nil {
		return nil
	}
	if c, ok := t.keys[key]; ok {
		return c
	}
	if t.keys == nil {
		t.keys = map[string]*Timer{}
	}
	c := &Timer{Name: name}
	t.keys[key] = c
	t.Children = append(t.Children, c)
	return c
}

// Start starts timing the child named name and returns the function that
// stops it: defer tm.Start("Parser")().
func (t *Timer) Start(name string) (stop func()) {
	c := t.Nest(name)
	start := time.Now()
	return func() { c.add(time.Since(start)) }
}

// Total returns the root's wall time: its own when set, else the sum of its
// children.
func (t *Timer) Total() time.Duration {
	if t.Wall != 0 {
		return t.Wall
	}
	var d time.Duration
	for _, c := range t.Children {
		d += c.Wall
	}
	return d
}

const reportRule = "===-------------------------------------------------------------------------===\n"

func reportHeader(b *strings.Builder, title string) {
	b.WriteString(reportRule)
	pad := (80 - len(title)) / 2
	b.WriteString(strings.Repeat(" ", pad) + title + "\n")
	b.WriteString(reportRule)
}

// WriteReport writes the timing tree as MLIR's --mlir-timing report
// (display mode "tree"):
//
//	===-------------------------------------------------------------------------===
//	                         ... Execution time report ...
//	===-------------------------------------------------------------------------===
//	  Total Execution Time: 0.0135 seconds
//
//	  ----Wall Time----  ----Name----
//	    0.0004 (  2.7%)  Parser
//	    0.0120 ( 89.1%)  'func.func' Pipeline
//	    0.0087 ( 64.5%)    CSE
//	    0.0135 (100.0%)  Total
func (t *Timer) WriteReport(w io.Writer) error {
	var b strings.Builder
	reportHeader(&b, "... Execution time report ...")
	total := t.Total()
	fmt.Fprintf(&b, "  Total Execution Time: %.4f seconds\n\n", total.Seconds())
	b.WriteString("  ----Wall Time----  ----Name----\n")
	var rec func(c *Timer, depth int)
	rec = func(c *Timer, depth int) {
		fmt.Fprintf(&b, "  %s  %s%s\n", timeCol(c.Wall, total), strings.Repeat("  ", depth), c.Name)
		for _, g := range c.Children {
			rec(g, depth+1)
		}
	}
	for _, c := range t.Children {
		rec(c, 0)
	}
	fmt.Fprintf(&b, "  %s  Total\n", timeCol(total, total))
	_, err := io.WriteString(w, b.String())
	return err
}

func timeCol(d, total time.Duration) string {
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(d) / float64(total)
	}
	return fmt.Sprintf("%8.4f (%5.1f%%)", d.Seconds(), pct)
}

// WriteStatistics writes the statistics collected by the passes of pm (over
// all its runs) as MLIR's --mlir-pass-statistics does. display is
// "pipeline" (the default: passes in pipeline order, nested pipelines as
// "'func.func' Pipeline" headers) or "list" (one entry per pass name,
// statistics summed over the pipeline, sorted by name).
//
//	===-------------------------------------------------------------------------===
//	                         ... Pass statistics report ...
//	===-------------------------------------------------------------------------===
//	'func.func' Pipeline
//	  CSE
//	    (S) 3 num-cse'd - Number of operations CSE'd
//	    (S) 1 num-dce'd - Number of operations DCE'd
func (pm *PassManager) WriteStatistics(w io.Writer, display string) error {
	var b strings.Builder
	reportHeader(&b, "... Pass statistics report ...")
	switch display {
	case "", "pipeline":
		pm.writeStatsPipeline(&b, 0)
	case "list":
		pm.writeStatsList(&b)
	default:
		return fmt.Errorf("unknown pass statistics display mode %q (want pipeline or list)", display)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (pm *PassManager) writeStatsPipeline(b *strings.Builder, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, e := range pm.elems {
		if e.nested != nil {
			fmt.Fprintf(b, "%s'%s' Pipeline\n", ind, anchorText(e.nested.anchor))
			e.nested.writeStatsPipeline(b, depth+1)
			continue
		}
		fmt.Fprintf(b, "%s%s\n", ind, e.pass.decl.DisplayName())
		writeStats(b, ind+"  ", e.stats.sorted())
	}
}

func writeStats(b *strings.Builder, ind string, stats []*Statistic) {
	width := 0
	for _, s := range stats {
		width = max(width, len(fmt.Sprint(s.Value)))
	}
	for _, s := range stats {
		fmt.Fprintf(b, "%s(S) %*d %s - %s\n", ind, width, s.Value, s.Name, s.Desc)
	}
}

func (pm *PassManager) writeStatsList(b *strings.Builder) {
	merged := map[string]*statSet{}
	var visit func(p *PassManager)
	visit = func(p *PassManager) {
		for _, e := range p.elems {
			if e.nested != nil {
				visit(e.nested)
				continue
			}
			name := e.pass.decl.DisplayName()
			m := merged[name]
			if m == nil {
				m = &statSet{}
				merged[name] = m
			}
			for _, s := range e.stats.list {
				m.get(s.Name, s.Desc).Add(s.Value)
			}
		}
	}
	visit(pm)
	names := make([]string, 0, len(merged))
	for n := range merged {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(b, "%s\n", n)
		writeStats(b, "  ", merged[n].sorted())
	}
}

// Statistics returns the statistics of every pass in pm, in pipeline order,
// keyed by the pass's flag (for tests and tools; repeated passes are summed).
func (pm *PassManager) Statistics() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	var visit func(p *PassManager)
	visit = func(p *PassManager) {
		for _, e := range p.elems {
			if e.nested != nil {
				visit(e.nested)
				continue
			}
			m := out[e.pass.decl.Flag]
			if m == nil {
				m = map[string]int64{}
				out[e.pass.decl.Flag] = m
			}
			for _, s := range e.stats.list {
				m[s.Name] += s.Value
			}
		}
	}
	visit(pm)
	return out
}
