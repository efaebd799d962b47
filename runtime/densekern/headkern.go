package densekern

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

// The head kernels: the row-local ops a model computes after its layers
// (a classifier head's sums, bias, softmax), which the native session runs
// as steps of the batch's graph. Two generic kernels, float32 matrices of
// rows × cols with any row pitch:
//
//   - Map (op, a, b, y, rows, cols, a_rs, a_cs, b_rs, b_cs, y_ld): y[r,c]
//     = op(a[r·a_rs + c·a_cs], b[r·b_rs + c·b_cs]) at y + r·y_ld + c, the
//     strides giving the broadcasts (a_cs 0: a column broadcast along the
//     row; a_rs 0: a row shared by every row, a constant). Binary ops read a
//     and b, unary ones (MapCopy on) a alone, fills (MapZero on) neither.
//     The grid's threads take the rows·cols elements in turn (ActGrid).
//   - Rows (op, x, y, rows, cols, x_ld, y_ld): one thread a row (RowGrid):
//     a reduction of the row's cols elements into y's one element, or the
//     row's softmax or log-softmax into y's cols elements.
//
// Both compute as interp/tfops does, so that their results equal the
// interpreter's: float32 +, -, ·, / (exactly rounded), Maximum and Minimum
// with NaN propagated (a NaN in a wins, then one in b); Relu keeps NaN;
// Sigmoid, Tanh and Exp in float64, rounded once (exp by a series at
// x/1024 squared back ten times, within a few units of float64's last
// place); sums, means and products in float64 in element order; Max and
// Min as from ∓inf, a NaN kept once met; Softmax in float64, shifted by the
// row's maximum, exp(0) taken as exactly 1, rounded once (LogSoftmax:
// (x - max) - log(Σ), the logarithm by halving the sum into [1, 2) and
// atanh's series).

// The op codes of the map kernel.
const (
	MapAdd int64 = iota // a + b
	MapSub              // a - b
	MapMul              // a · b
	MapDiv              // a / b
	MapMax              // Maximum(a, b)
	MapMin              // Minimum(a, b)
)

// The map kernel's unary op codes (b not read).
const (
	MapCopy    int64 = 16 + iota // a
	MapNeg                       // -a
	MapAbs                       // |a|
	MapSquare                    // a · a
	MapRelu                      // max(a, 0), NaN kept
	MapSigmoid                   // 1 / (1 + exp(-a))
	MapTanh                      // tanh(a)
	MapExp                       // exp(a)
)

// The map kernel's fills (neither a nor b read).
const (
	MapZero int64 = 32 + iota // 0
	MapOne                    // 1
)

// The rows kernel's op codes.
const (
	RowSum        int64 = iota // y[r] = Σ x[r, ·]
	RowMean                    // Σ / cols
	RowMax                     // max, from -inf
	RowMin                     // min, from +inf
	RowProd                    // Π
	RowSoftmax                 // y[r, ·] = softmax(x[r, ·])
	RowLogSoftmax              // y[r, ·] = log(softmax(x[r, ·]))
)

// The head kernels' names.
const (
	MapKernel  = "map_f32"
	RowsKernel = "rows_f32"
)

// RowGrid is the number of blocks of a rows kernel over rows rows.
func RowGrid(rows int64) int64 { return max(min((rows+Threads-1)/Threads, MaxGrid), 1) }

// buildHead returns the gpu.func of the head kernel k.
func buildHead(ctx *textir.Context, loc textir.Location, k Kernel) *textir.Operation {
	i64, f32 := textir.I64(), textir.F32()
	p := gpu.PtrType(f32, gpu.Global)
	var ins []textir.Type
	if k.Head == MapKernel {
		ins = []textir.Type{i64, p, p, p, i64, i64, i64, i64, i64, i64, i64}
	} else {
		ins = []textir.Type{i64, p, p, i64, i64, i64, i64}
	}
	fn := gpu.NewFunc(ctx, loc, k.Name, &textir.FunctionType{Inputs: ins}, true)
	fn.SetAttr("max_threads", textir.I64Attr(Threads))
	body := fn.Region(0).Front()
	b := textir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(body)
	g := &kernelir.Builder{B: b, Loc: loc}
	if k.Head == MapKernel {
		buildMapBody(g, body.Args())
	} else {
		buildRowsBody(g, body.Args())
	}
	g.Op(gpu.ReturnOp, nil, nil)
	return fn
}

