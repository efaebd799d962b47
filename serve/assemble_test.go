package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// TestBatcherCancelled: a request whose client leaves while it waits for
// a batch returns at once and is left out of the batch; one whose client
// leaves after its batch took it still gives the batch its rows (its
// goroutine's part of the join) and the others of the batch get theirs.
func TestBatcherCancelled(t *testing.T) {
	d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
	b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 64, InFlight: 1}, nil, nil)
	defer b.Close()
	bg := context.Background()
	first := make(chan error, 1)
	go func() {
		_, err := b.Do(bg, []*interp.Tensor{rowsOf(1, 100)}, 1)
		first <- err
	}()
	<-d.running // the only worker holds the first batch
	ctx, cancel := context.WithCancel(bg)
	gone := make(chan error, 1)
	go func() {
		_, err := b.Do(ctx, []*interp.Tensor{rowsOf(4, -1)}, 4) // the backend would refuse it
		gone <- err
	}()
	waitQueued(b, 1)
	type result struct {
		x   *interp.Tensor
		out []*interp.Tensor
		err error
	}
	res := make([]chan result, 3)
	for i := range res {
		res[i] = make(chan result, 1)
		go func() {
			x := rowsOf(i+2, float32(10*i))
			out, err := b.Do(bg, []*interp.Tensor{x}, i+2)
			res[i] <- result{x, out, err}
		}()
	}
	waitCollected(b, 4)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled request waiting for its batch: %v, want context.Canceled", err)
	}
	close(d.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, c := range res {
		r := <-c
		if r.err != nil {
			t.Fatalf("request %d: %v", i, r.err)
		}
		checkDoubled(t, fmt.Sprintf("request %d", i), r.x, r.out[0])
	}
	// The cancelled request's 4 rows were left out: 2+3+4 rows.
	if got := d.batchSizes(); fmt.Sprint(got) != "[1 9]" {
		t.Errorf("batch sizes %v, want [1 9]", got)
	}

	// Cancelled once its batch runs: it returns its context's error once
	// the batch is done; its batch-mate is unharmed.
	d2 := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
	b2 := NewBatcher(&doublerSig, d2, BatchOptions{MaxBatch: 64, InFlight: 1, Sizes: PowersOfTwo(64)}, nil, nil)
	defer b2.Close()
	go func() {
		_, err := b2.Do(bg, []*interp.Tensor{rowsOf(1, 100)}, 1)
		first <- err
	}()
	<-d2.running
	ctx2, cancel2 := context.WithCancel(bg)
	late := make(chan error, 1)
	go func() {
		_, err := b2.Do(ctx2, []*interp.Tensor{rowsOf(3, 50)}, 3)
		late <- err
	}()
	waitQueued(b2, 1)
	mate := make(chan result, 1)
	go func() {
		x := rowsOf(2, 7)
		out, err := b2.Do(bg, []*interp.Tensor{x}, 2)
		mate <- result{x, out, err}
	}()
	waitCollected(b2, 2)
	d2.gate <- struct{}{} // the first batch finishes; the next (3+2 rows) starts
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	<-d2.running // the second batch is in the backend: both requests claimed
	cancel2()
	close(d2.gate)
	if err := <-late; !errors.Is(err, context.Canceled) {
		t.Errorf("a request cancelled while its batch ran: %v, want context.Canceled", err)
	}
	r := <-mate
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkDoubled(t, "the cancelled request's batch-mate", r.x, r.out[0])
	if got := d2.batchSizes(); fmt.Sprint(got) != "[1 8]" {
		t.Errorf("batch sizes %v, want [1 8]", got)
	}
}

// echo is a backend whose output is its input (as the interpreter may
// return a feed): the batch's memory is then the replies', and must not
// be reused for a later batch.
type echo struct{}

func (echo) Name() string { return "echo" }
func (echo) Close() error { return nil }
func (echo) Run(_ context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	return map[string]*interp.Tensor{"y": feeds["x"]}, nil
}

// TestBatcherReusesLayouts runs rounds of concurrent requests of 1 to 6
// rows, batched and padded, and checks every reply against its own
// request, with a backend that copies (the layouts are reused) and one
// that returns its feed (they are not).
func TestBatcherReusesLayouts(t *testing.T) {
	for _, be := range []Backend{&doubler{}, echo{}} {
		b := NewBatcher(&doublerSig, be, BatchOptions{MaxBatch: 16, InFlight: 2, Sizes: PowersOfTwo(16)}, nil, nil)
		var wg sync.WaitGroup
		type kept struct {
			x, y *interp.Tensor
		}
		var mu sync.Mutex
		var all []kept
		for round := range 20 {
			for i := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					x := rowsOf(i+1, float32(1000*round+10*i))
					out, err := b.Do(context.Background(), []*interp.Tensor{x}, i+1)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					all = append(all, kept{x, out[0]})
					mu.Unlock()
				}()
			}
			wg.Wait()
		}
		b.Close()
		// Checked after every round ran: a reused layout under a reply
		// would show here.
		for _, k := range all {
			if be.Name() == "echo" {
				if fmt.Sprint(k.x.Float32s()) != fmt.Sprint(k.y.Float32s()) {
					t.Fatalf("echo: reply %v for request %v", k.y.Float32s(), k.x.Float32s())
				}
				continue
			}
			checkDoubled(t, be.Name(), k.x, k.y)
		}
		if n := b.layoutsPooled(); be.Name() == "echo" && n != 0 {
			t.Errorf("echo: %d layouts pooled, want none (the replies hold them)", n)
		}
	}
}

// layoutsPooled counts the layouts now in the batcher's pools.
func (b *Batcher) layoutsPooled() int {
	n := 0
	b.layouts.Range(func(_, p any) bool {
		for {
			if p.(*sync.Pool).Get() == nil {
				return true
			}
			n++
		}
	})
	return n
}
