package densetogpu

import (
	"math/bits"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/embtogpu/fused"
	"github.com/recom-compiler/recom/textir"
)

// kb builds kernel IR at an insertion point.
type kb struct {
	b   *textir.Builder
	loc textir.Location
}

var (
	i1  = textir.I1()
	i64 = textir.I64()
	f32 = textir.F32()
	f64 = textir.F64()
)

func (k *kb) op(name string, operands []*textir.Value, results []textir.Type, attrs ...textir.NamedAttribute) *textir.Operation {
	return k.b.Create(&textir.OperationState{Name: name, Loc: k.loc, Operands: operands, ResultTypes: results, Attrs: attrs})
}

func (k *kb) c64(v int64) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.I64Attr(v)).Result(0)
}

// cf is a float constant of type t.
func (k *kb) cf(v float64, t textir.Type) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.FloatAttr{Value: v, Type: t}).Result(0)
}

func (k *kb) bin(name string, x, y *textir.Value) *textir.Value {
	return k.op(name, []*textir.Value{x, y}, []textir.Type{x.Type()}).Result(0)
}

func (k *kb) add(x, y *textir.Value) *textir.Value { return k.bin(arith.AddIOp, x, y) }

func (k *kb) addc(x *textir.Value, c int64) *textir.Value {
	if c == 0 {
		return x
	}
	return k.add(x, k.c64(c))
}

func (k *kb) mulc(x *textir.Value, c int64) *textir.Value {
	switch {
	case c == 1:
		return x
	case c > 0 && c&(c-1) == 0:
		return k.bin(arith.ShLIOp, x, k.c64(log2(c)))
	}
	return k.bin(arith.MulIOp, x, k.c64(c))
}

func (k *kb) mul(x, y *textir.Value) *textir.Value { return k.bin(arith.MulIOp, x, y) }

func (k *kb) cmp(p arith.Predicate, x, y *textir.Value) *textir.Value {
	return k.op(arith.CmpIOp, []*textir.Value{x, y}, []textir.Type{i1},
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))}).Result(0)
}

func (k *kb) cmpf(p arith.FPredicate, x, y *textir.Value) *textir.Value {
	return k.op(arith.CmpFOp, []*textir.Value{x, y}, []textir.Type{i1},
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))}).Result(0)
}

func (k *kb) and(x, y *textir.Value) *textir.Value {
	if x == nil {
		return y
	}
	return k.bin(arith.AndIOp, x, y)
}

func (k *kb) sel(c, x, y *textir.Value) *textir.Value {
	return k.op(arith.SelectOp, []*textir.Value{c, x, y}, []textir.Type{x.Type()}).Result(0)
}

func (k *kb) cast(name string, x *textir.Value, t textir.Type) *textir.Value {
	return k.op(name, []*textir.Value{x}, []textir.Type{t}).Result(0)
}

func (k *kb) dim(name string) *textir.Value {
	v := k.op(name, nil, []textir.Type{textir.I32()}, textir.NamedAttribute{Name: "dimension", Value: textir.Str("x")}).Result(0)
	return k.cast(arith.ExtSIOp, v, i64)
}

func (k *kb) load(p, idx *textir.Value, width int64, readonly bool) []*textir.Value {
	var attrs []textir.NamedAttribute
	if width > 1 {
		attrs = append(attrs, textir.NamedAttribute{Name: "width", Value: textir.I64Attr(width)})
	}
	if readonly {
		attrs = append(attrs, textir.NamedAttribute{Name: "readonly", Value: textir.UnitAttr{}})
	}
	rt := make([]textir.Type, width)
	for i := range rt {
		rt[i] = gpu.PtrElem(p.Type())
	}
	return k.op(gpu.LoadOp, []*textir.Value{p, idx}, rt, attrs...).Results()
}

func (k *kb) store(vals []*textir.Value, p, idx *textir.Value) {
	var attrs []textir.NamedAttribute
	if len(vals) > 1 {
		attrs = append(attrs, textir.NamedAttribute{Name: "width", Value: textir.I64Attr(int64(len(vals)))})
	}
	k.op(gpu.StoreOp, append(append([]*textir.Value(nil), vals...), p, idx), nil, attrs...)
}

