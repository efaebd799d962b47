package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/recom-compiler/recom/interp"
)

// BatchOptions configure dynamic batching.
type BatchOptions struct {
	// MaxBatch is the most rows one batch holds (requests are put
	// together until the next would pass it). A request of more rows
	// runs alone.
	MaxBatch int
	// Timeout is the longest the first request of a batch waits for
	// others while the backend is busy with another batch; 0 takes only
	// the requests already waiting. With no batch in flight the batch
	// goes at once with the requests already waiting: an idle backend
	// adds no queue delay.
	Timeout time.Duration
	// InFlight is the number of batches the backend runs at once; while
	// all are busy the next batch keeps filling.
	InFlight int
	// MaxQueue is the most requests waiting for a batch; a request
	// beyond it is refused (UNAVAILABLE, HTTP 503) at once.
	MaxQueue int
	// Sizes are the allowed batch sizes, ascending: a batch is padded
	// (its last row repeated) to the smallest one that holds it, so that
	// the GPU runtime sees few distinct sizes (it captures a CUDA graph
	// per size). Empty: no padding.
	Sizes []int
	// Alone runs every request as its own batch (a model whose inputs or
	// outputs have no batch dimension).
	Alone bool
	// Queued sends every request through the queue, the collector and a
	// worker: none runs inline on its own goroutine (Batcher.inline).
	Queued bool
}

// Defaults of BatchOptions (the flags of recom serve).
const (
	DefaultMaxBatch = 256
	// DefaultTimeout 0: a batch goes as soon as the backend has a
	// free slot, with the requests waiting then; while every slot is busy
	// batches fill anyway. On the H200 with model E (07:05) a 500 µs wait
	// gave batches of 4.3 requests and a median end-to-end latency of
	// 1.77 ms at 5,600 req/s, no wait 1.2 requests and 0.91 ms.
	DefaultTimeout = 0
	// DefaultInFlight 8: on the H200 with model E (09:50) 8 slots let a
	// request at 9,200-9,600 req/s mostly find one free and run alone, on
	// views of its body: median end-to-end 0.86 ms and 0.13 ms of it the
	// server's, where 4 slots queued and joined requests (1.18 ms, 0.38);
	// the highest rate at p99 <= 10 ms was the same within the noise
	// (18,400 and 19,200 req/s).
	DefaultInFlight = 8
	DefaultMaxQueue = 4096
)

func (o *BatchOptions) withDefaults() BatchOptions {
	c := *o
	if c.MaxBatch <= 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.InFlight <= 0 {
		c.InFlight = DefaultInFlight
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = DefaultMaxQueue
	}
	c.Sizes = slices.Clone(c.Sizes)
	slices.Sort(c.Sizes)
	return c
}

// ExactUpTo is the row count up to which GPUSizes allows every batch
// size: a request of at most that many rows (the load's 1-64) that runs
// as a batch by itself then needs no padding, and runs on views of its
// body (views.go) instead of being copied into a padded batch.
const ExactUpTo = 64

// GPUSizes are the GPU's default allowed batch sizes: every size up to
// ExactUpTo (and max), then powers of two up to and including max. Each
// is one CUDA graph per slot (captured at the warm-up), which costs the
// device little memory at these sizes.
func GPUSizes(max int) []int {
	var s []int
	for n := 1; n <= min(ExactUpTo, max); n++ {
		s = append(s, n)
	}
	for _, n := range PowersOfTwo(max) {
		if n > ExactUpTo {
			s = append(s, n)
		}
	}
	return s
}

// PowersOfTwo are the allowed batch sizes 1, 2, 4, ... up to and
// including max (max itself when it is no power of two).
func PowersOfTwo(max int) []int {
	var s []int
	for n := 1; n < max; n *= 2 {
		s = append(s, n)
	}
	return append(s, max)
}