func buildMapBody(g *kernelir.Builder, a []*textir.Value) {
	f32, f64 := textir.F32(), textir.F64()
	op, ap, bp, y, rows, cols, ars, acs, brs, bcs, yld := a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]
	tid, bid := g.Dim(gpu.ThreadIdOp), g.Dim(gpu.BlockIdOp)
	nb, nt := g.Dim(gpu.GridDimOp), g.Dim(gpu.BlockDimOp)
	is := func(code int64) *textir.Value { return g.Cmp(arith.EQ, op, g.C64(code)) }
	n := g.Mul(rows, cols)
	g.For(g.Add(g.Mul(bid, nt), tid), n, g.Mul(nb, nt), nil, func(i *textir.Value, _ []*textir.Value) []*textir.Value {
		r := g.Bin(arith.DivUIOp, i, cols)
		c := g.Bin(arith.SubIOp, i, g.Mul(r, cols))
		load := func(p, rs, cs *textir.Value, below int64) *textir.Value {
			return g.If(g.Cmp(arith.ULT, op, g.C64(below)), []textir.Type{f32}, func() []*textir.Value {
				return g.Load(p, g.Add(g.Mul(r, rs), g.Mul(c, cs)), 1, false)
			}, func() []*textir.Value { return []*textir.Value{g.CF(0, f32)} })[0]
		}
		x := load(ap, ars, acs, MapZero)
		z := load(bp, brs, bcs, MapCopy)
		nan := func(v *textir.Value) *textir.Value { return g.CmpF(arith.FUNO, v, v) }
		neg := g.Op(arith.NegFOp, []*textir.Value{x}, []textir.Type{f32}).Result(0)
		zero := g.CF(0, f32)
		v := g.CF(1, f32) // MapOne
		for _, c := range []struct {
			code int64
			v    *textir.Value
		}{
			{MapZero, zero},
			{MapRelu, g.Sel(g.CmpF(arith.FUGT, x, zero), x, zero)},
			{MapSquare, g.Bin(arith.MulFOp, x, x)},
			{MapAbs, g.Sel(g.CmpF(arith.FOLT, x, zero), neg, x)},
			{MapNeg, neg},
			{MapCopy, x},
			{MapMin, g.Sel(nan(x), x, g.Sel(g.CmpF(arith.FULT, z, x), z, x))},
			{MapMax, g.Sel(nan(x), x, g.Sel(g.CmpF(arith.FUGT, z, x), z, x))},
			{MapDiv, g.Bin(arith.DivFOp, x, z)},
			{MapMul, g.Bin(arith.MulFOp, x, z)},
			{MapSub, g.Bin(arith.SubFOp, x, z)},
			{MapAdd, g.Bin(arith.AddFOp, x, z)},
		} {
			v = g.Sel(is(c.code), c.v, v)
		}
		trans := g.Cmp(arith.ULT, g.Bin(arith.SubIOp, op, g.C64(MapSigmoid)), g.C64(MapExp-MapSigmoid+1))
		v = g.If(trans, []textir.Type{f32}, func() []*textir.Value {
			x64 := g.Cast(arith.ExtFOp, x, f64)
			t := g.Sel(is(MapSigmoid), actF64(g, Sigmoid, x64), g.Sel(is(MapTanh), actF64(g, Tanh, x64), exp64(g, x64)))
			return []*textir.Value{g.Cast(arith.TruncFOp, t, f32)}
		}, func() []*textir.Value { return []*textir.Value{v} })[0]
		g.Store([]*textir.Value{v}, y, g.Add(g.Mul(r, yld), c))
		return nil
	})
}

