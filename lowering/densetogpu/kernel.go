package densetogpu

import (
	"math/bits"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

// kb builds kernel IR (kernelir.Builder and the helpers of this package).
type kb struct{ kernelir.Builder }

var (
	i64 = textir.I64()
	f32 = textir.F32()
	f64 = textir.F64()
)

func (k *kb) mulc(x *textir.Value, c int64) *textir.Value {
	switch {
	case c == 1:
		return x
	case c > 0 && c&(c-1) == 0:
		return k.Bin(arith.ShLIOp, x, k.C64(log2(c)))
	}
	return k.Bin(arith.MulIOp, x, k.C64(c))
}

func (k *kb) and(x, y *textir.Value) *textir.Value {
	if x == nil {
		return y
	}
	return k.Bin(arith.AndIOp, x, y)
}

// maxWidth is the widest access (16 bytes) for elements of type t.
func maxWidth(t textir.Type) int64 { return 16 / int64(textir.BitWidth(t)/8) }

// loadN loads n consecutive elements at idx (n a power of two, idx a
// multiple of min(n, maxWidth)) with the widest accesses.
func (k *kb) loadN(p, idx *textir.Value, n int64) []*textir.Value {
	w := min(n, maxWidth(gpu.PtrElem(p.Type())))
	var out []*textir.Value
	for q := int64(0); q < n; q += w {
		out = append(out, k.Load(p, k.AddC(idx, q), w, false)...)
	}
	return out
}

// storeN stores vals at idx with the widest accesses (as loadN).
func (k *kb) storeN(vals []*textir.Value, p, idx *textir.Value) {
	n := int64(len(vals))
	w := min(n, maxWidth(gpu.PtrElem(p.Type())))
	for q := int64(0); q < n; q += w {
		k.Store(vals[q:q+w], p, k.AddC(idx, q))
	}
}

// ifElse builds gpu.if %c -> (types) { then } else { els }; with no
// types and a nil els, a plain gpu.if %c { then }. A nil c runs then
// unconditionally.
func (k *kb) ifElse(c *textir.Value, types []textir.Type, then, els func() []*textir.Value) []*textir.Value {
	if c == nil {
		return then()
	}
	return k.If(c, types, then, els)
}

func log2(n int64) int64 { return int64(bits.TrailingZeros64(uint64(n))) }

// accType is d's accumulator type.
func accType(d *abi.Dense) textir.Type {
	if d.Accumulate == abi.AccF32 {
		return f32
	}
	return f64
}

// KernelType is the kernel's signature: (x0, ..., x_{n-1}, w, [bias,] y, B),
// or with split-K (x0, ..., x_{n-1}, w, [bias,] y, ws, B, S).
func KernelType(d *abi.Dense) *textir.FunctionType {
	p := gpu.PtrType(f32, gpu.Global)
	var in []textir.Type
	for range d.NumOperands() + 1 {
		in = append(in, p)
	}
	if d.Split() {
		return &textir.FunctionType{Inputs: append(in, gpu.PtrType(accType(d), gpu.Global), i64, i64)}
	}
	return &textir.FunctionType{Inputs: append(in, i64)}
}

// ReduceKernelType is the reduce kernel's signature: (ws, [bias,] y, B, S).
func ReduceKernelType(d *abi.Dense) *textir.FunctionType {
	p := gpu.PtrType(f32, gpu.Global)
	in := []textir.Type{gpu.PtrType(accType(d), gpu.Global)}
	if d.Bias {
		in = append(in, p)
	}
	return &textir.FunctionType{Inputs: append(in, p, i64, i64)}
}

// BuildKernel returns the gpu.func computing the layer d, named name: a
// tiled product (see package doc) with the bias and activation in its
// epilogue.
func BuildKernel(ctx *textir.Context, loc textir.Location, name string, d *abi.Dense) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, KernelType(d), true)
	fn.SetAttr("max_threads", textir.I64Attr(d.Threads()))
	fn.SetAttr("min_blocks", textir.I64Attr(1))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &gen{kb: kb{kernelir.Builder{B: b, Loc: loc}}, d: d, acc: accType(d)}
	nx := len(d.Ks)
	g.x = body.Args()[:nx]
	g.w = body.Arg(nx)
	if d.Bias {
		g.bias = body.Arg(nx + 1)
	}
	g.y = body.Arg(d.NumOperands())
	if d.Split() {
		g.ws = body.Arg(d.NumOperands() + 1)
		g.splits = body.Arg(d.NumOperands() + 3)
	}
	g.batch = body.Arg(body.NumArgs() - 1)
	if d.Split() {
		g.batch = body.Arg(body.NumArgs() - 2)
	}
	g.build()
	g.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// BuildReduceKernel returns the gpu.func that finishes a split-K launch of
