package simplifyshapes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// The graph of these tests: x is [batch, 4]; s = Shape(x), b = s[0] and
// p = Pack(b, 4) compute x's shape, n = Pack(b * 4) its size.
const patternGraph = `
%x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
%s:2 = "tfg.Shape"(%x#0) {T = f32, _mlir_name = "s", out_type = i32} : (tensor<*xf32>) -> (tensor<*xi32>, !tfg.control)
%c0:2 = "tfg.Const"() {_mlir_name = "c0", dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
%c1:2 = "tfg.Const"() {_mlir_name = "c1", dtype = i32, value = dense<[1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
%b:2 = "tfg.StridedSlice"(%s#0, %c0#0, %c1#0, %c1#0) {Index = i32, T = i32, _mlir_name = "b", begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%four:2 = "tfg.Const"() {_mlir_name = "four", dtype = i32, value = dense<4> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
%p:2 = "tfg.Pack"(%b#0, %four#0) {N = 2 : i64, T = i32, _mlir_name = "p", axis = 0 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%m:2 = "tfg.Mul"(%b#0, %four#0) {T = i32, _mlir_name = "m"} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
%n:2 = "tfg.Pack"(%m#0) {N = 1 : i64, T = i32, _mlir_name = "n", axis = 0 : i64} : (tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
`

type patternCase struct {
	name  string
	body  string // after patternGraph
	alone bool   // body without patternGraph
	set   func(sp *simplifier) []textir.RewritePattern
	want  []string // substrings of the printed result, in order
	gone  []string // substrings that must not appear
	stats map[string]int64
}

func (sp *simplifier) statValues() map[string]int64 {
	return map[string]int64{"reshapes-removed": sp.s.reshapes.Value, "shape-ops-removed": sp.s.removed.Value,
		"operands-rebuilt": sp.s.rebuilt.Value, "assertions": sp.s.asserts.Value}
}

