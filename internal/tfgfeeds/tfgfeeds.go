// Package tfgfeeds makes the random inputs that the real-graph tests feed to
// tfg programs (dialects/tfg, lowering/tfgtoemb, compiler).
package tfgfeeds

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// Vocab returns base followed by the first four string keys of every
// string-keyed table, the tables in name order: a small vocabulary with a
// few hits in every table (and whatever misses base holds).
func Vocab(base []string, tables map[string]exec.TableData) []string {
	vocab := slices.Clone(base)
	for _, k := range slices.Sorted(maps.Keys(tables)) {
		if ks := tables[k].Keys.Strings(); ks != nil {
			vocab = append(vocab, ks[:min(4, len(ks))]...)
		}
	}
	return vocab
}

// Random feeds every tfg.Placeholder of m, by node name: its dtype, its
// shape with unknown dims set to batch ([batch] when the rank is unknown);
// strings from vocab (empty ones make empty rows), ints in [minInt, 100)
// (a negative minInt makes negative ids), floats in [-10, 10). It fails tb
// on a placeholder it cannot feed.
func Random(tb testing.TB, m *textir.Operation, batch int64, vocab []string, r *rand.Rand, minInt int) map[string]*interp.Tensor {
	tb.Helper()
	feeds := map[string]*interp.Tensor{}
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() != "tfg.Placeholder" {
			return true
		}
		dt, ok := exec.DTypeOf(op.Attr("dtype").(textir.TypeAttr).Type)
		if !ok {
			tb.Fatalf("placeholder %s: unsupported dtype", tfg.NodeName(op))
		}
		shape := []int64{batch}
		if s, ok := tfg.ShapeOf(op.Attr("shape")); ok && !s.UnknownRank {
			shape = slices.Clone(s.Dims)
			for i, d := range shape {
				if d < 0 {
					shape[i] = batch
				}
			}
		}
		n, _ := interp.NumElements(shape)
		buf, _ := interp.MakeSlice(dt, int(n))
		ints := 100 - minInt
		switch b := buf.(type) {
		case []string:
			for i := range b {
				b[i] = vocab[r.IntN(len(vocab))]
			}
		case []int32:
			for i := range b {
				b[i] = int32(r.IntN(ints) + minInt)
			}
		case []int64:
			for i := range b {
				b[i] = int64(r.IntN(ints) + minInt)
			}
		case []float32:
			for i := range b {
				b[i] = float32(r.Float64()*20 - 10)
			}
		case []float64:
			for i := range b {
				b[i] = r.Float64()*20 - 10
			}
		default:
			tb.Fatalf("placeholder %s: no random feed for %v", tfg.NodeName(op), dt)
		}
		feeds[tfg.NodeName(op)] = interp.Must(interp.FromSlice(shape, buf))
		return false
	})
	return feeds
}
