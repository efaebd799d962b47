package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/recom-compiler/recom/interp"
)

// doubler is a backend computing y = 2x row by row (x: [?, 2] float32),
// that records the batch sizes it ran, fails a batch holding the value
// -1 and panics on -2. gate, when set, holds every Run until closed.
type doubler struct {
	mu      sync.Mutex
	sizes   []int
	gate    chan struct{}
	running chan struct{} // gets a value as each Run starts
	scalar  bool          // return a scalar y (no batch dimension)
}

func (d *doubler) Name() string { return "doubler" }
func (d *doubler) Close() error { return nil }

func (d *doubler) Run(_ context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	x := feeds["x"]
	if d.running != nil {
		d.running <- struct{}{}
	}
	if d.gate != nil {
		<-d.gate
	}
	d.mu.Lock()
	d.sizes = append(d.sizes, int(x.Dim(0)))
	d.mu.Unlock()
	in := x.Float32s()
	out := make([]float32, len(in))
	for i, v := range in {
		switch v {
		case -1:
			return nil, errors.New("the value -1 is refused")
		case -2:
			panic("the value -2")
		}
		out[i] = 2 * v
	}
	if d.scalar {
		return map[string]*interp.Tensor{"y": interp.Scalar(float32(len(in)))}, nil
	}
	y, err := interp.New(x.Shape(), out)
	return map[string]*interp.Tensor{"y": y}, err
}

func (d *doubler) batchSizes() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int(nil), d.sizes...)
}

var doublerSig = Signature{
	Name: DefaultSignature, Method: PredictMethod,
	Inputs:  []TensorSpec{{Key: "x", Name: "x", DType: interp.Float32, Shape: []int64{-1, 2}}},
	Outputs: []TensorSpec{{Key: "y", Name: "y", DType: interp.Float32, Shape: []int64{-1, 2}}},
}

// rowsOf is a [rows, 2] tensor whose row r holds base+r, base+r+0.5.
func rowsOf(rows int, base float32) *interp.Tensor {
	v := make([]float32, 2*rows)
	for r := range rows {
		v[2*r], v[2*r+1] = base+float32(r), base+float32(r)+0.5
	}
	return interp.Must(interp.New([]int64{int64(rows), 2}, v))
}

func checkDoubled(t *testing.T, what string, x, y *interp.Tensor) {
	t.Helper()
	if !sameShape(x.Shape(), y.Shape()) {
		t.Fatalf("%s: y has shape %v for x of %v", what, y.Shape(), x.Shape())
	}
	for i, v := range x.Float32s() {
		if y.Float32s()[i] != 2*v {
			t.Fatalf("%s: y[%d] = %v, want %v", what, i, y.Float32s()[i], 2*v)
		}
	}
}

// waitQueued waits until n requests wait in the batcher (taken by the
// collector or still in the queue), without a timed sleep.
func waitQueued(b *Batcher, n int64) {
	for b.queued.Load() != n {
		time.Sleep(50 * time.Microsecond)
	}
}

// waitCollected waits until n requests wait and the collector has taken
// them all into its next batch (the queue is empty).
func waitCollected(b *Batcher, n int64) {
	for b.queued.Load() != n || len(b.reqs) != 0 {
		time.Sleep(50 * time.Microsecond)
	}
}

// TestBatcherMerges holds the only worker busy, queues requests of 1 to
// 5 rows meanwhile, and checks that they ran as one padded batch and that
// each got its own rows back.
func TestBatcherMerges(t *testing.T) {
	d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
	b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 64, InFlight: 1, Sizes: []int{1, 2, 4, 8, 16, 32, 64}}, nil, nil)
	defer b.Close()
	ctx := context.Background()
	first := make(chan error, 1)
	go func() {
		_, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 100)}, 1)
		first <- err
	}()
	<-d.running // the worker holds the first batch
	var wg sync.WaitGroup
	const n = 5
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := rowsOf(i+1, float32(10*i))
			out, err := b.Do(ctx, []*interp.Tensor{x}, i+1)
			if err == nil {
				checkDoubled(t, fmt.Sprintf("request %d", i), x, out[0])
			}
			errs[i] = err
		}()
	}
	waitCollected(b, n)
	close(d.gate)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
	// 1 row alone, then 1+2+3+4+5 = 15 rows in one batch padded to 16.
	if got := d.batchSizes(); fmt.Sprint(got) != "[1 16]" {
		t.Errorf("batch sizes %v, want [1 16]", got)
	}
}

