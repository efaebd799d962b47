package nvptx

import (
	"math"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/textir"
)

// arithOps maps arith op names to their emitters.
var arithOps map[string]func(*fnEmitter, *textir.Operation) error

func init() {
	type binFn func(fe *fnEmitter, x, y value.Value) value.Value
	bin := func(as func(*textir.Operation) binaryView, intOK, floatOK bool, f binFn) func(*fnEmitter, *textir.Operation) error {
		return func(fe *fnEmitter, op *textir.Operation) error {
			b := as(op)
			x, y, t, err := fe.sameTypeOperands(op, b)
			if err != nil {
				return err
			}
			_, isInt := t.(*types.IntType)
			_, isFloat := t.(*types.FloatType)
			if !(isInt && intOK) && !(isFloat && floatOK) {
				return op.Errorf("cannot be emitted for operands of type %s", b.Lhs().Type())
			}
			fe.vals[b.Result()] = f(fe, x, y)
			return nil
		}
	}
	intrinsic2 := func(base string) binFn {
		return func(fe *fnEmitter, x, y value.Value) value.Value {
			t := x.Type()
			return fe.cur.NewCall(fe.e.intrinsic(base+"."+typeSuffix(t), t, t, t), x, y)
		}
	}
	type castFn func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool)
	extI := func(signed bool) castFn {
		return func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isWider(to, from) {
				return nil, false
			}
			return fe.resizeInt(v, from, to, signed)
		}
	}
	toFP := func(signed bool) castFn {
		return func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isInt(from) || !isFloat(to) {
				return nil, false
			}
			if signed {
				return fe.cur.NewSIToFP(v, to), true
			}
			return fe.cur.NewUIToFP(v, to), true
		}
	}
	fromFP := func(signed bool) castFn {
		return func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isInt(to) {
				return nil, false
			}
			if signed {
				return fe.cur.NewFPToSI(v, to), true
			}
			return fe.cur.NewFPToUI(v, to), true
		}
	}
	var (
		addI = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAdd(x, y) }
		subI = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSub(x, y) }
		mulI = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewMul(x, y) }
		addF = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFAdd(x, y) }
		subF = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFSub(x, y) }
		mulF = func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFMul(x, y) }
	)
	arithOps = map[string]func(*fnEmitter, *textir.Operation) error{
		arith.ConstantOp: (*fnEmitter).emitConstant,
		arith.AddIOp:     bin(binary(arith.AsAddI), true, false, addI),
		arith.SubIOp:     bin(binary(arith.AsSubI), true, false, subI),
		arith.MulIOp:     bin(binary(arith.AsMulI), true, false, mulI),
		arith.DivSIOp:    bin(binary(arith.AsDivSI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSDiv(x, y) }),
		arith.DivUIOp:    bin(binary(arith.AsDivUI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewUDiv(x, y) }),
		arith.RemSIOp:    bin(binary(arith.AsRemSI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSRem(x, y) }),
		arith.RemUIOp:    bin(binary(arith.AsRemUI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewURem(x, y) }),
		arith.AndIOp:     bin(binary(arith.AsAndI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAnd(x, y) }),
		arith.OrIOp:      bin(binary(arith.AsOrI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewOr(x, y) }),
		arith.XOrIOp:     bin(binary(arith.AsXOrI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewXor(x, y) }),
		arith.ShLIOp:     bin(binary(arith.AsShLI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewShl(x, y) }),
		arith.ShRSIOp:    bin(binary(arith.AsShRSI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAShr(x, y) }),
		arith.ShRUIOp:    bin(binary(arith.AsShRUI), true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewLShr(x, y) }),
		arith.MaxSIOp:    bin(binary(arith.AsMaxSI), true, false, intrinsic2("llvm.smax")),
		arith.MinSIOp:    bin(binary(arith.AsMinSI), true, false, intrinsic2("llvm.smin")),
		arith.AddFOp:     bin(binary(arith.AsAddF), false, true, addF),
		arith.SubFOp:     bin(binary(arith.AsSubF), false, true, subF),
		arith.MulFOp:     bin(binary(arith.AsMulF), false, true, mulF),
		arith.DivFOp:     bin(binary(arith.AsDivF), false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFDiv(x, y) }),
		arith.MaximumFOp: bin(binary(arith.AsMaximumF), false, true, intrinsic2("llvm.maximum")),
		arith.MinimumFOp: bin(binary(arith.AsMinimumF), false, true, intrinsic2("llvm.minimum")),
		arith.CmpIOp:     (*fnEmitter).emitCmpI,
		arith.CmpFOp:     (*fnEmitter).emitCmpF,
		arith.SelectOp:   (*fnEmitter).emitSelect,
		arith.NegFOp:     (*fnEmitter).emitNegF,
		arith.IndexCastOp: castOp(cast(arith.AsIndexCast), func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			return fe.resizeInt(v, from, to, true)
		}),
		arith.ExtSIOp: castOp(cast(arith.AsExtSI), extI(true)),
		arith.ExtUIOp: castOp(cast(arith.AsExtUI), extI(false)),
		arith.TruncIOp: castOp(cast(arith.AsTruncI), func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isWider(from, to) {
				return nil, false
			}
			return fe.resizeInt(v, from, to, true)
		}),
		arith.SIToFPOp: castOp(cast(arith.AsSIToFP), toFP(true)),
		arith.UIToFPOp: castOp(cast(arith.AsUIToFP), toFP(false)),
		arith.FPToSIOp: castOp(cast(arith.AsFPToSI), fromFP(true)),
		arith.ExtFOp: castOp(cast(arith.AsExtF), func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isFloat(to) || sizeOf(to) <= sizeOf(from) {
				return nil, false
			}
			return fe.cur.NewFPExt(v, to), true
		}),
		arith.TruncFOp: castOp(cast(arith.AsTruncF), func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isFloat(to) || sizeOf(to) >= sizeOf(from) {
				return nil, false
			}
			return fe.cur.NewFPTrunc(v, to), true
		}),
	}
	// MLIR arith ops the arith dialect does not define: emitted when they
	// come unregistered (--allow-unregistered-dialect), read by MLIR's
	// operand order.
	unregBin := func(op *textir.Operation) binaryView { return unregisteredBinary{op} }
	unregCast := func(op *textir.Operation) castView { return unregisteredCast{op} }
	for name, emit := range map[string]func(*fnEmitter, *textir.Operation) error{
		"arith.maxui":   bin(unregBin, true, false, intrinsic2("llvm.umax")),
		"arith.minui":   bin(unregBin, true, false, intrinsic2("llvm.umin")),
		"arith.remf":    bin(unregBin, false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFRem(x, y) }),
		"arith.maxnumf": bin(unregBin, false, true, intrinsic2("llvm.maxnum")),
		"arith.minnumf": bin(unregBin, false, true, intrinsic2("llvm.minnum")),
		"arith.fptoui":  castOp(unregCast, fromFP(false)),
		"arith.bitcast": castOp(unregCast, func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if sizeOf(from) != sizeOf(to) {
				return nil, false
			}
			if from.Equal(to) {
				return v, true
			}
			return fe.cur.NewBitCast(v, to), true
		}),
	} {
		arithOps[name] = emit
	}
}