// maxWidth is the widest access (16 bytes) for elements of type t.
func maxWidth(t textir.Type) int64 { return 16 / int64(textir.BitWidth(t)/8) }

// loadN loads n consecutive elements at idx (n a power of two, idx a
// multiple of min(n, maxWidth)) with the widest accesses.
func (k *kb) loadN(p, idx *textir.Value, n int64) []*textir.Value {
	w := min(n, maxWidth(gpu.PtrElem(p.Type())))
	var out []*textir.Value
	for q := int64(0); q < n; q += w {
		out = append(out, k.load(p, k.addc(idx, q), w, false)...)
	}
	return out
}

// storeN stores vals at idx with the widest accesses (as loadN).
func (k *kb) storeN(vals []*textir.Value, p, idx *textir.Value) {
	n := int64(len(vals))
	w := min(n, maxWidth(gpu.PtrElem(p.Type())))
	for q := int64(0); q < n; q += w {
		k.store(vals[q:q+w], p, k.addc(idx, q))
	}
}

// forLoop builds gpu.for %iv = lb to ub step st iter_args(inits).
func (k *kb) forLoop(lb, ub, st *textir.Value, inits []*textir.Value, body func(iv *textir.Value, iters []*textir.Value) []*textir.Value) []*textir.Value {
	types := make([]textir.Type, len(inits))
	for i, v := range inits {
		types[i] = v.Type()
	}
	op := k.b.Create(&textir.OperationState{Name: gpu.ForOp, Loc: k.loc, Operands: append([]*textir.Value{lb, ub, st}, inits...),
		ResultTypes: types, NumRegions: 1})
	op.Region(0).AppendBlock(textir.NewBlock(append([]textir.Type{lb.Type()}, types...)...))
	saved := *k.b
	blk := op.Region(0).Front()
	k.b.SetInsertionPointToEnd(blk)
	ys := body(blk.Arg(0), blk.Args()[1:])
	k.op(gpu.YieldOp, ys, nil)
	*k.b = saved
	return op.Results()
}

// ifElse builds gpu.if %c -> (types) { then } else { els }; with no
// types and a nil els, a plain gpu.if %c { then }. A nil c runs then
// unconditionally.
func (k *kb) ifElse(c *textir.Value, types []textir.Type, then, els func() []*textir.Value) []*textir.Value {
	if c == nil {
		return then()
	}
	op := k.b.Create(&textir.OperationState{Name: gpu.IfOp, Loc: k.loc, Operands: []*textir.Value{c}, ResultTypes: types, NumRegions: 2})
	saved := *k.b
	for r, f := range []func() []*textir.Value{then, els} {
		if f == nil {
			continue
		}
		op.Region(r).AppendBlock(textir.NewBlock())
		k.b.SetInsertionPointToEnd(op.Region(r).Front())
		k.op(gpu.YieldOp, f(), nil)
	}
	*k.b = saved
	return op.Results()
}

func (k *kb) ifThen(c *textir.Value, then func()) {
	k.ifElse(c, nil, func() []*textir.Value { then(); return nil }, nil)
}

func log2(n int64) int64 { return int64(bits.TrailingZeros64(uint64(n))) }

// accType is d's accumulator type.
func accType(d *fused.Dense) textir.Type {
	if d.Accumulate == fused.AccF32 {
		return f32
	}
	return f64
}

// KernelType is the kernel's signature: (x0, ..., x_{n-1}, w, [bias,] y, B),
// or with split-K (x0, ..., x_{n-1}, w, [bias,] y, ws, B, S).
func KernelType(d *fused.Dense) *textir.FunctionType {
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
func ReduceKernelType(d *fused.Dense) *textir.FunctionType {
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
func BuildKernel(ctx *textir.Context, loc textir.Location, name string, d *fused.Dense) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, KernelType(d), true)
	fn.SetAttr("max_threads", textir.I64Attr(d.Threads()))
	fn.SetAttr("min_blocks", textir.I64Attr(1))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &gen{kb: kb{b: b, loc: loc}, d: d, acc: accType(d)}
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
	g.op(gpu.ReturnOp, nil, nil)
	return fn
}

