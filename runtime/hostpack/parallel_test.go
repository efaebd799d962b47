package hostpack

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recom-compiler/recom/interp"
)

// Chunks cover the columns in order, none empty, at most
// chunksPerWorker per worker, one for a single worker.
func TestChunks(t *testing.T) {
	works := [][]int64{
		nil, {5}, {1, 1, 1}, {1e6, 1, 1, 1, 1, 1e6},
		make([]int64, 1000), // no work at all: one chunk
	}
	var big []int64
	for i := range 1000 {
		big = append(big, int64(50+i%7*1000))
	}
	works = append(works, big)
	for _, w := range works {
		for _, P := range []int{1, 2, 3, 16, 64} {
			b := chunks(nil, w, P)
			n := len(b) - 1
			if b[0] != 0 || b[n] != len(w) || n < 1 {
				t.Fatalf("P=%d, %d columns: bounds %v", P, len(w), b)
			}
			for c := range n {
				if b[c+1] <= b[c] && len(w) > 0 {
					t.Fatalf("P=%d, %d columns: chunk %d is empty (%v)", P, len(w), c, b)
				}
			}
			if P == 1 && n != 1 || n > max(1, chunksPerWorker*P) {
				t.Errorf("P=%d, %d columns: %d chunks", P, len(w), n)
			}
		}
	}
	// Equal work: chunks of about equal size.
	b := chunks(nil, big, 4)
	if len(b)-1 != 16 {
		t.Fatalf("%d chunks of 1000 columns for 4 workers, want 16", len(b)-1)
	}
	for c := range 16 {
		if n := b[c+1] - b[c]; n < 50 || n > 75 {
			t.Errorf("chunk %d has %d of 1000 columns", c, n)
		}
	}
}