// request is one request waiting for its batch.
type request struct {
	ctx   context.Context
	feeds []*interp.Tensor // in Signature.Inputs order
	// raw, when set instead of feeds, are the inputs as a binary
	// request's body holds them (decodeInferRaw): the batch copies their
	// bytes.
	raw  *rawFeeds
	rows int
	key  string // trailing shapes: requests of equal keys concatenate
	enq  time.Time
	done chan reply // buffered: a worker never waits for the handler
	// helper is set when the request's goroutine waits in DoTimed and
	// takes its part of the join (a reply with a job) on done.
	helper bool
	// state is reqWaiting until a worker claims the request for a batch
	// (reqClaimed: from then on its feeds are the batch's) or its client
	// leaves first (reqGone: no worker reads its feeds).
	state atomic.Int32
}

// inputs is the number of r's inputs.
func (r *request) inputs() int {
	if r.raw != nil {
		return len(r.raw.shapes)
	}
	return len(r.feeds)
}

// input is r's input i: its dtype (a raw input's is its spec's in sig)
// and its shape (not to be written).
func (r *request) input(i int, sig *Signature) (interp.DType, []int64) {
	if r.raw != nil {
		return sig.Inputs[i].DType, r.raw.shapes[i]
	}
	t := r.feeds[i]
	return t.DType(), t.ShapeView()
}

// shapeKey is r's key, computed.
func (r *request) shapeKey() string {
	if r.raw != nil {
		return rawShapeKey(r.raw)
	}
	return shapeKey(r.feeds)
}

// The states of a request.
const (
	reqWaiting = iota
	reqClaimed
	reqGone
)

// reply is a request's outcome.
type reply struct {
	// job, when set, is the request's part of its batch's join (to run
	// on the request's goroutine): no outcome yet, the reply follows.
	job *fillJob
	out []*interp.Tensor // in Signature.Outputs order
	err error
	rt  runTime
}

// runTime is where a request's time in the batcher went: the backend's
// time on the batch (or batches) it ran in, when that batch started (the
// request claimed from the queue, or run inline) and when the backend was
// called (its inputs joined). Zero: the request did not run.
type runTime struct {
	backend     time.Duration
	start, call time.Time
}

// Batcher puts requests that arrive together into batches, runs them on
// the backend (InFlight at once) and splits the outputs back.
type Batcher struct {
	opts    BatchOptions
	sig     *Signature
	backend Backend
	met     *metrics
	log     *slog.Logger

	mu     sync.RWMutex // closed, and sends on reqs
	closed bool
	reqs   chan *request
	work   chan []*request
	wg     sync.WaitGroup
	queued atomic.Int64
	// busy counts the batches handed to the workers (or being handed,
	// or run inline) and not yet done: collect waits Timeout for more
	// requests only while it is > 0.
	busy atomic.Int64
	// slots holds a token per batch on the backend (InFlight at most):
	// the collector takes one before it hands a batch to a worker, a
	// request run inline one before it runs.
	slots chan struct{}
	// layouts pools the batches' input layouts by layoutKey (a
	// *sync.Pool of *batchLayout each).
	layouts  sync.Map
	nLayouts atomic.Int64 // the pools in layouts
	// feedMaps pools the backend's feed maps of requests run as they
	// are (map[string]*interp.Tensor).
	feedMaps sync.Pool
	// viewSets pools the views of requests run on their bodies
	// (*viewSet: views.go).
	viewSets sync.Pool
	noViews  atomic.Bool  // set once the signature showed it has none
	viewed   atomic.Int64 // the requests run on views (for the tests)
	// single is set once a batch showed that an output of unknown rank
	// has no batch dimension: from then on requests run alone.
	single atomic.Bool
	// static is the key of every request that fits the signature, when
	// each input's dimensions past the first are fixed by it (staticKey);
	// "" otherwise.
	static string
}

// alone reports whether requests run one at a time.
func (b *Batcher) alone() bool { return b.opts.Alone || b.single.Load() }

// errNotBatched is runBatch's error for an output without a batch
// dimension (of unknown rank in the signature).
type errNotBatched struct{ output string }

func (e *errNotBatched) Error() string {
	return fmt.Sprintf("output %q has no batch dimension: requests run one at a time", e.output)
}

