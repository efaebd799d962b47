package expr

import "fmt"

// EvalError is an evaluation failure: overflow, division by zero, or a
// symbol without a value.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

// Eval computes e given the values of its symbols (val returns false for a
// symbol without a value). Overflow and division by zero are errors.
func (e Expr) Eval(val func(Sym) (int64, bool)) (int64, error) {
	if e.err != nil {
		return 0, e.err
	}
	sum := e.c
	for _, t := range e.ts {
		p := t.coef
		for _, f := range t.fs {
			v, err := f.a.eval(val)
			if err != nil {
				return 0, err
			}
			for range f.pow {
				var ov bool
				if p, ov = mul64(p, v); ov {
					return 0, &EvalError{Msg: "integer overflow in multiplication"}
				}
			}
		}
		var ov bool
		if sum, ov = add64(sum, p); ov {
			return 0, &EvalError{Msg: "integer overflow in addition"}
		}
	}
	return sum, nil
}

// EvalSlice is Eval with the value of symbol i in vals[i].
func (e Expr) EvalSlice(vals []int64) (int64, error) {
	return e.Eval(func(s Sym) (int64, bool) {
		if s < 0 || int(s) >= len(vals) {
			return 0, false
		}
		return vals[s], true
	})
}

func (a *atom) eval(val func(Sym) (int64, bool)) (int64, error) {
	switch a.kind {
	case KindSym:
		v, ok := val(a.sym)
		if !ok {
			return 0, &EvalError{Msg: fmt.Sprintf("no value for symbol %s", DefaultName(a.sym))}
		}
		return v, nil
	case KindFloorDiv, KindMod:
		n, err := a.args[0].Eval(val)
		if err != nil {
			return 0, err
		}
		d, err := a.args[1].Eval(val)
		if err != nil {
			return 0, err
		}
		if d == 0 {
			return 0, &EvalError{Msg: "division by zero in " + a.kind.String()}
		}
		if a.kind == KindMod {
			return floorMod64(n, d), nil
		}
		q, ov := floorDiv64(n, d)
		if ov {
			return 0, &EvalError{Msg: "integer overflow in floordiv"}
		}
		return q, nil
	}
	r, err := a.args[0].Eval(val)
	if err != nil {
		return 0, err
	}
	for _, x := range a.args[1:] {
		v, err := x.Eval(val)
		if err != nil {
			return 0, err
		}
		if a.kind == KindMin {
			r = min(r, v)
		} else {
			r = max(r, v)
		}
	}
	return r, nil
}
