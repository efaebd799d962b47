package embtogpu

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
	i1  = textir.I1()
	i32 = textir.I32()
	i64 = textir.I64()
	f32 = textir.F32()
)

func (k *kb) cf(v float64) *textir.Value {
	return k.Const(textir.FloatAttr{Value: v, Type: f32})
}

func (k *kb) mulc(x *textir.Value, c int64) *textir.Value {
	if c == 1 {
		return x
	}
	return k.Mul(x, k.C64(c))
}

// word loads an int32 word of the packed inputs as i64.
func (k *kb) word(in, idx *textir.Value) *textir.Value {
	return k.Cast(arith.ExtSIOp, k.Load(in, idx, 1, true)[0], i64)
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
	scratchW        *textir.Value // descriptor word 8: the computed ids (abi.Layer.Prepass)
	prepassed       bool          // the current class reads its ids from the scratch
	params          [][]*textir.Value
	classParams     [][]*int64 // the current class's constant parameter words (abi.ClassParams)
	bagLo           *textir.Value
	crossBag        *crossBag // the current bag of a crossed column (crosscode.go)
	entry           *textir.Operation
	views           map[any]*textir.Value
}

// KernelType is the kernel's signature: (tables, packed inputs, output, B, tasks).
func KernelType() *textir.FunctionType {
	g := func(t textir.Type) textir.Type { return gpu.PtrType(t, gpu.Global) }
	return &textir.FunctionType{Inputs: []textir.Type{g(f32), g(i32), g(f32), i64, i64}}
}

// BuildKernel returns the gpu.func of the layer, named name.
func BuildKernel(ctx *textir.Context, loc textir.Location, name string, l *abi.Layer) *textir.Operation {
	fn := gpu.NewFunc(ctx, loc, name, KernelType(), true)
	fn.SetAttr("max_threads", textir.I64Attr(l.Block))
	fn.SetAttr("min_blocks", textir.I64Attr(1))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	k := &kb{kernelir.Builder{B: b, Loc: loc}}
	a := &kernelArgs{tables: body.Arg(0), in: body.Arg(1), out: body.Arg(2), batch: body.Arg(3), ntasks: body.Arg(4)}
	inF, _ := gpu.AsPtrCast(k.Op(gpu.PtrCastOp, []*textir.Value{a.in}, []textir.Type{gpu.PtrType(f32, gpu.Global)}))
	a.inF, a.entry = inF.Result(), inF.Op()
	C := int64(len(l.Columns))
	tid := k.Dim(gpu.ThreadIdOp)
	bid := k.Dim(gpu.BlockIdOp)
	// The column of this task and the task's index within the column.
	var col, chunk *textir.Value
	inTask := func(body func()) {
		if l.Schedule == abi.ScheduleRecom {
			col = bid
			k.IfThen(k.Cmp(arith.SLT, bid, a.ntasks), body)
			return
		}
		t := k.Add(k.mulc(bid, l.Block/gpu.WarpSize), k.Bin(arith.ShRUIOp, tid, k.C64(5)))
		k.IfThen(k.Cmp(arith.SLT, t, a.ntasks), func() {
			if l.UniformTasks() {
				// Every column has tasks/C tasks, in column order:
				// a division (32-bit: tasks < 2^31), no load.
				per := k.Cast(arith.TruncIOp, k.Bin(arith.DivUIOp, a.ntasks, k.C64(C)), i32)
				col = k.Cast(arith.ExtUIOp, k.Bin(arith.DivUIOp, k.Cast(arith.TruncIOp, t, i32), per), i64)
				chunk = k.Bin(arith.SubIOp, t, k.Mul(col, k.Cast(arith.ExtUIOp, per, i64)))
			} else {
				// The task map gives the column (one load, where a
				// search of task_start would be a chain of log2(C)).
				col = k.word(a.in, k.AddC(t, l.TaskMapOffset()))
				chunk = k.Bin(arith.SubIOp, t, k.word(a.in, col))
			}
			body()
		})
	}
	inTask(func() {
		d := k.AddC(k.mulc(col, abi.DescWords), C+1)
		a.splitsOff = k.word(a.in, d)
		a.valuesOff = k.word(a.in, k.AddC(d, 1))
		a.weightsOff = k.word(a.in, k.AddC(d, 2))
		a.tableBase = k.mulc(k.word(a.in, k.AddC(d, 3)), abi.TableAlign)
		a.outOff = k.word(a.in, k.AddC(d, 4))
		if l.Schedule == abi.ScheduleTuned {
			a.bpt = k.word(a.in, k.AddC(d, 7))
		}
		for i := range l.Columns {
			if len(l.Columns[i].Transforms) > 0 {
				a.paramsW = k.word(a.in, k.AddC(d, 5))
				a.bytesW = k.word(a.in, k.AddC(d, 6))
				a.scratchW = k.word(a.in, k.AddC(d, 8))
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
				cond = k.Cmp(arith.SGE, col, k.C64(lo))
			}
			if hi < C {
				h := k.Cmp(arith.SLT, col, k.C64(hi))
				if cond == nil {
					cond = h
				} else {
					cond = k.Bin(arith.AndIOp, cond, h)
				}
			}
			a.classParams = abi.ClassParams(l.Columns[lo:hi])
			gen := func() {
				if l.Schedule == abi.ScheduleRecom {
					k.recomClass(l, c, a, tid)
				} else {
					k.tunedClass(l, c, a, tid, chunk)
				}
			}
			if cond == nil {
				gen()
			} else {
				k.IfThen(cond, gen)
			}
			lo = hi
		}
	})
	k.Op(gpu.ReturnOp, nil, nil)
	return fn
}

