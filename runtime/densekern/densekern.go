// Package densekern builds the small kernels of the native runtime's
// dense steps (runtime/session) besides the products themselves: the
// moves of a layer's operands between the layouts the steps read and
// write — a row-major matrix copied from one row pitch to another (4- or
// 2-byte elements), or converted from float32 to bfloat16 on the way
// (round to nearest, ties to even, as cublaslt.RoundBF16 and the GPU's
// cvt.rn.bf16.f32 round), so that an embedding layer's float32 output
// becomes its columns of a bf16 product's concatenated input — and the
// activations cuBLASLt has no epilogue for, sigmoid and tanh, in place on
// a float32 output — and the head kernels of the session's device steps
// (map_f32, rows_f32: headkern.go).
//
// The kernels are written in the gpu dialect (Module), so that the gpu
// dialect's simulator runs them in tests without a GPU, and ship as PTX
// (PTX: llc-19's output for Module's NVPTX LLVM IR, made by go generate;
// TestPTX fails while it is out of date), because the machines with a GPU
// have no llc.
//
// # The contract
//
// A move takes (src, dst, rows, cols, src_ld, dst_ld): pointers to the
// matrices' first elements, then i64 sizes in elements. Row r's cols
// elements at src + r·src_ld are stored at dst + r·dst_ld; nothing else is
// written: blocks take rows in turn (block b: rows b, b + grid, ...) and
// a block's Threads threads the columns, Width (1 or 4) consecutive
// elements each (Grid). A move of width 4 needs cols, src_ld and dst_ld
// multiples of 4 and both pointers aligned to 4 elements; Pick chooses it
// only then. An activation takes (y, rows, cols, ld) and replaces each of
// the rows' cols elements by its sigmoid or tanh: the grid's threads take
// the rows·cols elements in turn, row by row (ActGrid), so that an output
// of one column fills the threads as one of many does.
//
// An activation computes as the interpreter does (interp/tfops' Sigmoid
// and Tanh, and --fuse-dense's kernels): in float64, rounded once to
// float32, exp(x)-1 summed as a series at x/1024 and squared back ten
// times (e ← e·(2+e), which keeps its relative accuracy near 0), x
// clamped to [-700, 700]; a NaN stays a NaN.
package densekern

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ./gen -o densekern.ptx

// PTX is the kernels' PTX (llc-19 -march=nvptx64 -mcpu=sm_90 -O3 on the
// NVPTX LLVM IR of Module).
//
//go:embed densekern.ptx
var PTX []byte

// ModuleName is the symbol of the gpu.module Module builds.
const ModuleName = "densekern"

// Threads is the block size of every launch.
const Threads = 256

// MaxGrid bounds the blocks of a launch; rows beyond it are taken in turn.
const MaxGrid = 4096

// Elem is how a matrix's elements are stored.
type Elem int

// The element types.
const (
	F32  Elem = iota // float32
	BF16             // bfloat16: the high half of a float32
)

func (e Elem) String() string {
	switch e {
	case F32:
		return "f32"
	case BF16:
		return "bf16"
	}
	return fmt.Sprintf("Elem(%d)", int(e))
}

// Bytes is the size of an element.
func (e Elem) Bytes() int64 {
	if e == BF16 {
		return 2
	}
	return 4
}

// Kernel is one of the module's kernels.
type Kernel struct {
	Name     string
	From, To Elem
	Width    int64  // elements a thread moves at once (1 or 4)
	Act      string // an activation ("sigmoid", "tanh"); "" for a move
	Head     string // a head kernel (MapKernel, RowsKernel; headkern.go); "" otherwise
}

// The activations.
const (
	Sigmoid = "sigmoid"
	Tanh    = "tanh"
)

