package hostpack

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The columns of a Measure or a Pack are cut into chunks (contiguous
// ranges of about equal estimated work, a few per worker), which the
// calling goroutine and the workers of a process-wide pool claim one at
// a time: a worker that comes late (its thread asleep, its processor busy
// with another batch) finds less or nothing left instead of holding the
// batch up, and a column that costs more than estimated delays only its
// own chunk. The caller always works, so a call makes progress when no
// worker can; it waits for the chunks, not for the workers.
//
// The pool has GOMAXPROCS-1 workers, started on first use, shared by all
// the Packers of the process (batches packed at once share the
// processors rather than oversubscribing them); a call lets at most
// Options.Workers-1 of them take its chunks. A worker that finds no work
// keeps looking for SpinWait (it yields its processor to any other
// goroutine between looks, and stops as soon as it finds its thread was
// descheduled: on a machine with more threads to run than cores,
// spinning would slow the callers down) before it sleeps: waking a
// sleeping thread
// takes tens of microseconds on a virtual machine, and the runtime wakes
// them one after the other, which is more than a batch's whole packing
// at B=256; a batch that comes within SpinWait of the last one finds the
// workers awake.

// spinPoll is how long a spinning worker polls for a job between two
// yields of its processor.
const spinPoll = 5 * time.Microsecond

// spinPreempted is the gap between two polls of a spinning worker that
// says its thread was descheduled.
const spinPreempted = 50 * time.Microsecond

// spinWait is SpinWait in nanoseconds.
var spinWait atomic.Int64

func init() { spinWait.Store(int64(500 * time.Microsecond)) }

// spinners caps the workers spinning at once (0: no cap).
var spinners atomic.Int32

// SetSpinners caps the pool's workers that spin at once when idle (the
// others sleep at once, and a post wakes them), and returns the previous
// cap; 0: no cap (the default: every idle worker spins for SpinWait). A
// server whose request handlers share the processors with the packers
// (recom serve --pack-spinners) keeps a few awake for the next batch
// without taking every processor from the handlers: a spinning worker
// yields its processor only every few microseconds.
func SetSpinners(n int) int {
	return int(spinners.Swap(int32(max(n, 0))))
}

// SetSpinWait sets how long an idle worker of the pool keeps looking for
// chunks before it sleeps (default 500µs: the GPU time of a batch of
// model E at B=256, so that batch after batch the workers stay awake;
// 0: sleep at once), and returns the previous value.
func SetSpinWait(d time.Duration) time.Duration {
	return time.Duration(spinWait.Swap(int64(max(d, 0))))
}

// Chunking: at most chunksPerWorker chunks per worker, each of at least
// minChunkWork (about nanoseconds) unless a single column is less.
const chunksPerWorker = 4

// minChunkWork is a var for the benchmarks' -hostpack.min-chunk only.
var minChunkWork int64 = 4000

// phase is what a job does to a range of columns.
type phase uint8

const (
	phaseMeasure phase = iota
	phasePack
	// The ranges of records of a parse of tf.Example records (job.x),
	// one chunk each: indexed (exBatch.index), then written into their
	// columns (Packer.packExamples).
	phaseIndex
	phaseRecords
)

// job is one parallel call: its chunks and their errors. It goes back to
// jobs when the caller and every worker that took it are done with it.
type job struct {
	k      *Packer
	phase  phase
	x      int     // the parse of phaseIndex and phaseRecords
	bounds []int   // chunk c is columns [bounds[c], bounds[c+1])
	errs   []error // per chunk
	takers int32   // workers that may take it (Options.Workers-1)
	taken  int32   // workers that took it (under the pool's lock)
	next   atomic.Int32
	done   atomic.Int32
	refs   atomic.Int32
	fin    chan struct{} // one token when the last chunk is done
}

var jobs = sync.Pool{New: func() any { return &job{fin: make(chan struct{}, 1)} }}

// pool is the process-wide workers and the jobs with chunks to claim.
type pool struct {
	mu      sync.Mutex
	cond    sync.Cond
	jobs    []*job
	pending atomic.Int32 // len(jobs), read by spinning workers without the lock
	workers int          // running
	parked  int          // asleep on cond
	// spinning counts the workers spinning (at most spinners, when set).
	spinning atomic.Int32
}

// trySpin takes a place among the spinning workers, if the cap leaves
// one.
func (p *pool) trySpin() bool {
	for {
		n, c := p.spinning.Load(), spinners.Load()
		if c > 0 && n >= c {
			return false
		}
		if p.spinning.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

var workers = &pool{}

func init() { workers.cond.L = &workers.mu }

// post offers j's chunks to the pool's workers, starting workers up to
// GOMAXPROCS-1 and waking sleeping ones.
func (p *pool) post(j *job) {
	target := runtime.GOMAXPROCS(0) - 1
	p.mu.Lock()
	p.jobs = append(p.jobs, j)
	p.pending.Store(int32(len(p.jobs)))
	for p.workers < target {
		p.workers++
		go p.work()
	}
	if p.parked > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

// withdraw removes j from the jobs (its chunks are all done), so that no
// worker takes it once its caller lets it go.
func (p *pool) withdraw(j *job) {
	p.mu.Lock()
	for i, x := range p.jobs {
		if x == j {
			last := len(p.jobs) - 1
			copy(p.jobs[i:], p.jobs[i+1:])
			p.jobs[last] = nil
			p.jobs = p.jobs[:last]
			break
		}
	}
	p.pending.Store(int32(len(p.jobs)))
	p.mu.Unlock()
}

// take returns a job with chunks to claim that may take one more worker
// (its refs counted), or nil; jobs whose chunks are all claimed leave the
// list. The caller holds p.mu.
func (p *pool) take() *job {
	keep := p.jobs[:0]
	var got *job
	for _, j := range p.jobs {
		if int(j.next.Load()) >= len(j.bounds)-1 {
			continue // all claimed: its caller withdraws it
		}
		keep = append(keep, j)
		if got == nil && j.taken < j.takers {
			j.taken++
			j.refs.Add(1)
			got = j
		}
	}
	clear(p.jobs[len(keep):])
	p.jobs = keep
	p.pending.Store(int32(len(p.jobs)))
	return got
}

// work is a worker: it runs the chunks of the jobs posted, spins
// SpinWait when there are none, then sleeps until the next post. It
// leaves when there are more workers than GOMAXPROCS-1.
func (p *pool) work() {
	idle := time.Now()
	spinning := false // holding a place among the spinning workers
	stopSpin := func() {
		if spinning {
			spinning = false
			p.spinning.Add(-1)
		}
	}
	for {
		var j *job
		if p.pending.Load() > 0 {
			p.mu.Lock()
			j = p.take()
			p.mu.Unlock()
		}
		if j != nil {
			stopSpin()
			j.work()
			j.release()
			idle = time.Now()
			continue
		}
		if spin := time.Duration(spinWait.Load()); spin > 0 && time.Since(idle) < spin && (spinning || p.trySpin()) {
			spinning = true
			// Poll for a few microseconds, then let any other
			// goroutine have the processor (Gosched takes the
			// scheduler's lock: not on every poll). A poll that
			// finds its thread was off the CPU for a while means
			// the machine has more threads to run than cores:
			// spinning would take a core from the callers, so the
			// worker sleeps at once.
			last := time.Now()
			for start := last; p.pending.Load() == 0; {
				now := time.Now()
				if now.Sub(last) > spinPreempted {
					idle = now.Add(-spin)
					break
				}
				last = now
				if now.Sub(start) >= spinPoll {
					break
				}
			}
			if p.pending.Load() == 0 && time.Since(idle) < spin {
				runtime.Gosched()
			}
			continue
		}
		stopSpin()
		p.mu.Lock()
		if p.workers > runtime.GOMAXPROCS(0)-1 {
			p.workers--
			p.mu.Unlock()
			return
		}
		if len(p.jobs) == 0 {
			p.parked++
			p.cond.Wait()
			p.parked--
		}
		p.mu.Unlock()
		idle = time.Now()
	}
}

// maxWorkers returns the goroutines a call may use: Options.Workers, or
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
	P := min(k.p.maxWorkers(), runtime.GOMAXPROCS(0))
	j := jobs.Get().(*job)
	j.bounds = chunks(j.bounds[:0], k.work, P)
	return k.run(j, ph, 0, P)
}

// parallelRecords runs phase ph (phaseIndex or phaseRecords) over the R
// ranges of records of parse x, a chunk each, on the same pool; it
// returns the error of the first range that failed.
func (k *Packer) parallelRecords(ph phase, x, R int) error {
	j := jobs.Get().(*job)
	j.bounds = j.bounds[:0]
	for i := 0; i <= R; i++ {
		j.bounds = append(j.bounds, i)
	}
	return k.run(j, ph, x, min(k.p.maxWorkers(), runtime.GOMAXPROCS(0)))
}

// run runs job j's chunks (its bounds set) on the caller and up to P-1
// workers of the pool.
func (k *Packer) run(j *job, ph phase, x, P int) error {
	j.k, j.phase, j.x = k, ph, x
	n := len(j.bounds) - 1
	if cap(j.errs) < n {
		j.errs = make([]error, n)
	}
	j.errs = j.errs[:n]
	j.next.Store(0)
	j.done.Store(0)
	j.refs.Store(1)
	j.takers, j.taken = int32(min(P-1, n-1)), 0
	if j.takers > 0 {
		workers.post(j)
	}
	j.work()
	if j.takers > 0 {
		j.awaitChunks()
	}
	<-j.fin
	if j.takers > 0 {
		workers.withdraw(j)
	}
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

// finSpin is how long a caller whose chunks are all claimed polls for the
// workers' last ones before it blocks on the job's token: a goroutine
// parked on a channel takes tens of microseconds to wake on a virtual
// machine, longer than the chunks of a small batch take.
// (A var for the benchmarks' -hostpack-fin-spin only.)
var finSpin = 200 * time.Microsecond

// awaitChunks polls until the job's chunks are done, or for finSpin
// (letting other goroutines have the processor every spinPoll).
func (j *job) awaitChunks() {
	n := int32(len(j.bounds) - 1)
	if j.done.Load() >= n {
		return
	}
	start := time.Now()
	last := start
	for j.done.Load() < n {
		now := time.Now()
		if now.Sub(start) >= finSpin {
			return
		}
		if now.Sub(last) >= spinPoll {
			runtime.Gosched()
			last = time.Now()
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
			switch j.phase {
			case phaseIndex, phaseRecords:
				xb := &j.k.ex[j.x]
				err = j.k.p.examples[j.x].op.Errorf("hostpack: internal error reading records %d..%d: %v", xb.bound(lo), xb.bound(hi)-1, e)
			default:
				err = fmt.Errorf("hostpack: internal error packing columns %d..%d: %v", lo, hi-1, e)
			}
		}
	}()
	switch j.phase {
	case phaseMeasure:
		return j.k.measureRange(lo, hi)
	case phasePack:
		return j.k.packRange(lo, hi)
	}
	for i := lo; i < hi; i++ {
		var err error
		if j.phase == phaseIndex {
			err = j.k.indexRange(j.x, i)
		} else {
			j.k.recordRange(j.x, i)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