func buildRowsBody(g *kernelir.Builder, a []*textir.Value) {
	f32, f64 := textir.F32(), textir.F64()
	op, xp, y, rows, cols, xld, yld := a[0], a[1], a[2], a[3], a[4], a[5], a[6]
	tid, bid := g.Dim(gpu.ThreadIdOp), g.Dim(gpu.BlockIdOp)
	nb, nt := g.Dim(gpu.GridDimOp), g.Dim(gpu.BlockDimOp)
	is := func(code int64) *textir.Value { return g.Cmp(arith.EQ, op, g.C64(code)) }
	one := g.C64(1)
	g.For(g.Add(g.Mul(bid, nt), tid), rows, g.Mul(nb, nt), nil, func(r *textir.Value, _ []*textir.Value) []*textir.Value {
		xr, yr := g.Mul(r, xld), g.Mul(r, yld)
		at := func(c *textir.Value) *textir.Value { return g.Load(xp, g.Add(xr, c), 1, false)[0] }
		// The row's first element starts a maximum or minimum where the
		// interpreter starts from ∓inf: the same result, a NaN first kept
		// (the dialect has no infinite constants). The plan makes no step
		// of zero columns; the load is guarded all the same.
		first := g.If(g.Cmp(arith.SGT, cols, g.C64(0)), []textir.Type{f32}, func() []*textir.Value {
			return []*textir.Value{at(g.C64(0))}
		}, func() []*textir.Value { return []*textir.Value{g.CF(0, f32)} })[0]
		soft := g.Cmp(arith.UGE, op, g.C64(RowSoftmax))
		g.If(soft, nil, func() []*textir.Value {
			m := g.For(g.C64(0), cols, one, []*textir.Value{g.Cast(arith.ExtFOp, first, f64)}, func(c *textir.Value, it []*textir.Value) []*textir.Value {
				v := g.Cast(arith.ExtFOp, at(c), f64)
				return []*textir.Value{g.Sel(g.CmpF(arith.FOGT, v, it[0]), v, it[0])}
			})[0]
			e := func(c *textir.Value) *textir.Value {
				d := g.Bin(arith.SubFOp, g.Cast(arith.ExtFOp, at(c), f64), m)
				return g.Sel(g.CmpF(arith.FOEQ, d, g.CF(0, f64)), g.CF(1, f64), exp64(g, d))
			}
			s := g.For(g.C64(0), cols, one, []*textir.Value{g.CF(0, f64)}, func(c *textir.Value, it []*textir.Value) []*textir.Value {
				return []*textir.Value{g.Bin(arith.AddFOp, it[0], e(c))}
			})[0]
			logSoft := is(RowLogSoftmax)
			ls := g.If(logSoft, []textir.Type{f64}, func() []*textir.Value { return []*textir.Value{log64(g, s)} },
				func() []*textir.Value { return []*textir.Value{g.CF(0, f64)} })[0]
			g.For(g.C64(0), cols, one, nil, func(c *textir.Value, _ []*textir.Value) []*textir.Value {
				v := g.If(logSoft, []textir.Type{f64}, func() []*textir.Value {
					d := g.Bin(arith.SubFOp, g.Cast(arith.ExtFOp, at(c), f64), m)
					return []*textir.Value{g.Bin(arith.SubFOp, d, ls)}
				}, func() []*textir.Value { return []*textir.Value{g.Bin(arith.DivFOp, e(c), s)} })[0]
				g.Store([]*textir.Value{g.Cast(arith.TruncFOp, v, f32)}, y, g.Add(yr, c))
				return nil
			})
			return nil
		}, func() []*textir.Value {
			prod, isMax := is(RowProd), is(RowMax)
			init := []*textir.Value{
				g.Sel(prod, g.CF(1, f64), g.CF(0, f64)),
				first,
			}
			res := g.For(g.C64(0), cols, one, init, func(c *textir.Value, it []*textir.Value) []*textir.Value {
				v := at(c)
				v64 := g.Cast(arith.ExtFOp, v, f64)
				acc := g.Sel(prod, g.Bin(arith.MulFOp, it[0], v64), g.Bin(arith.AddFOp, it[0], v64))
				m := it[1]
				better := g.Sel(isMax, g.CmpF(arith.FUGT, v, m), g.CmpF(arith.FULT, v, m))
				m = g.Sel(g.CmpF(arith.FUNO, m, m), m, g.Sel(better, v, m))
				return []*textir.Value{acc, m}
			})
			acc := g.Sel(is(RowMean), g.Bin(arith.DivFOp, res[0], g.Cast(arith.SIToFPOp, cols, f64)), res[0])
			v := g.Sel(g.Cmp(arith.ULT, op, g.C64(RowMax)), g.Cast(arith.TruncFOp, acc, f32), res[1])
			v = g.Sel(prod, g.Cast(arith.TruncFOp, acc, f32), v)
			g.Store([]*textir.Value{v}, y, yr)
			return nil
		})
		return nil
	})
}