// bag returns the first and end id positions of bag b (after the id
// pass, of its ids in the scratch).
func (k *kb) bag(c *abi.Column, a *kernelArgs, b *textir.Value) (lo, hi *textir.Value) {
	if c.IsCross() && !a.prepassed {
		a.crossBag = k.loadCrossBag(c, a, b)
	}
	if c.Kind == abi.KindGather {
		return b, k.AddC(b, 1)
	}
	if c.Source == abi.SourceSplit && a.prepassed {
		return k.splitBag(a, b)
	}
	if c.Source == abi.SourceSplit {
		// The bag is one string: its byte range (poolSplit).
		p := k.Add(a.valuesOff, b)
		return k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
	}
	p := k.Add(a.splitsOff, b)
	return k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
}

// accum is a row accumulator: width floats, for weighted columns the sum
// of the weights and of their squares, and for columns whose kernel drops
// ids (abi.Column.Drops) the number of ids kept (i64).
type accum struct {
	v       []*textir.Value
	ws, ws2 *textir.Value
	n       *textir.Value
}

func (x accum) flat() []*textir.Value {
	out := append([]*textir.Value(nil), x.v...)
	if x.ws != nil {
		out = append(out, x.ws, x.ws2)
	}
	if x.n != nil {
		out = append(out, x.n)
	}
	return out
}

// unflat is the accumulator of n floats flattened by flat, for column c.
func unflat(vs []*textir.Value, n int, c *abi.Column) accum {
	x := accum{v: vs[:n]}
	if c.Weighted {
		x.ws, x.ws2 = vs[n], vs[n+1]
		n += 2
	}
	if c.Drops() {
		x.n = vs[n]
	}
	return x
}

// zeros is an empty accumulator of n floats for column c (weights only
// when weighted is set: a gather's are never).
func (k *kb) zeros(n int, c *abi.Column, weighted bool) accum {
	z := k.cf(0)
	x := accum{}
	for range n {
		x.v = append(x.v, z)
	}
	if weighted {
		x.ws, x.ws2 = z, z
	}
	if c.Drops() {
		x.n = k.C64(0)
	}
	return x
}

