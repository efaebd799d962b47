package embtogpu

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
	i32 = textir.I32()
	i64 = textir.I64()
	f32 = textir.F32()
)

func (k *kb) op(name string, operands []*textir.Value, results []textir.Type, attrs ...textir.NamedAttribute) *textir.Operation {
	return k.b.Create(&textir.OperationState{Name: name, Loc: k.loc, Operands: operands, ResultTypes: results, Attrs: attrs})
}

func (k *kb) c64(v int64) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.I64Attr(v)).Result(0)
}

func (k *kb) cf(v float64) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.FloatAttr{Value: v, Type: f32}).Result(0)
}

func (k *kb) bin(name string, x, y *textir.Value) *textir.Value {
	return k.op(name, []*textir.Value{x, y}, []textir.Type{x.Type()}).Result(0)
}

func (k *kb) add(x, y *textir.Value) *textir.Value { return k.bin(arith.AddIOp, x, y) }
func (k *kb) mul(x, y *textir.Value) *textir.Value { return k.bin(arith.MulIOp, x, y) }

// addc adds a constant (nothing for 0).
func (k *kb) addc(x *textir.Value, c int64) *textir.Value {
	if c == 0 {
		return x
	}
	return k.add(x, k.c64(c))
}

func (k *kb) mulc(x *textir.Value, c int64) *textir.Value {
	if c == 1 {
		return x
	}
	return k.mul(x, k.c64(c))
}

func (k *kb) cmp(p arith.Predicate, x, y *textir.Value) *textir.Value {
	return k.op(arith.CmpIOp, []*textir.Value{x, y}, []textir.Type{i1},
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))}).Result(0)
}

func (k *kb) sel(c, x, y *textir.Value) *textir.Value {
	return k.op(arith.SelectOp, []*textir.Value{c, x, y}, []textir.Type{x.Type()}).Result(0)
}

func (k *kb) cast(name string, x *textir.Value, t textir.Type) *textir.Value {
	return k.op(name, []*textir.Value{x}, []textir.Type{t}).Result(0)
}