// With several bad feeds, Measure and MeasureFeeds fail on the first
// column's (in column order) whatever the number of workers; a feed
// missing is named with the others missing, as Gather names them.
func TestParallelErrors(t *testing.T) {
	md := genModel(t, "E", 120, "")
	feeds := md.feeds(t, 50, 3)
	plan0, err := NewForModule(md.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := plan0.Inputs()
	if len(in) < 100 {
		t.Fatalf("%d inputs", len(in))
	}
	bad := map[string]*interp.Tensor{}
	for k, v := range feeds {
		bad[k] = v
	}
	// Inputs 17, 60 and 99 of the wrong dtype: the first column that
	// reads one of them is the first to fail.
	first := -1
	for _, i := range []int{99, 17, 60} {
		bad[in[i].Name] = interp.Vector[float64](1, 2)
		for c := range plan0.cols {
			for _, j := range plan0.cols[c].inputs {
				if j == i && (first < 0 || c < first) {
					first = c
				}
			}
		}
	}
	want := ""
	for _, workers := range []int{1, 2, 3, 8, 32} {
		plan, err := NewForModule(md.m, &Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for _, byName := range []bool{false, true} {
			pk := plan.NewPacker()
			var err error
			if byName {
				_, err = pk.MeasureFeeds(bad)
			} else {
				var g []*interp.Tensor
				if g, err = plan.Gather(bad); err != nil {
					t.Fatal(err)
				}
				_, err = pk.Measure(g)
			}
			if err == nil {
				t.Fatalf("workers %d: bad feeds measured", workers)
			}
			if want == "" {
				want = err.Error()
				name := in[plan0.cols[first].inputs[0]].Name
				if !strings.Contains(want, `"`+name+`" has dtype float64`) {
					t.Fatalf("the error %q does not name the first bad column's feed %q", want, name)
				}
			}
			if err.Error() != want {
				t.Errorf("workers %d (by name %v): %v, want %v", workers, byName, err, want)
			}
		}
	}
	// Seven feeds missing: the first five named, as Gather names them.
	missing := map[string]*interp.Tensor{}
	for k, v := range feeds {
		missing[k] = v
	}
	for _, i := range []int{3, 30, 31, 50, 70, 71, 119} {
		delete(missing, in[i].Name)
	}
	_, gerr := plan0.Gather(missing)
	_, err = plan0.NewPacker().MeasureFeeds(missing)
	if gerr == nil || err == nil || err.Error() != gerr.Error() || !strings.Contains(err.Error(), "and 2 more") {
		t.Errorf("missing feeds: MeasureFeeds %v, Gather %v", err, gerr)
	}
}

// The pool's workers stay within GOMAXPROCS-1, a call lets at most
// Options.Workers-1 of them take its chunks, and every batch of Packers
// running at once packs alike, with the workers spinning between
// batches or sleeping at once (SetSpinWait(0)), or at most SetSpinners
// of them spinning.
func TestParallelPool(t *testing.T) {
	md := genModel(t, "E", 120, "")
	feeds := md.feeds(t, 300, 4)
	limit := runtime.GOMAXPROCS(0) - 1
	for _, c := range []struct {
		workers  int
		spin     time.Duration
		spinners int
	}{{64, 500 * time.Microsecond, 0}, {2, 500 * time.Microsecond, 0}, {64, 0, 0}, {64, 500 * time.Microsecond, 1}} {
		t.Run(fmt.Sprintf("workers=%d/spin=%v/spinners=%d", c.workers, c.spin, c.spinners), func(t *testing.T) {
			defer SetSpinWait(SetSpinWait(c.spin))
			defer SetSpinners(SetSpinners(c.spinners))
			plan, err := NewForModule(md.m, &Options{Workers: c.workers})
			if err != nil {
				t.Fatal(err)
			}
			want, err := plan.Pack(feeds, garbage)
			if err != nil {
				t.Fatal(err)
			}
			var bad atomic.Value
			stop := make(chan struct{})
			var watch sync.WaitGroup
			watch.Add(1)
			go func() {
				defer watch.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if n := workers.spinning.Load(); c.spinners > 0 && n > int32(c.spinners) {
						bad.Store(fmt.Sprintf("%d workers spinning, at most %d allowed", n, c.spinners))
					}
					workers.mu.Lock()
					if workers.workers > max(limit, 0) {
						bad.Store(fmt.Sprintf("%d workers, GOMAXPROCS-1 is %d", workers.workers, limit))
					}
					for _, j := range workers.jobs {
						if j.taken > j.takers || int(j.takers) > c.workers-1 {
							bad.Store(fmt.Sprintf("a job taken by %d workers, %d allowed (Workers %d)", j.taken, j.takers, c.workers))
						}
					}
					workers.mu.Unlock()
					runtime.Gosched()
				}
			}()
			var wg sync.WaitGroup
			for g := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 5 {
						got, err := plan.Pack(feeds, garbage)
						if err != nil {
							t.Errorf("goroutine %d: %v", g, err)
							return
						}
						if string(got.Inputs) != string(want.Inputs) {
							t.Errorf("goroutine %d packs other bytes", g)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			watch.Wait()
			if b := bad.Load(); b != nil {
				t.Error(b)
			}
			workers.mu.Lock()
			left := len(workers.jobs)
			workers.mu.Unlock()
			if left != 0 {
				t.Errorf("%d jobs left in the pool after the calls returned", left)
			}
		})
	}
}

// A panic in a chunk is an error naming the chunk's columns, and the
// Packer packs again afterwards.
func TestParallelPanic(t *testing.T) {
	md := genModel(t, "E", 40, "")
	plan, err := NewForModule(md.m, &Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	feeds := md.feeds(t, 20, 5)
	pk := plan.NewPacker()
	if _, err := pk.MeasureFeeds(feeds); err != nil {
		t.Fatal(err)
	}
	pk.dst = nil // the words to write are missing: the writers index out of range
	for i := range pk.work {
		pk.work[i] = minChunkWork
	}
	err = pk.parallel(phasePack)
	if err == nil || !strings.Contains(err.Error(), "hostpack: internal error packing columns 0..") {
		t.Fatalf("a panicking chunk: %v", err)
	}
	if _, err := plan.Pack(feeds, garbage); err != nil {
		t.Fatal(err)
	}
}