// d (see abi.Dense): a thread sums ReduceVec consecutive outputs' S
// partials in slice order in the accumulator type, rounds to float32 once,
// adds the bias and applies the activation.
func BuildReduceKernel(ctx *textir.Context, loc textir.Location, name string, d *abi.Dense) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, ReduceKernelType(d), true)
	fn.SetAttr("max_threads", textir.I64Attr(abi.ReduceThreads))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &gen{kb: kb{kernelir.Builder{B: b, Loc: loc}}, d: d, acc: accType(d)}
	g.ws = body.Arg(0)
	if d.Bias {
		g.bias = body.Arg(1)
	}
	n := body.NumArgs()
	g.y, g.batch, g.splits = body.Arg(n-3), body.Arg(n-2), body.Arg(n-1)
	v := d.ReduceVec()
	tid, bid := g.Dim(gpu.ThreadIdOp), g.Dim(gpu.BlockIdOp)
	idx := g.mulc(g.Add(g.mulc(bid, abi.ReduceThreads), tid), v)
	total := g.mulc(g.batch, d.N)
	g.IfThen(g.Cmp(arith.SLT, idx, total), func() {
		zero := g.CF(0, g.acc)
		inits := make([]*textir.Value, v)
		for i := range inits {
			inits[i] = zero
		}
		sums := g.For(g.C64(0), g.splits, g.C64(1), inits, func(s *textir.Value, it []*textir.Value) []*textir.Value {
			p := g.loadN(g.ws, g.Add(g.Mul(s, total), idx), v)
			out := make([]*textir.Value, v)
			for i := range out {
				out[i] = g.Bin(arith.AddFOp, it[i], p[i])
			}
			return out
		})
		var bias []*textir.Value
		if d.Bias {
			col := g.Bin(arith.SubIOp, idx, g.mulc(g.Bin(arith.DivUIOp, idx, g.C64(d.N)), d.N))
			bias = g.Load(g.bias, col, v, true)
		}
		vals := make([]*textir.Value, v)
		for q := range vals {
			vals[q] = g.finish(sums[q], bias, q)
		}
		g.storeN(vals, g.y, idx)
	})
	g.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// gen generates one dense kernel.
type gen struct {
	kb
	d                *abi.Dense
	acc              textir.Type // accumulator type
	x                []*textir.Value
	w, bias, y       *textir.Value
	batch            *textir.Value
	ws, splits       *textir.Value // split-K: the workspace and the slices of the launch
	slice            *textir.Value // this block's K slice
	tid, tx, ty      *textir.Value
	row0, col0       *textir.Value
	as, bs           *textir.Value // shared tiles: as[kk*BM + m], bs[kk*BN + n]
	threads          int64
	rowBase, colBase *textir.Value // first row / column of this thread's outputs
}