// BuildReduceKernel returns the gpu.func that finishes a split-K launch of
// d (see fused.Dense): a thread sums ReduceVec consecutive outputs' S
// partials in slice order in the accumulator type, rounds to float32 once,
// adds the bias and applies the activation.
func BuildReduceKernel(ctx *textir.Context, loc textir.Location, name string, d *fused.Dense) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, ReduceKernelType(d), true)
	fn.SetAttr("max_threads", textir.I64Attr(fused.ReduceThreads))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &gen{kb: kb{b: b, loc: loc}, d: d, acc: accType(d)}
	g.ws = body.Arg(0)
	if d.Bias {
		g.bias = body.Arg(1)
	}
	n := body.NumArgs()
	g.y, g.batch, g.splits = body.Arg(n-3), body.Arg(n-2), body.Arg(n-1)
	v := d.ReduceVec()
	tid, bid := g.dim(gpu.ThreadIdOp), g.dim(gpu.BlockIdOp)
	idx := g.mulc(g.add(g.mulc(bid, fused.ReduceThreads), tid), v)
	total := g.mulc(g.batch, d.N)
	g.ifThen(g.cmp(arith.SLT, idx, total), func() {
		zero := g.cf(0, g.acc)
		inits := make([]*textir.Value, v)
		for i := range inits {
			inits[i] = zero
		}
		sums := g.forLoop(g.c64(0), g.splits, g.c64(1), inits, func(s *textir.Value, it []*textir.Value) []*textir.Value {
			p := g.loadN(g.ws, g.add(g.mul(s, total), idx), v)
			out := make([]*textir.Value, v)
			for i := range out {
				out[i] = g.bin(arith.AddFOp, it[i], p[i])
			}
			return out
		})
		var bias []*textir.Value
		if d.Bias {
			col := g.bin(arith.SubIOp, idx, g.mulc(g.bin(arith.DivUIOp, idx, g.c64(d.N)), d.N))
			bias = g.load(g.bias, col, v, true)
		}
		vals := make([]*textir.Value, v)
		for q := range vals {
			vals[q] = g.finish(sums[q], bias, q)
		}
		g.storeN(vals, g.y, idx)
	})
	g.op(gpu.ReturnOp, nil, nil)
	return fn
}