// addRows adds the rows (segment floats at element e) of the ids at
// positions js into accumulators xs (one per position); independent loads
// first, so that all of them are in flight together. With end non-nil,
// a position at or past end adds nothing: it reads the row of position
// end-1 (in the bag, so every load stays valid) and its values are
// replaced by zeros, so that a bag's last, partial group of rows costs
// one round trip to memory like the others. A dropped id (-1, from
// abi.TransformDrop) adds nothing either: it reads row 0 and counts
// neither in the floats nor in the weights nor in the kept ids.
func (k *kb) addRows(c *abi.Column, a *kernelArgs, js []*textir.Value, end *textir.Value, e int64, eDyn *textir.Value, floats int64, xs []accum) []accum {
	type fetched struct {
		rows  []*textir.Value
		w     *textir.Value
		valid *textir.Value
	}
	fs := make([]fetched, len(js))
	pos := make([]*textir.Value, len(js))
	for r, j := range js {
		if end != nil && r > 0 {
			fs[r].valid = k.Cmp(arith.SLT, j, end)
			j = k.Bin(arith.MinSIOp, j, k.AddC(end, -1))
		}
		pos[r] = j
	}
	ids := k.columnIDs(c, a, pos)
	for r, j := range pos {
		id := ids[r]
		if c.Drops() {
			keep := k.Cmp(arith.SGE, id, k.C64(0))
			id = k.Sel(keep, id, k.C64(0))
			if fs[r].valid == nil {
				fs[r].valid = keep
			} else {
				fs[r].valid = k.Bin(arith.AndIOp, fs[r].valid, keep)
			}
		}
		base := k.Add(a.tableBase, k.mulc(id, c.Width))
		if eDyn != nil {
			base = k.Add(base, eDyn)
		}
		base = k.AddC(base, e)
		for q := int64(0); q < floats; q += c.Vector {
			fs[r].rows = append(fs[r].rows, k.Load(a.tables, k.AddC(base, q), c.Vector, true)...)
		}
		if c.Weighted {
			fs[r].w = k.Load(a.inF, k.Add(a.weightsOff, j), 1, true)[0]
		}
	}
	out := make([]accum, len(xs))
	var zero *textir.Value
	mask := func(r int, v *textir.Value) *textir.Value {
		if fs[r].valid == nil {
			return v
		}
		if zero == nil {
			zero = k.cf(0)
		}
		return k.Sel(fs[r].valid, v, zero)
	}
	for r := range fs {
		x := xs[r]
		y := accum{ws: x.ws, ws2: x.ws2}
		if x.n != nil {
			one := k.C64(1)
			if fs[r].valid != nil {
				one = k.Cast(arith.ExtUIOp, fs[r].valid, i64)
			}
			y.n = k.Add(x.n, one)
		}
		for q, v := range fs[r].rows {
			if c.Weighted {
				v = k.Bin(arith.MulFOp, v, fs[r].w)
			}
			y.v = append(y.v, k.Bin(arith.AddFOp, x.v[q], mask(r, v)))
		}
		if c.Weighted {
			w := mask(r, fs[r].w)
			y.ws = k.Bin(arith.AddFOp, x.ws, w)
			y.ws2 = k.Bin(arith.AddFOp, x.ws2, k.Bin(arith.MulFOp, w, w))
		}
		out[r] = y
	}
	return out
}

