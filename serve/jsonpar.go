package serve

import (
	"bytes"
	"runtime"
	"slices"
	"sync"

	"github.com/recom-compiler/recom/interp"
)

// The row format's "instances" of a large body are read by several
// goroutines at once: each reads a run of rows with a rowReader of its own
// (the row plan, instanceRow), and the runs are joined input by input. A
// request of E (1001 inputs, 64 rows: ~1 MB of JSON) is read in a
// fraction of the time one goroutine takes. The parallel reader only
// ever succeeds with what the sequential one gives: each row is read by
// the same code, the runs must meet exactly (below), and they must agree
// on each input's row shape; anything else (an error, a row that is not
// an object, runs that do not meet) falls back to the sequential reader,
// whose results and errors are the reference.

// Settings of the parallel reader (variables for the tests).
var (
	// instancesParallelBytes is the least size of the "instances" list
	// read in parallel.
	instancesParallelBytes = 64 << 10
	// instancesChunks is the number of runs (0: GOMAXPROCS, at most 16),
	// each of at least instancesRunBytes (when > 0): a run costs its
	// reader's buffers and plan and its share of the join, for every
	// input, about as much as 4 rows of E (1001 inputs, ~17 KB a row), so
	// that a run is at least 8 of them.
	instancesChunks   = 0
	instancesRunBytes = 128 << 10
)

// instancesParallel reads the "instances" list at s.pos in parallel; ok
// is false (s unchanged) when it did not, and the sequential reader then
// reads it.
//
// The runs start at guesses: past an even share of the bytes, the next
// '{' that follows '}', ',' (a row's start if that is not inside a
// string). Run 0 starts at the list's first row; each run reads rows
// until it reaches the next run's start, which it must land on exactly,
// and the last run reads to the list's ']'. A run that lands exactly on
// the next one's start read the true rows up to it (by induction from
// run 0), so the next run's start was a row's: the guesses are checked,
// and a wrong one (inside a string) falls back.
func (s *scanner) instancesParallel(sig *Signature) (feeds []*interp.Tensor, ok bool) {
	if s.general || len(sig.Inputs) < 2 || s.depth+2 > MaxJSONDepth || len(s.buf)-s.pos < instancesParallelBytes {
		return nil, false
	}
	chunks := instancesChunks
	if chunks <= 0 {
		chunks = min(runtime.GOMAXPROCS(0), 16)
	}
	b := s.buf
	at := s.skipWS()
	if instancesRunBytes > 0 {
		chunks = min(chunks, (len(b)-at)/instancesRunBytes)
	}
	if chunks < 2 || at >= len(b) || b[at] != '[' {
		return nil, false
	}
	first := at + 1
	for first < len(b) && isSpace(b[first]) {
		first++
	}
	starts := []int{first}
	for c := 1; c < chunks; c++ {
		g := max(at+c*(len(b)-at)/chunks, starts[len(starts)-1]+1)
		if next := nextRowStart(b, g); next > starts[len(starts)-1] {
			starts = append(starts, next)
		}
	}
	chunks = len(starts)
	if chunks < 2 {
		return nil, false
	}
	type run struct {
		r     *rowReader
		after int // the last run: past the list's ']'
		ok    bool
	}
	runs := make([]run, chunks)
	inner := s.depth + 1 // inside the list
	for c := range runs {
		runs[c].r = getRowReader(sig)
	}
	defer func() {
		for c := range runs {
			runs[c].r.done()
		}
	}()
	read := func(c int) {
		r := runs[c].r
		end := len(b)
		if c+1 < chunks {
			end = starts[c+1]
		}
		rs := &scanner{buf: b, pos: starts[c], base: s.base, depth: inner}
		for {
			if rs.pos >= len(b) || b[rs.pos] != '{' {
				return
			}
			// Room for the run's rows left; run 0's buffers take every
			// run's rows (they are joined there).
			last := end
			if c == 0 {
				last = len(b)
			}
			r.room(r.rows, rs.pos-starts[c], last-rs.pos)
			if err := r.row(rs, r.rows); err != nil {
				return
			}
			rs.ws()
			switch {
			case rs.pos < len(b) && b[rs.pos] == ',':
				rs.pos++
				rs.ws()
				if rs.pos == end {
					runs[c].ok = c+1 < chunks
					return
				}
				if rs.pos > end {
					return
				}
			case rs.pos < len(b) && b[rs.pos] == ']':
				runs[c].after, runs[c].ok = rs.pos+1, c+1 == chunks
				return
			default:
				return
			}
		}
	}
	var wg sync.WaitGroup
	for c := 1; c < chunks; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read(c)
		}()
	}
	read(0)
	wg.Wait()
	rows := 0
	for c := range runs {
		if !runs[c].ok {
			return nil, false
		}
		rows += runs[c].r.rows
	}
	r0 := runs[0].r
	for k := range sig.Inputs {
		n := 0
		for c := range runs {
			if !slices.Equal(runs[c].r.rowShape[k], r0.rowShape[k]) {
				return nil, false // the sequential reader names the row
			}
			n += runs[c].r.bufs[k].len()
		}
		all := &r0.bufs[k]
		all.grow(n - all.len())
		for c := 1; c < chunks; c++ {
			all.append(&runs[c].r.bufs[k])
		}
	}
	feeds, err := r0.feeds(rows)
	if err != nil {
		return nil, false
	}
	s.pos = runs[chunks-1].after
	return feeds, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nextRowStart is the offset of the first '{' at or past from that
// follows a '}' and a ',' (with spaces between), or -1.
func nextRowStart(b []byte, from int) int {
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], '}')
		if j < 0 {
			return -1
		}
		k := i + j + 1
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k < len(b) && b[k] == ',' {
			k++
			for k < len(b) && isSpace(b[k]) {
				k++
			}
			if k < len(b) && b[k] == '{' {
				return k
			}
		}
		i += j + 1
	}
	return -1
}

// append appends o's elements (of t's dtype) to t.
func (t *tbuf) append(o *tbuf) {
	switch t.dt {
	case interp.Float32:
		t.f32 = append(t.f32, o.f32...)
	case interp.Float64:
		t.f64 = append(t.f64, o.f64...)
	case interp.Int8:
		t.i8 = append(t.i8, o.i8...)
	case interp.Int16:
		t.i16 = append(t.i16, o.i16...)
	case interp.Int32:
		t.i32 = append(t.i32, o.i32...)
	case interp.Int64:
		t.i64 = append(t.i64, o.i64...)
	case interp.Uint8:
		t.u8 = append(t.u8, o.u8...)
	case interp.Bool:
		t.b = append(t.b, o.b...)
	case interp.String:
		t.s = append(t.s, o.s...)
	}
}