// NewBatcher starts the batcher's collector and workers.
func NewBatcher(sig *Signature, backend Backend, opts BatchOptions, met *metrics, log *slog.Logger) *Batcher {
	o := opts.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Batcher{opts: o, sig: sig, backend: backend, met: met, log: log,
		reqs: make(chan *request, o.MaxQueue), work: make(chan []*request), slots: make(chan struct{}, o.InFlight),
		static: staticKey(sig)}
	b.wg.Add(1 + o.InFlight)
	go func() {
		defer b.wg.Done()
		b.collect()
	}()
	for range o.InFlight {
		go func() {
			defer b.wg.Done()
			for batch := range b.work {
				b.run(batch)
				<-b.slots // the collector took it for this batch
			}
		}()
	}
	return b
}

var errShuttingDown = errorf(codes.Unavailable, "the server is shutting down")

// Do queues a request of rows rows (feeds in signature order) and waits
// for its outputs (every output, in signature order).
func (b *Batcher) Do(ctx context.Context, feeds []*interp.Tensor, rows int) ([]*interp.Tensor, error) {
	out, _, err := b.DoTimed(ctx, feeds, rows)
	return out, err
}

// DoTimed is Do that also returns the backend's time on the batch the
// request ran in (0 when it did not run): the rest of a request's time in
// the server is the server's own.
func (b *Batcher) DoTimed(ctx context.Context, feeds []*interp.Tensor, rows int) ([]*interp.Tensor, time.Duration, error) {
	r := newRequest(ctx, rows)
	r.feeds = feeds
	if !b.alone() {
		r.key = shapeKey(feeds)
	}
	out, rt, err := b.wait(r)
	return out, rt.backend, err
}

// doChecked is DoTimed for feeds checked against the signature
// (Server.checkFeeds): their key is the signature's when it fixes every
// input's row (no key computed per request).
func (b *Batcher) doChecked(ctx context.Context, feeds []*interp.Tensor, rows int) ([]*interp.Tensor, runTime, error) {
	r := newRequest(ctx, rows)
	r.feeds = feeds
	if !b.alone() {
		if r.key = b.static; r.key == "" {
			r.key = shapeKey(feeds)
		}
	}
	return b.wait(r)
}

// doRaw is DoTimed for a binary request's inputs as its body holds them,
// checked against the signature (decodeInferRaw): every input of the
// signature, of f.rows rows.
func (b *Batcher) doRaw(ctx context.Context, f *rawFeeds) ([]*interp.Tensor, runTime, error) {
	r := newRequest(ctx, int(f.rows))
	r.raw = f
	if !b.alone() {
		r.key = b.static
		if r.key == "" {
			r.key = rawShapeKey(f)
		}
	}
	return b.wait(r)
}

// newRequest is a request of rows rows arriving now, its goroutine to
// wait for it (helper).
func newRequest(ctx context.Context, rows int) *request {
	return &request{ctx: ctx, rows: rows, enq: time.Now(), done: make(chan reply, 1), helper: true}
}

// wait queues r and waits for its outputs.
func (b *Batcher) wait(r *request) ([]*interp.Tensor, runTime, error) {
	if out, rt, err, ok := b.inline(r); ok {
		return out, rt, err
	}
	ctx := r.ctx
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return nil, runTime{}, errShuttingDown
	}
	select {
	case b.reqs <- r:
		b.queued.Add(1)
		b.met.setQueue(b.queued.Load())
	default:
		b.mu.RUnlock()
		return nil, runTime{}, errorf(codes.Unavailable, "the batching queue is full (%d requests waiting; recom serve --max-queue)", b.opts.MaxQueue)
	}
	b.mu.RUnlock()
	ctxDone, gone := ctx.Done(), false
	for {
		select {
		case rep := <-r.done:
			if rep.job != nil {
				rep.job.run()
				continue
			}
			if gone {
				return nil, runTime{}, ctx.Err()
			}
			return rep.out, rep.rt, rep.err
		case <-ctxDone:
			if r.state.CompareAndSwap(reqWaiting, reqGone) {
				return nil, runTime{}, ctx.Err() // no worker reads its feeds: it drops it
			}
			// Claimed: its batch reads its feeds (the worker, the backend,
			// or this goroutine: its part of the join, which the batch
			// waits for) until the batch is done, and the feeds may be
			// views of a body the caller reuses once this returns.
			ctxDone, gone = nil, true
		}
	}
}

