package abi

// fused.dense: a dense layer of the model, Y = act(concat(X0, X1, ...)·W + b),
// computed by one tiled matrix-product kernel of gpu.module @dense with the
// bias and the activation in the product's epilogue (--fuse-dense).
//
//	%y = "fused.dense"(%x0, %x1, %w, %b) {kernel = @dense::@top_mlp_dense, ks = [32, 32], n = 1024 : i64,
//	    activation = "relu", bias, transpose_a = false, transpose_b = false,
//	    block_m = 64 : i64, block_n = 64 : i64, block_k = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64,
//	    accumulate = "f64"} : (tensor<?x32xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<?x1024xf32>
//
// The operands are the inputs (len(ks) of them, concatenated along axis 1
// inside the product: input i covers rows [Σ ks[:i], Σ ks[:i+1]) of W),
// the weight W (K×N, or N×K with transpose_b) and, with the unit attribute
// bias, the bias vector (N). transpose_a (one input only) reads the input
// as K×B.
//
// # The runtime contract
//
// The kernel takes (x0, ..., x_{n-1}, w, [bias,] y, B): float32 buffers
// row-major as the tensors, y of B×N floats, and B an i64. The grid is
// ceil(B/block_m)·ceil(N/block_n) blocks (DenseGrid) of
// (block_m/thread_m)·(block_n/thread_n) threads; every element of y is
// written.
//
// # Split-K
//
// With split_k = S > 1 (and the symbol reduce_kernel) the kernel may split
// the reduction: it takes (x0, ..., w, [bias,] y, ws, B, s) where ws is a
// workspace of s·B·N accumulators (float64, or float32 with accumulate =
// "f32") and s in [1, S] the slices of this launch (Splits chooses it from
// B: all of S without the unit attribute split_auto, otherwise enough to
// fill the GPU). The K steps of block_k (Steps, counted over the inputs in
// order) are cut into s slices of ceil(Steps/s) steps; the grid is
// Grid(B)·s blocks, block g computing slice g mod s of tile g / s. With
// s = 1 the kernel writes y itself; otherwise each block stores its
// partial sums (summed in k order within the slice) to ws[slice][row][col]
// and a second launch of the reduce kernel, (ws, [bias,] y, B, s) over
// ReduceGrid(B) blocks of ReduceThreads threads, adds the s partials in
// slice order in the accumulator type, rounds once to float32 and applies
// the bias and the activation. The result does not depend on scheduling;
// it differs from the interpreter's single sum only by float64 rounding
// (in practice the same float32 nearly always).
//
// With accumulate = "f64" (the default) each product is summed in float64
// in the order k = 0, 1, ..., K-1 and rounded to float32 once, then the
// bias is added in float32 and the activation computed in float64 and
// rounded, exactly as the interpreter's MatMul, BiasAdd, Relu, Sigmoid and
// Tanh do: the simulator gives the interpreter's bits (up to the last bit
// of sigmoid and tanh). "f32" accumulates in float32 (faster, not exact).

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// Activations of fused.dense.
const (
	ActNone    = "none"
	ActRelu    = "relu"
	ActSigmoid = "sigmoid"
	ActTanh    = "tanh"
)

// Accumulation precisions of fused.dense.
const (
	AccF64 = "f64"
	AccF32 = "f32"
)

// Dense is the static description of a fused.dense.
type Dense struct {
	Ks         []int64 // columns of each input (the concatenation's parts)
	N          int64   // output columns
	TransposeA bool    // the (single) input is K×B
	TransposeB bool    // W is N×K
	Bias       bool
	Activation string
	Accumulate string

	// The tiling: a block computes BlockM×BlockN outputs, BlockK of K per
	// step through shared memory; a thread ThreadM×ThreadN of them.
	BlockM, BlockN, BlockK, ThreadM, ThreadN int64

	// SplitK is the most K slices of a launch (1: the kernel does not
	// split K); SplitAuto lets Splits choose fewer from the batch.
	SplitK    int64
	SplitAuto bool
}

