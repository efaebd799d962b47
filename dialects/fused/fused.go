// Package fused is the dialect of recom's fused layers: the boundary ops
// between the program and its GPU kernels, and their interpreter semantics.
//
//   - fused.embedding_layer (--fuse): every embedding lookup of a layer,
//     pooled, scaled and concatenated by one kernel of gpu.module @emb;
//   - fused.dense (--fuse-dense): a dense layer act(concat(inputs)·W + b) by
//     one tiled kernel (and a reduce kernel with split-K) of gpu.module @dense.
//
// The ops' attributes describe the host–device contract: how the runtime
// lays out the tables, packs the inputs and launches the kernels. That
// contract is package abi (dialects/fused/abi), which this package, the
// lowerings that emit the kernels (lowering/embtogpu, lowering/densetogpu)
// and the GPU runtime (runtime/fusedrt) share; its package doc describes the
// op forms and the layout in full.
//
// The semantics pack the inputs exactly as the GPU runtime does (abi.Layer.Pack),
// run the kernel in the gpu dialect's thread-level simulator, and unpack the
// output, so every lowering to these ops is checked against the
// interpreter.
package fused

import (
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect fused

// Name is the dialect namespace.
const Name = "fused"

// Op names.
const (
	// EmbeddingLayerOp is the embedding layer's boundary op.
	EmbeddingLayerOp = "fused.embedding_layer"
	// DenseOp is the boundary op of a dense layer.
	DenseOp = "fused.dense"
)

// Dialect returns the fused dialect.
func Dialect() *textir.Dialect {
	d := &textir.Dialect{Name: Name, Summary: "the fused layers: the boundary between the program and its GPU kernels (fused.embedding_layer, fused.dense)"}
	d.Ops = []*textir.OpDef{{
		Name:     EmbeddingLayerOp,
		Summary:  "every embedding lookup of a layer, pooled, scaled and concatenated by one kernel",
		Operands: textir.AtLeast(2),
		Results:  textir.Exactly(1),
		// The columns' operands, each column's as abi.Column lays them out.
		NamedOperands: []string{"column_operands..."},
		NamedResults:  []string{"result"},
		Attrs: []textir.AttrSpec{
			{Name: "kernel", Kind: textir.SymbolRefAttrKind},
			{Name: "schedule", Kind: textir.StringAttrKind},
			{Name: "width", Kind: textir.IntegerAttrKind},
			{Name: "block", Kind: textir.IntegerAttrKind},
			{Name: "min_tasks", Kind: textir.IntegerAttrKind, Optional: true},
			{Name: "table_floats", Kind: textir.IntegerAttrKind},
			{Name: "columns", Kind: textir.ArrayAttrKind},
			// Sharding (shard.go): the device of a layer of a sharded
			// program, the plan of a layer to shard.
			{Name: DeviceAttr, Kind: textir.IntegerAttrKind, Optional: true},
			{Name: ShardPlanAttr, Kind: textir.AnyAttr, Optional: true},
		},
		Traits: textir.Pure,
		Verify: verify,
	}, denseOp()}
	d.Ops = append(d.Ops, shardOps()...)
	return d
}

func verify(op *textir.Operation) error {
	l, err := abi.LayerOf(op)
	if err != nil {
		return err
	}
	n := 0
	for i := range l.Columns {
		n += l.Columns[i].NumOperands()
	}
	if n != op.NumOperands() {
		return op.Errorf("columns take %d operands, but the op has %d", n, op.NumOperands())
	}
	rt, ok := op.Result(0).Type().(*textir.TensorType)
	if !ok || len(rt.Shape) != 2 || rt.Shape[1] != l.Width || rt.Elem != textir.F32() {
		return op.Errorf("result must be tensor<?x%dxf32>, got %s", l.Width, op.Result(0).Type())
	}
	k := 0
	for i := range l.Columns {
		c := &l.Columns[i]
		tt, ok := op.Operand(k).Type().(*textir.TensorType)
		if !ok || len(tt.Shape) != 2 || tt.Shape[0] != c.Rows || tt.Shape[1] != c.Width || tt.Elem != textir.F32() {
			return op.Errorf("column #%d: table must be tensor<%dx%dxf32>, got %s", i, c.Rows, c.Width, op.Operand(k).Type())
		}
		k += c.NumOperands()
	}
	return verifyShardAttrs(op, l)
}

func init() {
	exec.Register(EmbeddingLayerOp, kernel)
}

type compiled struct {
	layer *abi.Layer
	k     *gpu.Kernel
}

func kernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) {
		l, err := abi.LayerOf(op)
		if err != nil {
			return nil, err
		}
		ref := op.LookupAttr("kernel").(textir.SymbolRefAttr)
		fn := textir.LookupSymbol(op, ref)
		if fn == nil {
			return nil, op.Errorf("kernel %s not found", ref)
		}
		k, err := gpu.Compile(fn)
		if err != nil {
			return nil, err
		}
		return &compiled{l, k}, nil
	})
	if err != nil {
		return nil, err
	}
	c := m.(*compiled)
	l := c.layer
	cols, err := l.Inputs(op, in)
	if err != nil {
		return nil, err
	}
	out, batch, err := l.Run(c.k, cols)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	t, err := interp.New([]int64{batch, l.Width}, out)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// denseOp is the definition of fused.dense, one of Dialect's ops.
