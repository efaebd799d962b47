package nvptx

import (
	"math"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/recom-compiler/recom/textir"
)

// arithOps maps arith op names to their emitters.
var arithOps map[string]func(*fnEmitter, *textir.Operation) error

func init() {
	type binFn func(fe *fnEmitter, x, y value.Value) value.Value
	bin := func(intOK, floatOK bool, f binFn) func(*fnEmitter, *textir.Operation) error {
		return func(fe *fnEmitter, op *textir.Operation) error {
			args, t, err := fe.sameTypeOperands(op)
			if err != nil {
				return err
			}
			_, isInt := t.(*types.IntType)
			_, isFloat := t.(*types.FloatType)
			if !(isInt && intOK) && !(isFloat && floatOK) {
				return op.Errorf("cannot be emitted for operands of type %s", op.Operand(0).Type())
			}
			fe.vals[op.Result(0)] = f(fe, args[0], args[1])
			return nil
		}
	}
	intrinsic2 := func(base string) binFn {
		return func(fe *fnEmitter, x, y value.Value) value.Value {
			t := x.Type()
			return fe.cur.NewCall(fe.e.intrinsic(base+"."+typeSuffix(t), t, t, t), x, y)
		}
	}
	arithOps = map[string]func(*fnEmitter, *textir.Operation) error{
		"arith.constant": (*fnEmitter).emitConstant,
		"arith.addi":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAdd(x, y) }),
		"arith.subi":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSub(x, y) }),
		"arith.muli":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewMul(x, y) }),
		"arith.divsi":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSDiv(x, y) }),
		"arith.divui":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewUDiv(x, y) }),
		"arith.remsi":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewSRem(x, y) }),
		"arith.remui":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewURem(x, y) }),
		"arith.andi":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAnd(x, y) }),
		"arith.ori":      bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewOr(x, y) }),
		"arith.xori":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewXor(x, y) }),
		"arith.shli":     bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewShl(x, y) }),
		"arith.shrsi":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewAShr(x, y) }),
		"arith.shrui":    bin(true, false, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewLShr(x, y) }),
		"arith.maxsi":    bin(true, false, intrinsic2("llvm.smax")),
		"arith.minsi":    bin(true, false, intrinsic2("llvm.smin")),
		"arith.maxui":    bin(true, false, intrinsic2("llvm.umax")),
		"arith.minui":    bin(true, false, intrinsic2("llvm.umin")),
		"arith.addf":     bin(false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFAdd(x, y) }),
		"arith.subf":     bin(false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFSub(x, y) }),
		"arith.mulf":     bin(false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFMul(x, y) }),
		"arith.divf":     bin(false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFDiv(x, y) }),
		"arith.remf":     bin(false, true, func(fe *fnEmitter, x, y value.Value) value.Value { return fe.cur.NewFRem(x, y) }),
		"arith.maxnumf":  bin(false, true, intrinsic2("llvm.maxnum")),
		"arith.minnumf":  bin(false, true, intrinsic2("llvm.minnum")),
		"arith.maximumf": bin(false, true, intrinsic2("llvm.maximum")),
		"arith.minimumf": bin(false, true, intrinsic2("llvm.minimum")),
		"arith.cmpi":     (*fnEmitter).emitCmpI,
		"arith.cmpf":     (*fnEmitter).emitCmpF,
		"arith.select":   (*fnEmitter).emitSelect,
		"arith.negf":     (*fnEmitter).emitNegF,
		"arith.index_cast": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			return fe.resizeInt(v, from, to, true)
		}),
		"arith.extsi": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isWider(to, from) {
				return nil, false
			}
			return fe.resizeInt(v, from, to, true)
		}),
		"arith.extui": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isWider(to, from) {
				return nil, false
			}
			return fe.resizeInt(v, from, to, false)
		}),
		"arith.trunci": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isWider(from, to) {
				return nil, false
			}
			return fe.resizeInt(v, from, to, true)
		}),
		"arith.sitofp": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isInt(from) || !isFloat(to) {
				return nil, false
			}
			return fe.cur.NewSIToFP(v, to), true
		}),
		"arith.uitofp": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isInt(from) || !isFloat(to) {
				return nil, false
			}
			return fe.cur.NewUIToFP(v, to), true
		}),
		"arith.fptosi": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isInt(to) {
				return nil, false
			}
			return fe.cur.NewFPToSI(v, to), true
		}),
		"arith.fptoui": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isInt(to) {
				return nil, false
			}
			return fe.cur.NewFPToUI(v, to), true
		}),
		"arith.extf": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isFloat(to) || sizeOf(to) <= sizeOf(from) {
				return nil, false
			}
			return fe.cur.NewFPExt(v, to), true
		}),
		"arith.truncf": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if !isFloat(from) || !isFloat(to) || sizeOf(to) >= sizeOf(from) {
				return nil, false
			}
			return fe.cur.NewFPTrunc(v, to), true
		}),
		"arith.bitcast": castOp(func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool) {
			if sizeOf(from) != sizeOf(to) {
				return nil, false
			}
			if from.Equal(to) {
				return v, true
			}
			return fe.cur.NewBitCast(v, to), true
		}),
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