func (k *kb) dim(name string) *textir.Value {
	v := k.op(name, nil, []textir.Type{i32}, textir.NamedAttribute{Name: "dimension", Value: textir.Str("x")}).Result(0)
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

// word loads an int32 word of the packed inputs as i64.
func (k *kb) word(in, idx *textir.Value) *textir.Value {
	return k.cast(arith.ExtSIOp, k.load(in, idx, 1, true)[0], i64)
}

func (k *kb) store(vals []*textir.Value, p, idx *textir.Value) {
	var attrs []textir.NamedAttribute
	if len(vals) > 1 {
		attrs = append(attrs, textir.NamedAttribute{Name: "width", Value: textir.I64Attr(int64(len(vals)))})
	}
	k.op(gpu.StoreOp, append(append([]*textir.Value(nil), vals...), p, idx), nil, attrs...)
}

// forLoop builds gpu.for %iv = lb to ub step st iter_args(inits); body
// returns the values to yield.
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

// ifThen builds gpu.if %c { then }.
func (k *kb) ifThen(c *textir.Value, then func()) {
	op := k.b.Create(&textir.OperationState{Name: gpu.IfOp, Loc: k.loc, Operands: []*textir.Value{c}, NumRegions: 2})
	op.Region(0).AppendBlock(textir.NewBlock())
	saved := *k.b
	k.b.SetInsertionPointToEnd(op.Region(0).Front())
	then()
	k.op(gpu.YieldOp, nil, nil)
	*k.b = saved
}

func log2(n int64) int64 { return int64(bits.TrailingZeros64(uint64(n))) }

// kernelArgs are the kernel's arguments and the column values read from
// the packed inputs.
type kernelArgs struct {
	tables, in, inF, out, batch, ntasks *textir.Value
	splitsOff, valuesOff, weightsOff    *textir.Value
	tableBase, outOff                   *textir.Value

	// The id computation (idcode.go): the parameter block's offset / 64
	// and the string bytes' word offset (descriptor words 5 and 6), the
	// current class's parameters, the current bag's first position, and
	// the pointer views made at entry.
	paramsW, bytesW *textir.Value
	bpt             *textir.Value // bags per task of this launch (tuned)
	scratchW        *textir.Value // descriptor word 8: the computed ids (fused.Layer.Prepass)
	prepassed       bool          // the current class reads its ids from the scratch
	params          [][]*textir.Value
	bagLo           *textir.Value
	entry           *textir.Operation
	views           map[any]*textir.Value
}

// KernelType is the kernel's signature: (tables, packed inputs, output, B, tasks).
func KernelType() *textir.FunctionType {
	g := func(t textir.Type) textir.Type { return gpu.PtrType(t, gpu.Global) }
	return &textir.FunctionType{Inputs: []textir.Type{g(f32), g(i32), g(f32), i64, i64}}
}

// BuildKernel returns the gpu.func of the layer, named name.
func BuildKernel(ctx *textir.Context, loc textir.Location, name string, l *fused.Layer) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, KernelType(), true)
	fn.SetAttr("max_threads", textir.I64Attr(l.Block))
	fn.SetAttr("min_blocks", textir.I64Attr(1))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	k := &kb{b: b, loc: loc}
	a := &kernelArgs{tables: body.Arg(0), in: body.Arg(1), out: body.Arg(2), batch: body.Arg(3), ntasks: body.Arg(4)}
	inF := k.op(gpu.PtrCastOp, []*textir.Value{a.in}, []textir.Type{gpu.PtrType(f32, gpu.Global)})
	a.inF, a.entry = inF.Result(0), inF
	C := int64(len(l.Columns))
	tid := k.dim(gpu.ThreadIdOp)
	bid := k.dim(gpu.BlockIdOp)
	// The column of this task and the task's index within the column.
	var col, chunk *textir.Value
	inTask := func(body func()) {
		if l.Schedule == fused.ScheduleRecom {
			col = bid
			k.ifThen(k.cmp(arith.SLT, bid, a.ntasks), body)
			return
		}
		t := k.add(k.mulc(bid, l.Block/gpu.WarpSize), k.bin(arith.ShRUIOp, tid, k.c64(5)))
		k.ifThen(k.cmp(arith.SLT, t, a.ntasks), func() {
			// Binary search of task_start (words [0, C]) for the last
			// column whose first task is <= t.
			lo, hi := k.c64(0), k.c64(C)
			for n := C; n > 1; n = (n + 1) / 2 {
				mid := k.bin(arith.ShRUIOp, k.add(lo, hi), k.c64(1))
				le := k.cmp(arith.SLE, k.word(a.in, mid), t)
				lo, hi = k.sel(le, mid, lo), k.sel(le, hi, mid)
			}
			col = lo
			chunk = k.bin(arith.SubIOp, t, k.word(a.in, col))
			body()
		})
	}
	inTask(func() {
		d := k.addc(k.mulc(col, fused.DescWords), C+1)
		a.splitsOff = k.word(a.in, d)
		a.valuesOff = k.word(a.in, k.addc(d, 1))
		a.weightsOff = k.word(a.in, k.addc(d, 2))
		a.tableBase = k.mulc(k.word(a.in, k.addc(d, 3)), fused.TableAlign)
		a.outOff = k.word(a.in, k.addc(d, 4))
		if l.Schedule == fused.ScheduleTuned {
			a.bpt = k.word(a.in, k.addc(d, 7))
		}
		for i := range l.Columns {
			if len(l.Columns[i].Transforms) > 0 {
				a.paramsW = k.word(a.in, k.addc(d, 5))
				a.bytesW = k.word(a.in, k.addc(d, 6))
				a.scratchW = k.word(a.in, k.addc(d, 8))
				break
			}
		}
		// One code path per class; the classes are ranges of columns.
		for lo := int64(0); lo < C; {
			hi := lo
			for hi < C && l.Columns[hi].Class == l.Columns[lo].Class {
				hi++
			}
			c := &l.Columns[lo]
			var cond *textir.Value
			if lo > 0 {
				cond = k.cmp(arith.SGE, col, k.c64(lo))
			}
			if hi < C {
				h := k.cmp(arith.SLT, col, k.c64(hi))
				if cond == nil {
					cond = h
				} else {
					cond = k.bin(arith.AndIOp, cond, h)
				}
			}
			gen := func() {
				if l.Schedule == fused.ScheduleRecom {
					k.recomClass(l, c, a, tid)
				} else {
					k.tunedClass(l, c, a, tid, chunk)
				}
			}
			if cond == nil {
				gen()
			} else {
				k.ifThen(cond, gen)
			}
			lo = hi
		}
	})
	k.op(gpu.ReturnOp, nil, nil)
	return fn
}