func denseOp() *textir.OpDef {
	return &textir.OpDef{
		Name:     DenseOp,
		Summary:  "a dense layer act(concat(inputs)·W + b) computed by one tiled GPU kernel",
		Operands: textir.AtLeast(2),
		Results:  textir.Exactly(1),
		// The inputs, the weight and the bias (when the layer has one), as
		// abi.Dense lays them out.
		NamedOperands: []string{"operands..."},
		NamedResults:  []string{"result"},
		Attrs: []textir.AttrSpec{
			{Name: "kernel", Kind: textir.SymbolRefAttrKind},
			{Name: "ks", Kind: textir.ArrayAttrKind},
			{Name: "n", Kind: textir.IntegerAttrKind},
			{Name: "activation", Kind: textir.StringAttrKind},
			{Name: "accumulate", Kind: textir.StringAttrKind},
		},
		Traits: textir.Pure,
		Verify: verifyDense,
	}
}

// matrixLike reports whether t may hold an r×c float32 matrix (unranked
// tensors and dynamic dimensions match anything).
func matrixLike(t textir.Type, shape ...int64) bool {
	if ut, ok := t.(*textir.UnrankedTensorType); ok {
		return ut.Elem == textir.F32()
	}
	tt, ok := t.(*textir.TensorType)
	if !ok || tt.Elem != textir.F32() {
		return false
	}
	if len(tt.Shape) != len(shape) {
		return false
	}
	for i, s := range shape {
		if tt.Shape[i] >= 0 && s >= 0 && tt.Shape[i] != s {
			return false
		}
	}
	return true
}

func verifyDense(op *textir.Operation) error {
	d, err := abi.DenseOf(op)
	if err != nil {
		return err
	}
	if op.NumOperands() != d.NumOperands() {
		return op.Errorf("takes %d operands (%d inputs, the weight%s), got %d", d.NumOperands(), len(d.Ks),
			map[bool]string{true: ", the bias", false: ""}[d.Bias], op.NumOperands())
	}
	for i, k := range d.Ks {
		want := []int64{textir.Dynamic, k}
		if d.TransposeA {
			want = []int64{k, textir.Dynamic}
		}
		if !matrixLike(op.Operand(i).Type(), want...) {
			return op.Errorf("input #%d must be a float32 matrix of %d columns, got %s", i, k, op.Operand(i).Type())
		}
	}
	w := []int64{d.K(), d.N}
	if d.TransposeB {
		w = []int64{d.N, d.K()}
	}
	if !matrixLike(op.Operand(len(d.Ks)).Type(), w...) {
		return op.Errorf("weight must be a float32 %dx%d matrix, got %s", w[0], w[1], op.Operand(len(d.Ks)).Type())
	}
	if d.Bias && !matrixLike(op.Operand(len(d.Ks)+1).Type(), d.N) {
		return op.Errorf("bias must be a float32 vector of %d, got %s", d.N, op.Operand(len(d.Ks)+1).Type())
	}
	rt, ok := op.Result(0).Type().(*textir.TensorType)
	if !ok || len(rt.Shape) != 2 || rt.Shape[1] != d.N || rt.Elem != textir.F32() {
		return op.Errorf("result must be tensor<?x%dxf32>, got %s", d.N, op.Result(0).Type())
	}
	return nil
}

func init() {
	exec.Register(DenseOp, denseKernel)
}

type compiledDense struct {
	d    *abi.Dense
	k, r *gpu.Kernel
}

// compileRef compiles the gpu.func named by op's attribute attr.
func compileRef(op *textir.Operation, attr string) (*gpu.Kernel, error) {
	ref := op.LookupAttr(attr).(textir.SymbolRefAttr)
	fn := textir.LookupSymbol(op, ref)
	if fn == nil {
		return nil, op.Errorf("kernel %s not found", ref)
	}
	return gpu.Compile(fn)
}

func denseKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) {
		d, err := abi.DenseOf(op)
		if err != nil {
			return nil, err
		}
		c := &compiledDense{d: d}
		if c.k, err = compileRef(op, "kernel"); err != nil {
			return nil, err
		}
		if d.Split() {
			if c.r, err = compileRef(op, "reduce_kernel"); err != nil {
				return nil, err
			}
		}
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	c := m.(*compiledDense)
	x, err := c.d.Inputs(op, in)
	if err != nil {
		return nil, err
	}
	out, err := c.d.Run(c.k, c.r, x)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	t, err := interp.New([]int64{x.B, c.d.N}, out)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}
