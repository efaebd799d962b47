package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// A pipeline deeper than the session's slots runs every batch (they wait
// for slots, taken in submission order: no batch waits for a slot a later
// one holds), a batch that fails returns its error in its turn and
// leaves the others alike, and Close with batches in flight frees every
// slot.
func TestSimPipelineSlots(t *testing.T) {
	m := loadSmall(t)
	for _, c := range []struct{ slots, depth int }{{1, 1}, {1, 4}, {2, 5}, {3, 3}} {
		t.Run(fmt.Sprintf("slots=%d/depth=%d", c.slots, c.depth), func(t *testing.T) {
			s, sim := simSession(t, m, Options{Slots: c.slots})
			p := s.NewPipeline(c.depth)
			const n = 11
			fs := make([]map[string]*interp.Tensor, n)
			for i := range fs {
				fs[i] = m.feeds(t, 1+3*i, 500+uint64(i))
			}
			bad := map[string]*interp.Tensor{}
			for k, v := range fs[6] {
				if !strings.HasPrefix(k, "str_") {
					bad[k] = v
				}
			}
			errc := make(chan error, 1)
			go func() {
				for i, f := range fs {
					if i == 6 {
						f = bad
					}
					if err := p.Submit(f); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			for i := range fs {
				got, err := p.Next()
				if i == 6 {
					if err == nil || !strings.Contains(err.Error(), "str_") {
						t.Errorf("batch 6 without its string feeds: %v", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("batch %d: %v", i, simErr(sim, err))
				}
				if b := got["prediction"].Dim(0); b != int64(1+3*i) {
					t.Fatalf("result %d has %d rows: out of order", i, b)
				}
				check(t, fmt.Sprintf("pipelined batch %d", i), got, m.reference(t, fs[i]))
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			// Close with batches in flight: their outputs are dropped,
			// their slots freed.
			for i := range min(c.depth, 3) {
				if err := p.Submit(fs[i]); err != nil {
					t.Fatal(err)
				}
			}
			p.Close()
			if got := len(s.free); got != c.slots {
				t.Errorf("%d of %d slots free after Close", got, c.slots)
			}
			if err := p.Submit(fs[0]); err == nil {
				t.Error("Submit on a closed pipeline")
			}
			if _, err := s.Run(fs[1]); err != nil {
				t.Fatalf("Run after the pipeline: %v", simErr(sim, err))
			}
		})
	}
}
