package serve

import (
	"bytes"
	"runtime"
	"slices"
	"sync"

	"github.com/recom-compiler/recom/interp"
)

// The row format's "instances" of a large body are read by several
// goroutines at once: each reads a run of rows with instanceRow into
// buffers of its own, and the runs are joined input by input. A request of E (1001 inputs, 64 rows: ~1 MB of JSON) is read in
// a fraction of the time one goroutine takes. The parallel reader only
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
	// each of at least instancesRunBytes (when > 0).
	instancesChunks   = 0
	instancesRunBytes = 32 << 10
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
		bufs     []tbuf
		rowShape [][]int64
		rows     int
		after    int // the last run: past the list's ']'
		ok       bool
	}
	runs := make([]run, chunks)
	inner := s.depth + 1 // inside the list
	read := func(c int) {
		r := &runs[c]
		r.bufs = make([]tbuf, len(sig.Inputs))
		for k, in := range sig.Inputs {
			r.bufs[k].dt = in.DType
		}
		r.rowShape = make([][]int64, len(sig.Inputs))
		seen := make([]bool, len(sig.Inputs))
		order := make([]int, 0, len(sig.Inputs))
		end := len(b)
		if c+1 < chunks {
			end = starts[c+1]
		}
		rs := &scanner{buf: b, pos: starts[c], base: s.base, depth: inner}
		for {
			if rs.pos >= len(b) || b[rs.pos] != '{' {
				return
			}
			clear(seen)
			var err error
			if order, err = rs.instanceRow(sig, r.bufs, r.rowShape, seen, order, r.rows); err != nil {
				return
			}
			if slices.Contains(seen, false) {
				return
			}
			if r.rows++; r.rows == 1 {
				// The run's rows, estimated by its first row's bytes; run
				// 0's buffers take every run's rows (they are joined there).
				last := end
				if c == 0 {
					last = len(b)
				}
				more := (last - rs.pos) / max(rs.pos-starts[c], 1)
				for k := range r.bufs {
					r.bufs[k].grow(more * r.bufs[k].len())
				}
			}
			rs.ws()
			switch {
			case rs.pos < len(b) && b[rs.pos] == ',':
				rs.pos++
				rs.ws()
				if rs.pos == end {
					r.ok = c+1 < chunks
					return
				}
				if rs.pos > end {
					return
				}
			case rs.pos < len(b) && b[rs.pos] == ']':
				r.after, r.ok = rs.pos+1, c+1 == chunks
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
		rows += runs[c].rows
	}
	feeds = make([]*interp.Tensor, len(sig.Inputs))
	for k := range sig.Inputs {
		shape0 := runs[0].rowShape[k]
		n := 0
		for c := range runs {
			if !slices.Equal(runs[c].rowShape[k], shape0) {
				return nil, false // the sequential reader names the row
			}
			n += runs[c].bufs[k].len()
		}
		all := &runs[0].bufs[k]
		all.grow(n - all.len())
		for c := 1; c < chunks; c++ {
			all.append(&runs[c].bufs[k])
		}
		shape := append([]int64{int64(rows)}, shape0...)
		t, err := all.tensor(shape)
		if err != nil {
			return nil, false
		}
		feeds[k] = t
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
	t.f32 = append(t.f32, o.f32...)
	t.f64 = append(t.f64, o.f64...)
	t.i8 = append(t.i8, o.i8...)
	t.i16 = append(t.i16, o.i16...)
	t.i32 = append(t.i32, o.i32...)
	t.i64 = append(t.i64, o.i64...)
	t.u8 = append(t.u8, o.u8...)
	t.b = append(t.b, o.b...)
	t.s = append(t.s, o.s...)
}
