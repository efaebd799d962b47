package tfgtoemb_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// plainFeeds draws feeds for a plain-lookup model of spec s (recom gen
// --lookups): dense ids in the table, sparse ids of 1 to 4 ids a row
// (empty rows too when empty is set, except in the last row and in a
// weighted embedding_lookup_sparse), with
// negative ids where a safe_embedding_lookup_sparse prunes them, and
// weights beside each id (some not positive).
func plainFeeds(s *gen.LookupSpec, batch int64, empty bool, r *rand.Rand) map[string]*interp.Tensor {
	feeds := map[string]*interp.Tensor{}
	k := 0
	for _, l := range s.Lookups {
		for range l.Count {
			id := func() int64 { return r.Int64N(l.Rows) }
			switch l.API {
			case gen.APIEmbeddingLookup:
				n := batch
				shape := []int64{batch}
				if l.Bag > 0 {
					n *= int64(l.Bag)
					shape = append(shape, int64(l.Bag))
				}
				name := fmt.Sprintf("ids_%d", k)
				if l.IDs == "int32" {
					v := make([]int32, n)
					for i := range v {
						v[i] = int32(id())
					}
					feeds[name] = interp.Must(interp.New(shape, v))
				} else {
					v := make([]int64, n)
					for i := range v {
						v[i] = id()
					}
					feeds[name] = interp.Must(interp.New(shape, v))
				}
			default:
				var ind, vals []int64
				var w []float32
				for b := range batch {
					n := 1 + r.IntN(4)
					// An empty row of a weighted embedding_lookup_sparse is
					// 0/0 in TensorFlow (outside its contract).
					if empty && b < batch-1 && r.IntN(4) == 0 && (l.API == gen.APISafeLookupSparse || !l.Weighted) {
						n = 0
					}
					for j := range n {
						ind = append(ind, b, int64(j))
						v := id()
						if l.API == gen.APISafeLookupSparse && r.IntN(8) == 0 {
							v = -1 - r.Int64N(3)
						}
						vals = append(vals, v)
						x := float32(r.Float64()*2 + 0.1)
						if l.API == gen.APISafeLookupSparse && r.IntN(8) == 0 {
							x = -x
						}
						w = append(w, x)
					}
					// TF 2.16 divides a weighted mean with DivNoNan: a row
					// whose weights sum to 0 is 0 (emb.lookup div_no_nan).
					if s.TF == "2.16" && l.API == gen.APILookupSparse && l.Weighted && n >= 2 && r.IntN(3) == 0 {
						w[len(w)-1] = -w[len(w)-2]
						for k := len(w) - n; k < len(w)-2; k++ {
							w[k] = 0
						}
					}
				}
				nnz := int64(len(vals))
				sp := fmt.Sprintf("sp_ids_%d", k)
				feeds[sp+"/indices"] = interp.Must(interp.New([]int64{nnz, 2}, ind))
				feeds[sp+"/values"] = interp.Vector(vals...)
				feeds[sp+"/shape"] = interp.Vector(batch, 4)
				if l.Weighted {
					sw := fmt.Sprintf("sp_weights_%d", k)
					feeds[sw+"/indices"] = feeds[sp+"/indices"]
					feeds[sw+"/values"] = interp.Vector(w...)
					feeds[sw+"/shape"] = feeds[sp+"/shape"]
				}
			}
			k++
		}
	}
	return feeds
}

