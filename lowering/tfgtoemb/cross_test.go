package tfgtoemb_test

import (
	"fmt"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// crossedSpec is a model of crossed columns: a string crossed with an
// int64 feature (one value, and bags of up to 3 padded values: every
// element of a dense input is crossed), and both with a bucketized
// feature (a sparse input), with a hashed column beside them.
func crossedSpec() *gen.Spec {
	cov := 0.7
	return &gen.Spec{Groups: []gen.Group{
		{Count: 2, Kind: gen.Crossed, Buckets: 50, Dim: 4, Combiner: "sum", Feed: gen.Feed{Coverage: &cov, Invalid: 0.1}},
		{Count: 1, Kind: gen.Crossed, Buckets: 64, Dim: 8, Combiner: "mean",
			Feed: gen.Feed{Coverage: &cov, Pooling: &gen.Pooling{Dist: "uniform", Min: 1, Max: 3}}},
		{Count: 2, Kind: gen.Crossed, Buckets: 30, Boundaries: 4, Dim: 4, Combiner: "sqrtn", InputRank: 2, Tables: gen.Resource,
			Feed: gen.Feed{Invalid: 0.2}},
		{Count: 1, Kind: gen.HashedString, Buckets: 20, Dim: 4, Combiner: "mean"},
	}}
}

func crossedModel(t *testing.T, edit func(*tfpb.GraphDef)) (*gen.Spec, *gen.Model, *textir.Context, *textir.Operation) {
	t.Helper()
	s := crossedSpec()
	m, err := gen.Generate(s, gen.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m.Graph)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return s, m, ctx, ref
}

// checkCrossed lowers ref and compares it with the tfg program on the
// spec's feeds.
func checkCrossed(t *testing.T, s *gen.Spec, m *gen.Model, ctx *textir.Context, ref *textir.Operation, crossed int64) *textir.Operation {
	t.Helper()
	low, stats, remarks := lower(t, ctx, ref, "")
	if err := textir.Verify(ctx, low); err != nil {
		t.Fatal(err)
	}
	if stats["columns-crossed"] != crossed || stats["columns-unmatched"] != 0 || stats["columns-sparse"] != 0 {
		t.Errorf("columns-crossed = %d (unmatched %d, sparse %d), want %d: %v", stats["columns-crossed"], stats["columns-unmatched"], stats["columns-sparse"], crossed, remarks)
	}
	structural(t, low)
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	for _, batch := range []int{1, 7, 32} {
		arrays, err := gen.Feeds(s, batch, uint64(batch))
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		compare(t, fmt.Sprintf("batch %d", batch), ref, low, feeds, []string{m.Output}, &exec.Options{Variables: vars})
	}
	return low
}

// TestCrossedColumns: crossed_column's SparseCross becomes emb.cross over
// its inputs' sources (the bucketized one lowered as a bucketized column's
// ids, the raw features as dense inputs), and the program computes what
// the tfg program does. (The SparseCross stays while the column's shape
// chain reads its dense shape: --simplify-shapes erases both.)
func TestCrossedColumns(t *testing.T) {
	s, m, ctx, ref := crossedModel(t, nil)
	low := checkCrossed(t, s, m, ctx, ref, 5)
	var crosses, bucketize int
	low.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case emb.CrossOp:
			crosses++
			v, _ := emb.AsCross(op)
			if key, nb, ok := v.Hashed(); !ok || key != gen.DefaultHashKey || nb <= 0 {
				t.Errorf("emb.cross hashed = %d, %d, %v", key, nb, ok)
			}
		case emb.BucketizeOp:
			bucketize++
		}
		return true
	})
	if crosses != 5 || bucketize != 2 {
		t.Errorf("%d emb.cross and %d emb.bucketize, want 5 and 2", crosses, bucketize)
	}
}

// TestJoinedCross: a cross of strings joined with "_X_" (SparseCross with
// out_type string) and then hashed is emb.cross {sep} and emb.hash; a
// SparseCrossHashed keeps its ids on the host (sparse); an unhashed cross
// whose internal type refuses its int64 input stays too.
func TestJoinedCross(t *testing.T) {
	joined := func(g *tfpb.GraphDef) {
		var extra []*tfpb.NodeDef
		for _, n := range g.Node {
			if n.Op != "SparseCross" {
				continue
			}
			n.Attr["out_type"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_STRING}}
			n.Attr["hashed_output"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: false}}
			h := &tfpb.NodeDef{Name: n.Name + "/hash", Op: "StringToHashBucketFast", Input: []string{n.Name + ":1"},
				Attr: map[string]*tfpb.AttrValue{"num_buckets": n.Attr["num_buckets"]}}
			extra = append(extra, h)
			for _, u := range g.Node {
				for i, in := range u.Input {
					if in == n.Name+":1" {
						u.Input[i] = h.Name
					}
				}
			}
		}
		g.Node = append(g.Node, extra...)
	}
	s, m, ctx, ref := crossedModel(t, joined)
	low := checkCrossed(t, s, m, ctx, ref, 5)
	joins, hashes := 0, 0
	low.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case emb.CrossOp:
			if sep, ok := op.LookupAttr(emb.AttrSep).(textir.StringAttr); ok && sep.Value == "_X_" && tfg.IsString(op.Result(0).Type()) {
				joins++
			}
		case emb.HashOp:
			if _, ok := emb.AsCross(op.Operand(0).DefiningOp()); ok {
				hashes++
			}
		}
		return true
	})
	if joins != 5 || hashes != 5 {
		t.Errorf("%d joined emb.cross and %d hashes of them, want 5 and 5", joins, hashes)
	}
}