// Launch geometry of split-K.
const (
	// TargetBlocks is the grid Splits aims at: about two blocks per SM of
	// an H200 (132 SMs).
	TargetBlocks = 2 * 132
	// ReduceThreads is the block size of the reduce kernel.
	ReduceThreads = 256
)

// Steps returns the number of block_k steps through K (each input's
// columns rounded up to block_k).
func (d *Dense) Steps() int64 {
	n := int64(0)
	for _, k := range d.Ks {
		n += (k + d.BlockK - 1) / d.BlockK
	}
	return n
}

// Split reports whether the kernel takes the split-K parameters (and the
// op a reduce kernel).
func (d *Dense) Split() bool { return d.SplitK > 1 }

// Splits returns the K slices of a launch for a batch of b rows: 1 for a
// kernel that does not split; SplitK, or with SplitAuto the fewest slices
// that make the grid reach TargetBlocks (at most SplitK); in every case
// reduced so that no slice is empty.
func (d *Dense) Splits(b int64) int64 {
	if !d.Split() {
		return 1
	}
	s := d.SplitK
	if d.SplitAuto {
		tiles := max(d.Grid(b), 1)
		s = min(s, (TargetBlocks+tiles-1)/tiles)
	}
	t := d.Steps()
	s = max(min(s, t), 1)
	per := (t + s - 1) / s
	return (t + per - 1) / per
}

// StepsPerSlice returns the block_k steps of a slice when K is cut into s
// slices (the last may have fewer).
func (d *Dense) StepsPerSlice(s int64) int64 { return (d.Steps() + s - 1) / s }

// LaunchGrid returns the blocks of the product kernel's launch for a batch
// of b rows in s slices.
func (d *Dense) LaunchGrid(b, s int64) int64 { return d.Grid(b) * s }

// WorkspaceBytes returns the workspace of a launch of b rows in s slices
// (0 when s is 1).
func (d *Dense) WorkspaceBytes(b, s int64) int64 {
	if s <= 1 {
		return 0
	}
	return s * b * d.N * d.AccBytes()
}

// ReduceVec returns the consecutive outputs a thread of the reduce kernel
// sums.
func (d *Dense) ReduceVec() int64 {
	switch {
	case d.N%4 == 0:
		return 4
	case d.N%2 == 0:
		return 2
	}
	return 1
}

// ReduceGrid returns the blocks of the reduce kernel's launch for b rows.
func (d *Dense) ReduceGrid(b int64) int64 {
	groups := b * d.N / d.ReduceVec()
	return (groups + ReduceThreads - 1) / ReduceThreads
}

// K returns the total reduction length.
func (d *Dense) K() int64 {
	k := int64(0)
	for _, x := range d.Ks {
		k += x
	}
	return k
}

// Threads returns the threads per block.
func (d *Dense) Threads() int64 { return (d.BlockM / d.ThreadM) * (d.BlockN / d.ThreadN) }

// TilesN returns the number of block columns.
func (d *Dense) TilesN() int64 { return (d.N + d.BlockN - 1) / d.BlockN }

// Grid returns the blocks of a launch for a batch of b rows.
func (d *Dense) Grid(b int64) int64 { return (b + d.BlockM - 1) / d.BlockM * d.TilesN() }

// NumOperands returns the number of operands of the op.
func (d *Dense) NumOperands() int {
	n := len(d.Ks) + 1
	if d.Bias {
		n++
	}
	return n
}

// Attrs returns the op's attributes for d and the kernel kernel.
func (d *Dense) Attrs(kernel textir.SymbolRefAttr) []textir.NamedAttribute {
	ks := make([]textir.Attribute, len(d.Ks))
	for i, k := range d.Ks {
		ks[i] = textir.I64Attr(k)
	}
	i := textir.I64Attr
	attrs := []textir.NamedAttribute{
		{Name: "kernel", Value: kernel},
		{Name: "ks", Value: textir.ArrayAttr{Elems: ks}},
		{Name: "n", Value: i(d.N)},
		{Name: "transpose_a", Value: textir.BoolAttr{Value: d.TransposeA}},
		{Name: "transpose_b", Value: textir.BoolAttr{Value: d.TransposeB}},
		{Name: "activation", Value: textir.Str(d.Activation)},
		{Name: "accumulate", Value: textir.Str(d.Accumulate)},
		{Name: "block_m", Value: i(d.BlockM)},
		{Name: "block_n", Value: i(d.BlockN)},
		{Name: "block_k", Value: i(d.BlockK)},
		{Name: "thread_m", Value: i(d.ThreadM)},
		{Name: "thread_n", Value: i(d.ThreadN)},
	}
	if d.Bias {
		attrs = append(attrs, textir.NamedAttribute{Name: "bias", Value: textir.UnitAttr{}})
	}
	return attrs
}