func (g *gen) build() {
	d := g.d
	g.threads = d.Threads()
	g.tid = g.Dim(gpu.ThreadIdOp)
	bid := g.Dim(gpu.BlockIdOp)
	tn := d.BlockN / d.ThreadN
	g.tx = g.Bin(arith.AndIOp, g.tid, g.C64(tn-1))
	g.ty = g.Bin(arith.ShRUIOp, g.tid, g.C64(log2(tn)))
	tile := bid
	if d.Split() { // block g: slice g mod S of tile g / S
		tile = g.Bin(arith.DivUIOp, bid, g.splits)
		g.slice = g.Bin(arith.SubIOp, bid, g.Mul(tile, g.splits))
	}
	tiles := d.TilesN()
	var bm, bn *textir.Value
	if tiles == 1 {
		bm, bn = tile, g.C64(0)
	} else {
		bm = g.Bin(arith.DivUIOp, tile, g.C64(tiles))
		bn = g.Bin(arith.SubIOp, tile, g.mulc(bm, tiles))
	}
	g.row0 = g.mulc(bm, d.BlockM)
	g.col0 = g.mulc(bn, d.BlockN)
	g.rowBase = g.Add(g.row0, g.mulc(g.ty, d.ThreadM))
	g.colBase = g.Add(g.col0, g.mulc(g.tx, d.ThreadN))
	shared := func(n int64) *textir.Value {
		return g.Val(gpu.SharedAllocOp, nil, gpu.PtrType(g.acc, gpu.Shared),
			textir.NamedAttribute{Name: "count", Value: textir.I64Attr(n)})
	}
	g.as = shared(d.BlockK * d.BlockM)
	g.bs = shared(d.BlockK * d.BlockN)
	zero := g.CF(0, g.acc)
	accs := make([]*textir.Value, d.ThreadM*d.ThreadN)
	for i := range accs {
		accs[i] = zero
	}
	// A thread whose rows are all past the batch skips the arithmetic
	// (whole warps do when the batch is smaller than the tile).
	live := g.Cmp(arith.SLT, g.rowBase, g.batch)
	var sLo, sHi *textir.Value // this slice's steps [sLo, sHi)
	if d.Split() {
		t := d.Steps()
		per := g.Bin(arith.DivUIOp, g.AddC(g.splits, t-1), g.splits) // ceil(T/S)
		sLo = g.Mul(g.slice, per)
		sHi = g.Add(sLo, per)
	}
	kBase, stepBase := int64(0), int64(0)
	for i, ki := range d.Ks {
		steps := (ki + d.BlockK - 1) / d.BlockK
		lb, ub := g.C64(0), g.C64(ki)
		if d.Split() { // the part's steps inside the slice, clamped to [0, steps]
			clamp := func(v *textir.Value) *textir.Value {
				v = g.Bin(arith.MaxSIOp, g.AddC(v, -stepBase), g.C64(0))
				return g.mulc(g.Bin(arith.MinSIOp, v, g.C64(steps)), d.BlockK)
			}
			lb, ub = clamp(sLo), clamp(sHi)
		}
		kb := kBase
		accs = g.For(lb, ub, g.C64(d.BlockK), accs, func(kt *textir.Value, it []*textir.Value) []*textir.Value {
			g.loadA(g.x[i], ki, kt)
			g.loadB(kb, ki, kt)
			g.Op(gpu.BarrierOp, nil, nil)
			types := make([]textir.Type, len(it))
			for q := range types {
				types[q] = g.acc
			}
			out := g.ifElse(live, types, func() []*textir.Value { return g.mma(it) }, func() []*textir.Value { return it })
			g.Op(gpu.BarrierOp, nil, nil)
			return out
		})
		kBase += ki
		stepBase += steps
	}
	if !d.Split() {
		g.epilogue(accs)
		return
	}
	one := g.Cmp(arith.EQ, g.splits, g.C64(1))
	g.ifElse(one, nil, func() []*textir.Value { g.epilogue(accs); return nil },
		func() []*textir.Value { g.storePartials(accs); return nil })
}

// storePartials stores the thread's partial sums that fall inside B×N to
// the workspace, ws[(slice·B + row)·N + col].
func (g *gen) storePartials(accs []*textir.Value) {
	d := g.d
	base := g.Mul(g.slice, g.batch)
	g.eachOutput(nil, func(i, j, v int64, row, col *textir.Value) {
		q := i*d.ThreadN + j
		g.storeN(accs[q:q+v], g.ws, g.Add(g.mulc(g.Add(base, row), d.N), col))
	})
}

