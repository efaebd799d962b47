package hostpack

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The columns of a Measure or a Pack are cut into chunks (contiguous
// ranges of about equal estimated work, a few per worker), which the
// calling goroutine and its helpers claim one at a time: a helper that
// starts late (its thread asleep, its processor busy with another batch)
// finds less or nothing left instead of holding the batch up, and a
// column that costs more than estimated delays only its own chunk.
//
// Helpers are goroutines started per call, at most Options.Workers-1 per
// call and GOMAXPROCS-1 for all the Packers of the process together
// (batches packed at once share the processors rather than
// oversubscribing them); the caller always works, so a call makes
// progress when no helper can start. The caller waits for the chunks,
// not for the helpers: one that has not claimed a chunk when the last is
// done leaves without touching the Packer.

// helpers counts the helper goroutines running, all Packers together.
var helpers atomic.Int32

// Chunking: at most chunksPerWorker chunks per worker, each of at least
// minChunkWork (about nanoseconds) unless a single column is less.
const (
	chunksPerWorker = 4
	minChunkWork    = 4000
)

// phase is what a job does to a range of columns.
type phase uint8

const (
	phaseMeasure phase = iota
	phasePack
)

// job is one parallel call: its chunks and their errors. It goes back to
// jobs when the caller and every helper it started are done with it.
type job struct {
	k      *Packer
	phase  phase
	bounds []int   // chunk c is columns [bounds[c], bounds[c+1])
	errs   []error // per chunk
	next   atomic.Int32
	done   atomic.Int32
	refs   atomic.Int32
	fin    chan struct{} // one token when the last chunk is done
}

var jobs = sync.Pool{New: func() any { return &job{fin: make(chan struct{}, 1)} }}

// workers returns the goroutines a call may use: Options.Workers, or
// GOMAXPROCS now.
func (p *Plan) maxWorkers() int {
	if p.workers > 0 {
		return p.workers
	}
	return runtime.GOMAXPROCS(0)
}

// parallel runs phase ph over the columns (k.work holds each column's
// estimated work) and returns the error of the first column that failed,
// in column order: the same whatever the number of workers.
func (k *Packer) parallel(ph phase) error {
	P := k.p.maxWorkers()
	j := jobs.Get().(*job)
	j.k, j.phase = k, ph
	j.bounds = chunks(j.bounds[:0], k.work, P)
	n := len(j.bounds) - 1
	if cap(j.errs) < n {
		j.errs = make([]error, n)
	}
	j.errs = j.errs[:n]
	j.next.Store(0)
	j.done.Store(0)
	nh := min(P-1, n-1)
	j.refs.Store(int32(1 + nh))
	limit := int32(runtime.GOMAXPROCS(0) - 1)
	for h := range nh {
		if !takeHelper(limit) {
			j.refs.Add(-int32(nh - h))
			break
		}
		go func() {
			j.work()
			helpers.Add(-1)
			j.release()
		}()
	}
	j.work()
	<-j.fin
	var err error
	for c, e := range j.errs {
		if e != nil && err == nil {
			err = e
		}
		j.errs[c] = nil
	}
	j.release()
	return err
}

// takeHelper counts one more helper unless limit are running.
func takeHelper(limit int32) bool {
	for {
		h := helpers.Load()
		if h >= limit {
			return false
		}
		if helpers.CompareAndSwap(h, h+1) {
			return true
		}
	}
}

// work claims and runs chunks until none is left.
func (j *job) work() {
	n := int32(len(j.bounds) - 1)
	for {
		c := j.next.Add(1) - 1
		if c >= n {
			return
		}
		j.errs[c] = j.run(int(c))
		if j.done.Add(1) == n {
			j.fin <- struct{}{}
		}
	}
}

// run runs chunk c, a panic turned into an error.
func (j *job) run(c int) (err error) {
	lo, hi := j.bounds[c], j.bounds[c+1]
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("hostpack: internal error packing columns %d..%d: %v", lo, hi-1, e)
		}
	}()
	if j.phase == phaseMeasure {
		return j.k.measureRange(lo, hi)
	}
	return j.k.packRange(lo, hi)
}

func (j *job) release() {
	if j.refs.Add(-1) == 0 {
		j.k = nil
		jobs.Put(j)
	}
}

// chunks cuts the columns of the given work into contiguous chunks of
// about equal work for P workers, into dst (its bounds, from 0 to
// len(work)).
func chunks(dst []int, work []int64, P int) []int {
	C := len(work)
	var total int64
	for _, w := range work {
		total += w
	}
	n := 1
	if P > 1 {
		n = int(max(min(int64(C), int64(chunksPerWorker*P), total/minChunkWork+1), 1))
	}
	dst = append(dst, 0)
	var acc int64
	for i, w := range work {
		acc += w
		if len(dst) < n && acc*int64(n) >= total*int64(len(dst)) && i+1 < C {
			dst = append(dst, i+1)
		}
	}
	return append(dst, C)
}
