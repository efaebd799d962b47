package emb_test

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context {
	return textir.NewContext(builtin.Dialect(), funcd.Dialect(), arith.Dialect(), tfg.Dialect(), emb.Dialect())
}

func parse(t *testing.T, ctx *textir.Context, src string) *textir.Operation {
	t.Helper()
	m, err := textir.Parse(ctx, "test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

func print(m *textir.Operation) string {
	return strings.TrimRight(textir.OpString(m, textir.PrintOptions{}), "\n") + "\n"
}

// fn wraps a body into a function whose arguments are args and which
// returns the values rets of types retTypes.
func fn(args, body, rets, retTypes string) string {
	return "func.func @f(" + args + ") -> (" + retTypes + ") {\n" + body + "\nfunc.return " + rets + " : " + retTypes + "\n}\n"
}

func TestRoundTrip(t *testing.T) {
	src := `module {
  func.func @f(%arg0: tensor<?x1xi64>, %arg1: tensor<?x!tfg.string>, %arg2: tensor<?x3xf32>, %arg3: tensor<?x2xi64>, %arg4: tensor<?xi64>, %arg5: tensor<2xi64>, %arg6: tensor<?xf32>) -> tensor<?x24xf32> {
    %values, %splits = emb.from_dense %arg0 {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
    %values_0, %splits_1 = emb.split_strings %arg1 {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
    %values_2, %splits_3 = emb.from_sparse %arg3, %arg4, %arg5 : tensor<?x2xi64>, tensor<?xi64>, tensor<2xi64> -> tensor<?xi64>
    %values_4, %splits_5 = emb.from_dense %arg2 : tensor<?x3xf32> -> tensor<?xf32>
    %0 = emb.hash %values_0 {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %1 = emb.as_string %values : tensor<?xi64> -> tensor<?x!tfg.string>
    %2 = emb.bucketize %values_4 {boundaries = [0.000000e+00 : f32, 1.000000e+00 : f32]} : tensor<?xf32> -> tensor<?xi64>
    %3 = emb.add_offset %2, %splits_5 {stride = 3 : i64} : tensor<?xi64>
    %4 = emb.vocab_lookup %1 {keys = dense<["a", "b"]> : tensor<2x!tfg.string>, num_oov_buckets = 2 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
    %5 = emb.check_range %values_2 {default = 0 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
    %6 = emb.cast %5 : tensor<?xi64> -> tensor<?xi32>
    %values_6, %splits_7, %weights = emb.filter %values_2, %splits_3, %arg6 {min = 0 : i64, positive_weights} : tensor<?xi64>, tensor<?xf32>
    %7 = emb.table {name = "t"} : tensor<100x8xf32>
    %8 = emb.lookup %7, %0, %splits_1 {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
    %9 = emb.gather_scatter %7, %values_6, %splits_7, %weights {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>
    %10 = emb.gather %7, %6 : tensor<100x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
    %11 = emb.concat %8, %9, %10 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x24xf32>
    func.return %11 : tensor<?x24xf32>
  }
}
`
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got := print(m); got != src {
		t.Errorf("round trip:\n got:\n%s\nwant:\n%s", got, src)
	}
	gen := textir.OpString(m, textir.PrintOptions{Generic: true})
	if !strings.Contains(gen, `"emb.lookup"`) {
		t.Errorf("generic form has no \"emb.lookup\":\n%s", gen)
	}
	if got := print(parse(t, ctx, gen)); got != src {
		t.Errorf("generic round trip:\n%s", got)
	}
}

// An op its custom form cannot express (row splits of another type) prints
// in the generic form, which reads back.
func TestCustomFormFallsBackToGeneric(t *testing.T) {
	src := fn("%v: tensor<?xi64>, %s: tensor<?xi32>", `%0 = "emb.add_offset"(%v, %s) {stride = 2 : i64} : (tensor<?xi64>, tensor<?xi32>) -> tensor<?xi64>`,
		"%0", "tensor<?xi64>")
	ctx := newCtx()
	m := parse(t, ctx, src)
	out := print(m)
	if !strings.Contains(out, `"emb.add_offset"(%arg0, %arg1) {stride = 2 : i64} : (tensor<?xi64>, tensor<?xi32>) -> tensor<?xi64>`) {
		t.Fatalf("not printed generically:\n%s", out)
	}
	if again := print(parse(t, ctx, out)); again != out {
		t.Errorf("not a fixed point:\n%s", again)
	}
}

func TestVerifier(t *testing.T) {
	const tbl = "%t = emb.table {name = \"t\"} : tensor<100x8xf32>\n"
	tests := []struct {
		name, args, body, want string
	}{
		{"from_dense ignore type", "%x: tensor<?x1xi64>", `%v, %s = emb.from_dense %x {ignore = "" } : tensor<?x1xi64> -> tensor<?xi64>`,
			"'emb.from_dense' op attribute 'ignore' must be a value of the input element type i64"},
		{"from_dense float ignore", "%x: tensor<?x1xf32>", `%v, %s = emb.from_dense %x {ignore = 0.0 : f64} : tensor<?x1xf32> -> tensor<?xf32>`,
			"attribute 'ignore' must be a value of the input element type f32"},
		{"from_dense values type", "%x: tensor<?x1xi64>", `%v, %s = emb.from_dense %x : tensor<?x1xi64> -> tensor<?x!tfg.string>`,
			"values element type !tfg.string does not match the input element type i64"},
		{"from_sparse values type", "%i: tensor<?x2xi64>, %v: tensor<?xi32>, %s: tensor<2xi64>", `%a, %b = emb.from_sparse %i, %v, %s : tensor<?x2xi64>, tensor<?xi32>, tensor<2xi64> -> tensor<?xi64>`,
			"values element type i64 does not match the sparse values element type i32"},
		{"from_sparse shape", "%i: tensor<?x2xi64>, %v: tensor<?xi64>, %s: tensor<3xi64>", `%a, %b = emb.from_sparse %i, %v, %s : tensor<?x2xi64>, tensor<?xi64>, tensor<3xi64> -> tensor<?xi64>`,
			"operand #2 must be tensor<2xi64> dense shape"},
		{"split_strings rank", "%x: tensor<?x2x!tfg.string>", `%v, %s = emb.split_strings %x {sep = ";"} : tensor<?x2x!tfg.string> -> tensor<?x!tfg.string>`,
			"operand #0 must be tensor<?x!tfg.string> or tensor<?x1x!tfg.string>"},
		{"hash buckets", "%x: tensor<?x!tfg.string>", `%h = emb.hash %x {num_buckets = -3 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`,
			"'emb.hash' op requires num_buckets >= 1, but got -3"},
		{"hash result", "%x: tensor<?x!tfg.string>", `%h = emb.hash %x {num_buckets = 3 : i64} : tensor<?x!tfg.string> -> tensor<?xi16>`,
			"result #0 must be ragged values tensor<?xi32> or tensor<?xi64>"},
		{"as_string of strings", "%x: tensor<?x!tfg.string>", `%h = emb.as_string %x : tensor<?x!tfg.string> -> tensor<?x!tfg.string>`,
			"'emb.as_string' op operand #0 must be ragged values tensor<?xiN> of signless integers"},
		{"bucketize sorted", "%x: tensor<?xf32>", `%b = emb.bucketize %x {boundaries = [1.0 : f32, 3.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>`,
			"boundaries must be sorted, but boundaries[1] = 3 > boundaries[2] = 2"},
		{"bucketize strings", "%x: tensor<?x!tfg.string>", `%b = emb.bucketize %x {boundaries = [1.0 : f32]} : tensor<?x!tfg.string> -> tensor<?xi64>`,
			"operand #0 must be ragged values tensor<?xT> of i32, i64, f32 or f64"},
		{"bucketize attr kind", "%x: tensor<?xf32>", `%b = emb.bucketize %x {boundaries = dense<[1.0]> : tensor<1xf32>} : tensor<?xf32> -> tensor<?xi64>`,
			"attribute 'boundaries' failed to satisfy constraint: array attribute"},
		{"vocab duplicate ints", "%x: tensor<?xi64>", `%r = emb.vocab_lookup %x {keys = dense<[4, 5, 5]> : tensor<3xi64>} : tensor<?xi64> -> tensor<?xi64>`,
			"keys[1] and keys[2] are both 5: vocabulary keys must be unique"},
		{"vocab keys rank", "%x: tensor<?xi64>", `%r = emb.vocab_lookup %x {keys = dense<[[4, 5]]> : tensor<1x2xi64>} : tensor<?xi64> -> tensor<?xi64>`,
			"attribute 'keys' must be a 1-D tensor of the input element type i64, but got tensor<1x2xi64>"},
		{"vocab result too narrow", "%x: tensor<?xi64>", `%r = emb.vocab_lookup %x {keys = dense<[4, 5]> : tensor<2xi64>, num_oov_buckets = 4294967296 : i64} : tensor<?xi64> -> tensor<?xi32>`,
			"result element type i32 cannot hold the ids"},
		{"check_range default", "%x: tensor<?xi32>", `%r = emb.check_range %x {num_buckets = 5 : i64, default = 4294967296 : i64} : tensor<?xi32> -> tensor<?xi32>`,
			"default 4294967296 does not fit in i32"},
		{"add_offset result", "%x: tensor<?xi64>, %s: tensor<?xi64>", `%r = "emb.add_offset"(%x, %s) {stride = 1 : i64} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi32>`,
			"result type tensor<?xi32> does not match the values type tensor<?xi64>"},
		{"filter result type", "%x: tensor<?xi64>, %s: tensor<?xi64>", `%r:2 = "emb.filter"(%x, %s) : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi32>, tensor<?xi64>)`,
			"'emb.filter' op result #0 type tensor<?xi32> does not match operand #0 type tensor<?xi64>"},
		{"filter weights", "%x: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xi64>", `%a, %b, %c = emb.filter %x, %s, %w : tensor<?xi64>, tensor<?xi64>`,
			"operand #2 must be ragged weights tensor<?xf32> or tensor<?xf64>"},
		{"table name", "", `%t = emb.table {name = ""} : tensor<4x2xf32>`,
			"'emb.table' op requires a non-empty 'name'"},
		{"table value", "", `%t = emb.table {name = "t", value = dense<1.0> : tensor<4x2xf64>} : tensor<4x2xf32>`,
			"value type tensor<4x2xf64> does not match the table type tensor<4x2xf32>"},
		{"table ints", "", `%t = emb.table {name = "t"} : tensor<4x2xi32>`,
			"result #0 must be statically shaped 2-D tensor of f32 or f64"},
		{"lookup combiner", "%v: tensor<?xi64>, %s: tensor<?xi64>", tbl + `%r = emb.lookup %t, %v, %s {combiner = "avg"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`,
			`'emb.lookup' op combiner must be "sum", "mean" or "sqrtn", but got "avg"`},
		{"lookup no combiner", "%v: tensor<?xi64>, %s: tensor<?xi64>", tbl + `%r = emb.lookup %t, %v, %s : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`,
			"'emb.lookup' op requires attribute 'combiner'"},
		{"lookup width", "%v: tensor<?xi64>, %s: tensor<?xi64>", tbl + `%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x?xf32>`,
			"result width ? does not match the table width 8"},
		{"lookup rank", "%v: tensor<?xi64>, %s: tensor<?xi64>", tbl + `%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?xf32>`,
			"result #0 must be 2-D tensor of f32 or f64"},
		{"gather_scatter combiner", "%v: tensor<?xi64>, %s: tensor<?xi64>", tbl + `%r = emb.gather_scatter %t, %v, %s {combiner = 1 : i64} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`,
			"attribute 'combiner' failed to satisfy constraint: string attribute"},
		{"gather width", "%v: tensor<?xi64>", tbl + `%r = emb.gather %t, %v : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x9xf32>`,
			"'emb.gather' op result width 9 does not match the table width 8"},
		{"gather ids", "%v: tensor<?xf32>", tbl + `%r = emb.gather %t, %v : tensor<100x8xf32>, tensor<?xf32> -> tensor<?x8xf32>`,
			"operand #1 must be ragged values tensor<?xiN> of signless integers"},
		{"concat elem", "%a: tensor<?x8xf32>, %b: tensor<?x4xf64>", `%r = emb.concat %a, %b : (tensor<?x8xf32>, tensor<?x4xf64>) -> tensor<?x12xf32>`,
			"operand #1 element type f64 does not match the result element type f32"},
		{"concat width", "%a: tensor<?x8xf32>, %b: tensor<?x4xf32>", `%r = emb.concat %a, %b : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<?x11xf32>`,
			"result width 11 is not the sum of the operand widths (12)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			src := "func.func @f(" + tc.args + ") {\n" + tc.body + "\nfunc.return\n}\n"
			m := parse(t, ctx, src)
			err := textir.Verify(ctx, m)
			if err == nil {
				t.Fatalf("verified, want error %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// retOp returns the function's return.
func retOp(m *textir.Operation) *textir.Operation {
	var ret *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == funcd.ReturnOp {
			ret = op
		}
		return true
	})
	return ret
}

// lastOp returns the op before the function's return.
func lastOp(m *textir.Operation) *textir.Operation { return retOp(m).Prev() }

func TestFolders(t *testing.T) {
	tests := []struct {
		name, args, body string
		want             []string // per result: "%argN", "#i" (operand i), or none when nil
	}{
		{"cast same type", "%x: tensor<?xi64>", `%r = emb.cast %x : tensor<?xi64> -> tensor<?xi64>`, []string{"#0"}},
		{"cast other type", "%x: tensor<?xi64>", `%r = emb.cast %x : tensor<?xi64> -> tensor<?xi32>`, nil},
		{"add_offset stride 0", "%x: tensor<?xi64>, %s: tensor<?xi64>", `%r = emb.add_offset %x, %s {stride = 0 : i64} : tensor<?xi64>`, []string{"#0"}},
		{"add_offset unknown bags", "%x: tensor<?xi64>, %s: tensor<?xi64>", `%r = emb.add_offset %x, %s {stride = 5 : i64} : tensor<?xi64>`, nil},
		{"add_offset [B, 1]", "%x: tensor<?x1xi64>", `%v, %s = emb.from_dense %x : tensor<?x1xi64> -> tensor<?xi64>
%r = emb.add_offset %v, %s {stride = 5 : i64} : tensor<?xi64>`, []string{"#0"}},
		{"add_offset [B] with ignore", "%x: tensor<?xi64>", `%v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
%r = emb.add_offset %v, %s {stride = 5 : i64} : tensor<?xi64>`, []string{"#0"}},
		{"add_offset [B, 2]", "%x: tensor<?x2xi64>", `%v, %s = emb.from_dense %x : tensor<?x2xi64> -> tensor<?xi64>
%r = emb.add_offset %v, %s {stride = 5 : i64} : tensor<?xi64>`, nil},
		{"filter without bounds", "%x: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>", `%a, %b, %c = emb.filter %x, %s, %w : tensor<?xi64>, tensor<?xf32>`, []string{"#0", "#1", "#2"}},
		{"filter with a bound", "%x: tensor<?xi64>, %s: tensor<?xi64>", `%a, %b = emb.filter %x, %s {max = 3 : i64} : tensor<?xi64>`, nil},
		{"filter of weights", "%x: tensor<?xi64>, %s: tensor<?xi64>, %w: tensor<?xf32>", `%a, %b, %c = emb.filter %x, %s, %w {positive_weights} : tensor<?xi64>, tensor<?xf32>`, nil},
		{"concat of one", "%x: tensor<?x8xf32>", `%r = emb.concat %x : (tensor<?x8xf32>) -> tensor<?x8xf32>`, []string{"#0"}},
		{"concat of two", "%x: tensor<?x8xf32>", `%r = emb.concat %x, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			m := parse(t, ctx, "func.func @f("+tc.args+") {\n"+tc.body+"\nfunc.return\n}\n")
			if err := textir.Verify(ctx, m); err != nil {
				t.Fatalf("verify: %v", err)
			}
			op := lastOp(m)
			rs := op.Def().Fold(op, make([]textir.Attribute, op.NumOperands()))
			if len(rs) == 0 {
				if tc.want != nil {
					t.Fatalf("did not fold, want %v", tc.want)
				}
				return
			}
			if tc.want == nil {
				t.Fatalf("folded, want no fold")
			}
			if len(rs) != len(tc.want) {
				t.Fatalf("%d fold results, want %d", len(rs), len(tc.want))
			}
			for i, r := range rs {
				got := "other"
				for j, v := range op.Operands() {
					if r.Value == v {
						got = "#" + string(rune('0'+j))
					}
				}
				if got != tc.want[i] {
					t.Errorf("result %d folds to %s, want %s", i, got, tc.want[i])
				}
			}
		})
	}
}

// canonicalize runs the canonicalization patterns and folders of every
// dialect, strictly, and returns the printed function.
func canonicalize(t *testing.T, src string) string {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v\n%s", err, src)
	}
	ps := rewrite.NewPatternSet(ctx, rewrite.CanonicalizationPatterns(ctx))
	cfg := rewrite.DefaultGreedyConfig()
	cfg.Strict, cfg.ExpensiveChecks = true, true
	if _, err := rewrite.ApplyPatternsGreedily(m, ps, cfg); err != nil {
		t.Fatalf("canonicalize: %v", err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify after canonicalize: %v\n%s", err, print(m))
	}
	return print(m)
}

func TestCanonicalizationPatterns(t *testing.T) {
	const tbl = "%t = emb.table {name = \"t\"} : tensor<100x8xf32>\n"
	tests := []struct {
		name, src string
		has, not  []string
	}{
		{"filter after hash goes", fn("%x: tensor<?x!tfg.string>", `%v, %s = emb.split_strings %x {sep = ","} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
%h = emb.hash %v {num_buckets = 7 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%a, %b = emb.filter %h, %s {min = 0 : i64, max = 6 : i64} : tensor<?xi64>`, "%a, %b", "tensor<?xi64>, tensor<?xi64>"),
			[]string{"emb.hash", "func.return %0, %splits"}, []string{"emb.filter"}},
		{"filter narrower than hash stays", fn("%x: tensor<?x!tfg.string>", `%v, %s = emb.split_strings %x {sep = ","} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>
%h = emb.hash %v {num_buckets = 7 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%a, %b = emb.filter %h, %s {max = 5 : i64} : tensor<?xi64>`, "%a, %b", "tensor<?xi64>, tensor<?xi64>"),
			[]string{"emb.filter"}, nil},
		{"bucketize n boundaries reach n", fn("%x: tensor<?xf32>, %s: tensor<?xi64>", `%b = emb.bucketize %x {boundaries = [1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
%a, %c = emb.filter %b, %s {min = 0 : i64, max = 1 : i64} : tensor<?xi64>`, "%a", "tensor<?xi64>"),
			[]string{"emb.filter"}, nil},
		{"bucketize filter to n goes", fn("%x: tensor<?xf32>, %s: tensor<?xi64>", `%b = emb.bucketize %x {boundaries = [1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
%a, %c = emb.filter %b, %s {min = 0 : i64, max = 2 : i64} : tensor<?xi64>`, "%a", "tensor<?xi64>"),
			nil, []string{"emb.filter"}},
		{"check_range of hash goes", fn("%x: tensor<?x!tfg.string>", `%h = emb.hash %x {num_buckets = 7 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%c = emb.check_range %h {num_buckets = 7 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>`, "%c", "tensor<?xi64>"),
			nil, []string{"emb.check_range"}},
		{"check_range of wider hash stays", fn("%x: tensor<?x!tfg.string>", `%h = emb.hash %x {num_buckets = 8 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%c = emb.check_range %h {num_buckets = 7 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>`, "%c", "tensor<?xi64>"),
			[]string{"emb.check_range"}, nil},
		{"widening cast and back", fn("%x: tensor<?xi32>", `%a = emb.cast %x : tensor<?xi32> -> tensor<?xi64>
%b = emb.cast %a : tensor<?xi64> -> tensor<?xi32>`, "%b", "tensor<?xi32>"),
			[]string{"func.return %arg0"}, []string{"emb.cast"}},
		{"widening cast then narrowing", fn("%x: tensor<?xi32>", `%a = emb.cast %x : tensor<?xi32> -> tensor<?xi64>
%b = emb.cast %a : tensor<?xi64> -> tensor<?xi16>`, "%b", "tensor<?xi16>"),
			[]string{"emb.cast %arg0 : tensor<?xi32> -> tensor<?xi16>"}, []string{"tensor<?xi32> -> tensor<?xi64>"}},
		{"narrowing cast and back stays", fn("%x: tensor<?xi64>", `%a = emb.cast %x : tensor<?xi64> -> tensor<?xi32>
%b = emb.cast %a : tensor<?xi32> -> tensor<?xi64>`, "%b", "tensor<?xi64>"),
			[]string{"tensor<?xi64> -> tensor<?xi32>", "tensor<?xi32> -> tensor<?xi64>"}, nil},
		{"one id per bag: gather", fn("%x: tensor<?x1xi64>", tbl+`%v, %s = emb.from_dense %x : tensor<?x1xi64> -> tensor<?xi64>
%r = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{"emb.gather %0, %values"}, []string{"emb.lookup", "gather_scatter"}},
		{"one weighted id per bag: gather-scatter", fn("%x: tensor<?x1xi64>, %w: tensor<?xf32>", tbl+`%v, %s = emb.from_dense %x : tensor<?x1xi64> -> tensor<?xi64>
%r = emb.lookup %t, %v, %s, %w {combiner = "sqrtn"} : tensor<100x8xf32>, tensor<?xi64>, tensor<?xf32> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{`emb.gather_scatter %0, %values, %splits, %arg1 {combiner = "sqrtn"}`}, []string{"emb.lookup"}},
		{"at most one id per bag: gather-scatter", fn("%x: tensor<?x1xi64>", tbl+`%v, %s = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>
%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{`emb.gather_scatter %0, %values, %splits {combiner = "sum"}`}, []string{"emb.lookup"}},
		{"two ids per bag: lookup", fn("%x: tensor<?x2xi64>", tbl+`%v, %s = emb.from_dense %x : tensor<?x2xi64> -> tensor<?xi64>
%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{"emb.lookup"}, []string{"emb.gather"}},
		{"unknown bags: lookup", fn("%v: tensor<?xi64>, %s: tensor<?xi64>", tbl+`%r = emb.lookup %t, %v, %s {combiner = "sum"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{"emb.lookup"}, []string{"emb.gather"}},
		{"gather-scatter of one id per bag: gather", fn("%x: tensor<?xi64>", tbl+`%v, %s = emb.from_dense %x : tensor<?xi64> -> tensor<?xi64>
%r = emb.gather_scatter %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32>`, "%r", "tensor<?x8xf32>"),
			[]string{"emb.gather %0, %values"}, []string{"gather_scatter"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := canonicalize(t, tc.src)
			for _, h := range tc.has {
				if !strings.Contains(got, h) {
					t.Errorf("missing %q in\n%s", h, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in\n%s", n, got)
				}
			}
		})
	}
}

// returned returns the first value the function returns.
func returned(t *testing.T, src string) *textir.Value {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v\n%s", err, src)
	}
	return retOp(m).Operand(0)
}

func TestValueRange(t *testing.T) {
	const strs = "%x: tensor<?x!tfg.string>, %f: tensor<?xf32>, %i: tensor<?xi64>, %j: tensor<?xi32>, %s: tensor<?xi64>, %d: tensor<?x3xf32>"
	type rng struct {
		lo, hi int64
		ok     bool
	}
	tests := []struct {
		name, body string
		want       rng
	}{
		{"hash", `%r = emb.hash %x {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`, rng{0, 99, true}},
		{"bucketize n boundaries give [0, n]", `%r = emb.bucketize %f {boundaries = [0.0 : f32, 1.0 : f32, 2.0 : f32]} : tensor<?xf32> -> tensor<?xi64>`, rng{0, 3, true}},
		{"bucketize no boundaries", `%r = emb.bucketize %f {boundaries = []} : tensor<?xf32> -> tensor<?xi64>`, rng{0, 0, true}},
		{"vocab default -1", `%r = emb.vocab_lookup %x {keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>} : tensor<?x!tfg.string> -> tensor<?xi64>`, rng{-1, 2, true}},
		{"vocab default above", `%r = emb.vocab_lookup %x {keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>, default = 7 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`, rng{0, 7, true}},
		{"vocab oov", `%r = emb.vocab_lookup %x {keys = dense<["a", "b", "c"]> : tensor<3x!tfg.string>, num_oov_buckets = 5 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>`, rng{0, 7, true}},
		{"check_range default 0", `%r = emb.check_range %i {num_buckets = 10 : i64, default = 0 : i64} : tensor<?xi64> -> tensor<?xi64>`, rng{0, 9, true}},
		{"check_range default -2", `%r = emb.check_range %i {num_buckets = 10 : i64, default = -2 : i64} : tensor<?xi64> -> tensor<?xi64>`, rng{-2, 9, true}},
		{"check_range no default", `%r = emb.check_range %i {num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>`, rng{0, 9, true}},
		{"i64 of unknown origin", `%r = emb.cast %i : tensor<?xi64> -> tensor<?xi64>`, rng{0, 0, false}},
		{"i32 argument", `%r = emb.cast %j : tensor<?xi32> -> tensor<?xi32>`, rng{-1 << 31, 1<<31 - 1, true}},
		{"cast keeps range", `%h = emb.hash %x {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%r = emb.cast %h : tensor<?xi64> -> tensor<?xi32>`, rng{0, 99, true}},
		{"narrowing cast that may wrap", `%h = emb.hash %x {num_buckets = 1000 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%r = emb.cast %h : tensor<?xi64> -> tensor<?xi8>`, rng{-128, 127, true}},
		{"filter narrows", `%h = emb.hash %x {num_buckets = 100 : i64} : tensor<?x!tfg.string> -> tensor<?xi64>
%r, %rs = emb.filter %h, %s {min = 10 : i64, max = 50 : i64} : tensor<?xi64>`, rng{10, 50, true}},
		{"filter of unknown ids", `%r, %rs = emb.filter %i, %s {min = 0 : i64} : tensor<?xi64>`, rng{0, 1<<63 - 1, true}},
		{"add_offset on [B, 3]", `%v, %vs = emb.from_dense %d : tensor<?x3xf32> -> tensor<?xf32>
%b = emb.bucketize %v {boundaries = [0.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
%r = emb.add_offset %b, %vs {stride = 3 : i64} : tensor<?xi64>`, rng{0, 8, true}},
		{"add_offset negative stride", `%v, %vs = emb.from_dense %d : tensor<?x3xf32> -> tensor<?xf32>
%b = emb.bucketize %v {boundaries = [0.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
%r = emb.add_offset %b, %vs {stride = -3 : i64} : tensor<?xi64>`, rng{-6, 2, true}},
		{"add_offset of unknown bags", `%b = emb.bucketize %f {boundaries = [0.0 : f32, 1.0 : f32]} : tensor<?xf32> -> tensor<?xi64>
%r = emb.add_offset %b, %s {stride = 3 : i64} : tensor<?xi64>`, rng{0, 0, false}},
		{"constant", `%r = arith.constant dense<[3, -4, 9]> : tensor<3xi64>`, rng{-4, 9, true}},
		{"strings", `%r = emb.as_string %i : tensor<?xi64> -> tensor<?x!tfg.string>`, rng{0, 0, false}},
		{"cross", `%r, %rs = emb.cross %i, %s, %x, %s {hash_key = 5 : i64, num_buckets = 1000 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>`, rng{0, 999, true}},
		{"cross without buckets", `%r, %rs = emb.cross %i, %s {hash_key = 5 : i64, num_buckets = 0 : i64} : tensor<?xi64> -> tensor<?xi64>`, rng{0, 1<<63 - 2, true}},
		{"filtered cross", `%c, %cs = emb.cross %i, %s {hash_key = 5 : i64, num_buckets = 10 : i64} : tensor<?xi64> -> tensor<?xi64>
%r, %rs = emb.filter %c, %cs {min = 0 : i64} : tensor<?xi64>`, rng{0, 9, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lastLine := tc.body[strings.LastIndex(tc.body, "\n")+1:]
			ty := strings.TrimSpace(lastLine[strings.LastIndex(lastLine, ": ")+1:])
			if i := strings.LastIndex(ty, "-> "); i >= 0 {
				ty = ty[i+3:]
			}
			v := returned(t, fn(strs, tc.body, "%r", ty))
			lo, hi, ok := emb.ValueRange(v)
			if got := (rng{lo, hi, ok}); got != tc.want {
				t.Errorf("ValueRange = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestBagSize(t *testing.T) {
	type bag struct {
		lo, hi int64
		ok     bool
	}
	tests := []struct {
		name, args, body string
		want             bag
	}{
		{"[B]", "%x: tensor<?xi64>", `%v, %r = emb.from_dense %x : tensor<?xi64> -> tensor<?xi64>`, bag{1, 1, true}},
		{"[B, 1] with ignore", "%x: tensor<?x1xi64>", `%v, %r = emb.from_dense %x {ignore = -1 : i64} : tensor<?x1xi64> -> tensor<?xi64>`, bag{0, 1, true}},
		{"[B, 4]", "%x: tensor<?x4xi64>", `%v, %r = emb.from_dense %x : tensor<?x4xi64> -> tensor<?xi64>`, bag{4, 4, true}},
		{"[B, ?]", "%x: tensor<?x?xi64>", `%v, %r = emb.from_dense %x : tensor<?x?xi64> -> tensor<?xi64>`, bag{0, 0, false}},
		{"filtered [B, 4]", "%x: tensor<?x4xi64>", `%v, %s = emb.from_dense %x : tensor<?x4xi64> -> tensor<?xi64>
%f, %r = emb.filter %v, %s {min = 0 : i64} : tensor<?xi64>`, bag{0, 4, true}},
		{"split strings", "%x: tensor<?x!tfg.string>", `%v, %r = emb.split_strings %x {sep = ";"} : tensor<?x!tfg.string> -> tensor<?x!tfg.string>`, bag{0, 0, false}},
		{"cross of [B, 2] and [B, 3]", "%x: tensor<?x2xi64>, %y: tensor<?x3x!tfg.string>", `%a, %as = emb.from_dense %x : tensor<?x2xi64> -> tensor<?xi64>
%b, %bs = emb.from_dense %y : tensor<?x3x!tfg.string> -> tensor<?x!tfg.string>
%v, %r = emb.cross %a, %as, %b, %bs {hash_key = 1 : i64, num_buckets = 7 : i64} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>`, bag{6, 6, true}},
		{"cross with ignore", "%x: tensor<?x2xi64>, %y: tensor<?x3x!tfg.string>", `%a, %as = emb.from_dense %x {ignore = -1 : i64} : tensor<?x2xi64> -> tensor<?xi64>
%b, %bs = emb.from_dense %y : tensor<?x3x!tfg.string> -> tensor<?x!tfg.string>
%v, %r = emb.cross %a, %as, %b, %bs {sep = "_X_"} : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?x!tfg.string>`, bag{0, 6, true}},
		{"filtered cross", "%x: tensor<?x2xi64>", `%a, %as = emb.from_dense %x : tensor<?x2xi64> -> tensor<?xi64>
%c, %cs = emb.cross %a, %as {hash_key = 1 : i64, num_buckets = 7 : i64} : tensor<?xi64> -> tensor<?xi64>
%v, %r = emb.filter %c, %cs {min = 0 : i64} : tensor<?xi64>`, bag{0, 2, true}},
		{"cross of unknown bags", "%x: tensor<?x2xi64>, %s: tensor<?xi64>, %y: tensor<?xi64>", `%a, %as = emb.from_dense %x : tensor<?x2xi64> -> tensor<?xi64>
%v, %r = emb.cross %a, %as, %y, %s {hash_key = 1 : i64, num_buckets = 7 : i64} : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>`, bag{0, 0, false}},
		{"argument", "%r: tensor<?xi64>", ``, bag{0, 0, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := returned(t, fn(tc.args, tc.body, "%r", "tensor<?xi64>"))
			lo, hi, ok := emb.BagSize(v)
			if got := (bag{lo, hi, ok}); got != tc.want {
				t.Errorf("BagSize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Every op is declared Pure, with a summary, and every op but the table
// has a custom form.
func TestOpDefs(t *testing.T) {
	d := emb.Dialect()
	if len(d.Ops) != 17 {
		t.Errorf("%d ops, want 17", len(d.Ops))
	}
	for _, def := range d.Ops {
		if def.Traits&textir.Pure == 0 {
			t.Errorf("%s is not Pure", def.Name)
		}
		if def.Summary == "" || def.Print == nil || def.Parse == nil {
			t.Errorf("%s lacks a summary or a custom form", def.Name)
		}
	}
}