// eachOutput emits, for each vector of v columns of the thread's tile
// (at j, col) inside N, colInit(col, v) and then, for each of its rows
// (at i, row) inside B, at(i, j, v, row, col).
func (g *gen) eachOutput(colInit func(col *textir.Value, v int64), at func(i, j, v int64, row, col *textir.Value)) {
	d := g.d
	v := min(vec(d.N), d.ThreadN)
	for j := int64(0); j < d.ThreadN; j += v {
		col := g.AddC(g.colBase, j)
		var in *textir.Value
		if d.N%d.BlockN != 0 {
			in = g.Cmp(arith.SLT, col, g.C64(d.N))
		}
		g.ifElse(in, nil, func() []*textir.Value {
			if colInit != nil {
				colInit(col, v)
			}
			for i := int64(0); i < d.ThreadM; i++ {
				row := g.AddC(g.rowBase, i)
				g.IfThen(g.Cmp(arith.SLT, row, g.batch), func() { at(i, j, v, row, col) })
			}
			return nil
		}, nil)
	}
}

// widen converts loaded float32 values to the accumulator type.
func (g *gen) widen(vs []*textir.Value) []*textir.Value {
	if g.acc == f32 {
		return vs
	}
	out := make([]*textir.Value, len(vs))
	for i, v := range vs {
		out[i] = g.Cast(arith.ExtFOp, v, g.acc)
	}
	return out
}

// vec is the widest vector (4, 2 or 1 floats) that divides n.
func vec(n int64) int64 {
	switch {
	case n%4 == 0:
		return 4
	case n%2 == 0:
		return 2
	}
	return 1
}

// guardedLoad loads v floats of p at idx when c holds, else zeros.
func (g *gen) guardedLoad(c *textir.Value, p, idx *textir.Value, v int64) []*textir.Value {
	types := make([]textir.Type, v)
	for i := range types {
		types[i] = f32
	}
	return g.ifElse(c, types, func() []*textir.Value { return g.Load(p, idx, v, true) }, func() []*textir.Value {
		z := g.CF(0, f32)
		out := make([]*textir.Value, v)
		for i := range out {
			out[i] = z
		}
		return out
	})
}

// each runs body for every chunk c in [0, chunks) of this thread (c =
// tid + r·threads).
func (g *gen) each(chunks int64, body func(c *textir.Value)) {
	for r := int64(0); r*g.threads < chunks; r++ {
		c := g.AddC(g.tid, r*g.threads)
		if (r+1)*g.threads <= chunks {
			body(c)
		} else {
			g.IfThen(g.Cmp(arith.SLT, c, g.C64(chunks)), func() { body(c) })
		}
	}
}

// loadA stages the block's BM×BK tile of input x (ki columns) at k-step kt
// into shared memory, transposed (as[kk*BM + m]); zeros outside.
func (g *gen) loadA(x *textir.Value, ki int64, kt *textir.Value) {
	d := g.d
	if d.TransposeA { // x is ki×B: consecutive threads read consecutive rows m
		g.each(d.BlockM*d.BlockK, func(c *textir.Value) {
			kk := g.Bin(arith.ShRUIOp, c, g.C64(log2(d.BlockM)))
			m := g.Bin(arith.AndIOp, c, g.C64(d.BlockM-1))
			row, k := g.Add(g.row0, m), g.Add(kt, kk)
			in := g.and(g.Cmp(arith.SLT, row, g.batch), g.Cmp(arith.SLT, k, g.C64(ki)))
			v := g.guardedLoad(in, x, g.Add(g.Mul(k, g.batch), row), 1)
			g.Store(g.widen(v), g.as, g.Add(g.mulc(kk, d.BlockM), m))
		})
		return
	}
	v := min(vec(ki), d.BlockK)
	per := d.BlockK / v // chunks of a row
	g.each(d.BlockM*per, func(c *textir.Value) {
		m := g.Bin(arith.ShRUIOp, c, g.C64(log2(per)))
		kq := g.mulc(g.Bin(arith.AndIOp, c, g.C64(per-1)), v)
		row, k := g.Add(g.row0, m), g.Add(kt, kq)
		in := g.Cmp(arith.SLT, row, g.batch)
		if ki%d.BlockK != 0 {
			in = g.and(in, g.Cmp(arith.SLT, k, g.C64(ki)))
		}
		vals := g.widen(g.guardedLoad(in, x, g.Add(g.mulc(row, ki), k), v))
		for j, val := range vals {
			g.Store([]*textir.Value{val}, g.as, g.Add(g.mulc(g.AddC(kq, int64(j)), d.BlockM), m))
		}
	})
}

