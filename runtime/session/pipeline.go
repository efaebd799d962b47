package session

import (
	"errors"
	"sync"

	"github.com/recom-compiler/recom/interp"
)

// Pipeline keeps up to depth batches in flight: Submit hands a batch to
// one of depth workers, which packs it (in parallel with the others, and
// with the GPU's work on earlier batches), launches its graph and waits
// for it; Next returns the outputs in submission order. The session needs
// at least depth slots for depth batches to be on the GPU at once.
type Pipeline struct {
	s      *Session
	jobs   chan *job
	order  chan *job
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	done   bool
	closed chan struct{}
}

type job struct {
	feeds map[string]*interp.Tensor
	out   map[string]*interp.Tensor
	err   error
	ready chan struct{}
}

// NewPipeline starts a pipeline of depth batches in flight (at least 1).
func (s *Session) NewPipeline(depth int) *Pipeline {
	depth = max(depth, 1)
	p := &Pipeline{s: s, jobs: make(chan *job, depth), order: make(chan *job, depth), sem: make(chan struct{}, depth), closed: make(chan struct{})}
	for range depth {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				j.out, j.err = s.Run(j.feeds)
				close(j.ready)
			}
		}()
	}
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
	j := &job{feeds: feeds, ready: make(chan struct{})}
	p.order <- j // never blocks: at most depth batches are submitted
	p.jobs <- j
	return nil
}

// Next returns the outputs of the oldest batch not yet returned: it waits
// for the batch to be submitted (by another goroutine) and run. After
// Close, with nothing left, it is an error.
func (p *Pipeline) Next() (map[string]*interp.Tensor, error) {
	var j *job
	select {
	case j = <-p.order:
	case <-p.closed:
		select {
		case j = <-p.order:
		default:
			return nil, errPipelineClosed
		}
	}
	<-j.ready
	<-p.sem
	return j.out, j.err
}

// Close waits for the batches in flight (their outputs are dropped) and
// stops the workers.
func (p *Pipeline) Close() {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.done = true
	close(p.jobs)
	close(p.closed)
	p.mu.Unlock()
	p.wg.Wait()
}