// SplitAttrs returns the split-K attributes of the op (none when d does
// not split), reduce naming the reduce kernel.
func (d *Dense) SplitAttrs(reduce textir.SymbolRefAttr) []textir.NamedAttribute {
	if !d.Split() {
		return nil
	}
	attrs := []textir.NamedAttribute{{Name: "split_k", Value: textir.I64Attr(d.SplitK)}, {Name: "reduce_kernel", Value: reduce}}
	if d.SplitAuto {
		attrs = append(attrs, textir.NamedAttribute{Name: "split_auto", Value: textir.UnitAttr{}})
	}
	return attrs
}

// Check reports what the kernel generator and the runtime rely on.
func (d *Dense) Check() error {
	pow2 := func(x int64) bool { return x > 0 && x&(x-1) == 0 }
	switch {
	case len(d.Ks) == 0:
		return fmt.Errorf("needs at least one input")
	case d.TransposeA && len(d.Ks) != 1:
		return fmt.Errorf("transpose_a needs exactly one input")
	case d.N < 1:
		return fmt.Errorf("n must be positive, got %d", d.N)
	case d.Activation != ActNone && d.Activation != ActRelu && d.Activation != ActSigmoid && d.Activation != ActTanh:
		return fmt.Errorf("activation must be none, relu, sigmoid or tanh, got %q", d.Activation)
	case d.Accumulate != AccF64 && d.Accumulate != AccF32:
		return fmt.Errorf("accumulate must be f64 or f32, got %q", d.Accumulate)
	case !pow2(d.BlockM) || !pow2(d.BlockN) || !pow2(d.BlockK) || !pow2(d.ThreadM) || !pow2(d.ThreadN):
		return fmt.Errorf("block and thread tiles must be powers of two")
	case d.BlockM > MaxBlockTile || d.BlockN > MaxBlockTile || d.BlockK > MaxBlockTile:
		// Bounded before the products below, which could wrap around.
		return fmt.Errorf("block tile %dx%d (k step %d) must be at most %d in each dimension", d.BlockM, d.BlockN, d.BlockK, MaxBlockTile)
	case d.ThreadM > d.BlockM || d.ThreadN > d.BlockN || d.ThreadM > 8 || d.ThreadN > 8:
		return fmt.Errorf("thread tile %dx%d must fit the block tile %dx%d (at most 8x8)", d.ThreadM, d.ThreadN, d.BlockM, d.BlockN)
	case d.Threads() < 32 || d.Threads() > 1024:
		return fmt.Errorf("%d threads per block: must be in [32, 1024]", d.Threads())
	case d.SplitK < 1 || d.SplitK > MaxSplitK:
		return fmt.Errorf("split_k must be in [1, %d], got %d", MaxSplitK, d.SplitK)
	case d.SharedBytes() > gpu.MaxSharedBytes:
		return fmt.Errorf("tiles need %d bytes of shared memory, more than %d", d.SharedBytes(), gpu.MaxSharedBytes)
	}
	for _, k := range d.Ks {
		if k < 1 || k > math.MaxInt32 {
			return fmt.Errorf("input widths must be in [1, %d], got %v", math.MaxInt32, d.Ks)
		}
	}
	if d.N > math.MaxInt32 || d.K() > math.MaxInt32/d.N {
		return fmt.Errorf("weight of %dx%d is too large", d.K(), d.N)
	}
	return nil
}

