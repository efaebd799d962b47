package emb

import (
	"math"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// emb.cross is a crossed column's id source: the cartesian product of the
// features of each bag of its inputs, as TensorFlow's SparseCross
// (crossed_column, tf.sparse.cross_hashed) and SparseCrossV2
// (tf.sparse.cross) compute it (interp/tfops/cross.go):
//
//	%values, %splits = emb.cross %v0, %s0, %v1, %s1 {hash_key = 956888297470 : i64, num_buckets = 1000 : i64}
//	    : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?xi64>
//	%values, %splits = emb.cross %v0, %s0, %v1, %s1 {sep = "_X_"}
//	    : tensor<?xi64>, tensor<?x!tfg.string> -> tensor<?x!tfg.string>
//
// Its operands are the inputs' ragged (values, row_splits) pairs, in the
// order TensorFlow crosses them (the sparse inputs, then the dense ones;
// a dense [B, k] input is emb.from_dense without 'ignore'). Bag b of the
// result holds a cross for every choice of one feature of bag b of each
// input, the last input varying fastest. With hash_key the crosses are
// ids: FingerprintCat64 from hash_key over the features' hashes
// (Fingerprint64 of a string, an int64 as itself), mod num_buckets (mod
// 2^63 - 1 when num_buckets is 0); with sep they are strings, the
// features joined by sep (integers in decimal).

// CrossOp is emb.cross.
const CrossOp = "emb.cross"

// Attribute names of emb.cross.
const (
	AttrHashKey = "hash_key"
)

func crossDef(C func(cs ...textir.TypeConstraint) []textir.TypeConstraint) *textir.OpDef {
	crossValues := raggedOf("ragged values tensor<?xi64> or tensor<?x!tfg.string>", func(t textir.Type) bool {
		return t == textir.I64() || isString(t)
	})
	return &textir.OpDef{
		Name:          CrossOp,
		Summary:       "the cartesian product of the features of each bag of the inputs (SparseCross): hashed ids, or strings joined by 'sep'",
		Operands:      textir.AtLeast(2),
		Results:       textir.Exactly(2),
		NamedOperands: []string{"inputs..."},
		NamedResults:  []string{"values", "row_splits"},
		ResultTypes:   C(crossValues, splitsValue),
		Attrs: []textir.AttrSpec{{Name: AttrNumBuckets, Kind: textir.IntegerAttrKind, Optional: true},
			{Name: AttrHashKey, Kind: textir.IntegerAttrKind, Optional: true},
			{Name: AttrSep, Kind: textir.StringAttrKind, Optional: true}},
		Traits:      textir.Pure,
		Verify:      verifyCross,
		Print:       printCross,
		Parse:       parseCross,
		ResultNames: raggedNames,
	}
}

func verifyCross(op *textir.Operation) error {
	n := op.NumOperands()
	if n%2 != 0 {
		return op.Errorf("expects (values, row splits) pairs, but has %d operands", n)
	}
	for i := 0; i < n; i += 2 {
		e, ok := ragged1D(op.Operand(i).Type())
		if !ok || !(e == textir.I64() || isString(e)) {
			return op.Errorf("input #%d must be ragged values tensor<?xi64> or tensor<?x!tfg.string>, but got %s", i/2, op.Operand(i).Type())
		}
		if op.Operand(i+1).Type() != SplitsType() {
			return op.Errorf("input #%d's row splits must be tensor<?xi64>, but got %s", i/2, op.Operand(i+1).Type())
		}
	}
	_, hashed := intAttr(op, AttrHashKey)
	_, joined := op.LookupAttr(AttrSep).(textir.StringAttr)
	out := elemOf(op.Result(0))
	switch {
	case hashed == joined:
		return op.Errorf("requires exactly one of 'hash_key' (hashed ids) and 'sep' (joined strings)")
	case hashed:
		nb, ok := intAttr(op, AttrNumBuckets)
		if !ok {
			return op.Errorf("requires integer attribute 'num_buckets' with 'hash_key'")
		}
		if nb < 0 {
			return op.Errorf("requires num_buckets >= 0 with 'hash_key', but got %d", nb)
		}
		if out != textir.I64() {
			return op.Errorf("hashed crosses are i64 ids, but the result is %s", op.Result(0).Type())
		}
	default:
		if op.LookupAttr(AttrNumBuckets) != nil {
			return op.Errorf("'num_buckets' goes with 'hash_key', not with 'sep'")
		}
		if !isString(out) {
			return op.Errorf("joined crosses are strings, but the result is %s", op.Result(0).Type())
		}
	}
	return nil
}

// %values, %splits = emb.cross %v0, %s0, ... {attrs} : values types -> result values type
func printCross(p *textir.OpPrinter, op *textir.Operation) {
	n := op.NumOperands()
	textir.RequireCustom(n%2 == 0 && n > 0 && op.NumResults() == 2 && op.Result(1).Type() == SplitsType())
	var ts []textir.Type
	for i := 0; i < n; i += 2 {
		textir.RequireCustom(op.Operand(i+1).Type() == SplitsType())
		ts = append(ts, op.Operand(i).Type())
	}
	printOperandsAndAttrs(p, op)
	p.Print(" : ")
	p.PrintTypes(ts)
	p.Print(" -> ")
	p.PrintType(op.Result(0).Type())
}

func parseCross(p *textir.OpParser, st *textir.OperationState) error {
	ops, err := parseOperands(p)
	if err != nil {
		return err
	}
	if len(ops)%2 != 0 {
		return textir.Errorf(ops[0].Loc, "expected (values, row splits) operand pairs, but found %d operands", len(ops))
	}
	loc, ts, err := parseColonTypes(p, st)
	if err != nil {
		return err
	}
	if len(ts) != len(ops)/2 {
		return textir.Errorf(loc, "expected %d values types, but found %d", len(ops)/2, len(ts))
	}
	if err := p.ParsePunct("->"); err != nil {
		return err
	}
	vt, err := p.ParseType()
	if err != nil {
		return err
	}
	var types []textir.Type
	for _, t := range ts {
		types = append(types, t, SplitsType())
	}
	st.ResultTypes = append(st.ResultTypes, vt, SplitsType())
	return p.ResolveOperands(ops, types, &st.Operands)
}

// CrossInputs returns the (values, row splits) pairs of an emb.cross.
func (v CrossView) CrossInputs() (values, splits []*textir.Value) {
	ins := v.Inputs()
	for i := 0; i+1 < len(ins); i += 2 {
		values, splits = append(values, ins[i]), append(splits, ins[i+1])
	}
	return values, splits
}

// Hashed reports whether the crosses are ids (hash_key), and then their
// hash key and bucket count (0: mod 2^63 - 1).
func (v CrossView) Hashed() (key uint64, numBuckets int64, ok bool) {
	if v.op == nil {
		return 0, 0, false
	}
	k, ok := intAttr(v.op, AttrHashKey)
	if !ok {
		return 0, 0, false
	}
	n, _ := intAttr(v.op, AttrNumBuckets)
	return uint64(k), n, true
}

func init() { exec.Register(CrossOp, crossKernel) }

// crossKernel runs emb.cross with TensorFlow's SparseCross semantics
// (tfops.Cross).
func crossKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	v, _ := AsCross(op)
	if len(in)%2 != 0 || len(in) == 0 {
		return nil, op.Errorf("expects (values, row splits) pairs, got %d inputs", len(in))
	}
	var cols []tfops.CrossInput
	batch := int64(-1)
	for i := 0; i < len(in); i += 2 {
		vals := in[i]
		if err := vector(op, "values", vals); err != nil {
			return nil, err
		}
		if vals.DType() != interp.Int64 && vals.DType() != interp.String {
			return nil, op.Errorf("input #%d: values must be int64 or strings, got %v", i/2, vals.DType())
		}
		splits, err := checkSplits(op, in[i+1], int(vals.Len()))
		if err != nil {
			return nil, err
		}
		b := int64(len(splits)) - 1
		if batch >= 0 && b != batch {
			return nil, op.Errorf("input #%d has %d bags, but input #0 has %d", i/2, b, batch)
		}
		batch = b
		cols = append(cols, tfops.CrossInput{Values: vals, Starts: splits})
	}
	s := tfops.CrossSpec{Mode: tfops.CrossJoin}
	if key, nb, ok := v.Hashed(); ok {
		s = tfops.CrossSpec{Mode: tfops.CrossHashKey, HashKey: key, NumBuckets: nb}
	} else {
		sep, _ := op.LookupAttr(AttrSep).(textir.StringAttr)
		s.Sep = sep.Value
	}
	splits, vals, _, err := tfops.Cross(CrossOp, cols, batch, s)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{vals, interp.Vector(splits...)}, nil
}

// crossRange is the value range of a hashed emb.cross: [0, num_buckets),
// or [0, 2^63 - 1) without buckets.
func crossRange(def *textir.Operation) (lo, hi int64, ok bool) {
	v, _ := AsCross(def)
	if _, nb, ok := v.Hashed(); ok {
		if nb > 0 {
			return 0, nb - 1, true
		}
		return 0, math.MaxInt64 - 1, true
	}
	return 0, 0, false
}

// crossBagSize bounds the bags of an emb.cross: the products of its
// inputs' bounds.
func crossBagSize(def *textir.Operation) (lo, hi int64, ok bool) {
	v, _ := AsCross(def)
	_, splits := v.CrossInputs()
	if len(splits) == 0 {
		return 0, 0, false
	}
	lo, hi = 1, 1
	for _, s := range splits {
		l, h, ok := BagSize(s)
		if !ok {
			return 0, 0, false
		}
		var ok1, ok2 bool
		if lo, ok1 = mulOK(lo, l); !ok1 {
			lo = 0
		}
		if hi, ok2 = mulOK(hi, h); !ok2 {
			return 0, 0, false
		}
	}
	return lo, hi, true
}