// pool walks the ids [lo, hi) of a bag with rif independent accumulators
// and returns the pooled, scaled floats.
func (k *kb) pool(c *abi.Column, a *kernelArgs, lo, hi *textir.Value, e int64, eDyn *textir.Value, floats, rif int64) []*textir.Value {
	if c.Source == abi.SourceSplit && !a.prepassed {
		return k.poolSplit(c, a, lo, hi, e, eDyn, floats)
	}
	n := int(floats)
	one := k.C64(1)
	a.bagLo = lo
	var total accum
	if c.Kind == abi.KindGather {
		total = k.addRows(c, a, []*textir.Value{lo}, nil, e, eDyn, floats, []accum{k.zeros(n, c, false)})[0]
		return total.v
	}
	xs := make([]accum, rif)
	for r := range xs {
		xs[r] = k.zeros(n, c, c.Weighted)
	}
	cnt := k.Bin(arith.SubIOp, hi, lo)
	if rif > 1 {
		// rif positions per trip, the last trip masked (addRows).
		var inits []*textir.Value
		for _, x := range xs {
			inits = append(inits, x.flat()...)
		}
		per := len(xs[0].flat())
		res := k.For(lo, hi, k.C64(rif), inits, func(j *textir.Value, it []*textir.Value) []*textir.Value {
			cur := make([]accum, rif)
			js := make([]*textir.Value, rif)
			for r := range cur {
				cur[r] = unflat(it[r*per:(r+1)*per], n, c)
				js[r] = k.AddC(j, int64(r))
			}
			var ys []*textir.Value
			for _, y := range k.addRows(c, a, js, hi, e, eDyn, floats, cur) {
				ys = append(ys, y.flat()...)
			}
			return ys
		})
		for r := range xs {
			xs[r] = unflat(res[r*per:(r+1)*per], n, c)
		}
	} else {
		rem := k.For(lo, hi, one, xs[0].flat(), func(j *textir.Value, it []*textir.Value) []*textir.Value {
			return k.addRows(c, a, []*textir.Value{j}, nil, e, eDyn, floats, []accum{unflat(it, n, c)})[0].flat()
		})
		xs[0] = unflat(rem, n, c)
	}
	// Sum the accumulators pairwise.
	for len(xs) > 1 {
		var next []accum
		for r := 0; r < len(xs); r += 2 {
			y := accum{}
			for q := range xs[r].v {
				y.v = append(y.v, k.Bin(arith.AddFOp, xs[r].v[q], xs[r+1].v[q]))
			}
			if c.Weighted {
				y.ws = k.Bin(arith.AddFOp, xs[r].ws, xs[r+1].ws)
				y.ws2 = k.Bin(arith.AddFOp, xs[r].ws2, xs[r+1].ws2)
			}
			if xs[r].n != nil {
				y.n = k.Add(xs[r].n, xs[r+1].n)
			}
			next = append(next, y)
		}
		xs = next
	}
	total = xs[0]
	if total.n != nil {
		// The ids kept, not the bag's positions.
		cnt = total.n
	}
	return k.combine(c, total, cnt)
}

// combine scales a bag's pooled floats by its combiner (mean: the count
// or the weights' sum; sqrtn: the square root of the count or of the
// squared weights' sum); an empty bag (cnt 0) divides its zeros by 1.
func (k *kb) combine(c *abi.Column, total accum, cnt *textir.Value) []*textir.Value {
	var den *textir.Value
	switch {
	case c.Combiner == "mean" && !c.Weighted:
		den = k.Cast(arith.SIToFPOp, cnt, f32)
	case c.Combiner == "sqrtn" && !c.Weighted:
		den = k.Val(gpu.SqrtOp, []*textir.Value{k.Cast(arith.SIToFPOp, cnt, f32)}, f32)
	case c.Combiner == "mean":
		den = total.ws
	case c.Combiner == "sqrtn":
		den = k.Val(gpu.SqrtOp, []*textir.Value{total.ws2}, f32)
	}
	if den == nil {
		return total.v
	}
	den = k.Sel(k.Cmp(arith.SGT, cnt, k.C64(0)), den, k.cf(1))
	var zero *textir.Value
	if c.DivNoNaN {
		// DivNoNan: 0 where the weights' sum (or root) is 0.
		zero = k.CmpF(arith.FOEQ, den, k.cf(0))
	}
	out := make([]*textir.Value, len(total.v))
	for q, v := range total.v {
		out[q] = k.Bin(arith.DivFOp, v, den)
		if zero != nil {
			out[q] = k.Sel(zero, k.cf(0), out[q])
		}
	}
	return out
}

