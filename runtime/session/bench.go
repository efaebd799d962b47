package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recom-compiler/recom/interp"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	// Iters is the number of batches timed one by one for the latency
	// (at least 200; 0 means 200).
	Iters int
	// Warmup is the number of untimed batches first (0: two per set).
	Warmup int
	// InFlight lists the numbers of batches in flight the throughput is
	// measured at (nil: 1, 2 and 4); each must be at most the session's
	// slots.
	InFlight []int
	// Batches is the number of batches of each throughput run (0:
	// Iters).
	Batches int
}

// Latency is the distribution of end-to-end times of single batches.
type Latency struct {
	N                           int
	Median, P99, Mean, Min, Max time.Duration
}

// Throughput is one run with a number of batches in flight.
type Throughput struct {
	InFlight      int
	Batches       int
	Wall          time.Duration
	SamplesPerSec float64
	BatchesPerSec float64
	// Median and P99 are the batches' latencies in the run
	// (Pipeline.NextTimed: from a free place in the pipeline to the
	// outputs), as bench/peers.py times its peers' batches in flight.
	Median, P99 time.Duration
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Batch      int64 // rows of a batch
	Sets       int   // feed sets rotated over
	Latency    Latency
	Throughput []Throughput
	// Summary holds the steps' costs over the latency runs.
	Summary *Summary
}

// String prints one line of the latency and one of each throughput
// run, in key=value form.
func (r *BenchResult) String() string {
	var b strings.Builder
	l := r.Latency
	fmt.Fprintf(&b, "E2E batch=%d sets=%d latency_n=%d median_us=%.1f p99_us=%.1f mean_us=%.1f min_us=%.1f max_us=%.1f\n",
		r.Batch, r.Sets, l.N, us(l.Median), us(l.P99), us(l.Mean), us(l.Min), us(l.Max))
	for _, t := range r.Throughput {
		fmt.Fprintf(&b, "E2E batch=%d in_flight=%d batches=%d wall_ms=%.2f samples_per_s=%.0f batches_per_s=%.1f median_us=%.1f p99_us=%.1f\n",
			r.Batch, t.InFlight, t.Batches, float64(t.Wall.Nanoseconds())/1e6, t.SamplesPerSec, t.BatchesPerSec, us(t.Median), us(t.P99))
	}
	return b.String()
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// Bench measures the session end to end, from feeds in host memory to
// outputs in host memory, on batches rotating over sets (at least 4
// feed sets of one batch size): the latency of Run, batch by batch, and
// the throughput of a Pipeline with each of opts.InFlight batches in
// flight. The outputs of every batch are compared with those of its
// set's first run: a graph that computes something else shows.
func Bench(s *Session, sets []map[string]*interp.Tensor, opts BenchOptions) (*BenchResult, error) {
	if len(sets) < 4 {
		return nil, fmt.Errorf("session: Bench rotates over at least 4 feed sets, got %d", len(sets))
	}
	if opts.Iters <= 0 {
		opts.Iters = 200
	}
	if opts.Iters < 200 {
		return nil, fmt.Errorf("session: Bench times at least 200 batches, got %d", opts.Iters)
	}
	if opts.Warmup <= 0 {
		opts.Warmup = 2 * len(sets)
	}
	if opts.InFlight == nil {
		opts.InFlight = []int{1, 2, 4}
	}
	if opts.Batches <= 0 {
		opts.Batches = opts.Iters
	}
	for _, k := range opts.InFlight {
		if k < 1 || k > len(s.slots) {
			return nil, fmt.Errorf("session: %d batches in flight need as many slots; the session has %d", k, len(s.slots))
		}
	}
	res := &BenchResult{Sets: len(sets), Batch: -1}
	first := make([]map[string]*interp.Tensor, len(sets))
	for i := range opts.Warmup {
		j := i % len(sets)
		out, err := s.Run(sets[j])
		if err != nil {
			return nil, fmt.Errorf("session: bench warm-up, set %d: %w", j, err)
		}
		if first[j] == nil {
			first[j] = out
			continue
		}
		if err := same(out, first[j]); err != nil {
			return nil, fmt.Errorf("session: bench warm-up, set %d run again: %w", j, err)
		}
	}
	for j, out := range first {
		if out == nil {
			return nil, fmt.Errorf("session: the warm-up (%d batches) did not run set %d", opts.Warmup, j)
		}
		b := rows(out)
		if res.Batch >= 0 && b != res.Batch {
			return nil, fmt.Errorf("session: set %d has %d rows, set 0 has %d: Bench wants one batch size", j, b, res.Batch)
		}
		res.Batch = b
	}
	s.ResetStats()
	ds := make([]time.Duration, opts.Iters)
	for i := range ds {
		j := i % len(sets)
		t := time.Now()
		out, err := s.Run(sets[j])
		ds[i] = time.Since(t)
		if err != nil {
			return nil, err
		}
		if err := same(out, first[j]); err != nil {
			return nil, fmt.Errorf("session: bench batch %d (set %d): %w", i, j, err)
		}
	}
	res.Summary = s.Summary()
	slices.Sort(ds)
	l := Latency{N: len(ds), Median: ds[len(ds)/2], P99: p99(ds), Min: ds[0], Max: ds[len(ds)-1]}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	l.Mean = sum / time.Duration(len(ds))
	res.Latency = l
	for _, k := range opts.InFlight {
		tp, err := throughput(s, sets, first, k, opts.Batches)
		if err != nil {
			return nil, err
		}
		tp.SamplesPerSec = float64(int64(tp.Batches)*res.Batch) / tp.Wall.Seconds()
		tp.BatchesPerSec = float64(tp.Batches) / tp.Wall.Seconds()
		res.Throughput = append(res.Throughput, tp)
	}
	return res, nil
}

// throughput runs n batches through a pipeline of k in flight.
func throughput(s *Session, sets, first []map[string]*interp.Tensor, k, n int) (Throughput, error) {
	p := s.NewPipeline(k)
	defer p.Close()
	errc := make(chan error, 1)
	lat := make([]time.Duration, 0, n)
	t := time.Now()
	go func() {
		for i := range n {
			if err := p.Submit(sets[i%len(sets)]); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	var firstErr error
	for i := range n {
		out, d, err := p.NextTimed()
		if err == nil {
			lat = append(lat, d)
			err = same(out, first[i%len(sets)])
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("session: bench with %d in flight, batch %d: %w", k, i, err)
		}
	}
	wall := time.Since(t)
	if err := <-errc; err != nil && firstErr == nil {
		firstErr = err
	}
	tp := Throughput{InFlight: k, Batches: n, Wall: wall}
	if len(lat) > 0 {
		slices.Sort(lat)
		tp.Median, tp.P99 = lat[len(lat)/2], p99(lat)
	}
	return tp, firstErr
}

// p99 is the 99th percentile of sorted durations (the smallest value
// at least 99% of them do not exceed).
func p99(sorted []time.Duration) time.Duration {
	return sorted[(len(sorted)*99+99)/100-1]
}

// rows is the batch size of a session's outputs (their first dim).
func rows(out map[string]*interp.Tensor) int64 {
	for _, t := range out {
		if t.Rank() > 0 {
			return t.Dim(0)
		}
	}
	return 0
}

// same reports whether two runs of one set gave the same outputs, bit for
// bit.
func same(got, want map[string]*interp.Tensor) error {
	if len(got) != len(want) {
		return errors.New("a different set of outputs")
	}
	for name, w := range want {
		if err := got[name].Equal(w); err != nil {
			return fmt.Errorf("output %q differs from the set's first run: %v", name, err)
		}
	}
	return nil
}