// inline runs r as a batch of its own on the calling goroutine when no
// request waits for a batch and a backend slot is free: at low load a
// request then skips the hand-offs to the collector and a worker and
// back (each a goroutine's wake-up: tens of microseconds on the GPU
// host). ok false: r is to be queued.
func (b *Batcher) inline(r *request) (out []*interp.Tensor, rt runTime, err error, ok bool) {
	if b.opts.Queued || b.queued.Load() != 0 {
		return nil, runTime{}, nil, false
	}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return nil, runTime{}, errShuttingDown, true
	}
	select {
	case b.slots <- struct{}{}:
	default:
		b.mu.RUnlock()
		return nil, runTime{}, nil, false
	}
	b.wg.Add(1) // Close waits for it as for the workers
	b.mu.RUnlock()
	defer func() {
		<-b.slots
		b.wg.Done()
	}()
	r.helper = false // its goroutine runs the batch: no job for it to take
	b.queued.Add(1)  // as run counts it out
	b.busy.Add(1)
	b.run([]*request{r})
	rep := <-r.done // run replied (buffered)
	return rep.out, rep.rt, rep.err, true
}

// Close stops taking requests, runs every request already queued, and
// returns once the last batch is done.
func (b *Batcher) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.reqs)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// fits reports whether r joins a batch of rows rows started by first.
func (b *Batcher) fits(first, r *request, rows int) bool {
	return !b.alone() && r.key == first.key && rows+r.rows <= b.opts.MaxBatch
}

// collect forms the batches: it takes the first waiting request, adds
// the requests that arrive within Timeout while they fit (only while
// another batch is in flight: with none, just those already waiting),
// and hands the batch to a worker; while every worker is busy it goes on
// adding.
func (b *Batcher) collect() {
	defer close(b.work)
	in := b.reqs
	var held *request
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		first := held
		held = nil
		if first == nil {
			r, ok := <-in
			if !ok {
				return
			}
			first = r
		}
		batch, rows := []*request{first}, first.rows
		take := func(r *request, ok bool) bool {
			if !ok {
				in = nil
				return false
			}
			if !b.fits(first, r, rows) {
				held = r
				return false
			}
			batch, rows = append(batch, r), rows+r.rows
			return true
		}
		if !b.alone() && in != nil && rows < b.opts.MaxBatch {
			if b.opts.Timeout > 0 && b.busy.Load() > 0 {
				timer.Reset(b.opts.Timeout)
			wait:
				for rows < b.opts.MaxBatch {
					select {
					case r, ok := <-in:
						if !take(r, ok) {
							break wait
						}
					case <-timer.C:
						break wait
					}
				}
				timer.Stop()
			} else {
			drain:
				for rows < b.opts.MaxBatch {
					select {
					case r, ok := <-in:
						if !take(r, ok) {
							break drain
						}
					default:
						break drain
					}
				}
			}
		}
		b.busy.Add(1)
		// A backend slot first (one may be taken by a request run
		// inline), then a worker (one is free while the batch holds a
		// slot); the batch goes on filling meanwhile.
		more := func() <-chan *request {
			if !b.alone() && held == nil && in != nil && rows < b.opts.MaxBatch {
				return in
			}
			return nil
		}
		for got := false; !got; {
			select {
			case b.slots <- struct{}{}:
				got = true
			case r, ok := <-more():
				take(r, ok)
			}
		}
		for sent := false; !sent; {
			select {
			case b.work <- batch:
				sent = true
			case r, ok := <-more():
				take(r, ok)
			}
		}
		if in == nil && held == nil {
			return
		}
	}
}

// padTo is the batch size a batch of rows rows runs at.
func (b *Batcher) padTo(rows int) int {
	for _, s := range b.opts.Sizes {
		if s >= rows {
			return s
		}
	}
	return rows
}