// bag returns the first and end id positions of bag b.
func (k *kb) bag(c *fused.Column, a *kernelArgs, b *textir.Value) (lo, hi *textir.Value) {
	if c.Kind == fused.KindGather {
		return b, k.addc(b, 1)
	}
	if c.Source == fused.SourceSplit {
		// The bag is one string: its byte range (poolSplit).
		p := k.add(a.valuesOff, b)
		return k.word(a.in, p), k.word(a.in, k.addc(p, 1))
	}
	p := k.add(a.splitsOff, b)
	return k.word(a.in, p), k.word(a.in, k.addc(p, 1))
}

// accum is a row accumulator: width floats, and for weighted columns the
// sum of the weights and of their squares.
type accum struct {
	v       []*textir.Value
	ws, ws2 *textir.Value
}

func (x accum) flat() []*textir.Value {
	out := append([]*textir.Value(nil), x.v...)
	if x.ws != nil {
		out = append(out, x.ws, x.ws2)
	}
	return out
}

func unflat(vs []*textir.Value, n int, weighted bool) accum {
	x := accum{v: vs[:n]}
	if weighted {
		x.ws, x.ws2 = vs[n], vs[n+1]
	}
	return x
}

func (k *kb) zeros(n int, weighted bool) accum {
	z := k.cf(0)
	x := accum{}
	for range n {
		x.v = append(x.v, z)
	}
	if weighted {
		x.ws, x.ws2 = z, z
	}
	return x
}

// addRows adds the rows (segment floats at element e) of the ids at
// positions js into accumulators xs (one per position); independent loads
// first, so that all of them are in flight together.
func (k *kb) addRows(c *fused.Column, a *kernelArgs, js []*textir.Value, e int64, eDyn *textir.Value, floats int64, xs []accum) []accum {
	type fetched struct {
		rows []*textir.Value
		w    *textir.Value
	}
	fs := make([]fetched, len(js))
	for r, j := range js {
		id := k.columnID(c, a, j)
		base := k.add(a.tableBase, k.mulc(id, c.Width))
		if eDyn != nil {
			base = k.add(base, eDyn)
		}
		base = k.addc(base, e)
		for q := int64(0); q < floats; q += c.Vector {
			fs[r].rows = append(fs[r].rows, k.load(a.tables, k.addc(base, q), c.Vector, true)...)
		}
		if c.Weighted {
			fs[r].w = k.load(a.inF, k.add(a.weightsOff, j), 1, true)[0]
		}
	}
	out := make([]accum, len(xs))
	for r := range fs {
		x := xs[r]
		y := accum{ws: x.ws, ws2: x.ws2}
		for q, v := range fs[r].rows {
			if c.Weighted {
				v = k.bin(arith.MulFOp, v, fs[r].w)
			}
			y.v = append(y.v, k.bin(arith.AddFOp, x.v[q], v))
		}
		if c.Weighted {
			y.ws = k.bin(arith.AddFOp, x.ws, fs[r].w)
			y.ws2 = k.bin(arith.AddFOp, x.ws2, k.bin(arith.MulFOp, fs[r].w, fs[r].w))
		}
		out[r] = y
	}
	return out
}

