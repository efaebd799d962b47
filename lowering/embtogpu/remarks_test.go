package embtogpu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// fuseWithRemarks runs --fuse on src and returns the printed module, the
// remarks in the order they came and the pass's statistics.
func fuseWithRemarks(t *testing.T, src string) (string, []string, map[string]int64) {
	t.Helper()
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := pass.ParsePipeline("fuse")
	if err != nil {
		t.Fatal(err)
	}
	var remarks []string
	pm.Config.Diag = func(d *textir.Diagnostic) { remarks = append(remarks, d.Error()) }
	if err := pm.Run(ctx, m); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := textir.Print(&b, m, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String(), remarks, pm.Statistics()["fuse"]
}

// The IR of the remark tests: one table, and a pooled lookup of it named
// by its TF node.
const lookupIR = `
  %t = emb.table {name = "t8"} : tensor<100x8xf32>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf32>, tensor<?xi64> -> tensor<?x8xf32> loc("c/lookup")
`

// Every pooled lookup that --fuse leaves gets a remark naming its TF node
// and why; a concatenation that looks like an input layer gets the remark
// it always had; a lookup a layer takes gets none, even when it stays for
// another user.
func TestUnfusedRemarks(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		remarks []string
		layers  int64
		left    int // emb.lookup ops left
	}{{
		// A lookup that reaches no concatenation is a layer of its own.
		name: "no concatenation",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf32> {` + lookupIR + `
  func.return %l : tensor<?x8xf32>
}`,
		layers: 1,
	}, {
		name: "no concatenation, f64 table",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf64> {
  %t = emb.table {name = "t8"} : tensor<100x8xf64>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf64>, tensor<?xi64> -> tensor<?x8xf64> loc("c/lookup")
  func.return %l : tensor<?x8xf64>
}`,
		remarks: []string{`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it looks up a table of tensor<100x8xf64> (version 1 fuses f32 tables)`},
		left:    1,
	}, {
		name: "no concatenation, result unused",
		src: `func.func @f(%a: tensor<?x4xi64>) {` + lookupIR + `
  func.return
}`,
		remarks: []string{`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: its result is not used`},
		left:    1,
	}, {
		name: "first input not a lookup",
		src: `func.func @f(%a: tensor<?x4xi64>, %x: tensor<?x8xf32>) -> tensor<?x16xf32> {` + lookupIR + `
  %r = emb.concat %x, %l : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}`,
		remarks: []string{`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it is input #1 of 'emb.concat', which is not fused: input #0 is not a pooled embedding lookup`},
		left:    1,
	}, {
		name: "later input not a lookup",
		src: `func.func @f(%a: tensor<?x4xi64>, %x: tensor<?x8xf32>) -> tensor<?x16xf32> {` + lookupIR + `
  %r = emb.concat %l, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32> loc("layer")
  func.return %r : tensor<?x16xf32>
}`,
		remarks: []string{
			`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it is input #0 of 'emb.concat' (node "layer"), which is not fused: input #1 is not a pooled embedding lookup`,
			`t.mlir:6:3: remark: 'emb.concat' op (node "layer") not fused: input #1 is not a pooled embedding lookup`,
		},
		left: 1,
	}, {
		name: "f64 table",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf64> {
  %t = emb.table {name = "t8"} : tensor<100x8xf64>
  %v, %s = emb.from_dense %a {ignore = -1 : i64} : tensor<?x4xi64> -> tensor<?xi64>
  %l = emb.lookup %t, %v, %s {combiner = "mean"} : tensor<100x8xf64>, tensor<?xi64> -> tensor<?x8xf64> loc("c/lookup")
  %r = emb.concat %l : (tensor<?x8xf64>) -> tensor<?x8xf64> loc("layer")
  func.return %r : tensor<?x8xf64>
}`,
		remarks: []string{
			`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it looks up a table of tensor<100x8xf64> (version 1 fuses f32 tables)`,
			`t.mlir:5:3: remark: 'emb.concat' op (node "layer") not fused: input #0 looks up a table of tensor<100x8xf64> (version 1 fuses f32 tables)`,
		},
		left: 1,
	}, {
		name: "tfg concatenation along axis 0",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf32> {` + lookupIR + `
  %ax:2 = "tfg.Const"() {_mlir_name = "axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<i32>, !tfg.control)
  %c:2 = "tfg.ConcatV2"(%l, %l, %ax#0) {_mlir_name = "rows", N = 2 : i64, T = f32, Tidx = i32} : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<i32>) -> (tensor<?x8xf32>, !tfg.control)
  func.return %c#0 : tensor<?x8xf32>
}`,
		remarks: []string{`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it reaches 'tfg.ConcatV2' (node "rows"), which is not an input layer: it concatenates along axis 0, not 1`},
		left:    1,
	}, {
		name: "reshape of an unknown shape",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf32> {` + lookupIR + `
  %sh:2 = "tfg.Const"() {_mlir_name = "shape", dtype = i32, value = dense<[-1, 8]> : tensor<2xi32>} : () -> (tensor<2xi32>, !tfg.control)
  %x:2 = "tfg.Reshape"(%l, %sh#0) {_mlir_name = "c/reshape", T = f32, Tshape = i32} : (tensor<?x8xf32>, tensor<2xi32>) -> (tensor<?x8xf32>, !tfg.control)
  %r = emb.concat %x#0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}`,
		remarks: []string{`t.mlir:4:3: remark: 'emb.lookup' op (node "c/lookup") not fused: it reaches 'emb.concat' through 'tfg.Reshape' (node "c/reshape"), whose shape operand is not one known to keep the rows`},
		left:    1,
	}, {
		name: "fused lookup with another user",
		src: `func.func @f(%a: tensor<?x4xi64>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {` + lookupIR + `
  %r = emb.concat %l : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r, %l : tensor<?x8xf32>, tensor<?x8xf32>
}`,
		layers: 1,
		left:   1,
	}, {
		name: "fused",
		src: `func.func @f(%a: tensor<?x4xi64>) -> tensor<?x8xf32> {` + lookupIR + `
  %r = emb.concat %l : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}`,
		layers: 1,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, remarks, stats := fuseWithRemarks(t, c.src)
			if !slices.Equal(remarks, c.remarks) {
				t.Errorf("remarks:\n%s\nwant:\n%s", strings.Join(remarks, "\n"), strings.Join(c.remarks, "\n"))
			}
			if stats["layers"] != c.layers {
				t.Errorf("layers %d, want %d", stats["layers"], c.layers)
			}
			if n := strings.Count(out, "fused.embedding_layer"); n != int(c.layers) {
				t.Errorf("%d fused.embedding_layer ops, want %d:\n%s", n, c.layers, out)
			}
			if n := strings.Count(out, "emb.lookup"); n != c.left {
				t.Errorf("%d emb.lookup ops left, want %d:\n%s", n, c.left, out)
			}
			if _, ok := stats["id-chains"]; ok != (c.layers > 0) {
				t.Errorf("id-chains reported: %v, want %v (only when a layer is fused)", ok, c.layers > 0)
			}
		})
	}
}