func castOp(f func(fe *fnEmitter, v value.Value, from, to types.Type) (value.Value, bool)) func(*fnEmitter, *textir.Operation) error {
	return func(fe *fnEmitter, op *textir.Operation) error {
		if err := fe.expect(op, 1, 1); err != nil {
			return err
		}
		v, err := fe.operand(op, 0)
		if err != nil {
			return err
		}
		to, err := fe.resultType(op, 0)
		if err != nil {
			return err
		}
		r, ok := f(fe, v, v.Type(), to)
		if !ok {
			return op.Errorf("cannot cast %s to %s", op.Operand(0).Type(), op.Result(0).Type())
		}
		fe.vals[op.Result(0)] = r
		return nil
	}
}

func (fe *fnEmitter) emitConstant(op *textir.Operation) error {
	if err := fe.expect(op, 0, 1); err != nil {
		return err
	}
	rt, err := fe.resultType(op, 0)
	if err != nil {
		return err
	}
	switch a := op.LookupAttr("value").(type) {
	case textir.IntegerAttr:
		it, ok := rt.(*types.IntType)
		if !ok {
			return op.Errorf("integer constant of non-integer type %s", op.Result(0).Type())
		}
		fe.vals[op.Result(0)] = constant.NewInt(it, a.Value)
	case textir.FloatAttr:
		ft, ok := rt.(*types.FloatType)
		if !ok {
			return op.Errorf("float constant of non-float type %s", op.Result(0).Type())
		}
		v := a.Value
		switch ft.Kind {
		case types.FloatKindFloat:
			v = float64(float32(v))
		case types.FloatKindDouble:
		default:
			return op.Errorf("float constants of type %s cannot be emitted", op.Result(0).Type())
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return op.Errorf("NaN and infinite constants cannot be emitted")
		}
		fe.vals[op.Result(0)] = constant.NewFloat(ft, v)
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

func (fe *fnEmitter) cmpOperands(op *textir.Operation, wantFloat bool, n int) ([]value.Value, int64, error) {
	if err := fe.expect(op, 2, 1); err != nil {
		return nil, 0, err
	}
	p, ok := intAttr(op, "predicate")
	if !ok || p < 0 || p >= int64(n) {
		return nil, 0, op.Errorf("needs a valid integer 'predicate' attribute")
	}
	args, err := fe.operands(op)
	if err != nil {
		return nil, 0, err
	}
	t := args[0].Type()
	if !args[1].Type().Equal(t) || isFloat(t) != wantFloat || (!isFloat(t) && !isInt(t)) {
		return nil, 0, op.Errorf("cannot compare %s and %s", op.Operand(0).Type(), op.Operand(1).Type())
	}
	return args, p, nil
}

func (fe *fnEmitter) emitCmpI(op *textir.Operation) error {
	args, p, err := fe.cmpOperands(op, false, len(cmpiPredicates))
	if err != nil {
		return err
	}
	fe.vals[op.Result(0)] = fe.cur.NewICmp(cmpiPredicates[p], args[0], args[1])
	return nil
}

func (fe *fnEmitter) emitCmpF(op *textir.Operation) error {
	args, p, err := fe.cmpOperands(op, true, len(cmpfPredicates))
	if err != nil {
		return err
	}
	fe.vals[op.Result(0)] = fe.cur.NewFCmp(cmpfPredicates[p], args[0], args[1])
	return nil
}

func (fe *fnEmitter) emitSelect(op *textir.Operation) error {
	if err := fe.expect(op, 3, 1); err != nil {
		return err
	}
	args, err := fe.operands(op)
	if err != nil {
		return err
	}
	if !args[0].Type().Equal(types.I1) {
		return op.Errorf("condition must be i1, got %s", op.Operand(0).Type())
	}
	if !args[1].Type().Equal(args[2].Type()) {
		return op.Errorf("operands have different types %s and %s", op.Operand(1).Type(), op.Operand(2).Type())
	}
	fe.vals[op.Result(0)] = fe.cur.NewSelect(args[0], args[1], args[2])
	return nil
}

func (fe *fnEmitter) emitNegF(op *textir.Operation) error {
	if err := fe.expect(op, 1, 1); err != nil {
		return err
	}
	v, err := fe.operand(op, 0)
	if err != nil {
		return err
	}
	if !isFloat(v.Type()) {
		return op.Errorf("operand must be a float, got %s", op.Operand(0).Type())
	}
	fe.vals[op.Result(0)] = fe.cur.NewFNeg(v)
	return nil
}