// plainSpecs are models of every plain form: each API, combiner and table
// style, whole and partitioned by both strategies, in TensorFlow 1.15,
// 2.6 and 2.16's graphs.
func plainSpecs() map[string]string {
	forms := func(tf, tables string, parts int, strategy string) string {

		p := ""
		if parts > 1 {
			p = fmt.Sprintf(`, "partitions": %d, "partition_strategy": %q`, parts, strategy)
		}
		t := fmt.Sprintf(`"tables": %q%s`, tables, p)
		return `[
 {"count": 1, "api": "embedding_lookup", "rows": 13, "dim": 4, ` + t + `},
 {"count": 1, "api": "embedding_lookup", "rows": 13, "dim": 4, "bag": 3, "combiner": "sum", "ids": "int32", ` + t + `},
 {"count": 1, "api": "embedding_lookup", "rows": 11, "dim": 8, "bag": 2, "combiner": "mean", ` + t + `},
 {"count": 1, "api": "embedding_lookup_sparse", "rows": 17, "dim": 4, "combiner": "sum", ` + t + `},
 {"count": 1, "api": "embedding_lookup_sparse", "rows": 17, "dim": 4, "combiner": "mean", ` + t + `},
 {"count": 1, "api": "embedding_lookup_sparse", "rows": 17, "dim": 4, "combiner": "sqrtn", ` + t + `},
 {"count": 1, "api": "embedding_lookup_sparse", "rows": 19, "dim": 4, "combiner": "sum", "weighted": true, ` + t + `},
 {"count": 1, "api": "embedding_lookup_sparse", "rows": 19, "dim": 4, "combiner": "mean", "weighted": true, ` + t + `},
 {"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 23, "dim": 4, "combiner": "mean", ` + t + `},
 {"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 23, "dim": 4, "combiner": "sqrtn", "weighted": true, ` + t + `}
]`
	}
	out := map[string]string{}
	for _, tf := range []string{"1.15", "2.6", "2.16"} {
		for _, tables := range []string{"variable", "resource", "const"} {
			out[fmt.Sprintf("tf%s-%s", tf, tables)] = fmt.Sprintf(`{"tf": %q, "lookups": %s}`, tf, forms(tf, tables, 1, ""))
			for _, st := range []string{"mod", "div"} {
				out[fmt.Sprintf("tf%s-%s-%s", tf, tables, st)] = fmt.Sprintf(`{"tf": %q, "lookups": %s}`, tf, forms(tf, tables, 3, st))
			}
		}
	}
	return out
}

// plainModel generates a plain-lookup model and imports it.
func plainModel(tb testing.TB, ctx *textir.Context, spec string) (*gen.LookupSpec, *gen.Model, *textir.Operation) {
	tb.Helper()
	s, err := gen.ParseLookupSpec([]byte(spec), "spec")
	if err != nil {
		tb.Fatal(err)
	}
	m, err := gen.GenerateLookups(s, gen.Options{Seed: 5})
	if err != nil {
		tb.Fatal(err)
	}
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		tb.Fatal(err)
	}
	return s, m, ref
}

// Every plain form is found, lowered (nothing of the TensorFlow lookup
// left) and computes what the graph computes.
func TestPlainLookups(t *testing.T) {
	specs := plainSpecs()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range specs {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run(name, func(t *testing.T) {
			ctx := all.NewContext()
			s, m, ref := plainModel(t, ctx, specs[name])
			low, stats, remarks := lower(t, ctx, ref, "")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			if stats["columns"] != 10 || stats["columns-lowered"] != 10 {
				t.Errorf("columns %d, lowered %d, want 10: %v", stats["columns"], stats["columns-lowered"], remarks)
			}
			plainStructural(t, low)
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			for _, batch := range []int64{1, 6, 32} {
				feeds := plainFeeds(s, batch, true, rand.New(rand.NewPCG(uint64(batch), 9)))
				compare(t, fmt.Sprintf("batch %d", batch), ref, low, feeds, []string{m.Output}, &exec.Options{Variables: vars})
				if _, err := run(low, feeds, []string{m.Output}, &exec.Options{Variables: vars}); err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
			}
		})
	}
}

// plainStructural checks that no op of a TensorFlow lookup is left.
func plainStructural(t *testing.T, m *textir.Operation) {
	t.Helper()
	structural(t, m)
	m.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case "tfg.DynamicPartition", "tfg.ParallelDynamicStitch", "tfg.SegmentSum", "tfg.VariableV2", "tfg.VarHandleOp", "tfg.Sum", "tfg.Mean":
			t.Errorf("%s %q remains", op.Name(), tfg.NodeName(op))
		}
		return true
	})
}