func isInt(t types.Type) bool   { _, ok := t.(*types.IntType); return ok }
func isFloat(t types.Type) bool { _, ok := t.(*types.FloatType); return ok }

// isWider reports whether integer type a is wider than integer type b.
func isWider(a, b types.Type) bool {
	ai, ok1 := a.(*types.IntType)
	bi, ok2 := b.(*types.IntType)
	return ok1 && ok2 && ai.BitSize > bi.BitSize
}

// resizeInt sign- or zero-extends, truncates, or keeps an integer.
func (fe *fnEmitter) resizeInt(v value.Value, from, to types.Type, signed bool) (value.Value, bool) {
	fi, ok1 := from.(*types.IntType)
	ti, ok2 := to.(*types.IntType)
	switch {
	case !ok1 || !ok2:
		return nil, false
	case ti.BitSize > fi.BitSize && signed:
		return fe.cur.NewSExt(v, ti), true
	case ti.BitSize > fi.BitSize:
		return fe.cur.NewZExt(v, ti), true
	case ti.BitSize < fi.BitSize:
		return fe.cur.NewTrunc(v, ti), true
	}
	return v, true
}

func castOp(as func(*textir.Operation) castView, f func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool)) func(*fnEmitter, *textir.Operation) error {
	return func(fe *fnEmitter, op *textir.Operation) error {
		if err := fe.expect(op, 1, 1); err != nil {
			return err
		}
		c := as(op)
		v, err := fe.value(op, c.In())
		if err != nil {
			return err
		}
		to, err := fe.resultType(op, c.Out())
		if err != nil {
			return err
		}
		r, ok := f(fe, v, v.Type(), to)
		if !ok {
			return op.Errorf("cannot cast %s to %s", c.In().Type(), c.Out().Type())
		}
		fe.vals[c.Out()] = r
		return nil
	}
}

