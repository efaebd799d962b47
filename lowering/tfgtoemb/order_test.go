package tfgtoemb_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/textir"
)

// layerOrderModel is four hashed string columns whose layer order is not
// the order of their ops: the input_layer's ConcatV2 takes the columns'
// empty-row Selects directly (so that each is a column output), in the
// order str_0001, str_0000, str_0003, str_0002; str_0001 reads
// str_0000's table; str_0002 and str_0003 select their pooled rows, not
// zeros, for empty rows, so they cannot be lowered.
func layerOrderModel(t *testing.T, ctx *textir.Context) *textir.Operation {
	t.Helper()
	spec := &gen.Spec{Groups: []gen.Group{{Count: 4, Kind: gen.HashedString, Buckets: 10, Dim: 4, Combiner: "mean"}}}
	m, err := gen.Generate(spec, gen.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*textir.Operation{}
	mod.Walk(func(op *textir.Operation) bool {
		byName[tfg.NodeName(op)] = op
		return true
	})
	node := func(name string) *textir.Operation {
		t.Helper()
		op := byName[name]
		if op == nil {
			t.Fatalf("no node %q", name)
		}
		return op
	}
	sel := func(col string) *textir.Operation {
		return node("input_layer/" + col + "_embedding/" + col + "_embedding_weights")
	}
	concat := node(gen.EmbeddingNode)
	for i, col := range []string{"str_0001", "str_0000", "str_0003", "str_0002"} {
		concat.SetOperand(i, sel(col).Result(0))
	}
	gather := node("input_layer/str_0001_embedding/str_0001_embedding_weights/embedding_lookup_sparse/embedding_lookup")
	gather.SetOperand(0, node("input_layer/str_0000_embedding/embedding_weights/read").Result(0))
	for _, col := range []string{"str_0002", "str_0003"} {
		s := sel(col)
		s.SetOperand(1, s.Operand(2))
	}
	return mod
}

// The conversion lowers columns in the order of their pooling ops; the
// pass still puts a table two columns read before the first of them in
// layer order, and reports the columns it cannot lower in layer order.
func TestLayerOrder(t *testing.T) {
	ctx := all.NewContext()
	low, stats, remarks := lower(t, ctx, layerOrderModel(t, ctx), "")
	if err := textir.Verify(ctx, low); err != nil {
		t.Fatal(err)
	}
	if stats["columns-shared"] != 2 || stats["columns-unmatched"] != 2 || stats["columns-lowered"] != 2 {
		t.Errorf("statistics: %v", stats)
	}
	var table *textir.Operation
	low.Walk(func(op *textir.Operation) bool {
		if op.Name() == emb.TableOp {
			table = op
		}
		return true
	})
	if table == nil {
		t.Fatal("no emb.table")
	}
	next := table.Next()
	name, _ := textir.LocName(next.Loc())
	if next.Name() != emb.FromDenseOp || !strings.HasPrefix(name, "input_layer/str_0001_embedding/") {
		t.Errorf("emb.table is followed by %s at %q, want the emb.from_dense of str_0001, the first column in the layer", next.Name(), name)
	}
	if len(remarks) != 2 || !strings.Contains(remarks[0], `"input_layer/str_0003_embedding"`) || !strings.Contains(remarks[1], `"input_layer/str_0002_embedding"`) {
		t.Errorf("remarks, want str_0003's then str_0002's:\n%s", strings.Join(remarks, "\n"))
	}
}