// MaxBlockTile bounds each side of a block's tile: 1024 threads of at most
// 8x8 outputs each.
const MaxBlockTile = 8 * 1024

// MaxSplitK is the most K slices of a launch.
const MaxSplitK = 256

// AccBytes returns the bytes of an accumulator.
func (d *Dense) AccBytes() int64 {
	if d.Accumulate == AccF32 {
		return 4
	}
	return 8
}

// SharedBytes returns the shared memory of a block.
func (d *Dense) SharedBytes() int64 { return d.BlockK * (d.BlockM + d.BlockN) * d.AccBytes() }

func boolAttr(op *textir.Operation, name string) bool {
	switch a := op.LookupAttr(name).(type) {
	case textir.BoolAttr:
		return a.Value
	case textir.UnitAttr:
		return true
	}
	return false
}

// DenseOf decodes the attributes of a fused.dense.
func DenseOf(op *textir.Operation) (*Dense, error) {
	d := &Dense{TransposeA: boolAttr(op, "transpose_a"), TransposeB: boolAttr(op, "transpose_b"), Bias: boolAttr(op, "bias"),
		SplitAuto: boolAttr(op, "split_auto"), SplitK: 1}
	if _, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr); !ok {
		return nil, op.Errorf("requires symbol reference attribute 'kernel'")
	}
	if a := op.LookupAttr("split_k"); a != nil {
		k, ok := a.(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("'split_k' must be an integer")
		}
		d.SplitK = k.Value
		if _, ok := op.LookupAttr("reduce_kernel").(textir.SymbolRefAttr); d.SplitK > 1 && !ok {
			return nil, op.Errorf("split_k = %d requires symbol reference attribute 'reduce_kernel'", d.SplitK)
		}
	}
	ks, ok := op.LookupAttr("ks").(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("requires array attribute 'ks'")
	}
	for _, a := range ks.Elems {
		k, ok := a.(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("'ks' must hold integers")
		}
		d.Ks = append(d.Ks, k.Value)
	}
	for _, f := range []struct {
		name string
		p    *string
	}{{"activation", &d.Activation}, {"accumulate", &d.Accumulate}} {
		a, ok := op.LookupAttr(f.name).(textir.StringAttr)
		if !ok {
			return nil, op.Errorf("requires string attribute '%s'", f.name)
		}
		*f.p = a.Value
	}
	for _, f := range []struct {
		name string
		p    *int64
	}{{"n", &d.N}, {"block_m", &d.BlockM}, {"block_n", &d.BlockN}, {"block_k", &d.BlockK}, {"thread_m", &d.ThreadM}, {"thread_n", &d.ThreadN}} {
		a, ok := op.LookupAttr(f.name).(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("requires integer attribute '%s'", f.name)
		}
		*f.p = a.Value
	}
	if err := d.Check(); err != nil {
		return nil, op.Errorf("%v", err)
	}
	return d, nil
}

// DenseInputs are the float32 operands of one evaluation.
type DenseInputs struct {
	X    [][]float32 // the inputs, row-major
	W    []float32
	Bias []float32 // nil without bias
	B    int64     // rows of the output
}

