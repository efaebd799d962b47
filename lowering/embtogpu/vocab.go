package embtogpu

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// vocabFindInt emits the lookup of key (i64) in the table at word offset
// base (i64, a multiple of 4) of words (a !gpu.ptr<i32, global>): the key's
// index (i64, -1 when missing) and whether it was found (i1). The bound of
// the probe loop and the hash parameters are read from the table's header
// (abi.GPUVocab), so the code serves any table of integer keys.
func (k *kb) vocabFindInt(words, base, key *textir.Value) (idx, found *textir.Value) {
	return k.vcFind(words, base, key, nil)
}

// vocabFindString emits the lookup of a string key given its
// Fingerprint64 fp (i64) and its bytes (qn bytes at element qoff of qp, a
// !gpu.ptr<i8, global>) in the table at word offset base of words (see
// vocabFindInt). A slot matches when its fingerprint is fp and the key's
// bytes are equal, so fingerprint collisions never give a wrong index.
func (k *kb) vocabFindString(words, base, fp, qp, qoff, qn *textir.Value) (idx, found *textir.Value) {
	return k.vcFind(words, base, fp, &vcQuery{qp, qoff, qn})
}

// vcQuery is the bytes of a string key.
type vcQuery struct{ p, off, n *textir.Value }

func (k *kb) vcFind(words, base, key *textir.Value, q *vcQuery) (idx, found *textir.Value) {
	hdr := k.Load(words, base, 4, true)
	mask4 := k.Cast(arith.ExtSIOp, hdr[0], i64)
	shift := k.Cast(arith.ExtSIOp, hdr[1], i64)
	probes4 := k.Cast(arith.ExtSIOp, hdr[2], i64)
	seed := k.Cast(arith.ExtSIOp, hdr[3], i64)
	h := k.Bin(arith.ShRUIOp, k.Mul(k.Bin(arith.XOrIOp, key, seed), k.C64(abi.VocabMul-1<<64)), shift)
	h4 := k.Bin(arith.ShLIOp, h, k.C64(2))
	klo := k.Cast(arith.TruncIOp, key, i32)
	khi := k.Cast(arith.TruncIOp, k.Bin(arith.ShRUIOp, key, k.C64(32)), i32)
	slots := k.Val(gpu.PtrOffsetOp, []*textir.Value{words, k.AddC(base, abi.VocabHeaderWords)}, words.Type())
	var bytes *textir.Value
	if q != nil {
		bytes = k.Val(gpu.PtrCastOp, []*textir.Value{words}, gpu.PtrType(textir.I8(), gpu.Global))
	}
	none := k.vcC32(-1)
	res := k.For(k.C64(0), probes4, k.C64(abi.VocabSlotWords), []*textir.Value{none, k.vcBool(false)},
		func(i *textir.Value, it []*textir.Value) []*textir.Value {
			return k.If(it[1], []textir.Type{i32, i1}, func() []*textir.Value { return it }, func() []*textir.Value {
				w := k.Load(slots, k.Bin(arith.AndIOp, k.Add(h4, i), mask4), 4, true)
				m := k.Bin(arith.AndIOp, k.Cmp(arith.EQ, w[0], klo), k.Cmp(arith.EQ, w[1], khi))
				if q != nil {
					m = k.If(m, []textir.Type{i1}, func() []*textir.Value {
						return []*textir.Value{k.vcBytesEqual(words, bytes, k.Add(base, k.Cast(arith.ExtSIOp, w[3], i64)), q)}
					}, func() []*textir.Value { return []*textir.Value{k.vcBool(false)} })[0]
				}
				// An empty slot (index -1) ends the search; its key words
				// are 0, so it may "match" key 0 (or a fingerprint 0 whose
				// bytes happen to equal the header's: its record is the
				// header), but its index is -1 all the same.
				empty := k.Cmp(arith.SLT, w[2], k.vcC32(0))
				return []*textir.Value{k.Sel(m, w[2], none), k.Bin(arith.OrIOp, m, empty)}
			})
		})
	return k.Cast(arith.ExtSIOp, res[0], i64), k.Cmp(arith.SGE, res[0], k.vcC32(0))
}

// vcBytesEqual compares the bytes of the key record at word rec of the
// table (bytes is the table as !gpu.ptr<i8, global>) with the query's.
func (k *kb) vcBytesEqual(words, bytes, rec *textir.Value, q *vcQuery) *textir.Value {
	n := k.Cast(arith.ExtSIOp, k.Load(words, rec, 1, true)[0], i64)
	return k.If(k.Cmp(arith.EQ, n, q.n), []textir.Type{i1}, func() []*textir.Value {
		at := k.Bin(arith.ShLIOp, k.AddC(rec, 1), k.C64(2))
		return k.For(k.C64(0), q.n, k.C64(1), []*textir.Value{k.vcBool(true)}, func(j *textir.Value, it []*textir.Value) []*textir.Value {
			a := k.Load(q.p, k.Add(q.off, j), 1, true)[0]
			b := k.Load(bytes, k.Add(at, j), 1, true)[0]
			return []*textir.Value{k.Bin(arith.AndIOp, it[0], k.Cmp(arith.EQ, a, b))}
		})
	}, func() []*textir.Value { return []*textir.Value{k.vcBool(false)} })[0]
}