// run runs one batch and replies to its requests.
func (b *Batcher) run(batch []*request) {
	// The batch stops counting as in flight once the backend is done
	// with it, before any reply: a client that sends its next request on
	// the reply finds the backend idle.
	released := false
	release := func() {
		if !released {
			released = true
			b.busy.Add(-1)
		}
	}
	defer release()
	start := time.Now()
	live := batch[:0]
	for _, r := range batch {
		b.queued.Add(-1)
		if err := r.ctx.Err(); err != nil || !r.state.CompareAndSwap(reqWaiting, reqClaimed) {
			if err == nil {
				err = context.Canceled
			}
			r.done <- reply{err: err} // the client is gone
			continue
		}
		b.met.observeQueue(start.Sub(r.enq))
		live = append(live, r)
	}
	b.met.setQueue(b.queued.Load())
	if len(live) == 0 {
		return
	}
	b.met.inflight(1)
	defer b.met.inflight(-1)
	out, rt, err := b.runBatch(live, b.alone())
	rt.start = start
	release()
	var nb *errNotBatched
	if errors.As(err, &nb) && !b.opts.Alone {
		if b.single.CompareAndSwap(false, true) {
			b.log.Warn("an output has no batch dimension: requests now run one at a time", "output", nb.output)
		}
	}
	if err != nil && (len(live) > 1 || nb != nil) {
		// One bad request must not fail the others: run each alone, so
		// that each gets its own outcome.
		b.log.Debug("batch failed; running its requests one by one", "requests", len(live), "error", err)
		for _, r := range live {
			var outs [][]*interp.Tensor
			alone := b.alone()
			o, again, err := b.runBatch([]*request{r}, alone)
			if err == nil {
				outs, err = b.split(o, []*request{r}, alone)
			}
			again.start, again.backend = start, rt.backend+again.backend
			r.done <- reply{out: firstOrNil(outs), err: err, rt: again}
		}
		return
	}
	var outs [][]*interp.Tensor
	if err == nil {
		outs, err = b.split(out, live, b.alone())
	}
	for i, r := range live {
		if err != nil {
			r.done <- reply{err: err, rt: rt}
		} else {
			r.done <- reply{out: outs[i], rt: rt}
		}
	}
}

func firstOrNil(o [][]*interp.Tensor) []*interp.Tensor {
	if len(o) == 0 {
		return nil
	}
	return o[0]
}

// runBatch joins the requests' feeds (padded to an allowed size: assemble),
// runs them, and checks the outputs' rows; rt is the backend's time and
// when it was called.
func (b *Batcher) runBatch(reqs []*request, alone bool) (out []*interp.Tensor, rt runTime, err error) {
	rows := 0
	for _, r := range reqs {
		rows += r.rows
	}
	size := rows
	if !alone {
		size = b.padTo(rows)
	}
	var feeds map[string]*interp.Tensor
	var lay *batchLayout
	var vs *viewSet
	if len(reqs) == 1 && size == rows && reqs[0].raw != nil && viewBodies {
		vs, _ = b.viewsOf(reqs[0])
	}
	if vs != nil {
		feeds = vs.byName
		b.viewed.Add(1)
	} else if len(reqs) > 1 || size != rows || reqs[0].raw != nil {
		lay, err = b.assemble(reqs, int64(size), int64(rows))
		if err != nil {
			return nil, rt, &internalError{fmt.Errorf("batching the inputs: %w", err)}
		}
		feeds = lay.byName
	} else {
		feeds, _ = b.feedMaps.Get().(map[string]*interp.Tensor)
		if feeds == nil {
			feeds = make(map[string]*interp.Tensor, len(b.sig.Inputs))
		}
		for i, in := range b.sig.Inputs {
			feeds[in.Name] = reqs[0].feeds[i]
		}
	}
	rt.call = time.Now()
	got, err := b.call(feeds)
	rt.backend = max(time.Since(rt.call), 1) // > 0: the request ran
	if vs != nil && (err != nil || !vs.holds(got)) {
		vs.release(b)
	}
	if err == nil {
		switch {
		case vs != nil:
		case lay != nil:
			b.putLayout(lay, got)
		default:
			clear(feeds) // it keeps no request's tensors
			b.feedMaps.Put(feeds)
		}
	}
	b.met.observeBatch(rows, size, len(reqs), rt.backend, err)
	if err != nil {
		return nil, rt, err
	}
	out = make([]*interp.Tensor, len(b.sig.Outputs))
	for i, o := range b.sig.Outputs {
		t, ok := got[o.Name]
		if !ok || t == nil {
			return nil, rt, &internalError{fmt.Errorf("the backend did not return output %q", o.Key)}
		}
		if !alone && (t.Rank() == 0 || t.Dim(0) != int64(size)) {
			if o.UnknownRank {
				return nil, rt, &errNotBatched{o.Key}
			}
			return nil, rt, &internalError{fmt.Errorf("output %q has shape %s for a batch of %d rows: it cannot be split into the requests' rows", o.Key, interp.ShapeString(t.Shape()), size)}
		}
		out[i] = t
	}
	return out, rt, nil
}

