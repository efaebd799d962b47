// Package layoutkern builds the kernels that move a dense layer's
// operands between the layouts the native runtime's steps read and write
// (runtime/session): a row-major matrix copied from one row pitch to
// another (4- or 2-byte elements), or converted from float32 to bfloat16
// on the way (round to nearest, ties to even, as cublaslt.RoundBF16 and
// the GPU's cvt.rn.bf16.f32 round), so that an embedding layer's float32
// output becomes its columns of a bf16 product's concatenated input.
//
// The kernels are written in the gpu dialect (Module), so that the gpu
// dialect's simulator runs them in tests without a GPU, and ship as PTX
// (PTX: llc-19's output for Module's NVPTX LLVM IR, made by go generate;
// TestPTX fails while it is out of date), because the machines with a GPU
// have no llc.
//
// # The contract
//
// Every kernel takes (src, dst, rows, cols, src_ld, dst_ld): pointers to
// the matrices' first elements, then i64 sizes in elements. Row r's cols
// elements at src + r·src_ld are stored at dst + r·dst_ld; nothing else is
// written. Blocks take rows in turn (block b: rows b, b + grid, ...) and
// a block's Threads threads the columns, Width (1 or 4) consecutive
// elements each. A kernel of width 4 needs cols, src_ld and dst_ld
// multiples of 4 and both pointers aligned to 4 elements; Pick chooses it
// only then.
package layoutkern

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

//go:generate go run ./gen -o layout.ptx

// PTX is the kernels' PTX (llc-19 -march=nvptx64 -mcpu=sm_90 -O3 on the
// NVPTX LLVM IR of Module).
//
//go:embed layout.ptx
var PTX []byte

// ModuleName is the symbol of the gpu.module Module builds.
const ModuleName = "layout"

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
	Width    int64 // elements a thread moves at once (1 or 4)
}

// Kernels lists every kernel of the module: a copy of each element type
// and the conversion from float32 to bfloat16, each of width 1 and 4.
func Kernels() []Kernel {
	var ks []Kernel
	for _, c := range []struct {
		name     string
		from, to Elem
	}{{"copy_f32", F32, F32}, {"copy_bf16", BF16, BF16}, {"f32_to_bf16", F32, BF16}} {
		ks = append(ks, Kernel{Name: c.name, From: c.from, To: c.to, Width: 1},
			Kernel{Name: c.name + "_v4", From: c.from, To: c.to, Width: 4})
	}
	return ks
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
		return Kernel{}, fmt.Errorf("layoutkern: no kernel converts bf16 to f32")
	}
	if m.Rows < 0 || m.Cols < 0 || m.SrcLd < m.Cols || m.DstLd < m.Cols {
		return Kernel{}, fmt.Errorf("layoutkern: a move of %dx%d between row pitches %d and %d", m.Rows, m.Cols, m.SrcLd, m.DstLd)
	}
	w := int64(4)
	if m.Cols%4 != 0 || m.SrcLd%4 != 0 || m.DstLd%4 != 0 ||
		m.Src%uint64(4*m.From.Bytes()) != 0 || m.Dst%uint64(4*m.To.Bytes()) != 0 {
		w = 1
	}
	for _, k := range Kernels() {
		if k.From == m.From && k.To == m.To && k.Width == w {
			return k, nil
		}
	}
	return Kernel{}, fmt.Errorf("layoutkern: no kernel moves %v to %v", m.From, m.To)
}

// Grid is the number of blocks of a launch over rows rows.
func Grid(rows int64) int64 { return max(min(rows, MaxGrid), 1) }

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
		return "", fmt.Errorf("layoutkern: %w", err)
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