// exp64 computes exp(x) of a float64 without a math library: x clamped to
// [-700, 700] (a NaN stays a NaN), r = x/1024, exp(r) = 1 + r·q as expm1's
// series, squared ten times (each squaring doubles the relative error:
// about 2^-42 at the end, far below float32's half unit).
func exp64(g *kernelir.Builder, x *textir.Value) *textir.Value {
	f64 := textir.F64()
	x = g.Bin(arith.MinimumFOp, g.Bin(arith.MaximumFOp, x, g.CF(-700, f64)), g.CF(700, f64))
	r := g.Bin(arith.MulFOp, x, g.CF(1.0/1024, f64))
	e := g.Op(gpu.FmaOp, []*textir.Value{expm1Q(g, r), r, g.CF(1, f64)}, []textir.Type{f64}).Result(0)
	for range 10 {
		e = g.Bin(arith.MulFOp, e, e)
	}
	return e
}

// log64 computes log(s) of a float64 1 ≤ s < 2^64 (a softmax's sum, at
// most its number of columns; a NaN stays a NaN): s halved k times into
// [1, 2) (64 steps), then log(s) = k·ln 2 + 2·atanh(t), t = (m - 1)/(m + 1) < 1/3,
// atanh by its series to t^41 (the first term left out is below 2^-66).
func log64(g *kernelir.Builder, s *textir.Value) *textir.Value {
	f64 := textir.F64()
	two := g.CF(2, f64)
	res := g.For(g.C64(0), g.C64(64), g.C64(1), []*textir.Value{s, g.CF(0, f64)}, func(_ *textir.Value, it []*textir.Value) []*textir.Value {
		big := g.CmpF(arith.FOGE, it[0], two)
		return []*textir.Value{
			g.Sel(big, g.Bin(arith.MulFOp, it[0], g.CF(0.5, f64)), it[0]),
			g.Sel(big, g.Bin(arith.AddFOp, it[1], g.CF(1, f64)), it[1]),
		}
	})
	m, k := res[0], res[1]
	t := g.Bin(arith.DivFOp, g.Bin(arith.SubFOp, m, g.CF(1, f64)), g.Bin(arith.AddFOp, m, g.CF(1, f64)))
	t2 := g.Bin(arith.MulFOp, t, t)
	// Horner in t²: 1 + t²/3 + t⁴/5 + ... + t⁴⁰/41.
	q := g.CF(1.0/41, f64)
	for n := 39; n >= 1; n -= 2 {
		q = g.Op(gpu.FmaOp, []*textir.Value{q, t2, g.CF(1/float64(n), f64)}, []textir.Type{f64}).Result(0)
	}
	at := g.Bin(arith.MulFOp, g.Bin(arith.MulFOp, two, t), q)
	return g.Op(gpu.FmaOp, []*textir.Value{k, g.CF(0.6931471805599453, f64), at}, []textir.Type{f64}).Result(0)
}