// write stores floats at element e (+ eDyn) of bag b's output slice.
func (k *kb) write(l *abi.Layer, c *abi.Column, a *kernelArgs, b *textir.Value, e int64, eDyn *textir.Value, vals []*textir.Value) {
	idx := k.Add(k.mulc(b, l.Width), a.outOff)
	if eDyn != nil {
		idx = k.Add(idx, eDyn)
	}
	idx = k.AddC(idx, e)
	for q := 0; q < len(vals); q += int(c.StoreWidth) {
		k.Store(vals[q:q+int(c.StoreWidth)], a.out, k.AddC(idx, int64(q)))
	}
}

// tunedClass: Lanes threads per bag (one vector of the row each, looping
// over Segments), 32/Lanes bags per warp pass, BagsPerTask bags per warp.
func (k *kb) tunedClass(l *abi.Layer, c *abi.Column, a *kernelArgs, tid, chunk *textir.Value) {
	k.loadParams(c, a)
	lane := k.Bin(arith.AndIOp, tid, k.C64(31))
	g := k.Bin(arith.ShRUIOp, lane, k.C64(log2(c.Lanes)))
	sub := k.Bin(arith.AndIOp, lane, k.C64(c.Lanes-1))
	groups := 32 / c.Lanes
	passes := c.BagsPerTask / groups
	// Bags per task of this launch (descriptor word 7: Pack may shrink
	// the planned ones for a small batch, abi.Layer.MinTasks).
	bpt := a.bpt
	if passes == 1 {
		bpt = k.C64(c.BagsPerTask)
	}
	first := k.Add(k.Mul(chunk, bpt), g)
	if l.Prepass(c) {
		k.idPass(c, a, k.Mul(chunk, bpt), bpt, lane)
		defer func() { a.prepassed = false }()
	}
	subE := k.mulc(sub, c.Vector)
	one := func(b *textir.Value) {
		k.IfThen(k.Cmp(arith.SLT, b, a.batch), func() {
			lo, hi := k.bag(c, a, b)
			for s := int64(0); s < c.Segments; s++ {
				e := s * c.Lanes * c.Vector
				seg := func() {
					vals := k.pool(c, a, lo, hi, e, subE, c.Vector, c.RowsInFlight)
					k.write(l, c, a, b, e, subE, vals)
				}
				if (s+1)*c.Lanes*c.Vector > c.Width {
					k.IfThen(k.Cmp(arith.SLT, k.AddC(subE, e), k.C64(c.Width)), seg)
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
	dyn := k.Bin(arith.ShRUIOp, bpt, k.C64(log2(groups)))
	k.For(k.C64(0), dyn, k.C64(1), nil, func(p *textir.Value, _ []*textir.Value) []*textir.Value {
		one(k.Add(first, k.mulc(p, groups)))
		return nil
	})
}

// recomClass: RECom's design: the column's block of RecomBlock threads, a
// thread per bag, RecomChunk floats of the row per pass over the bag's
// ids, one id at a time.
func (k *kb) recomClass(l *abi.Layer, c *abi.Column, a *kernelArgs, tid *textir.Value) {
	k.loadParams(c, a)
	k.For(tid, a.batch, k.C64(RecomBlock), nil, func(b *textir.Value, _ []*textir.Value) []*textir.Value {
		lo, hi := k.bag(c, a, b)
		for e := int64(0); e < c.Width; e += RecomChunk {
			floats := min(RecomChunk, c.Width-e)
			vals := k.pool(c, a, lo, hi, e, nil, floats, 1)
			k.write(l, c, a, b, e, nil, vals)
		}
		return nil
	})
}