// loadB stages the BK×BN tile of the weight rows kBase+kt.. (of input
// width ki) into shared memory (bs[kk*BN + n]); zeros outside.
func (g *gen) loadB(kBase, ki int64, kt *textir.Value) {
	d := g.d
	K := d.K()
	if d.TransposeB { // w is N×K: consecutive threads read consecutive k
		g.each(d.BlockK*d.BlockN, func(c *textir.Value) {
			n := g.Bin(arith.ShRUIOp, c, g.C64(log2(d.BlockK)))
			kk := g.Bin(arith.AndIOp, c, g.C64(d.BlockK-1))
			col, k := g.Add(g.col0, n), g.Add(kt, kk)
			in := g.and(g.Cmp(arith.SLT, col, g.C64(d.N)), g.Cmp(arith.SLT, k, g.C64(ki)))
			v := g.guardedLoad(in, g.w, g.Add(g.mulc(col, K), g.AddC(k, kBase)), 1)
			g.Store(g.widen(v), g.bs, g.Add(g.mulc(kk, d.BlockN), n))
		})
		return
	}
	v := min(vec(d.N), d.BlockN)
	per := d.BlockN / v
	g.each(d.BlockK*per, func(c *textir.Value) {
		kk := g.Bin(arith.ShRUIOp, c, g.C64(log2(per)))
		nq := g.mulc(g.Bin(arith.AndIOp, c, g.C64(per-1)), v)
		col, k := g.Add(g.col0, nq), g.Add(kt, kk)
		var in *textir.Value
		if d.N%d.BlockN != 0 {
			in = g.Cmp(arith.SLT, col, g.C64(d.N))
		}
		if ki%d.BlockK != 0 {
			in = g.and(in, g.Cmp(arith.SLT, k, g.C64(ki)))
		}
		vals := g.widen(g.guardedLoad(in, g.w, g.Add(g.mulc(g.AddC(k, kBase), d.N), col), v))
		g.storeN(vals, g.bs, g.Add(g.mulc(kk, d.BlockN), nq))
	})
}

// mma accumulates the staged tiles into the thread's ThreadM×ThreadN
// accumulators, k in order.
func (g *gen) mma(accs []*textir.Value) []*textir.Value {
	d := g.d
	out := append([]*textir.Value(nil), accs...)
	aOff := g.mulc(g.ty, d.ThreadM)
	bOff := g.mulc(g.tx, d.ThreadN)
	for kk := int64(0); kk < d.BlockK; kk++ {
		a := g.loadN(g.as, g.AddC(aOff, kk*d.BlockM), d.ThreadM)
		b := g.loadN(g.bs, g.AddC(bOff, kk*d.BlockN), d.ThreadN)
		for i := range a {
			for j := range b {
				q := int64(i)*d.ThreadN + int64(j)
				out[q] = g.Val(gpu.FmaOp, []*textir.Value{a[i], b[j], out[q]}, g.acc)
			}
		}
	}
	return out
}