// TestBatcherIsolatesFailures: a request the backend refuses (or panics
// on) in a batch fails alone; the others of its batch succeed.
func TestBatcherIsolatesFailures(t *testing.T) {
	for _, bad := range []float32{-1, -2} {
		d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
		b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 64, InFlight: 1}, nil, nil)
		ctx := context.Background()
		go b.Do(ctx, []*interp.Tensor{rowsOf(1, 0)}, 1)
		<-d.running
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := rowsOf(2, float32(i))
				if i == 2 {
					x = interp.Must(interp.New([]int64{1, 2}, []float32{3, bad}))
				}
				out, err := b.Do(ctx, []*interp.Tensor{x}, int(x.Dim(0)))
				if err == nil {
					checkDoubled(t, fmt.Sprint("request ", i), x, out[0])
				}
				errs[i] = err
			}()
		}
		waitCollected(b, 4)
		close(d.gate)
		wg.Wait()
		b.Close()
		for i, err := range errs {
			switch {
			case i == 2 && err == nil:
				t.Errorf("bad %v: the bad request succeeded", bad)
			case i == 2:
				e := asError(err)
				want := codes.InvalidArgument
				if bad == -2 {
					want = codes.Internal
				}
				if e.Code != want {
					t.Errorf("bad %v: the bad request's error %v has code %v, want %v", bad, err, e.Code, want)
				}
			case err != nil:
				t.Errorf("bad %v: request %d failed with the bad one: %v", bad, i, err)
			}
		}
	}
}

// TestBatcherOutputWithoutBatch: an output of unknown rank that turns out
// to have no batch dimension makes the batcher run requests alone, and
// every request still gets its answer.
func TestBatcherOutputWithoutBatch(t *testing.T) {
	sig := doublerSig
	sig.Outputs = []TensorSpec{{Key: "y", Name: "y", DType: interp.Float32, UnknownRank: true}}
	if ok, why := sig.Batched(); !ok {
		t.Fatalf("Batched: %s", why)
	}
	d := &doubler{scalar: true}
	b := NewBatcher(&sig, d, BatchOptions{MaxBatch: 64, InFlight: 2}, nil, nil)
	defer b.Close()
	for i := range 3 {
		out, err := b.Do(context.Background(), []*interp.Tensor{rowsOf(i+1, 0)}, i+1)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := out[0].Float32s()[0]; got != float32(2*(i+1)) {
			t.Errorf("request %d: y = %v, want %d", i, got, 2*(i+1))
		}
	}
	if !b.single.Load() {
		t.Error("the batcher did not switch to single requests")
	}
}

// TestBatcherQueueFull: requests past MaxQueue are refused at once with
// UNAVAILABLE; Close answers the queued ones.
func TestBatcherQueueFull(t *testing.T) {
	d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 64)}
	b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 1, InFlight: 1, MaxQueue: 2}, nil, nil)
	ctx := context.Background()
	res := make(chan error, 8)
	go func() {
		_, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 0)}, 1)
		res <- err
	}()
	<-d.running
	// The collector holds one more (waiting for the worker); the queue
	// takes two. The collector takes the first before the others come: sent
	// together, all three could reach the queue first, and the third would
	// be refused (the test then hung in waitQueued).
	for i := range 3 {
		go func() {
			_, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 0)}, 1)
			res <- err
		}()
		if i == 0 {
			waitCollected(b, 1)
		}
	}
	waitQueued(b, 3)
	_, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 0)}, 1)
	if e := asError(err); err == nil || e.Code != codes.Unavailable || !strings.Contains(e.Msg, "queue is full") {
		t.Fatalf("a request past the queue: %v, want UNAVAILABLE queue is full", err)
	}
	close(d.gate)
	done := make(chan struct{})
	go func() { b.Close(); close(done) }()
	for range 4 {
		if err := <-res; err != nil {
			t.Errorf("a queued request: %v", err)
		}
	}
	<-done
	if _, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 0)}, 1); err != errShuttingDown {
		t.Errorf("a request after Close: %v, want %v", err, errShuttingDown)
	}
}