// Kernels lists every kernel of the module: a copy of each element type
// and the conversion from float32 to bfloat16, each of width 1 and 4, the
// activations, and the head kernels (headkern.go).
func Kernels() []Kernel {
	var ks []Kernel
	for _, c := range []struct {
		name     string
		from, to Elem
	}{{"copy_f32", F32, F32}, {"copy_bf16", BF16, BF16}, {"f32_to_bf16", F32, BF16}} {
		ks = append(ks, Kernel{Name: c.name, From: c.from, To: c.to, Width: 1},
			Kernel{Name: c.name + "_v4", From: c.from, To: c.to, Width: 4})
	}
	for _, a := range []string{Sigmoid, Tanh} {
		ks = append(ks, Kernel{Name: a + "_f32", From: F32, To: F32, Width: 1, Act: a})
	}
	for _, h := range []string{MapKernel, RowsKernel} {
		ks = append(ks, Kernel{Name: h, From: F32, To: F32, Width: 1, Head: h})
	}
	return ks
}

// Activation returns the kernel of the activation act.
func Activation(act string) (Kernel, error) {
	for _, k := range Kernels() {
		if k.Act == act && act != "" {
			return k, nil
		}
	}
	return Kernel{}, fmt.Errorf("densekern: no kernel for the activation %q", act)
}

// Move describes one launch: rows × cols elements from Src (type From,
// row pitch SrcLd) to Dst (type To, pitch DstLd), at those addresses.
type Move struct {
	From, To     Elem
	Rows, Cols   int64
	SrcLd, DstLd int64
	Src, Dst     uint64
}

// Pick returns the kernel for m: of width 4 when its sizes and addresses
// allow, else of width 1. A move the kernels cannot make (bfloat16 to
// float32, a pitch smaller than the columns) is an error.
func Pick(m Move) (Kernel, error) {
	if m.From == BF16 && m.To == F32 {
		return Kernel{}, fmt.Errorf("densekern: no kernel converts bf16 to f32")
	}
	if m.Rows < 0 || m.Cols < 0 || m.SrcLd < m.Cols || m.DstLd < m.Cols {
		return Kernel{}, fmt.Errorf("densekern: a move of %dx%d between row pitches %d and %d", m.Rows, m.Cols, m.SrcLd, m.DstLd)
	}
	w := int64(4)
	if m.Cols%4 != 0 || m.SrcLd%4 != 0 || m.DstLd%4 != 0 ||
		m.Src%uint64(4*m.From.Bytes()) != 0 || m.Dst%uint64(4*m.To.Bytes()) != 0 {
		w = 1
	}
	for _, k := range Kernels() {
		if k.From == m.From && k.To == m.To && k.Width == w && k.Act == "" && k.Head == "" {
			return k, nil
		}
	}
	return Kernel{}, fmt.Errorf("densekern: no kernel moves %v to %v", m.From, m.To)
}

// Grid is the number of blocks of a move over rows rows.
func Grid(rows int64) int64 { return max(min(rows, MaxGrid), 1) }

// ActGrid is the number of blocks of an activation over rows × cols
// elements.
func ActGrid(rows, cols int64) int64 { return max(min((rows*cols+Threads-1)/Threads, MaxGrid), 1) }

// Module returns the gpu.module holding every kernel of Kernels.
func Module(ctx *textir.Context) *textir.Operation {
	loc := textir.NameLoc{Name: ModuleName}
	m := gpu.NewModule(ctx, loc, ModuleName)
	for _, k := range Kernels() {
		m.Region(0).Front().Append(build(ctx, loc, k))
	}
	return m
}

// elemType is the integer type a kernel moves e's bits as (a conversion
// works on float32's bits: the dialect has no bitcast, and LLVM IR of
// llir has no bfloat).
func elemType(e Elem) textir.Type {
	if e == BF16 {
		return textir.I16()
	}
	return textir.I32()
}

