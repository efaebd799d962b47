package hostpack

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// mutate returns a copy of feeds with elements replaced as mode says,
// each with probability p.
func mutate(tb testing.TB, feeds map[string]*interp.Tensor, mode string, p float64, r *rand.Rand) map[string]*interp.Tensor {
	tb.Helper()
	out := map[string]*interp.Tensor{}
	long := []string{"12345678", "a string of fifteen", "sixteen bytes!!!", "seventeen bytes!!", strings.Repeat("x", 100),
		strings.Repeat("long;token;", 500), "\x00\x01\xff", "ünïcödé;ü", " ; ", ";;;", ""}
	for name, t := range feeds {
		c := t.Clone()
		hit := func() bool { return r.Float64() < p }
		switch x := c.Data().(type) {
		case []string:
			for i := range x {
				if !hit() {
					continue
				}
				switch mode {
				case "ignore":
					x[i] = ""
				case "long":
					x[i] = long[r.IntN(len(long))]
				default:
					s := long[r.IntN(len(long))]
					x[i] = s[:min(len(s), r.IntN(3))]
				}
			}
		case []int64:
			for i := range x {
				if !hit() {
					continue
				}
				switch mode {
				case "ignore":
					x[i] = -1
				case "negative":
					x[i] = -2 - r.Int64N(1000)
				default:
					x[i] = []int64{math.MinInt64, math.MaxInt64, -1, 0, 1 << 40}[r.IntN(5)]
				}
			}
		case []int32:
			for i := range x {
				if hit() {
					x[i] = []int32{-1, -7, math.MinInt32, math.MaxInt32}[r.IntN(4)]
				}
			}
		case []float32:
			for i := range x {
				if !hit() {
					continue
				}
				switch mode {
				case "ignore":
					x[i] = 0
				default:
					x[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1e30, -1e30}[r.IntN(6)]
				}
			}
		}
		out[name] = c
	}
	// A weighted column's weights are zero exactly where its ids are
	// absent (the two sparse tensors share their indices).
	for name, w := range out {
		ids, ok := out[strings.TrimSuffix(name, "_weight")]
		if !strings.HasSuffix(name, "_weight") || !ok || ids.Strings() == nil || w.Float32s() == nil {
			continue
		}
		ws := w.Float32s()
		for i, s := range ids.Strings() {
			switch {
			case s == "":
				ws[i] = 0
			case ws[i] == 0:
				ws[i] = 0.5
			}
		}
	}
	return out
}

// rows returns feeds cut to their first n rows (the dense feeds of gen's
// models and of the census graphs are all [B] or [B, k]).
func rows(tb testing.TB, feeds map[string]*interp.Tensor, n int64) map[string]*interp.Tensor {
	tb.Helper()
	out := map[string]*interp.Tensor{}
	for name, t := range feeds {
		shape := t.Shape()
		per := int64(1)
		for _, d := range shape[1:] {
			per *= d
		}
		shape[0] = n
		var err error
		switch x := t.Data().(type) {
		case []string:
			out[name], err = interp.New(shape, x[:n*per])
		case []int64:
			out[name], err = interp.New(shape, x[:n*per])
		case []int32:
			out[name], err = interp.New(shape, x[:n*per])
		case []float32:
			out[name], err = interp.New(shape, x[:n*per])
		case []float64:
			out[name], err = interp.New(shape, x[:n*per])
		default:
			tb.Fatalf("feed %s of %v", name, t.DType())
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// Adversarial rows: empty bags, ignore values everywhere, long strings,
// separators only, negative and extreme ids, NaN and infinite values,
// empty batches. The plan packs what the interpreter's inputs pack to, or
// fails where the interpreter (or Pack) fails.
func TestPackAdversarial(t *testing.T) {
	models := []*model{smallModel(t, ""), smallModel(t, "ids-in-kernel=false"), genModel(t, "E", 60, "")}
	for _, g := range censusGraphs {
		models = append(models, realModel(t, g.file, g.inputs, g.outputs, ""))
	}
	for _, md := range models {
		plan, err := NewForModule(md.m, &Options{Partial: true})
		if err != nil {
			t.Fatal(err)
		}
		pk := plan.NewPacker()
		r := rand.New(rand.NewPCG(1, 2))
		packed, failed := 0, 0
		for _, mode := range []string{"ignore", "long", "negative", "extreme"} {
			for _, p := range []float64{0.1, 0.5, 1} {
				for _, batch := range []int{1, 40} {
					feeds := mutate(t, md.feeds(t, batch, uint64(batch)), mode, p, r)
					if err := check(t, md, plan, pk, feeds); err != nil {
						t.Logf("%s %s %v: %.200v", md.name, mode, p, err)
						failed++
						continue
					}
					packed++
				}
			}
		}
		// Empty and one-row batches (refused by both where the
		// placeholders' shapes are static).
		for _, n := range []int64{0, 1} {
			if err := check(t, md, plan, pk, rows(t, md.feeds(t, 5, 9), n)); err != nil {
				t.Logf("%s: %d rows: %.200v", md.name, n, err)
				failed++
				continue
			}
			packed++
		}
		t.Logf("%s: %d batches packed alike, %d refused by both", md.name, packed, failed)
		if packed < 10 {
			t.Errorf("%s: only %d batches packed", md.name, packed)
		}
	}
}