// pool walks the ids [lo, hi) of a bag with rif independent accumulators
// and returns the pooled, scaled floats.
func (k *kb) pool(c *fused.Column, a *kernelArgs, lo, hi *textir.Value, e int64, eDyn *textir.Value, floats, rif int64) []*textir.Value {
	if c.Source == fused.SourceSplit {
		return k.poolSplit(c, a, lo, hi, e, eDyn, floats)
	}
	n := int(floats)
	one := k.c64(1)
	a.bagLo = lo
	var total accum
	if c.Kind == fused.KindGather {
		total = k.addRows(c, a, []*textir.Value{lo}, e, eDyn, floats, []accum{k.zeros(n, false)})[0]
		return total.v
	}
	xs := make([]accum, rif)
	for r := range xs {
		xs[r] = k.zeros(n, c.Weighted)
	}
	cnt := k.bin(arith.SubIOp, hi, lo)
	start := lo
	if rif > 1 {
		main := k.add(lo, k.bin(arith.AndIOp, cnt, k.c64(^(rif-1))))
		var inits []*textir.Value
		for _, x := range xs {
			inits = append(inits, x.flat()...)
		}
		per := len(xs[0].flat())
		res := k.forLoop(lo, main, k.c64(rif), inits, func(j *textir.Value, it []*textir.Value) []*textir.Value {
			cur := make([]accum, rif)
			js := make([]*textir.Value, rif)
			for r := range cur {
				cur[r] = unflat(it[r*per:(r+1)*per], n, c.Weighted)
				js[r] = k.addc(j, int64(r))
			}
			var ys []*textir.Value
			for _, y := range k.addRows(c, a, js, e, eDyn, floats, cur) {
				ys = append(ys, y.flat()...)
			}
			return ys
		})
		for r := range xs {
			xs[r] = unflat(res[r*per:(r+1)*per], n, c.Weighted)
		}
		start = main
	}
	rem := k.forLoop(start, hi, one, xs[0].flat(), func(j *textir.Value, it []*textir.Value) []*textir.Value {
		return k.addRows(c, a, []*textir.Value{j}, e, eDyn, floats, []accum{unflat(it, n, c.Weighted)})[0].flat()
	})
	xs[0] = unflat(rem, n, c.Weighted)
	// Sum the accumulators pairwise.
	for len(xs) > 1 {
		var next []accum
		for r := 0; r < len(xs); r += 2 {
			y := accum{}
			for q := range xs[r].v {
				y.v = append(y.v, k.bin(arith.AddFOp, xs[r].v[q], xs[r+1].v[q]))
			}
			if c.Weighted {
				y.ws = k.bin(arith.AddFOp, xs[r].ws, xs[r+1].ws)
				y.ws2 = k.bin(arith.AddFOp, xs[r].ws2, xs[r+1].ws2)
			}
			next = append(next, y)
		}
		xs = next
	}
	total = xs[0]
	// Combiner scaling; an empty bag divides its zeros by 1.
	var den *textir.Value
	switch {
	case c.Combiner == "mean" && !c.Weighted:
		den = k.cast(arith.SIToFPOp, cnt, f32)
	case c.Combiner == "sqrtn" && !c.Weighted:
		den = k.op(gpu.SqrtOp, []*textir.Value{k.cast(arith.SIToFPOp, cnt, f32)}, []textir.Type{f32}).Result(0)
	case c.Combiner == "mean":
		den = total.ws
	case c.Combiner == "sqrtn":
		den = k.op(gpu.SqrtOp, []*textir.Value{total.ws2}, []textir.Type{f32}).Result(0)
	}
	if den == nil {
		return total.v
	}
	den = k.sel(k.cmp(arith.SGT, cnt, k.c64(0)), den, k.cf(1))
	out := make([]*textir.Value, n)
	for q, v := range total.v {
		out[q] = k.bin(arith.DivFOp, v, den)
	}
	return out
}