// Forms that cannot be lowered stay tfg, each with a remark that says why.
func TestPlainRemarks(t *testing.T) {
	setAttr := func(g *tfpb.GraphDef, node, attr string, v *tfpb.AttrValue) {
		for _, n := range g.Node {
			if n.Name == node {
				n.Attr = maps.Clone(n.Attr)
				n.Attr[attr] = v
				return
			}
		}
		t.Fatalf("no node %q", node)
	}
	shape := func(dims ...int64) *tfpb.AttrValue {
		s := &tfpb.TensorShapeProto{}
		for _, d := range dims {
			s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: s}}
	}
	for _, c := range []struct {
		name, spec string
		edit       func(g *tfpb.GraphDef)
		remark     string
	}{
		{"keep_dims", `{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 9, "dim": 4, "bag": 2, "combiner": "sum"}]}`,
			func(g *tfpb.GraphDef) {
				setAttr(g, "Sum", "keep_dims", &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: true}})
			},
			`does not reduce the ids' axis 1 (without keep_dims)`},
		{"mean of bags of unknown length", `{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 9, "dim": 4, "bag": 3, "combiner": "mean"}]}`,
			func(g *tfpb.GraphDef) { setAttr(g, "ids_0", "shape", shape(-1, -1)) },
			`averages bags of ids tensor<*xi64> whose length is not known to be positive`},
		{"shards of other sizes", `{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 10, "dim": 4, "partitions": 3, "partition_strategy": "mod"}]}`,
			func(g *tfpb.GraphDef) {
				setAttr(g, "emb_0/part_0", "shape", shape(3, 4))
				setAttr(g, "emb_0/part_2", "shape", shape(4, 4))
			},
			`have [3 3 4] rows: partition_strategy "mod" needs 10 rows in 3 shards to be split as a partitioner splits them (shard 0: 4)`},
		{"strategy arithmetic", `{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 10, "dim": 4, "partitions": 3, "partition_strategy": "mod"}]}`,
			func(g *tfpb.GraphDef) {
				for _, n := range g.Node {
					if n.Name == "embedding_lookup/floordiv/y" {
						n.Attr = maps.Clone(n.Attr)
						n.Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{
							Dtype: tfpb.DataType_DT_INT64, TensorShape: &tfpb.TensorShapeProto{}, Int64Val: []int64{2}}}}
					}
				}
			},
			`the shard is not ids mod 3 and the row ids div 3`},
		{"pooled over the rows", `{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 10, "dim": 4, "bag": 2, "combiner": "sum"}]}`,
			func(g *tfpb.GraphDef) {
				for _, n := range g.Node {
					if n.Name == "Sum/reduction_indices" {
						n.Attr = maps.Clone(n.Attr)
						n.Attr["value"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{
							Dtype: tfpb.DataType_DT_INT32, TensorShape: &tfpb.TensorShapeProto{}, IntVal: []int32{0}}}}
					}
				}
			},
			`does not reduce the ids' axis 1 (without keep_dims)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := gen.ParseLookupSpec([]byte(c.spec), "spec")
			if err != nil {
				t.Fatal(err)
			}
			m, err := gen.GenerateLookups(s, gen.Options{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			g := proto.Clone(m.Graph).(*tfpb.GraphDef)
			if c.edit != nil {
				c.edit(g)
			}
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			low, stats, remarks := lower(t, ctx, ref, "")
			if err := textir.Verify(ctx, low); err != nil {
				t.Fatal(err)
			}
			if stats["columns-unmatched"] != 1 || stats["columns-lowered"] != 1 {
				t.Errorf("statistics: %v", stats)
			}
			if len(remarks) != 1 || !strings.Contains(remarks[0], c.remark) {
				t.Errorf("remarks %q, want one containing %q", remarks, c.remark)
			}
		})
	}
}