// bucketize emits the number of boundaries <= x (TensorFlow's Bucketize:
// the first boundary b with x < b), as i64. The n boundaries are at element
// off of bf (n, off : i64); the binary search runs min(n, iters) steps and
// is exact for n <= 2^iters - 1. x is f32, an integer (converted to f32
// once, rounding to nearest), or f64, compared in f64 with the boundaries.
// bf is a !gpu.ptr<f32, global>; for an f64 x it may also be a
// !gpu.ptr<f64, global> holding the boundaries widened on the host, which
// saves the exact f32-to-f64 conversion of each boundary loaded. A NaN x
// gives n.
func (k *kb) bucketize(bf, off, n, x *textir.Value, iters int64) *textir.Value {
	wide := x.Type() == textir.F64()
	if !wide && x.Type() != f32 {
		x = k.Cast(arith.SIToFPOp, x, f32)
	}
	load := func(j *textir.Value) *textir.Value { return k.Load(bf, j, 1, true)[0] }
	if wide && gpu.PtrElem(bf.Type()) == f32 {
		bits := k.Val(gpu.PtrCastOp, []*textir.Value{bf}, gpu.PtrType(i32, gpu.Global))
		load = func(j *textir.Value) *textir.Value { return k.vcF32ToF64(k.Load(bits, j, 1, true)[0]) }
	}
	zero := k.C64(0)
	offm1 := k.AddC(off, -1)
	steps := k.Bin(arith.MinSIOp, n, k.C64(iters))
	// The answer is in [base, base+len]; each step halves len whatever
	// the comparison gives (len' = len/2 rounded down), so a step after
	// len reaches 0 changes nothing, and every probe is in [0, n).
	res := k.For(zero, steps, k.C64(1), []*textir.Value{zero, n}, func(_ *textir.Value, it []*textir.Value) []*textir.Value {
		base, ln := it[0], it[1]
		nl := k.Bin(arith.ShRUIOp, ln, k.C64(1))
		half := k.Bin(arith.SubIOp, ln, nl)
		j := k.Bin(arith.MaxSIOp, k.Add(k.Add(offm1, base), half), off)
		le := k.CmpF(arith.FUGE, x, load(j)) // !(x < b)
		return []*textir.Value{k.Add(base, k.Sel(le, half, zero)), nl}
	})
	return res[0]
}

// vcF32ToF64 converts the bits of an f32 (i32) to the f64 of the same
// value, exactly, with integer arithmetic and exact conversions (the
// dialects have no arith.extf or bitcast), except that NaN gives -Inf:
// every x compares !(x < b) alike for both, which is all bucketize asks.
// With t = max(e, 1) for the biased exponent e, the value is
// ±(mant << t%4) * (2^(t/4))^4 * 2^-150, each factor exact; e = 255 scales
// by 2^1000 instead of 2^-150, which overflows to ±Inf.
func (k *kb) vcF32ToF64(bits *textir.Value) *textir.Value {
	f64 := textir.F64()
	c := k.C64
	w := k.Cast(arith.ExtSIOp, bits, i64)
	e := k.Bin(arith.AndIOp, k.Bin(arith.ShRUIOp, w, c(23)), c(0xff))
	m := k.Bin(arith.AndIOp, w, c(0x7fffff))
	mant := k.Bin(arith.OrIOp, m, k.Sel(k.Cmp(arith.NE, e, c(0)), c(1<<23), c(0)))
	t := k.Bin(arith.MaxSIOp, e, c(1))
	mant = k.Bin(arith.ShLIOp, mant, k.Bin(arith.AndIOp, t, c(3)))
	p := k.Cast(arith.UIToFPOp, k.Bin(arith.ShLIOp, c(1), k.Bin(arith.ShRUIOp, t, c(2))), f64)
	p = k.Bin(arith.MulFOp, p, p)
	p = k.Bin(arith.MulFOp, p, p)
	special := k.Cmp(arith.EQ, e, c(0xff))
	v := k.Bin(arith.MulFOp, k.Cast(arith.SIToFPOp, mant, f64), p)
	v = k.Bin(arith.MulFOp, v, k.Sel(special, k.vcF64(0x1p1000), k.vcF64(0x1p-150)))
	nan := k.Bin(arith.AndIOp, special, k.Cmp(arith.NE, m, c(0)))
	neg := k.Bin(arith.OrIOp, k.Cmp(arith.SLT, w, c(0)), nan)
	return k.Sel(neg, k.Cast(arith.NegFOp, v, f64), v)
}

func (k *kb) vcC32(v int64) *textir.Value {
	return k.Const(textir.IntegerAttr{Value: v, Type: i32})
}

func (k *kb) vcBool(v bool) *textir.Value {
	b := int64(0)
	if v {
		b = 1
	}
	return k.Const(textir.IntegerAttr{Value: b, Type: i1})
}

func (k *kb) vcF64(v float64) *textir.Value {
	return k.Const(textir.FloatAttr{Value: v, Type: textir.F64()})
}