// write stores floats at element e (+ eDyn) of bag b's output slice.
func (k *kb) write(l *fused.Layer, c *fused.Column, a *kernelArgs, b *textir.Value, e int64, eDyn *textir.Value, vals []*textir.Value) {
	idx := k.add(k.mulc(b, l.Width), a.outOff)
	if eDyn != nil {
		idx = k.add(idx, eDyn)
	}
	idx = k.addc(idx, e)
	for q := 0; q < len(vals); q += int(c.StoreWidth) {
		k.store(vals[q:q+int(c.StoreWidth)], a.out, k.addc(idx, int64(q)))
	}
}

// tunedClass: Lanes threads per bag (one vector of the row each, looping
// over Segments), 32/Lanes bags per warp pass, BagsPerTask bags per warp.
func (k *kb) tunedClass(l *fused.Layer, c *fused.Column, a *kernelArgs, tid, chunk *textir.Value) {
	k.loadParams(c, a)
	lane := k.bin(arith.AndIOp, tid, k.c64(31))
	g := k.bin(arith.ShRUIOp, lane, k.c64(log2(c.Lanes)))
	sub := k.bin(arith.AndIOp, lane, k.c64(c.Lanes-1))
	groups := 32 / c.Lanes
	passes := c.BagsPerTask / groups
	// Bags per task of this launch (descriptor word 7: Pack may shrink
	// the planned ones for a small batch, fused.Layer.MinTasks).
	bpt := a.bpt
	if passes == 1 {
		bpt = k.c64(c.BagsPerTask)
	}
	first := k.add(k.mul(chunk, bpt), g)
	if l.Prepass(c) {
		k.idPass(c, a, k.mul(chunk, bpt), bpt, lane)
		defer func() { a.prepassed = false }()
	}
	subE := k.mulc(sub, c.Vector)
	one := func(b *textir.Value) {
		k.ifThen(k.cmp(arith.SLT, b, a.batch), func() {
			lo, hi := k.bag(c, a, b)
			for s := int64(0); s < c.Segments; s++ {
				e := s * c.Lanes * c.Vector
				seg := func() {
					vals := k.pool(c, a, lo, hi, e, subE, c.Vector, c.RowsInFlight)
					k.write(l, c, a, b, e, subE, vals)
				}
				if (s+1)*c.Lanes*c.Vector > c.Width {
					k.ifThen(k.cmp(arith.SLT, k.addc(subE, e), k.c64(c.Width)), seg)
				} else {
					seg()
				}
			}
		})
	}
	if passes == 1 {
		one(first)
		return
	}
	dyn := k.bin(arith.ShRUIOp, bpt, k.c64(log2(groups)))
	k.forLoop(k.c64(0), dyn, k.c64(1), nil, func(p *textir.Value, _ []*textir.Value) []*textir.Value {
		one(k.add(first, k.mulc(p, groups)))
		return nil
	})
}

// recomClass: RECom's design: the column's block of RecomBlock threads, a
// thread per bag, RecomChunk floats of the row per pass over the bag's
// ids, one id at a time.
func (k *kb) recomClass(l *fused.Layer, c *fused.Column, a *kernelArgs, tid *textir.Value) {
	k.loadParams(c, a)
	k.forLoop(tid, a.batch, k.c64(RecomBlock), nil, func(b *textir.Value, _ []*textir.Value) []*textir.Value {
		lo, hi := k.bag(c, a, b)
		for e := int64(0); e < c.Width; e += RecomChunk {
			floats := min(RecomChunk, c.Width-e)
			vals := k.pool(c, a, lo, hi, e, nil, floats, 1)
			k.write(l, c, a, b, e, nil, vals)
		}
		return nil
	})
}