// epilogue rounds the sums to float32, adds the bias, applies the
// activation and stores the thread's outputs that fall inside B×N.
func (g *gen) epilogue(accs []*textir.Value) {
	d := g.d
	var bias []*textir.Value
	colInit := func(col *textir.Value, v int64) {
		if d.Bias {
			bias = g.Load(g.bias, col, v, true)
		}
	}
	g.eachOutput(colInit, func(i, j, v int64, row, col *textir.Value) {
		vals := make([]*textir.Value, v)
		for q := range vals {
			vals[q] = g.finish(accs[i*d.ThreadN+j+int64(q)], bias, q)
		}
		g.Store(vals, g.y, g.Add(g.mulc(row, d.N), col))
	})
}

// finish rounds the sum s to float32, adds bias[q] (when there is a bias)
// and applies the activation.
func (g *gen) finish(s *textir.Value, bias []*textir.Value, q int) *textir.Value {
	if g.acc != f32 {
		s = g.Cast(arith.TruncFOp, s, f32)
	}
	if bias != nil {
		s = g.Bin(arith.AddFOp, s, bias[q])
	}
	return g.activate(s)
}

// activate applies the activation to a float32 value as the interpreter
// does: relu exactly, sigmoid and tanh in float64, rounded once.
func (g *gen) activate(v *textir.Value) *textir.Value {
	switch g.d.Activation {
	case abi.ActRelu:
		return g.Sel(g.CmpF(arith.FUGT, v, g.CF(0, f32)), v, g.CF(0, f32)) // NaN stays NaN
	case abi.ActSigmoid:
		x := g.Cast(arith.ExtFOp, v, f64)
		e := g.expm1(g.Val(arith.NegFOp, []*textir.Value{x}, f64))
		r := g.Bin(arith.DivFOp, g.CF(1, f64), g.Bin(arith.AddFOp, g.CF(2, f64), e)) // 1 / (1 + exp(-x))
		return g.Cast(arith.TruncFOp, r, f32)
	case abi.ActTanh:
		x := g.Cast(arith.ExtFOp, v, f64)
		a := g.Val(gpu.FabsOp, []*textir.Value{x}, f64)
		e := g.expm1(g.Bin(arith.MulFOp, a, g.CF(-2, f64)))                    // exp(-2|x|) - 1, in (-1, 0]
		t := g.Bin(arith.DivFOp, g.Val(arith.NegFOp, []*textir.Value{e}, f64), // tanh|x| = -e / (2 + e)
			g.Bin(arith.AddFOp, g.CF(2, f64), e))
		neg := g.CmpF(arith.FOLT, x, g.CF(0, f64))
		t = g.Sel(neg, g.Val(arith.NegFOp, []*textir.Value{t}, f64), t)
		return g.Cast(arith.TruncFOp, t, f32)
	}
	return v
}

// expm1 computes exp(x) - 1 in float64 without a math library: x is
// clamped to [-700, 700] (NaN stays NaN), scaled by 2^-10, the series of
// exp(r) - 1 summed to r^20 (|r| < 0.7), and squared back ten times as
// e ← e·(2 + e), which keeps the relative accuracy near x = 0.
func (g *gen) expm1(x *textir.Value) *textir.Value {
	x = g.Bin(arith.MinimumFOp, g.Bin(arith.MaximumFOp, x, g.CF(-700, f64)), g.CF(700, f64))
	r := g.Bin(arith.MulFOp, x, g.CF(1.0/1024, f64))
	const terms = 20
	fact := 1.0
	for i := 2; i <= terms; i++ {
		fact *= float64(i)
	}
	q := g.CF(1/fact, f64) // 1/20!
	for n := terms - 1; n >= 1; n-- {
		fact /= float64(n + 1)
		q = g.Val(gpu.FmaOp, []*textir.Value{q, r, g.CF(1/fact, f64)}, f64) // q·r + 1/n!
	}
	e := g.Bin(arith.MulFOp, q, r)
	for range 10 {
		e = g.Bin(arith.MulFOp, e, g.Bin(arith.AddFOp, g.CF(2, f64), e))
	}
	return e
}