func TestAssembleAndSlice(t *testing.T) {
	a := interp.Must(interp.New([]int64{2, 2}, []string{"a", "b", "c", "d"}))
	b := interp.Must(interp.New([]int64{1, 2}, []string{"e", "f"}))
	x := interp.Must(interp.New([]int64{2}, []float32{1, 2}))
	y := interp.Must(interp.New([]int64{1}, []float32{3}))
	bt := &Batcher{sig: &Signature{Inputs: []TensorSpec{{Name: "s"}, {Name: "x"}}}}
	reqs := []*request{{feeds: []*interp.Tensor{a, x}, rows: 2}, {feeds: []*interp.Tensor{b, y}, rows: 1}}
	lay, err := bt.assemble(reqs, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	c := lay.feeds[0]
	if got := fmt.Sprint(c.Shape(), c.Strings(), lay.feeds[1].Shape(), lay.feeds[1].Float32s()); got != "[5 2] [a b c d e f e f e f] [5] [1 2 3 3 3]" {
		t.Errorf("assemble: %s", got)
	}
	if lay.byName["s"] != c || lay.byName["x"] != lay.feeds[1] {
		t.Errorf("the backend's feeds are not the batch's tensors: %v", lay.byName)
	}
	s, err := sliceRows(c, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.Shape(), s.Strings()); got != "[2 2] [c d e f]" {
		t.Errorf("slice: %s", got)
	}
	// Given back with outputs of their own, the layout serves the next
	// batch of its size, overwritten whole (fewer rows: more padding).
	// (A sync.Pool drops a quarter of what it is given under the race
	// detector: a few tries.)
	var again *batchLayout
	for range 20 {
		bt.putLayout(lay, map[string]*interp.Tensor{"y": rowsOf(5, 0)})
		if again, err = bt.assemble([]*request{{feeds: []*interp.Tensor{b, y}, rows: 1}}, 5, 1); err != nil {
			t.Fatal(err)
		}
		if again == lay {
			break
		}
	}
	if again != lay {
		t.Fatal("the layout given back was not reused")
	}
	if got := fmt.Sprint(again.feeds[0].Strings(), again.feeds[1].Float32s()); got != "[e f e f e f e f e f] [3 3 3 3 3]" {
		t.Errorf("reused layout: %s", got)
	}
	// The pools are bounded: past maxLayoutPools keys, layouts of new
	// keys are not kept.
	for i := range maxLayoutPools + 10 {
		odd := interp.Must(interp.New([]int64{1, int64(i + 3)}, make([]string, i+3)))
		l, err := bt.assemble([]*request{{feeds: []*interp.Tensor{odd, y}, rows: 1}}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		bt.putLayout(l, nil)
	}
	if n := bt.nLayouts.Load(); n != maxLayoutPools {
		t.Errorf("%d layout pools, want at most %d", n, maxLayoutPools)
	}
	// An output that shares the batch's memory keeps it from reuse.
	shared, err := sliceRows(again.feeds[1], 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	bt.putLayout(again, map[string]*interp.Tensor{"y": shared})
	if third, err := bt.assemble([]*request{{feeds: []*interp.Tensor{b, y}, rows: 1}}, 5, 1); err != nil || third == again {
		t.Errorf("a layout an output shares was reused (err %v)", err)
	}
	// A request that does not fit the first's layout is an error, not a
	// panic (the batcher never forms such a batch: keys differ).
	for _, bad := range [][]*interp.Tensor{
		{rowsOf(1, 0), y}, // float32 for strings
		{a, y},            // two rows for one
		{b},               // an input missing
		{interp.Must(interp.New([]int64{1, 1}, []string{"g"})), y}, // another trailing shape
	} {
		reqs := []*request{{feeds: []*interp.Tensor{a, x}, rows: 2}, {feeds: bad, rows: 1}}
		if _, err := bt.assemble(reqs, 3, 3); err == nil {
			t.Errorf("assembling %v succeeded", bad)
		}
	}
	if _, err := bt.assemble([]*request{{feeds: []*interp.Tensor{interp.Must(interp.New([]int64{}, []float32{1}))}, rows: 1}}, 2, 1); err == nil {
		t.Error("assembling a scalar succeeded")
	}
	if _, err := sliceRows(c, 4, 6); err == nil {
		t.Error("slicing past the end succeeded")
	}
}

func TestPowersOfTwo(t *testing.T) {
	for max, want := range map[int]string{1: "[1]", 8: "[1 2 4 8]", 100: "[1 2 4 8 16 32 64 100]"} {
		if got := fmt.Sprint(PowersOfTwo(max)); got != want {
			t.Errorf("PowersOfTwo(%d) = %s, want %s", max, got, want)
		}
	}
}

// TestGPUSizes: every size up to ExactUpTo (or max), then powers of two
// up to max.
func TestGPUSizes(t *testing.T) {
	seq := func(n int) string {
		s := make([]int, n)
		for i := range s {
			s[i] = i + 1
		}
		return strings.Trim(fmt.Sprint(s), "[]")
	}
	for max, want := range map[int]string{1: "[1]", 8: "[" + seq(8) + "]", 64: "[" + seq(64) + "]",
		100: "[" + seq(64) + " 100]", 256: "[" + seq(64) + " 128 256]", 300: "[" + seq(64) + " 128 256 300]"} {
		if got := fmt.Sprint(GPUSizes(max)); got != want {
			t.Errorf("GPUSizes(%d) = %s, want %s", max, got, want)
		}
	}
}

// TestBatcherIdleDispatch checks that with no batch in flight a request
// is not held for the batch timeout: with a timeout of an hour it still
// runs (the test would time out otherwise), and so does the next one
// sent on the first's reply.
func TestBatcherIdleDispatch(t *testing.T) {
	d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
	b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 64, InFlight: 1, Timeout: time.Hour}, nil, nil)
	defer b.Close()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		x := rowsOf(2, 7)
		out, err := b.Do(ctx, []*interp.Tensor{x}, 2)
		if err == nil {
			checkDoubled(t, "idle request", x, out[0])
		}
		done <- err
	}()
	<-d.running // dispatched at once, not after the hour
	close(d.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Idle again: the next request goes at once too.
	x := rowsOf(3, 1)
	out, err := b.Do(ctx, []*interp.Tensor{x}, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkDoubled(t, "second idle request", x, out[0])
}

// TestBatcherInline: a request that finds no request waiting and a slot
// free runs on its own goroutine (the collector and the workers never see
// it); with every slot busy requests queue and batch as before; Close
// waits for a request running inline.
func TestBatcherInline(t *testing.T) {
	d := &doubler{gate: make(chan struct{}), running: make(chan struct{}, 16)}
	b := NewBatcher(&doublerSig, d, BatchOptions{MaxBatch: 64, InFlight: 1, Sizes: []int{1, 2, 4, 8, 16, 32, 64}}, nil, nil)
	ctx := context.Background()
	first := make(chan error, 1)
	go func() {
		x := rowsOf(3, 5)
		out, err := b.Do(ctx, []*interp.Tensor{x}, 3)
		if err == nil {
			checkDoubled(t, "inline request", x, out[0])
		}
		first <- err
	}()
	<-d.running // the first runs (inline: nothing waited, the slot was free)
	if len(b.slots) != 1 || b.queued.Load() != 0 || len(b.reqs) != 0 {
		t.Fatalf("running the first: %d slots taken, %d requests waiting (%d queued), want 1 and none", len(b.slots), b.queued.Load(), len(b.reqs))
	}
	// The only slot is taken: these queue, and run as one batch after.
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := rowsOf(i+1, float32(10*i))
			out, err := b.Do(ctx, []*interp.Tensor{x}, i+1)
			if err != nil {
				t.Errorf("queued request %d: %v", i, err)
				return
			}
			checkDoubled(t, fmt.Sprintf("queued request %d", i), x, out[0])
		}()
	}
	waitCollected(b, 3)
	closed := make(chan struct{})
	go func() {
		b.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a request ran inline")
	case <-time.After(20 * time.Millisecond):
	}
	close(d.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	<-closed
	// 3 rows padded to 4 (inline), then 1+2+3 = 6 padded to 8.
	if got := d.batchSizes(); fmt.Sprint(got) != "[4 8]" {
		t.Errorf("batch sizes %v, want [4 8]", got)
	}
	if _, err := b.Do(ctx, []*interp.Tensor{rowsOf(1, 1)}, 1); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a request after Close: %v", err)
	}
}