// assemble joins the requests' inputs into the batch's (size rows, rows
// of them the requests'): each request whose goroutine waits copies its
// own rows (a job on its done channel), the worker the first request's
// and those of any others; the request with the last row also writes the
// padding. It returns once every row is in place.
func (b *Batcher) assemble(reqs []*request, size, rows int64) (*batchLayout, error) {
	k := reqs[0].key
	if k == "" {
		k = reqs[0].shapeKey()
	}
	key := layoutKey(k, int(size))
	lay := b.getLayout(key)
	if lay == nil {
		var err error
		if lay, err = newBatchLayout(reqs[0], b.sig, size, rows); err != nil {
			return nil, err
		}
		lay.key = key
		lay.byName = make(map[string]*interp.Tensor, len(b.sig.Inputs))
		for i, in := range b.sig.Inputs {
			lay.byName[in.Name] = lay.feeds[i]
		}
	}
	lay.rows = rows
	// A job per request, on its own goroutine where it waits (the first
	// request's on the worker); a large first request (a batch of one
	// request, mostly) is split in two by inputs, the second half to its
	// goroutine (or a goroutine of its own when the request runs inline).
	nin := len(lay.feeds)
	split := nin >= 2 && int64(reqs[0].rows)*lay.rowBytes >= splitBytes
	n := len(reqs)
	if split {
		n++
	}
	if cap(lay.jobs) < n {
		lay.jobs = make([]fillJob, n)
	}
	lay.jobs = lay.jobs[:n]
	lay.wg.Add(n)
	off := int64(0)
	for i, r := range reqs {
		lay.jobs[i] = fillJob{lay: lay, r: r, off: off, in: [2]int{0, nin}, pad: i == len(reqs)-1}
		off += int64(r.rows)
	}
	if split {
		half := nin / 2
		lay.jobs[n-1] = lay.jobs[0]
		lay.jobs[0].in[1], lay.jobs[n-1].in[0] = half, half
	}
	for i := n - 1; i >= 1; i-- {
		switch j := &lay.jobs[i]; {
		case j.r.helper:
			j.r.done <- reply{job: j} // buffered: its goroutine takes it
		case split && i == n-1:
			go j.run() // the first request's half, its goroutine busy
		default:
			j.run()
		}
	}
	lay.jobs[0].run()
	lay.wg.Wait()
	clear(lay.jobs) // a pooled layout keeps no requests
	return lay, lay.err
}

// call runs the backend, turning a panic into an internal error: no
// request takes the server down.
func (b *Batcher) call(feeds map[string]*interp.Tensor) (out map[string]*interp.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("the backend panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out, err = nil, &internalError{fmt.Errorf("internal error: the backend failed: %v", p)}
		}
	}()
	return b.backend.Run(context.Background(), feeds)
}

// split gives each request its rows of the outputs.
func (b *Batcher) split(out []*interp.Tensor, reqs []*request, alone bool) ([][]*interp.Tensor, error) {
	res := make([][]*interp.Tensor, len(reqs))
	if alone {
		res[0] = out
		return res, nil
	}
	off := int64(0)
	for i, r := range reqs {
		res[i] = make([]*interp.Tensor, len(out))
		for j, t := range out {
			s, err := sliceRows(t, off, off+int64(r.rows))
			if err != nil {
				return nil, &internalError{err}
			}
			res[i][j] = s
		}
		off += int64(r.rows)
	}
	return res, nil
}