func (fe *fnEmitter) emitConstant(op *textir.Operation) error {
	if err := fe.expect(op, 0, 1); err != nil {
		return err
	}
	c, _ := arith.AsConstant(op)
	res := c.Result()
	rt, err := fe.resultType(op, res)
	if err != nil {
		return err
	}
	switch a := op.LookupAttr("value").(type) {
	case textir.IntegerAttr:
		it, ok := rt.(*types.IntType)
		if !ok {
			return op.Errorf("integer constant of non-integer type %s", res.Type())
		}
		fe.vals[res] = constant.NewInt(it, a.Value)
	case textir.FloatAttr:
		ft, ok := rt.(*types.FloatType)
		if !ok {
			return op.Errorf("float constant of non-float type %s", res.Type())
		}
		v := a.Value
		switch ft.Kind {
		case types.FloatKindFloat:
			v = float64(float32(v))
		case types.FloatKindDouble:
		default:
			return op.Errorf("float constants of type %s cannot be emitted", res.Type())
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return op.Errorf("NaN and infinite constants cannot be emitted")
		}
		fe.vals[res] = constant.NewFloat(ft, v)
	default:
		return op.Errorf("only scalar integer and float constants can be emitted")
	}
	return nil
}

// cmpiPredicates maps arith.cmpi's predicate numbers (MLIR's) to LLVM's.
var cmpiPredicates = [...]enum.IPred{
	enum.IPredEQ, enum.IPredNE, enum.IPredSLT, enum.IPredSLE, enum.IPredSGT,
	enum.IPredSGE, enum.IPredULT, enum.IPredULE, enum.IPredUGT, enum.IPredUGE,
}

// cmpfPredicates maps arith.cmpf's predicate numbers (MLIR's) to LLVM's.
var cmpfPredicates = [...]enum.FPred{
	enum.FPredFalse, enum.FPredOEQ, enum.FPredOGT, enum.FPredOGE, enum.FPredOLT,
	enum.FPredOLE, enum.FPredONE, enum.FPredORD, enum.FPredUEQ, enum.FPredUGT,
	enum.FPredUGE, enum.FPredULT, enum.FPredULE, enum.FPredUNE, enum.FPredUNO, enum.FPredTrue,
}

func (fe *fnEmitter) cmpOperands(op *textir.Operation, c binaryView, wantFloat bool, n int) (x, y value.Value, pred int64, err error) {
	if err := fe.expect(op, 2, 1); err != nil {
		return nil, nil, 0, err
	}
	p, ok := intAttr(op, "predicate")
	if !ok || p < 0 || p >= int64(n) {
		return nil, nil, 0, op.Errorf("needs a valid integer 'predicate' attribute")
	}
	if x, err = fe.value(op, c.Lhs()); err != nil {
		return nil, nil, 0, err
	}
	if y, err = fe.value(op, c.Rhs()); err != nil {
		return nil, nil, 0, err
	}
	t := x.Type()
	if !y.Type().Equal(t) || isFloat(t) != wantFloat || (!isFloat(t) && !isInt(t)) {
		return nil, nil, 0, op.Errorf("cannot compare %s and %s", c.Lhs().Type(), c.Rhs().Type())
	}
	return x, y, p, nil
}

func (fe *fnEmitter) emitCmpI(op *textir.Operation) error {
	c, _ := arith.AsCmpI(op)
	x, y, p, err := fe.cmpOperands(op, c, false, len(cmpiPredicates))
	if err != nil {
		return err
	}
	fe.vals[c.Result()] = fe.cur.NewICmp(cmpiPredicates[p], x, y)
	return nil
}

func (fe *fnEmitter) emitCmpF(op *textir.Operation) error {
	c, _ := arith.AsCmpF(op)
	x, y, p, err := fe.cmpOperands(op, c, true, len(cmpfPredicates))
	if err != nil {
		return err
	}
	fe.vals[c.Result()] = fe.cur.NewFCmp(cmpfPredicates[p], x, y)
	return nil
}

func (fe *fnEmitter) emitSelect(op *textir.Operation) error {
	if err := fe.expect(op, 3, 1); err != nil {
		return err
	}
	s, _ := arith.AsSelect(op)
	args, err := fe.values(op, []*textir.Value{s.Condition(), s.TrueValue(), s.FalseValue()})
	if err != nil {
		return err
	}
	cond, t, f := args[0], args[1], args[2]
	if !cond.Type().Equal(types.I1) {
		return op.Errorf("condition must be i1, got %s", s.Condition().Type())
	}
	if !t.Type().Equal(f.Type()) {
		return op.Errorf("operands have different types %s and %s", s.TrueValue().Type(), s.FalseValue().Type())
	}
	fe.vals[s.Result()] = fe.cur.NewSelect(cond, t, f)
	return nil
}

func (fe *fnEmitter) emitNegF(op *textir.Operation) error {
	if err := fe.expect(op, 1, 1); err != nil {
		return err
	}
	n, _ := arith.AsNegF(op)
	v, err := fe.value(op, n.Operand())
	if err != nil {
		return err
	}
	if !isFloat(v.Type()) {
		return op.Errorf("operand must be a float, got %s", n.Operand().Type())
	}
	fe.vals[n.Result()] = fe.cur.NewFNeg(v)
	return nil
}