// gen generates one dense kernel.
type gen struct {
	kb
	d                *fused.Dense
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
	g.tid = g.dim(gpu.ThreadIdOp)
	bid := g.dim(gpu.BlockIdOp)
	tn := d.BlockN / d.ThreadN
	g.tx = g.bin(arith.AndIOp, g.tid, g.c64(tn-1))
	g.ty = g.bin(arith.ShRUIOp, g.tid, g.c64(log2(tn)))
	tile := bid
	if d.Split() { // block g: slice g mod S of tile g / S
		tile = g.bin(arith.DivUIOp, bid, g.splits)
		g.slice = g.bin(arith.SubIOp, bid, g.mul(tile, g.splits))
	}
	tiles := d.TilesN()
	var bm, bn *textir.Value
	if tiles == 1 {
		bm, bn = tile, g.c64(0)
	} else {
		bm = g.bin(arith.DivUIOp, tile, g.c64(tiles))
		bn = g.bin(arith.SubIOp, tile, g.mulc(bm, tiles))
	}
	g.row0 = g.mulc(bm, d.BlockM)
	g.col0 = g.mulc(bn, d.BlockN)
	g.rowBase = g.add(g.row0, g.mulc(g.ty, d.ThreadM))
	g.colBase = g.add(g.col0, g.mulc(g.tx, d.ThreadN))
	shared := func(n int64) *textir.Value {
		return g.op(gpu.SharedAllocOp, nil, []textir.Type{gpu.PtrType(g.acc, gpu.Shared)},
			textir.NamedAttribute{Name: "count", Value: textir.I64Attr(n)}).Result(0)
	}
	g.as = shared(d.BlockK * d.BlockM)
	g.bs = shared(d.BlockK * d.BlockN)
	zero := g.cf(0, g.acc)
	accs := make([]*textir.Value, d.ThreadM*d.ThreadN)
	for i := range accs {
		accs[i] = zero
	}
	// A thread whose rows are all past the batch skips the arithmetic
	// (whole warps do when the batch is smaller than the tile).
	live := g.cmp(arith.SLT, g.rowBase, g.batch)
	var sLo, sHi *textir.Value // this slice's steps [sLo, sHi)
	if d.Split() {
		t := d.Steps()
		per := g.bin(arith.DivUIOp, g.addc(g.splits, t-1), g.splits) // ceil(T/S)
		sLo = g.mul(g.slice, per)
		sHi = g.add(sLo, per)
	}
	kBase, stepBase := int64(0), int64(0)
	for i, ki := range d.Ks {
		steps := (ki + d.BlockK - 1) / d.BlockK
		lb, ub := g.c64(0), g.c64(ki)
		if d.Split() { // the part's steps inside the slice, clamped to [0, steps]
			clamp := func(v *textir.Value) *textir.Value {
				v = g.bin(arith.MaxSIOp, g.addc(v, -stepBase), g.c64(0))
				return g.mulc(g.bin(arith.MinSIOp, v, g.c64(steps)), d.BlockK)
			}
			lb, ub = clamp(sLo), clamp(sHi)
		}
		kb := kBase
		accs = g.forLoop(lb, ub, g.c64(d.BlockK), accs, func(kt *textir.Value, it []*textir.Value) []*textir.Value {
			g.loadA(g.x[i], ki, kt)
			g.loadB(kb, ki, kt)
			g.op(gpu.BarrierOp, nil, nil)
			types := make([]textir.Type, len(it))
			for q := range types {
				types[q] = g.acc
			}
			out := g.ifElse(live, types, func() []*textir.Value { return g.mma(it) }, func() []*textir.Value { return it })
			g.op(gpu.BarrierOp, nil, nil)
			return out
		})
		kBase += ki
		stepBase += steps
	}
	if !d.Split() {
		g.epilogue(accs)
		return
	}
	one := g.cmp(arith.EQ, g.splits, g.c64(1))
	g.ifElse(one, nil, func() []*textir.Value { g.epilogue(accs); return nil },
		func() []*textir.Value { g.storePartials(accs); return nil })
}

