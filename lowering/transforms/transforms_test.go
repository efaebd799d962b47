package transforms

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// The tests run the passes by flag (lowering/all, which registers every
// pass, imports this package).
func init() {
	for _, d := range []*pass.Decl{&CanonicalizeDecl, &CSEDecl, &SymbolDCEDecl} {
		pass.Register(d)
	}
}

// testDialects declares just enough of builtin, func, arith and a test
// dialect for the generic passes.
func testContext() *textir.Context {
	any := textir.Arity{Min: 0, Max: -1}
	def := func(name string, traits textir.Trait) *textir.OpDef {
		return &textir.OpDef{Name: name, Operands: any, Results: any, Regions: any, Successors: any, Traits: traits}
	}
	builtin := &textir.Dialect{Name: "builtin", Ops: []*textir.OpDef{
		def("builtin.module", textir.SymbolTable|textir.NoTerminator|textir.SingleBlock|textir.IsolatedFromAbove),
	}}
	fn := &textir.Dialect{Name: "func", Ops: []*textir.OpDef{
		def("func.func", textir.Symbol|textir.IsolatedFromAbove),
		def("func.return", textir.Terminator|textir.ReturnLike),
		def("func.call", 0),
	}}
	addi := def("arith.addi", textir.Pure|textir.Commutative)
	addi.Fold = func(op *textir.Operation, operands []textir.Attribute) []textir.FoldResult {
		c0, ok0 := operands[0].(textir.IntegerAttr)
		c1, ok1 := operands[1].(textir.IntegerAttr)
		switch {
		case ok0 && ok1:
			return []textir.FoldResult{{Attr: textir.IntegerAttr{Value: c0.Value + c1.Value, Type: c0.Type}}}
		case ok1 && c1.Value == 0:
			return []textir.FoldResult{{Value: op.Operand(0)}}
		}
		return nil
	}
	constant := def("arith.constant", textir.Pure|textir.ConstantLike)
	constant.Fold = func(op *textir.Operation, _ []textir.Attribute) []textir.FoldResult {
		return []textir.FoldResult{{Attr: op.Attr("value")}}
	}
	arith := &textir.Dialect{Name: "arith", Ops: []*textir.OpDef{constant, addi, def("arith.muli", textir.Pure)},
		MaterializeConstant: func(b *textir.Builder, attr textir.Attribute, t textir.Type, loc textir.Location) *textir.Operation {
			return b.Create(&textir.OperationState{Name: "arith.constant", Loc: loc, ResultTypes: []textir.Type{t},
				Attrs: []textir.NamedAttribute{{Name: "value", Value: attr}}})
		}}
	flip := def("test.flip", 0)
	flip.Canonicalize = []textir.RewritePattern{&textir.Pattern{RootName: "test.flip", PatternName: "FlipForever", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			rw.ModifyOpInPlace(op, func() {
				b, _ := op.Attr("v").(textir.BoolAttr)
				op.SetAttr("v", textir.BoolAttr{Value: !b.Value})
			})
			return true
		}}}
	// test.neg(test.neg(x)) -> x
	neg := def("test.neg", textir.Pure)
	neg.Canonicalize = []textir.RewritePattern{&textir.Pattern{RootName: "test.neg", PatternName: "DoubleNeg", Weight: 1,
		Fn: func(op *textir.Operation, rw textir.PatternRewriter) bool {
			in := op.Operand(0).DefiningOp()
			if in == nil || in.Name() != "test.neg" {
				return false
			}
			rw.ReplaceOp(op, []*textir.Value{in.Operand(0)})
			return true
		}}}
	test := &textir.Dialect{Name: "test", Ops: []*textir.OpDef{
		def("test.source", 0),
		def("test.symtab", textir.SymbolTable|textir.Symbol|textir.NoTerminator|textir.SingleBlock|textir.IsolatedFromAbove),
		def("test.sink", 0),
		def("test.br", textir.Terminator),
		def("test.cond_br", textir.Terminator),
		def("test.region", 0),
		def("test.pure_region", textir.Pure),
		def("test.graph", textir.GraphRegion|textir.NoTerminator),
		def("test.yield", textir.Terminator|textir.ReturnLike),
		flip, neg,
	}}
	ctx := textir.NewContext(builtin, fn, arith, test)
	ctx.AllowUnregistered = true
	return ctx
}

func parse(t *testing.T, ctx *textir.Context, src string) *textir.Operation {
	t.Helper()
	op, err := textir.Parse(ctx, "input.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return op
}

func generic(op *textir.Operation) string {
	return textir.OpString(op, textir.PrintOptions{Generic: true})
}

type passCase struct {
	name     string
	pipeline string
	in, want string
	stats    map[string]int64 // "flag/stat" -> value
	err      string
}

// runCases parses each input, runs the pipeline (verifying after each pass)
// and compares the result with the expected IR, both printed generically.
func runCases(t *testing.T, cases []passCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext()
			in := parse(t, ctx, tc.in)
			pm, err := pass.ParsePipeline(tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			err = pm.Run(ctx, in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" {
				got, want := generic(in), generic(parse(t, ctx, tc.want))
				if got != want {
					t.Errorf("got:\n%s\nwant:\n%s", got, want)
				}
			}
			stats := pm.Statistics()
			for k, v := range tc.stats {
				flag, name, _ := strings.Cut(k, "/")
				if stats[flag][name] != v {
					t.Errorf("statistic %s = %d, want %d (all: %v)", k, stats[flag][name], v, stats)
				}
			}
		})
	}
}

func TestRegisteredPasses(t *testing.T) {
	var flags []string
	for _, d := range pass.Registered() {
		flags = append(flags, d.Flag)
		if d.Summary == "" {
			t.Errorf("%s has no summary", d.Flag)
		}
	}
	if got := strings.Join(flags, " "); !strings.Contains(got, "canonicalize cse symbol-dce") {
		t.Errorf("registered: %s", got)
	}
}

func TestPipelineRoundTrip(t *testing.T) {
	in := "builtin.module(canonicalize{max-iterations=3 top-down=false disable-patterns=A,B},func.func(cse),symbol-dce)"
	pm, err := pass.ParsePipeline(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "builtin.module(canonicalize{disable-patterns=A,B enable-patterns= max-iterations=3 max-num-rewrites=-1 test-convergence=false top-down=false},func.func(cse),symbol-dce)"
	if got := pm.String(); got != want {
		t.Fatalf("String() = %s\nwant %s", got, want)
	}
	pm2, err := pass.ParsePipeline(want)
	if err != nil || pm2.String() != want {
		t.Errorf("round trip: %v %s", err, pm2)
	}
	_, err = pass.ParsePipeline("builtin.module(canonicalize{max-iteration=3})")
	if err == nil || !strings.Contains(err.Error(), "option 'max-iteration': unknown option; valid options: disable-patterns, enable-patterns, max-iterations, max-num-rewrites, test-convergence, top-down") {
		t.Errorf("err = %v", err)
	}
}
