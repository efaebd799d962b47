package session

import (
	"errors"
	"sync"
	"time"

	"github.com/recom-compiler/recom/interp"
)

// Pipeline keeps up to depth batches in flight, so that the host packs
// the next batches while the GPU works on the earlier ones: Submit queues
// a batch; a dispatcher gives each batch a slot in submission order;
// packers (as many as batches can be in flight: min(depth, slots)) pack
// and launch them, each taking the next batch as soon as it has launched
// one; a finisher waits for the batches on the GPU in submission order,
// makes their outputs and frees their slots. Next returns the outputs in
// submission order. Only the finisher waits for the GPU, so the packers'
// threads stay free for packing. The session needs at least depth slots
// for depth batches to be in flight at once (with fewer, the batches
// wait for slots).
type Pipeline struct {
	s      *Session
	queue  chan *job // submitted, to the dispatcher
	work   chan *job // with a slot, to the packers
	fin    chan *job // submitted, to the finisher
	order  chan *job // submitted, to Next
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	done   bool
	closed chan struct{}
}

type job struct {
	feeds    map[string]*interp.Tensor
	sl       *slot  // the batch's slot (nil when none was had)
	b        *batch // the launched batch (nil when launch failed)
	out      map[string]*interp.Tensor
	err      error
	launched chan struct{} // closed once launched (or failed)
	ready    chan struct{} // closed once out and err are final
	accepted time.Time     // when Submit took a place in the pipeline
}

// NewPipeline starts a pipeline of depth batches in flight (at least 1).
func (s *Session) NewPipeline(depth int) *Pipeline {
	depth = max(depth, 1)
	p := &Pipeline{s: s, queue: make(chan *job, depth), work: make(chan *job, depth), fin: make(chan *job, depth),
		order: make(chan *job, depth), sem: make(chan struct{}, depth), closed: make(chan struct{})}
	// The dispatcher: slots in submission order, so that the finisher,
	// which frees them in that order, never waits for a batch that
	// waits for a slot a later batch holds.
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.work)
		for j := range p.queue {
			j.sl, j.err = s.acquire()
			p.work <- j
		}
	}()
	var packers sync.WaitGroup
	for range min(depth, len(s.slots)) {
		packers.Add(1)
		go func() {
			defer packers.Done()
			for j := range p.work {
				if j.err == nil {
					j.b, j.err = j.sl.launch(j.feeds)
					if j.err != nil {
						s.release(j.sl)
					}
				}
				close(j.launched)
			}
		}()
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		packers.Wait()
	}()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for j := range p.fin {
			<-j.launched
			if j.err == nil {
				j.out, j.err = j.sl.finish(j.b)
				s.release(j.sl)
			}
			close(j.ready)
		}
	}()
	return p
}

var errPipelineClosed = errors.New("session: use of a closed Pipeline")

// Submit queues a batch; it blocks while depth batches are submitted and
// not yet returned by Next. The feeds must stay unchanged until then.
func (p *Pipeline) Submit(feeds map[string]*interp.Tensor) error {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done {
		return errPipelineClosed
	}
	p.sem <- struct{}{}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		<-p.sem
		return errPipelineClosed
	}
	j := &job{feeds: feeds, launched: make(chan struct{}), ready: make(chan struct{}), accepted: time.Now()}
	// None of these blocks: at most depth batches are submitted.
	p.order <- j
	p.fin <- j
	p.queue <- j
	return nil
}

// Next returns the outputs of the oldest batch not yet returned: it waits
// for the batch to be submitted (by another goroutine) and run. After
// Close, with nothing left, it is an error.
func (p *Pipeline) Next() (map[string]*interp.Tensor, error) {
	out, _, err := p.NextTimed()
	return out, err
}

// NextTimed is Next that also says how long the batch was in the
// pipeline: from the moment its Submit found a place (not counting the
// wait for one) to its outputs in host memory — the latency a batch in
// flight sees, as bench/peers.py times its peers' (from a free slot).
func (p *Pipeline) NextTimed() (map[string]*interp.Tensor, time.Duration, error) {
	var j *job
	select {
	case j = <-p.order:
	case <-p.closed:
		select {
		case j = <-p.order:
		default:
			return nil, 0, errPipelineClosed
		}
	}
	<-j.ready
	d := time.Since(j.accepted)
	<-p.sem
	return j.out, d, j.err
}

// Close waits for the batches in flight (their outputs are dropped) and
// stops the pipeline's goroutines.
func (p *Pipeline) Close() {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.done = true
	close(p.queue)
	close(p.fin)
	close(p.closed)
	p.mu.Unlock()
	p.wg.Wait()
}