// storePartials stores the thread's partial sums that fall inside B×N to
// the workspace, ws[(slice·B + row)·N + col].
func (g *gen) storePartials(accs []*textir.Value) {
	d := g.d
	v := min(vec(d.N), d.ThreadN)
	base := g.mul(g.slice, g.batch)
	for j := int64(0); j < d.ThreadN; j += v {
		col := g.addc(g.colBase, j)
		var in *textir.Value
		if d.N%d.BlockN != 0 {
			in = g.cmp(arith.SLT, col, g.c64(d.N))
		}
		g.ifElse(in, nil, func() []*textir.Value {
			for i := int64(0); i < d.ThreadM; i++ {
				row := g.addc(g.rowBase, i)
				g.ifThen(g.cmp(arith.SLT, row, g.batch), func() {
					q := i*d.ThreadN + j
					g.storeN(accs[q:q+v], g.ws, g.add(g.mulc(g.add(base, row), d.N), col))
				})
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
		out[i] = g.cast(arith.ExtFOp, v, g.acc)
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
	return g.ifElse(c, types, func() []*textir.Value { return g.load(p, idx, v, true) }, func() []*textir.Value {
		z := g.cf(0, f32)
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
		c := g.addc(g.tid, r*g.threads)
		if (r+1)*g.threads <= chunks {
			body(c)
		} else {
			g.ifThen(g.cmp(arith.SLT, c, g.c64(chunks)), func() { body(c) })
		}
	}
}

// loadA stages the block's BM×BK tile of input x (ki columns) at k-step kt
// into shared memory, transposed (as[kk*BM + m]); zeros outside.
func (g *gen) loadA(x *textir.Value, ki int64, kt *textir.Value) {
	d := g.d
	if d.TransposeA { // x is ki×B: consecutive threads read consecutive rows m
		g.each(d.BlockM*d.BlockK, func(c *textir.Value) {
			kk := g.bin(arith.ShRUIOp, c, g.c64(log2(d.BlockM)))
			m := g.bin(arith.AndIOp, c, g.c64(d.BlockM-1))
			row, k := g.add(g.row0, m), g.add(kt, kk)
			in := g.and(g.cmp(arith.SLT, row, g.batch), g.cmp(arith.SLT, k, g.c64(ki)))
			v := g.guardedLoad(in, x, g.add(g.mul(k, g.batch), row), 1)
			g.store(g.widen(v), g.as, g.add(g.mulc(kk, d.BlockM), m))
		})
		return
	}
	v := min(vec(ki), d.BlockK)
	per := d.BlockK / v // chunks of a row
	g.each(d.BlockM*per, func(c *textir.Value) {
		m := g.bin(arith.ShRUIOp, c, g.c64(log2(per)))
		kq := g.mulc(g.bin(arith.AndIOp, c, g.c64(per-1)), v)
		row, k := g.add(g.row0, m), g.add(kt, kq)
		in := g.cmp(arith.SLT, row, g.batch)
		if ki%d.BlockK != 0 {
			in = g.and(in, g.cmp(arith.SLT, k, g.c64(ki)))
		}
		vals := g.widen(g.guardedLoad(in, x, g.add(g.mulc(row, ki), k), v))
		for j, val := range vals {
			g.store([]*textir.Value{val}, g.as, g.add(g.mulc(g.addc(kq, int64(j)), d.BlockM), m))
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
			n := g.bin(arith.ShRUIOp, c, g.c64(log2(d.BlockK)))
			kk := g.bin(arith.AndIOp, c, g.c64(d.BlockK-1))
			col, k := g.add(g.col0, n), g.add(kt, kk)
			in := g.and(g.cmp(arith.SLT, col, g.c64(d.N)), g.cmp(arith.SLT, k, g.c64(ki)))
			v := g.guardedLoad(in, g.w, g.add(g.mulc(col, K), g.addc(k, kBase)), 1)
			g.store(g.widen(v), g.bs, g.add(g.mulc(kk, d.BlockN), n))
		})
		return
	}
	v := min(vec(d.N), d.BlockN)
	per := d.BlockN / v
	g.each(d.BlockK*per, func(c *textir.Value) {
		kk := g.bin(arith.ShRUIOp, c, g.c64(log2(per)))
		nq := g.mulc(g.bin(arith.AndIOp, c, g.c64(per-1)), v)
		col, k := g.add(g.col0, nq), g.add(kt, kk)
		var in *textir.Value
		if d.N%d.BlockN != 0 {
			in = g.cmp(arith.SLT, col, g.c64(d.N))
		}
		if ki%d.BlockK != 0 {
			in = g.and(in, g.cmp(arith.SLT, k, g.c64(ki)))
		}
		vals := g.widen(g.guardedLoad(in, g.w, g.add(g.mulc(g.addc(k, kBase), d.N), col), v))
		g.storeN(vals, g.bs, g.add(g.mulc(kk, d.BlockN), nq))
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
		a := g.loadN(g.as, g.addc(aOff, kk*d.BlockM), d.ThreadM)
		b := g.loadN(g.bs, g.addc(bOff, kk*d.BlockN), d.ThreadN)
		for i := range a {
			for j := range b {
				q := int64(i)*d.ThreadN + int64(j)
				out[q] = g.op(gpu.FmaOp, []*textir.Value{a[i], b[j], out[q]}, []textir.Type{g.acc}).Result(0)
			}
		}
	}
	return out
}

// epilogue rounds the sums to float32, adds the bias, applies the
// activation and stores the thread's outputs that fall inside B×N.
func (g *gen) epilogue(accs []*textir.Value) {
	d := g.d
	v := min(vec(d.N), d.ThreadN)
	for j := int64(0); j < d.ThreadN; j += v {
		col := g.addc(g.colBase, j)
		var in *textir.Value
		if d.N%d.BlockN != 0 {
			in = g.cmp(arith.SLT, col, g.c64(d.N))
		}
		g.ifElse(in, nil, func() []*textir.Value {
			var bias []*textir.Value
			if d.Bias {
				bias = g.load(g.bias, col, v, true)
			}
			for i := int64(0); i < d.ThreadM; i++ {
				row := g.addc(g.rowBase, i)
				g.ifThen(g.cmp(arith.SLT, row, g.batch), func() {
					vals := make([]*textir.Value, v)
					for q := range vals {
						vals[q] = g.finish(accs[i*d.ThreadN+j+int64(q)], bias, q)
					}
					g.store(vals, g.y, g.add(g.mulc(row, d.N), col))
				})
			}
			return nil
		}, nil)
	}
}

// finish rounds the sum s to float32, adds bias[q] (when there is a bias)
// and applies the activation.
func (g *gen) finish(s *textir.Value, bias []*textir.Value, q int) *textir.Value {
	if g.acc != f32 {
		s = g.cast(arith.TruncFOp, s, f32)
	}
	if bias != nil {
		s = g.bin(arith.AddFOp, s, bias[q])
	}
	return g.activate(s)
}

// activate applies the activation to a float32 value as the interpreter
// does: relu exactly, sigmoid and tanh in float64, rounded once.
func (g *gen) activate(v *textir.Value) *textir.Value {
	switch g.d.Activation {
	case fused.ActRelu:
		return g.sel(g.cmpf(arith.FUGT, v, g.cf(0, f32)), v, g.cf(0, f32)) // NaN stays NaN
	case fused.ActSigmoid:
		x := g.cast(arith.ExtFOp, v, f64)
		e := g.expm1(g.op(arith.NegFOp, []*textir.Value{x}, []textir.Type{f64}).Result(0))
		r := g.bin(arith.DivFOp, g.cf(1, f64), g.bin(arith.AddFOp, g.cf(2, f64), e)) // 1 / (1 + exp(-x))
		return g.cast(arith.TruncFOp, r, f32)
	case fused.ActTanh:
		x := g.cast(arith.ExtFOp, v, f64)
		a := g.op(gpu.FabsOp, []*textir.Value{x}, []textir.Type{f64}).Result(0)
		e := g.expm1(g.bin(arith.MulFOp, a, g.cf(-2, f64)))                                            // exp(-2|x|) - 1, in (-1, 0]
		t := g.bin(arith.DivFOp, g.op(arith.NegFOp, []*textir.Value{e}, []textir.Type{f64}).Result(0), // tanh|x| = -e / (2 + e)
			g.bin(arith.AddFOp, g.cf(2, f64), e))
		neg := g.cmpf(arith.FOLT, x, g.cf(0, f64))
		t = g.sel(neg, g.op(arith.NegFOp, []*textir.Value{t}, []textir.Type{f64}).Result(0), t)
		return g.cast(arith.TruncFOp, t, f32)
	}
	return v
}

// expm1 computes exp(x) - 1 in float64 without a math library: x is
// clamped to [-700, 700] (NaN stays NaN), scaled by 2^-10, the series of
// exp(r) - 1 summed to r^20 (|r| < 0.7), and squared back ten times as
// e ← e·(2 + e), which keeps the relative accuracy near x = 0.
func (g *gen) expm1(x *textir.Value) *textir.Value {
	x = g.bin(arith.MinimumFOp, g.bin(arith.MaximumFOp, x, g.cf(-700, f64)), g.cf(700, f64))
	r := g.bin(arith.MulFOp, x, g.cf(1.0/1024, f64))
	const terms = 20
	fact := 1.0
	for i := 2; i <= terms; i++ {
		fact *= float64(i)
	}
	q := g.cf(1/fact, f64) // 1/20!
	for n := terms - 1; n >= 1; n-- {
		fact /= float64(n + 1)
		q = g.op(gpu.FmaOp, []*textir.Value{q, r, g.cf(1/fact, f64)}, []textir.Type{f64}).Result(0) // q·r + 1/n!
	}
	e := g.bin(arith.MulFOp, q, r)
	for range 10 {
		e = g.bin(arith.MulFOp, e, g.bin(arith.AddFOp, g.cf(2, f64), e))
	}
	return e
}