func TestPatterns(t *testing.T) {
	reshape := (*simplifier).reshapePatterns
	rebuild := (*simplifier).rebuildPatterns
	chains := (*simplifier).deadChainPatterns
	asserts := (*simplifier).assertionPatterns
	for _, c := range []patternCase{
		{name: "reshape to its own shape goes, with its chain", set: reshape,
			body: `%r:2 = "tfg.Reshape"(%x#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
%y:2 = "tfg.Relu"(%r#0) {T = f32, _mlir_name = "y"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)`,
			want:  []string{`%0:2 = "tfg.Placeholder"`, `"tfg.Mul"`, `"tfg.Relu"(%0#0)`},
			gone:  []string{"tfg.Reshape", `_mlir_name = "p"`},
			stats: map[string]int64{"reshapes-removed": 1, "shape-ops-removed": 1}},
		{name: "a reshape with a control operand stays", set: reshape,
			body: `%r:2 = "tfg.Reshape"(%x#0, %p#0, %c0#1) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>, !tfg.control) -> (tensor<*xf32>, !tfg.control)`,
			want: []string{"tfg.Reshape"}, stats: map[string]int64{}},
		{name: "a reshape that flattens stays", set: reshape,
			body: `%r:2 = "tfg.Reshape"(%x#0, %n#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)`,
			want: []string{"tfg.Reshape"}, stats: map[string]int64{}},
		{name: "a reshape whose user needs its type stays", set: reshape,
			body: `%r:2 = "tfg.Reshape"(%x#0, %p#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<?x4xf32>, !tfg.control)
%z = "shape.count"(%r#0) : (tensor<?x4xf32>) -> index`,
			want: []string{"tfg.Reshape"}, stats: map[string]int64{}},
		{name: "the shape of a flattening is rebuilt; its producers die after the sweep", set: rebuild,
			body: `%r:2 = "tfg.Reshape"(%x#0, %n#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)`,
			want: []string{`shape.dim %0#0, 0 {symbol = "batch"}`, `shape.apply #shape.expr<(batch) -> batch * 4>`,
				`shape.from_extents`, `: tensor<1xi32>`, `"tfg.Reshape"(%0#0,`},
			// n and m die with the old operand; b and s still feed p,
			// which is dead but no rebuilt operand's producer.
			gone:  []string{"tfg.Mul", `_mlir_name = "n"`},
			stats: map[string]int64{"operands-rebuilt": 1, "shape-ops-removed": 2}},
		{name: "a scalar becomes shape.index_cast; constants and placeholders stay", set: rebuild,
			body: `%f1:2 = "tfg.Const"() {_mlir_name = "f1", dtype = f32, value = dense<1.0> : tensor<f32>} : () -> (tensor<*xf32>, !tfg.control)
%o:2 = "tfg.OneHot"(%c1#0, %m#0, %f1#0, %f1#0) {T = f32, TI = i32, _mlir_name = "o", axis = -1 : i64} : (tensor<*xi32>, tensor<*xi32>, tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
%t:2 = "tfg.Tile"(%x#0, %c1#0) {T = f32, Tmultiples = i32, _mlir_name = "t"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)`,
			want: []string{`= shape.index_cast %10 : index to tensor<i32>`, `"tfg.OneHot"(%3#0, %11, %9#0, %9#0)`, `"tfg.Tile"(%0#0, %3#0)`},
			// OneHot's depth is rebuilt; m still feeds n.
			stats: map[string]int64{"operands-rebuilt": 1}},
		{name: "an op whose results are all contents is left to its users", set: rebuild,
			body: `%f:2 = "tfg.Fill"(%c1#0, %m#0) {T = i32, _mlir_name = "f", index_type = i32} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)`,
			want: []string{`"tfg.Fill"(%3#0, %7#0)`}, stats: map[string]int64{}},
		{name: "dead chains are erased from their roots", set: chains,
			body: `%r:2 = "tfg.Reshape"(%x#0, %c1#0) {T = f32, Tshape = i32, _mlir_name = "r"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)`,
			// n dies, then m; p dies, then b and s; four and c0 go with
			// them; c1 is still used; x is no shape op.
			want:  []string{`_mlir_name = "x"`, `_mlir_name = "c1"`, "tfg.Reshape"},
			gone:  []string{"tfg.Shape", "tfg.StridedSlice", "tfg.Pack", "tfg.Mul", `"four"`, `"c0"`},
			stats: map[string]int64{"shape-ops-removed": 7}},
		{name: "a layer of columns, through an Identity, and its lookups' ids get sizes", set: asserts, alone: true,
			body: `%a:2 = "tfg.Placeholder"() {_mlir_name = "a", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<?xi64>, !tfg.control)
%ta = emb.table {name = "ta"} : tensor<50x8xf32>
%va, %sa = emb.from_dense %a#0 {ignore = -1 : i64} : tensor<?xi64> -> tensor<?xi64>
%ea = emb.gather_scatter %ta, %va, %sa {combiner = "mean"} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
%i:2 = "tfg.Identity"(%ea) {T = f32, _mlir_name = "i"} : (tensor<?x8xf32>) -> (tensor<*xf32>, !tfg.control)
%ax:2 = "tfg.Const"() {_mlir_name = "ax", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
%l:2 = "tfg.ConcatV2"(%i#0, %ea, %ax#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "l"} : (tensor<*xf32>, tensor<?x8xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
%o:2 = "tfg.ConcatV2"(%a#0, %a#0, %ax#0) {N = 2 : i64, T = i64, Tidx = i32, _mlir_name = "o"} : (tensor<?xi64>, tensor<?xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)`,
			want: []string{`%batch = shape.dim %0#0, 0 {symbol = "batch"}`, `%nnz.a = shape.count`,
				`shape.assert_shape %values, #shape.expr<(nnz.a) -> nnz.a>(%nnz.a)`, `emb.gather_scatter`,
				`shape.assert_shape %3#0, #shape.expr<(batch) -> (batch, 8)>(%batch) : tensor<*xf32>`,
				`shape.assert_shape %2, #shape.expr<(batch) -> (batch, 8)>(%batch) : tensor<?x8xf32>`,
				`shape.assert_shape %5#0, #shape.expr<(batch) -> (batch, 16)>(%batch) : tensor<*xf32>`,
				// A ConcatV2 of no emb value is no layer.
				`"tfg.ConcatV2"(%3#0, %2, %4#0)`, `"tfg.ConcatV2"(%0#0, %0#0, %4#0)`},
			stats: map[string]int64{"assertions": 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := all.NewContext()
			body := patternGraph + c.body
			if c.alone {
				body = c.body
			}
			src := "module {\n\"tfg.graph\"() ({\n" + body + "\n}) : () -> ()\n}\n"
			m, err := textir.Parse(ctx, "test.mlir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := textir.Verify(ctx, m); err != nil {
				t.Fatal(err)
			}
			var g *textir.Operation
			m.Walk(func(op *textir.Operation) bool {
				if op.Name() == "tfg.graph" {
					g = op
				}
				return g == nil
			})
			b := g.Region(0).Blocks()[0]
			st := &stats{}
			for _, p := range []**pass.Statistic{&st.symbols, &st.merged, &st.reshapes, &st.removed, &st.rebuilt, &st.asserts, &st.left} {
				*p = &pass.Statistic{}
			}
			sp := newSimplifier(Infer(b), b, st)
			if _, err := sp.apply(ctx, g, c.set(sp)); err != nil {
				t.Fatal(err)
			}
			if err := textir.Verify(ctx, m); err != nil {
				t.Fatalf("after the patterns: %v", err)
			}
			var out bytes.Buffer
			if err := textir.Print(&out, m, textir.PrintOptions{}); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			rest := text
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing %q (in order) in\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, g := range c.gone {
				if strings.Contains(text, g) {
					t.Errorf("%q remains in\n%s", g, text)
				}
			}
			got := sp.statValues()
			for k, v := range got {
				if c.stats[k] != v {
					t.Errorf("statistics %v, want %v", got, c.stats)
					break
				}
			}
		})
	}
}