// build returns k's gpu.func.
func build(ctx *textir.Context, loc textir.Location, k Kernel) *textir.Operation {
	if k.Head != "" {
		return buildHead(ctx, loc, k)
	}
	if k.Act != "" {
		return buildAct(ctx, loc, k)
	}
	i64 := textir.I64()
	src, dst := gpu.PtrType(elemType(k.From), gpu.Global), gpu.PtrType(elemType(k.To), gpu.Global)
	fn := gpu.NewFunc(ctx, loc, k.Name, &textir.FunctionType{Inputs: []textir.Type{src, dst, i64, i64, i64, i64}}, true)
	fn.SetAttr("max_threads", textir.I64Attr(Threads))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &kernelir.Builder{B: b, Loc: loc}
	a := body.Args()
	sp, dp, rows, cols, sld, dld := a[0], a[1], a[2], a[3], a[4], a[5]
	tid, bid := g.Dim(gpu.ThreadIdOp), g.Dim(gpu.BlockIdOp)
	nb, nt := g.Dim(gpu.GridDimOp), g.Dim(gpu.BlockDimOp)
	w := g.C64(k.Width)
	g.For(bid, rows, nb, nil, func(r *textir.Value, _ []*textir.Value) []*textir.Value {
		sRow, dRow := g.Mul(r, sld), g.Mul(r, dld)
		g.For(g.Mul(tid, w), cols, g.Mul(nt, w), nil, func(c *textir.Value, _ []*textir.Value) []*textir.Value {
			vals := g.Load(sp, g.Add(sRow, c), k.Width, true)
			if k.From != k.To {
				for i, v := range vals {
					vals[i] = toBF16(g, v)
				}
			}
			g.Store(vals, dp, g.Add(dRow, c))
			return nil
		})
		return nil
	})
	g.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// toBF16 rounds float32 bits u (i32) to bfloat16 bits (i16): to nearest,
// ties to even, by adding 0x7fff plus the kept part's lowest bit and
// dropping the low half (an overflow carries into the exponent: infinity);
// a NaN keeps its sign and the top of its payload, made quiet.
func toBF16(g *kernelir.Builder, u *textir.Value) *textir.Value {
	i32 := textir.I32()
	c := func(v int64) *textir.Value {
		return arith.Constant(g.B, g.Loc, textir.IntegerAttr{Value: v, Type: i32}).Result(0)
	}
	hi := g.Bin(arith.ShRUIOp, u, c(16))
	odd := g.Bin(arith.AndIOp, hi, c(1))
	rounded := g.Bin(arith.ShRUIOp, g.Add(u, g.Add(odd, c(0x7fff))), c(16))
	isNaN := g.Cmp(arith.UGT, g.Bin(arith.AndIOp, u, c(0x7fffffff)), c(0x7f800000))
	v := g.Sel(isNaN, g.Bin(arith.OrIOp, hi, c(0x40)), rounded)
	return g.Cast(arith.TruncIOp, v, textir.I16())
}

// LLVMIR returns Module's NVPTX LLVM IR, verified first.
func LLVMIR() (string, error) {
	ctx := all.NewContext()
	m := builtin.NewModule(ctx, textir.UnknownLoc{})
	m.Region(0).Front().Append(Module(ctx))
	if err := textir.Verify(ctx, m); err != nil {
		return "", fmt.Errorf("densekern: %w", err)
	}
	return nvptx.EmitText(m)
}

// Compile returns the PTX of Module as llc-19 makes it (what PTX holds).
func Compile(ctx context.Context) ([]byte, error) {
	ll, err := LLVMIR()
	if err != nil {
		return nil, err
	}
	return llc.CompilePTX(ctx, []byte(ll), llc.DefaultOptions())
}

// buildAct returns the gpu.func of the activation k.
func buildAct(ctx *textir.Context, loc textir.Location, k Kernel) *textir.Operation {
	i64, f32, f64 := textir.I64(), textir.F32(), textir.F64()
	fn := gpu.NewFunc(ctx, loc, k.Name, &textir.FunctionType{Inputs: []textir.Type{gpu.PtrType(f32, gpu.Global), i64, i64, i64}}, true)
	fn.SetAttr("max_threads", textir.I64Attr(Threads))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &kernelir.Builder{B: b, Loc: loc}
	a := body.Args()
	y, rows, cols, ld := a[0], a[1], a[2], a[3]
	tid, bid := g.Dim(gpu.ThreadIdOp), g.Dim(gpu.BlockIdOp)
	nb, nt := g.Dim(gpu.GridDimOp), g.Dim(gpu.BlockDimOp)
	n := g.Mul(rows, cols)
	g.For(g.Add(g.Mul(bid, nt), tid), n, g.Mul(nb, nt), nil, func(i *textir.Value, _ []*textir.Value) []*textir.Value {
		r := g.Bin(arith.DivUIOp, i, cols)
		at := g.Add(g.Mul(r, ld), g.Bin(arith.SubIOp, i, g.Mul(r, cols)))
		{
			x := g.Cast(arith.ExtFOp, g.Load(y, at, 1, false)[0], f64)
			v := actF64(g, k.Act, x)
			g.Store([]*textir.Value{g.Cast(arith.TruncFOp, v, f32)}, y, at)
		}
		return nil
	})
	g.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// actF64 computes the activation act (Sigmoid or Tanh) of a float64.
func actF64(g *kernelir.Builder, act string, x *textir.Value) *textir.Value {
	f64 := textir.F64()
	neg := func(v *textir.Value) *textir.Value {
		return g.Op(arith.NegFOp, []*textir.Value{v}, []textir.Type{f64}).Result(0)
	}
	if act == Sigmoid { // 1 / (1 + exp(-x)) = 1 / (2 + expm1(-x))
		return g.Bin(arith.DivFOp, g.CF(1, f64), g.Bin(arith.AddFOp, g.CF(2, f64), expm1(g, neg(x))))
	}
	// tanh|x| = -m / (2 + m), m = expm1(-2|x|), with x's sign (a zero
	// kept as it is: tanh(-0) is -0)
	ax := g.Op(gpu.FabsOp, []*textir.Value{x}, []textir.Type{f64}).Result(0)
	m := expm1(g, g.Bin(arith.MulFOp, ax, g.CF(-2, f64)))
	t := g.Bin(arith.DivFOp, neg(m), g.Bin(arith.AddFOp, g.CF(2, f64), m))
	t = g.Sel(g.CmpF(arith.FOLT, x, g.CF(0, f64)), neg(t), t)
	return g.Sel(g.CmpF(arith.FOEQ, x, g.CF(0, f64)), x, t)
}

// expm1 computes exp(x) - 1 of a float64 without a math library: x
// clamped to [-700, 700] (a NaN stays a NaN: minimumf and maximumf
// propagate it), r = x/1024, exp(r) - 1 = r + r²/2! + ... + r¹⁸/18!
// (|r| < 0.69: the first term left out is below 2^-60 of the sum), then
// ten times e ← e·(2 + e), since exp(2r) - 1 = (exp(r) - 1)(exp(r) + 1).
func expm1(g *kernelir.Builder, x *textir.Value) *textir.Value {
	f64 := textir.F64()
	x = g.Bin(arith.MinimumFOp, g.Bin(arith.MaximumFOp, x, g.CF(-700, f64)), g.CF(700, f64))
	r := g.Bin(arith.MulFOp, x, g.CF(1.0/1024, f64))
	e := g.Bin(arith.MulFOp, expm1Q(g, r), r)
	for range 10 {
		e = g.Bin(arith.MulFOp, e, g.Bin(arith.AddFOp, g.CF(2, f64), e))
	}
	return e
}

// expm1Q returns q with exp(r) - 1 = r·q: 1/1! + r(1/2! + r(... + r/18!))
// by Horner's rule (|r| < 0.69).
func expm1Q(g *kernelir.Builder, r *textir.Value) *textir.Value {
	f64 := textir.F64()
	const terms = 18
	inv := make([]float64, terms+1) // inv[n] = 1/n!
	inv[0] = 1
	for n := 1; n <= terms; n++ {
		inv[n] = inv[n-1] / float64(n)
	}
	// Horner: q = 1/1! + r(1/2! + r(... + r/18!)); exp(r) - 1 = r·q.
	q := g.CF(inv[terms], f64)
	for n := terms - 1; n >= 1; n-- {
		q = g.Op(gpu.FmaOp, []*textir.Value{q, r, g.CF(inv[n], f64)}, []textir.Type{f64}).Result(0)
	}
	return q
}
