package emb_test

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/textir"
)

// The views of every emb op (views_gen.go) and its op interfaces
// (interfaces.go) name the operands and results the op definitions
// declare, in order; a view of another op is the zero view.
func TestViews(t *testing.T) {
	src := `func.func @f(%x: tensor<?x1xi64>, %s: tensor<?x!tfg.string>, %f: tensor<?x3xf32>, %i: tensor<?x2xi64>, %v: tensor<?xi64>, %sh: tensor<2xi64>, %w: tensor<?xf32>) -> tensor<?x24xf32> {
  %v0, %s0 = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
  %v1, %s1 = emb.split_strings %s {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
  %v2, %s2 = emb.from_sparse %i, %v, %sh : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
  %v3, %s3 = emb.from_dense %f : tensor<?x3xf32> -> tensor<?xf32>
  %h = emb.hash %v1 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %a = emb.as_string %v0 : tensor<?xi64> -> tensor<?x!tfg.string>
  %b = emb.bucketize %v3 {boundaries = [0.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
  %o = emb.add_offset %b, %s3 {stride = 3 : i64} : tensor<?xi64>
  %vl = emb.vocab_lookup %a {keys = dense<["a", "b"]> : tensor<2x!tfg.string>, num_oov_buckets = 2 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
  %c = emb.check_range %v2 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
  %ct = emb.cast %c : tensor<?xi64> -> tensor<?xi32>
  %fv, %fs, %fw = emb.filter %v2, %s2, %w {min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
  %t = emb.table {name = "t"} : tensor<100x8xf32>
  %l = emb.lookup %t, %h, %s1 {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %gs = emb.gather_scatter %t, %fv, %fs, %fw {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
  %g = emb.gather %t, %ct : tensor<100x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
  %cv, %cs = emb.cross %v2, %s2, %v1, %s1 {hash_key = 7 : i64, num_buckets = 100 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
  %e = emb.concat %l, %gs, %g : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x24xf32>
  func.return %e : tensor<?x24xf32>
}
`
	m := parse(t, newCtx(), src)
	type named struct {
		name      string
		got, want *textir.Value
	}
	seen := map[string]bool{}
	m.Walk(func(op *textir.Operation) bool {
		if op.Dialect() != emb.Name {
			return true
		}
		seen[op.Name()] = true
		o, r := op.Operand, op.Result
		var cases []named
		var view interface{ Op() *textir.Operation }
		var ok bool
		switch op.Name() {
		case emb.FromDenseOp:
			var v emb.FromDenseView
			v, ok = emb.AsFromDense(op)
			view = v
			cases = []named{{"Input", v.Input(), o(0)}, {"Values", v.Values(), r(0)}, {"RowSplits", v.RowSplits(), r(1)}}
		case emb.SplitStringsOp:
			var v emb.SplitStringsView
			v, ok = emb.AsSplitStrings(op)
			view = v
			cases = []named{{"Input", v.Input(), o(0)}, {"Values", v.Values(), r(0)}, {"RowSplits", v.RowSplits(), r(1)}}
		case emb.FromSparseOp:
			var v emb.FromSparseView
			v, ok = emb.AsFromSparse(op)
			view = v
			cases = []named{{"Indices", v.Indices(), o(0)}, {"SparseValues", v.SparseValues(), o(1)}, {"DenseShape", v.DenseShape(), o(2)},
				{"Values", v.Values(), r(0)}, {"RowSplits", v.RowSplits(), r(1)}}
		case emb.HashOp, emb.AsStringOp, emb.BucketizeOp, emb.VocabLookupOp, emb.CheckRangeOp, emb.CastOp:
			var v emb.IDTransform
			v, ok = emb.AsIDTransform(op)
			view = v
			cases = []named{{"Input", v.Input(), o(0)}, {"Result", v.Result(), r(0)}}
		case emb.AddOffsetOp:
			var v emb.AddOffsetView
			v, ok = emb.AsAddOffset(op)
			view = v
			cases = []named{{"Values", v.Values(), o(0)}, {"RowSplits", v.RowSplits(), o(1)}, {"Result", v.Result(), r(0)}}
		case emb.FilterOp:
			var v emb.FilterView
			v, ok = emb.AsFilter(op)
			view = v
			cases = []named{{"Values", v.Values(), o(0)}, {"RowSplits", v.RowSplits(), o(1)}, {"Weights", v.Weights(), o(2)},
				{"FilteredValues", v.FilteredValues(), r(0)}, {"FilteredRowSplits", v.FilteredRowSplits(), r(1)}, {"FilteredWeights", v.FilteredWeights(), r(2)}}
		case emb.TableOp:
			var v emb.TableView
			v, ok = emb.AsTable(op)
			view = v
			cases = []named{{"Result", v.Result(), r(0)}}
		case emb.LookupOp, emb.GatherScatterOp:
			var v emb.PooledLookup
			v, ok = emb.AsPooledLookup(op)
			view = v
			cases = []named{{"Table", v.Table(), o(0)}, {"IDs", v.IDs(), o(1)}, {"RowSplits", v.RowSplits(), o(2)}, {"Result", v.Result(), r(0)}}
			if op.NumOperands() == 4 {
				cases = append(cases, named{"Weights", v.Weights(), o(3)})
			} else if v.Weights() != nil {
				t.Errorf("%s: Weights of an unweighted lookup = %v, want nil", op.Name(), v.Weights())
			}
		case emb.GatherOp:
			var v emb.GatherView
			v, ok = emb.AsGather(op)
			view = v
			cases = []named{{"Table", v.Table(), o(0)}, {"IDs", v.IDs(), o(1)}, {"Result", v.Result(), r(0)}}
		case emb.ConcatOp:
			var v emb.ConcatView
			v, ok = emb.AsConcat(op)
			view = v
			if got := v.Inputs(); len(got) != op.NumOperands() || got[0] != o(0) || got[2] != o(2) {
				t.Errorf("Concat.Inputs = %v", got)
			}
			cases = []named{{"Result", v.Result(), r(0)}}
		case emb.CrossOp:
			var v emb.CrossView
			v, ok = emb.AsCross(op)
			view = v
			vals, splits := v.CrossInputs()
			if len(vals) != 2 || len(splits) != 2 || vals[0] != o(0) || splits[0] != o(1) || vals[1] != o(2) || splits[1] != o(3) {
				t.Errorf("Cross.CrossInputs = %v, %v", vals, splits)
			}
			if key, nb, hashed := v.Hashed(); !hashed || key != 7 || nb != 100 {
				t.Errorf("Cross.Hashed = %d, %d, %v", key, nb, hashed)
			}
			cases = []named{{"Values", v.Values(), r(0)}, {"RowSplits", v.RowSplits(), r(1)}}
		default:
			t.Errorf("no accessors tested for %s", op.Name())
			return true
		}
		if !ok || view.Op() != op {
			t.Errorf("%s: ok = %v, view.Op() = %v", op.Name(), ok, view.Op())
		}
		for _, c := range cases {
			if c.got == nil || c.got != c.want {
				t.Errorf("%s.%s = %v, want %v", op.Name(), c.name, c.got, c.want)
			}
		}
		// The lookup interfaces cover the lookups and nothing else.
		_, isLookup := emb.AsTableLookup(op)
		_, isPooled := emb.AsPooledLookup(op)
		_, isTransform := emb.AsIDTransform(op)
		wantLookup := op.Name() == emb.LookupOp || op.Name() == emb.GatherScatterOp || op.Name() == emb.GatherOp
		if isLookup != wantLookup || isPooled != (wantLookup && op.Name() != emb.GatherOp) {
			t.Errorf("%s: AsTableLookup ok = %v, AsPooledLookup ok = %v", op.Name(), isLookup, isPooled)
		}
		if isTransform != (len(cases) == 2 && cases[0].name == "Input" && cases[1].name == "Result") {
			t.Errorf("%s: AsIDTransform ok = %v", op.Name(), isTransform)
		}
		// A view of another op is the zero view.
		if lk, ok := emb.AsLookup(op); op.Name() != emb.LookupOp && (ok || lk.Op() != nil || lk.Table() != nil) {
			t.Errorf("emb.AsLookup(%s) is not the zero view", op.Name())
		}
		if f, ok := emb.AsFilter(op); op.Name() != emb.FilterOp && (ok || f.FilteredWeights() != nil) {
			t.Errorf("emb.AsFilter(%s) is not the zero view", op.Name())
		}
		return true
	})
	for _, d := range emb.Dialect().Ops {
		if !seen[d.Name] {
			t.Errorf("op %s not in the test", d.Name)
		}
	}
	if c, ok := emb.AsConcat(nil); ok || c.Inputs() != nil {
		t.Error("the view of nil is not the zero view")
	}
	if tb, ok := emb.AsTable(nil); ok || tb.Result() != nil {
		t.Error("the view of nil is not the zero view")
	}
	for _, as := range []func(*textir.Operation) bool{
		func(op *textir.Operation) bool { _, ok := emb.AsIDTransform(op); return ok },
		func(op *textir.Operation) bool { _, ok := emb.AsTableLookup(op); return ok },
		func(op *textir.Operation) bool { _, ok := emb.AsPooledLookup(op); return ok },
	} {
		if as(nil) {
			t.Error("an interface view of nil")
		}
	}
}