// Inputs reads and checks the operand values of op, a fused.dense
// described by d (the interpreter's and the GPU runtime's kernels share
// it).
func (d *Dense) Inputs(op *textir.Operation, in []*interp.Tensor) (*DenseInputs, error) {
	if len(in) != d.NumOperands() {
		return nil, op.Errorf("takes %d operands, got %d", d.NumOperands(), len(in))
	}
	r := &DenseInputs{B: -1}
	for i, k := range d.Ks {
		x := in[i].Float32s()
		if x == nil || in[i].Rank() != 2 {
			return nil, op.Errorf("input #%d must be a float32 matrix, got %v of shape %s", i, in[i].DType(), interp.ShapeString(in[i].Shape()))
		}
		rows, cols := in[i].Dim(0), in[i].Dim(1)
		if d.TransposeA {
			rows, cols = cols, rows
		}
		if cols != k {
			return nil, op.Errorf("input #%d has %d columns, want %d", i, cols, k)
		}
		if r.B >= 0 && rows != r.B {
			return nil, op.Errorf("input #%d has %d rows, but input #0 has %d (ConcatV2 needs equal batch sizes)", i, rows, r.B)
		}
		r.B = rows
		r.X = append(r.X, x)
	}
	w := in[len(d.Ks)]
	wr, wc := d.K(), d.N
	if d.TransposeB {
		wr, wc = wc, wr
	}
	if r.W = w.Float32s(); r.W == nil || w.Rank() != 2 || w.Dim(0) != wr || w.Dim(1) != wc {
		return nil, op.Errorf("the weight must be a float32 %dx%d matrix, got %v of shape %s", wr, wc, w.DType(), interp.ShapeString(w.Shape()))
	}
	if d.Bias {
		b := in[len(d.Ks)+1]
		if r.Bias = b.Float32s(); r.Bias == nil || b.Rank() != 1 || b.Dim(0) != d.N {
			return nil, op.Errorf("the bias must be a float32 vector of %d, got %v of shape %s", d.N, b.DType(), interp.ShapeString(b.Shape()))
		}
	}
	return r, nil
}

// Run launches the compiled kernel k (and, for a split launch, the reduce
// kernel r; nil when d does not split) on the simulator over a poisoned
// output and returns the B×N output.
func (d *Dense) Run(k, r *gpu.Kernel, in *DenseInputs) ([]float32, error) {
	return d.RunSplit(k, r, in, d.Splits(in.B))
}

// RunSplit is Run with s K slices (s ≤ 1 and a kernel without split-K
// run the plain product).
func (d *Dense) RunSplit(k, r *gpu.Kernel, in *DenseInputs, s int64) ([]float32, error) {
	if in.B > interp.MaxElements/d.N {
		return nil, &interp.TooLargeError{What: fmt.Sprintf("the output of %d rows of %d floats", in.B, d.N), Limit: interp.MaxElements}
	}
	if d.Split() && s > 1 && d.WorkspaceBytes(in.B, s) > interp.MaxBytes {
		return nil, &interp.TooLargeError{What: fmt.Sprintf("the split-K workspace of %d slices of %dx%d", s, in.B, d.N), Limit: interp.MaxBytes, Bytes: true}
	}
	out := make([]byte, 4*in.B*d.N)
	for i := range out {
		out[i] = 0xff // NaN: what the kernel does not write shows
	}
	if !d.Split() || s < 1 {
		s = 1
	}
	if in.B > 0 {
		var args []any
		for _, x := range in.X {
			args = append(args, gpu.Buf{Data: f32Bytes(x)})
		}
		args = append(args, gpu.Buf{Data: f32Bytes(in.W)})
		if d.Bias {
			args = append(args, gpu.Buf{Data: f32Bytes(in.Bias)})
		}
		args = append(args, gpu.Buf{Data: out})
		var ws []byte
		if d.Split() {
			ws = make([]byte, max(d.WorkspaceBytes(in.B, s), 8))
			for i := range ws {
				ws[i] = 0xff
			}
			args = append(args, gpu.Buf{Data: ws}, in.B, s)
		} else {
			args = append(args, in.B)
		}
		if err := k.Launch(d.LaunchGrid(in.B, s), d.Threads(), args, nil); err != nil {
			return nil, err
		}
		if s > 1 {
			if r == nil {
				return nil, fmt.Errorf("a launch in %d slices needs the reduce kernel", s)
			}
			rargs := []any{gpu.Buf{Data: ws}}
			if d.Bias {
				rargs = append(rargs, gpu.Buf{Data: f32Bytes(in.Bias)})
			}
			rargs = append(rargs, gpu.Buf{Data: out}, in.B, s)
			if err := r.Launch(d.ReduceGrid(in.B), ReduceThreads, rargs, nil); err != nil {
				return nil, err
			}
		}
	}
	res := make([]float32, in.B*d.N)
	for i := range res {
		res[i] = math.Float32frombits(uint32(out[4*i]) | uint32(out[4*i+1])<<8 | uint32(out[4*i+2])<<16 | uint32(out[4*i+3])<<24)
	}
	return res, nil
}
