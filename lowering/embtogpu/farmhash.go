package embtogpu

// FarmHash Fingerprint64 as kernel code: farmhash::Fingerprint64, which is
// farmhashna::Hash64, the hash of TensorFlow's StringToHashBucketFast
// (Fingerprint64(s) mod num_buckets). The emitted code is plain arith on
// i64 (rotations as shift/or pairs) with gpu.for and gpu.if for the length
// classes of the algorithm:
//
//	0        k2
//	1..3     three bytes (first, middle, last)
//	4..7     the first and the last 4 bytes
//	8..16    the first and the last 8 bytes
//	17..32   words at 0, 8, n-16, n-8
//	33..64   words at 0, 8, 16, 24, n-32, n-24, n-16, n-8
//	> 64     a 56-byte state updated per 64-byte block, then once more
//	         with the last 64 bytes (a different multiplier and mixing)
//
// Strings in memory are read with i8 loads only, so any pointer and any
// byte offset work. Every string of 8 bytes or more goes through ONE
// loop whose body fetches 8 little-endian words (an 8-trip byte loop with
// 8 independent loads per trip) and performs one block step of the long
// class: a string of 8..64 bytes makes one trip whose words, at clamped
// positions, are exactly those its class reads; a longer one makes a trip
// per block plus one for the last 64 bytes, the last trip switching to
// the tail's multiplier and mixing by selects. The words of the last trip
// then feed the class's final mixing (a gpu.if chain). Strings under 8
// bytes are read into one register by a loop of n byte loads.
//
// fingerprint64Int hashes the decimal text of an i64 (TensorFlow's
// AsString) without memory: the digits are shifted into three registers
// as little-endian bytes (at most 20 characters), and the 0..16 / 17..32
// classes read their words from the registers at dynamic byte offsets
// (selects and funnel shifts).

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// The algorithm's constants.
const (
	fhK0   uint64 = 0xc3a5c85c97cb3127
	fhK1   uint64 = 0xb492b66fbe98f273
	fhK2   uint64 = 0x9ae16a3b2f90404f
	fhSeed uint64 = 81
)

// fhGen emits the hash with a cache of i64 constants, created before an
// anchor constant at the insertion point of the entry (so they dominate
// every op of the hash).
type fhGen struct {
	k      *kb
	consts map[uint64]*textir.Value
	cb     textir.Builder
	words  *textir.Value // the string's buffer as !gpu.ptr<i32, global> (fingerprint64)
}

func (k *kb) fhNew() *fhGen {
	g := &fhGen{k: k, consts: map[uint64]*textir.Value{}}
	zero := k.C64(0)
	g.consts[0] = zero
	g.cb = *k.B
	g.cb.SetInsertionPoint(zero.DefiningOp())
	return g
}

func (g *fhGen) c(v uint64) *textir.Value {
	if x, ok := g.consts[v]; ok {
		return x
	}
	c, _ := arith.AsConstant(arith.Constant(&g.cb, g.k.Loc, textir.I64Attr(int64(v))))
	g.consts[v] = c.Result()
	return c.Result()
}

func (g *fhGen) add(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.AddIOp, x, y) }
func (g *fhGen) sub(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.SubIOp, x, y) }
func (g *fhGen) mul(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.MulIOp, x, y) }
func (g *fhGen) xor(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.XOrIOp, x, y) }
func (g *fhGen) or(x, y *textir.Value) *textir.Value  { return g.k.Bin(arith.OrIOp, x, y) }
func (g *fhGen) and(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.AndIOp, x, y) }
func (g *fhGen) shl(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.ShLIOp, x, y) }
func (g *fhGen) shr(x, y *textir.Value) *textir.Value { return g.k.Bin(arith.ShRUIOp, x, y) }

func (g *fhGen) addc(x *textir.Value, c uint64) *textir.Value {
	if c == 0 {
		return x
	}
	return g.add(x, g.c(c))
}

func (g *fhGen) mulc(x *textir.Value, c uint64) *textir.Value { return g.mul(x, g.c(c)) }
func (g *fhGen) andc(x *textir.Value, c uint64) *textir.Value { return g.and(x, g.c(c)) }
func (g *fhGen) shlc(x *textir.Value, c uint64) *textir.Value { return g.shl(x, g.c(c)) }
func (g *fhGen) shrc(x *textir.Value, c uint64) *textir.Value { return g.shr(x, g.c(c)) }

func (g *fhGen) cmpc(p arith.Predicate, x *textir.Value, c uint64) *textir.Value {
	return g.k.Cmp(p, x, g.c(c))
}

// rotr rotates right by r (0 < r < 64).
func (g *fhGen) rotr(x *textir.Value, r uint64) *textir.Value {
	return g.or(g.shrc(x, r), g.shlc(x, 64-r))
}

func (g *fhGen) shiftMix(x *textir.Value) *textir.Value { return g.xor(x, g.shrc(x, 47)) }

// mix16 is the Murmur-like mixing of two words (HashLen16 with a
// multiplier).
func (g *fhGen) mix16(u, v, m *textir.Value) *textir.Value {
	a := g.shiftMix(g.mul(g.xor(u, v), m))
	b := g.shiftMix(g.mul(g.xor(v, a), m))
	return g.mul(b, m)
}

// weak32 is WeakHashLen32WithSeeds of words w0..w3 and seeds a, b.
func (g *fhGen) weak32(w []*textir.Value, a, b *textir.Value) (*textir.Value, *textir.Value) {
	a = g.add(a, w[0])
	b = g.rotr(g.add(g.add(b, a), w[3]), 21)
	c := a
	a = g.add(g.add(a, w[1]), w[2])
	b = g.add(b, g.rotr(a, 44))
	return g.add(a, w[3]), g.add(b, c)
}

// ifn builds %r:n = gpu.if %c -> (i64, ...) { then } else { els }.
func (g *fhGen) ifn(c *textir.Value, n int, then, els func() []*textir.Value) []*textir.Value {
	types := make([]textir.Type, n)
	for i := range types {
		types[i] = i64
	}
	return g.k.If(c, types, then, els)
}

// ifv is ifn with one result.
func (g *fhGen) ifv(c *textir.Value, then, els func() *textir.Value) *textir.Value {
	one := func(f func() *textir.Value) func() []*textir.Value {
		return func() []*textir.Value { return []*textir.Value{f()} }
	}
	return g.ifn(c, 1, one(then), one(els))[0]
}

// The classes of 8 bytes and more end with mix16 of two words and a
// multiplier: they return the three, and one mix16 follows their gpu.if.
func (g *fhGen) mix(umv []*textir.Value) *textir.Value { return g.mix16(umv[0], umv[1], umv[2]) }

// short hashes n in [1, 7] bytes held little-endian in w (bytes at and
// above n are ignored).
func (g *fhGen) short(n, w *textir.Value) *textir.Value {
	mul := g.add(g.c(fhK2), g.shlc(n, 1))
	// 4..7: the first and the last 4 bytes.
	a := g.andc(w, 0xffffffff)
	b := g.andc(g.shr(w, g.shlc(g.k.Bin(arith.MaxSIOp, g.sub(n, g.c(4)), g.c(0)), 3)), 0xffffffff)
	h4 := g.mix16(g.add(n, g.shlc(a, 3)), b, mul)
	// 1..3: the first, middle and last bytes.
	at := func(pos *textir.Value) *textir.Value { return g.andc(g.shr(w, g.shlc(pos, 3)), 0xff) }
	y := g.add(g.andc(w, 0xff), g.shlc(at(g.shrc(n, 1)), 8))
	z := g.add(n, g.shlc(at(g.sub(n, g.c(1))), 2))
	h1 := g.mulc(g.shiftMix(g.xor(g.mulc(y, fhK2), g.mulc(z, fhK0))), fhK2)
	return g.k.Sel(g.cmpc(arith.SGE, n, 4), h4, h1)
}

// len16 hashes n in [8, 16] bytes from its first and last words; mul is
// k2 + 2n.
func (g *fhGen) len16(first, last, mul *textir.Value) []*textir.Value {
	a := g.addc(first, fhK2)
	c := g.add(g.mul(g.rotr(last, 37), mul), a)
	d := g.mul(g.add(g.rotr(a, 25), last), mul)
	return []*textir.Value{c, d, mul}
}

// len32 hashes n in [17, 32] bytes from its words at 0, 8, n-16, n-8.
func (g *fhGen) len32(w0, w8, wm16, wm8, mul *textir.Value) []*textir.Value {
	a := g.mulc(w0, fhK1)
	c := g.mul(wm8, mul)
	d := g.mulc(wm16, fhK2)
	return []*textir.Value{g.add(g.add(g.rotr(g.add(a, w8), 43), g.rotr(c, 30)), d),
		g.add(g.add(a, g.rotr(g.addc(w8, fhK2), 18)), c), mul}
}

// len64 hashes n in [33, 64] bytes from its words at 0, 8, 16, 24, n-32,
// n-24, n-16, n-8.
func (g *fhGen) len64(w []*textir.Value, mul *textir.Value) []*textir.Value {
	a := g.mulc(w[0], fhK2)
	b := w[1]
	c := g.mul(w[7], mul)
	d := g.mulc(w[6], fhK2)
	y := g.add(g.add(g.rotr(g.add(a, b), 43), g.rotr(c, 30)), d)
	z := g.mix16(y, g.add(g.add(a, g.rotr(g.addc(b, fhK2), 18)), c), mul)
	e := g.mul(w[2], mul)
	f := w[3]
	gg := g.mul(g.add(y, w[4]), mul)
	h := g.mul(g.add(z, w[5]), mul)
	return []*textir.Value{g.add(g.add(g.rotr(g.add(e, f), 43), g.rotr(gg, 30)), h),
		g.add(g.add(e, g.rotr(g.add(f, a), 18)), gg), mul}
}

// fingerprint64 emits Fingerprint64 of the n bytes starting at element off of p
// (p : !gpu.ptr<i8, global>, 4-byte aligned; off, n : i64: any). Returns an i64 value.
//
// The bytes are read as aligned 32-bit words (fetch): independent loads
// that never touch a word without a byte of the string, so one round trip
// to memory per block of the hash rather than one per byte.
func (k *kb) fingerprint64(p, off, n *textir.Value) *textir.Value {
	return k.fpStart(p, off, n).finish()
}

// fpPending is a Fingerprint64 whose first memory round trip has been
// emitted (fpStart) and whose branches have not (finish): a caller with
// several strings to hash starts them all first, so that their loads are
// in flight together rather than one string's after another's branches.
type fpPending struct {
	g                 *fhGen
	off, n, lastW, h0 *textir.Value
}

// fpStart emits the loads of the string's first 8 bytes and the hash of
// a string under 8 bytes (the common case, computed branch-free: k2 for
// the empty string, short otherwise). The word of the last byte is
// clamped at the word before off for n = 0 (off > 0 in the kernel: the
// bytes follow other regions of the packed inputs), so no load leaves
// the bytes of the string or the word before them.
func (k *kb) fpStart(p, off, n *textir.Value) *fpPending {
	g := k.fhNew()
	g.words = k.Val(gpu.PtrCastOp, []*textir.Value{p}, gpu.PtrType(i32, gpu.Global))
	return g.begin(off, n, func(lastW *textir.Value) *textir.Value { return g.fetch(off, lastW) })
}

// begin starts the hash of the n bytes at byte off of g.words: the word of
// the last byte, and the hash of a string under 8 bytes from first(lastW),
// the string's first 8 bytes little-endian.
func (g *fhGen) begin(off, n *textir.Value, first func(lastW *textir.Value) *textir.Value) *fpPending {
	k := g.k
	lastW := g.shrc(k.Bin(arith.MaxSIOp, g.add(off, g.sub(n, g.c(1))), g.c(0)), 2)
	// The bytes at and above n are garbage: short ignores them. It runs
	// on n clamped to [1, 7] (its shifts stay below 64); h0 is used for
	// n < 8 only.
	ns := k.Bin(arith.MinSIOp, k.Bin(arith.MaxSIOp, n, g.c(1)), g.c(7))
	h0 := k.Sel(g.cmpc(arith.EQ, n, 0), g.c(fhK2), g.short(ns, first(lastW)))
	return &fpPending{g: g, off: off, n: n, lastW: lastW, h0: h0}
}

// fpStartSlot is fpStart for a string packed in an 8-byte slot x
// (abi.Column.StrSlots): under 8 bytes the string is x itself (its
// length in the top byte), so the short hash needs no load; a longer one
// is at byte base + the slot's offset of p.
func (k *kb) fpStartSlot(p, x, base *textir.Value) *fpPending {
	g := k.fhNew()
	g.words = k.Val(gpu.PtrCastOp, []*textir.Value{p}, gpu.PtrType(i32, gpu.Global))
	tag := g.shrc(x, 56)
	n := k.Sel(g.cmpc(arith.EQ, tag, 0xff), g.andc(g.shrc(x, 32), 0xffffff), tag)
	off := g.add(base, g.andc(x, 0xffffffff))
	return g.begin(off, n, func(*textir.Value) *textir.Value { return x })
}

// finish emits the strings of 8 bytes and more (branches) and returns the
// hash: 8..16 bytes from their first and last 8 (two fetches), longer
// ones through long's block loop.
func (f *fpPending) finish() *textir.Value {
	g := f.g
	return g.ifv(g.cmpc(arith.SLT, f.n, 8), func() *textir.Value { return f.h0 }, func() *textir.Value {
		return g.ifv(g.cmpc(arith.SLE, f.n, 16), func() *textir.Value {
			mul := g.add(g.c(fhK2), g.shlc(f.n, 1))
			last := g.fetch(g.add(f.off, g.sub(f.n, g.c(8))), f.lastW)
			return g.mix(g.len16(g.fetch(f.off, f.lastW), last, mul))
		}, func() *textir.Value {
			return g.long(f.off, f.n, f.lastW)
		})
	})
}

// fetch returns the 8 bytes at byte q little-endian, from the aligned
// words q/4, q/4+1 and q/4+2, each clamped to lastW (the word of the
// string's last byte): a word past it is never read (the bytes it would
// give are at or past the end and are either not used or, for short,
// ignored). The left shift by 64-s is split in two so that s = 0 shifts by
// less than 64.
func (g *fhGen) fetch(q, lastW *textir.Value) *textir.Value {
	k := g.k
	w := g.shrc(q, 2)
	word := func(i *textir.Value) *textir.Value {
		i = k.Bin(arith.MinSIOp, i, lastW)
		return k.Cast(arith.ExtUIOp, k.Load(g.words, i, 1, true)[0], i64)
	}
	a, b, c := word(w), word(g.addc(w, 1)), word(g.addc(w, 2))
	lo := g.or(a, g.shlc(b, 32))
	s := g.shlc(g.andc(q, 3), 3)
	return g.or(g.shr(lo, s), g.shlc(g.shl(c, g.sub(g.c(63), s)), 1))
}

// long hashes n >= 8 bytes at byte off of g.words (lastW: the word of
// the last byte).
func (g *fhGen) long(off, n, lastW *textir.Value) *textir.Value {
	k := g.k
	n1 := g.sub(n, g.c(1))
	last := g.shrc(n1, 6) // index of the last trip
	offN8 := g.add(off, g.sub(n, g.c(8)))
	offN64 := g.add(off, g.sub(n, g.c(64)))
	big := g.cmpc(arith.SGT, n, 64)
	tailAdj := g.andc(n1, 63)
	seed := fhSeed // wrapping products: not constant expressions
	y0 := seed*fhK1 + 113
	z0 := y0*fhK2 + 113
	z0 = (z0 ^ z0>>47) * fhK2
	zero := g.c(0)
	inits := []*textir.Value{g.c(seed * fhK2), g.c(y0), g.c(z0), zero, zero, zero, zero, g.c(fhK1)}
	for range 8 {
		inits = append(inits, zero)
	}
	res := k.For(zero, g.addc(last, 1), g.c(1), inits, func(i *textir.Value, it []*textir.Value) []*textir.Value {
		x, y, z, vlo, vhi, wlo, whi := it[0], it[1], it[2], it[3], it[4], it[5], it[6]
		tail := k.Cmp(arith.EQ, i, last)
		// The block: at 64i, or the last 64 bytes on the last trip;
		// strings of at most 64 bytes read words at 0, 8, 16, 24 and
		// n-32, n-24, n-16, n-8, clamped into [0, n-8].
		blk := g.add(off, g.shlc(i, 6))
		qa := k.Sel(k.Bin(arith.AndIOp, tail, big), offN64, blk)
		qb := k.Sel(tail, offN64, blk)
		pos := make([]*textir.Value, 8)
		pos[0] = qa
		for j := uint64(1); j < 4; j++ {
			pos[j] = k.Bin(arith.MinSIOp, g.addc(qa, 8*j), offN8)
		}
		for j := uint64(4); j < 7; j++ {
			pos[j] = k.Bin(arith.MaxSIOp, g.addc(qb, 8*j), off)
		}
		pos[7] = g.addc(qb, 56)
		w := make([]*textir.Value, 8)
		for j := range w {
			w[j] = g.fetch(pos[j], lastW)
		}
		// One block step; the last trip is the tail's (multiplier from
		// z, w.lo and v.lo adjusted, 9 × in the mixing).
		x = k.Sel(g.cmpc(arith.EQ, i, 0), g.add(x, w[0]), x)
		m := k.Sel(tail, g.addc(g.shlc(g.andc(z, 0xff), 1), fhK1), g.c(fhK1))
		wlo1 := g.add(wlo, tailAdj)
		vlo1 := g.add(vlo, wlo1)
		vlo = k.Sel(tail, vlo1, vlo)
		wlo = k.Sel(tail, g.add(wlo1, vlo1), wlo)
		t9 := k.Sel(tail, g.c(9), g.c(1))
		x = g.mul(g.rotr(g.add(g.add(g.add(x, y), vlo), w[1]), 37), m)
		y = g.mul(g.rotr(g.add(g.add(y, vhi), w[6]), 42), m)
		x = g.xor(x, g.mul(whi, t9))
		y = g.add(y, g.add(g.mul(vlo, t9), w[5]))
		z = g.mul(g.rotr(g.add(z, wlo), 33), m)
		nvlo, nvhi := g.weak32(w[0:4], g.mul(vhi, m), g.add(x, wlo))
		nwlo, nwhi := g.weak32(w[4:8], g.add(z, whi), g.add(y, w[2]))
		return append([]*textir.Value{z, y, x, nvlo, nvhi, nwlo, nwhi, m}, w...)
	})
	x, y, z, vlo, vhi, wlo, whi, m := res[0], res[1], res[2], res[3], res[4], res[5], res[6], res[7]
	w := res[8:16]
	mul := g.add(g.c(fhK2), g.shlc(n, 1))
	return g.mix(g.ifn(g.cmpc(arith.SLE, n, 16), 3, func() []*textir.Value {
		return g.len16(w[0], w[7], mul)
	}, func() []*textir.Value {
		return g.ifn(g.cmpc(arith.SLE, n, 32), 3, func() []*textir.Value {
			return g.len32(w[0], w[1], w[6], w[7], mul)
		}, func() []*textir.Value {
			return g.ifn(g.cmpc(arith.SLE, n, 64), 3, func() []*textir.Value {
				return g.len64(w, mul)
			}, func() []*textir.Value {
				u := g.add(g.add(g.mix16(vlo, wlo, m), g.mulc(g.shiftMix(y), fhK0)), z)
				return []*textir.Value{u, g.add(g.mix16(vhi, whi, m), x), m}
			})
		})
	}))
}

// regWord returns the 8 bytes at byte pos (0 <= pos < 16) of the
// little-endian byte string r0 r1 r2: a funnel shift of the two words
// pos covers. The left shift by 64-s is split in two so that s = 0
// shifts by less than 64.
func (g *fhGen) regWord(r []*textir.Value, pos *textir.Value) *textir.Value {
	k := g.k
	s := g.shlc(g.andc(pos, 7), 3)
	first := g.cmpc(arith.ULT, pos, 8)
	lo := k.Sel(first, r[0], r[1])
	hi := k.Sel(first, r[1], r[2])
	return g.or(g.shr(lo, s), g.shlc(g.shl(hi, g.sub(g.c(63), s)), 1))
}

// fingerprint64Int emits Fingerprint64(AsString(v)) for v : i64 (TensorFlow's AsString with
// default attributes: decimal, '-' for negatives, math.MinInt64 included), computed in
// registers without any memory buffer. Returns i64.
func (k *kb) fingerprint64Int(v *textir.Value) *textir.Value {
	g := k.fhNew()
	zero := g.c(0)
	neg := g.cmpc(arith.SLT, v, 0)
	u := k.Sel(neg, g.sub(zero, v), v) // |v| as unsigned, 2^63 for MinInt64
	// push prepends byte ch to the string r0 r1 r2.
	push := func(r []*textir.Value, ch *textir.Value) []*textir.Value {
		return []*textir.Value{
			g.or(g.shlc(r[0], 8), ch),
			g.or(g.shlc(r[1], 8), g.shrc(r[0], 56)),
			g.or(g.shlc(r[2], 8), g.shrc(r[1], 56)),
		}
	}
	// The number of digits (1 + how many of 10, 100, ..., 10^18 are <=
	// |v| <= 2^63: independent comparisons), then one trip per digit,
	// least significant first, each prepended.
	n := g.c(1)
	p := uint64(10)
	for range 18 {
		n = g.add(n, k.Cast(arith.ExtUIOp, g.cmpc(arith.UGE, u, p), i64))
		p *= 10
	}
	res := k.For(zero, n, g.c(1), []*textir.Value{u, zero, zero, zero}, func(i *textir.Value, it []*textir.Value) []*textir.Value {
		u := it[0]
		q := k.Bin(arith.DivUIOp, u, g.c(10))
		ch := g.addc(g.sub(u, g.mulc(q, 10)), '0')
		return append([]*textir.Value{q}, push(it[1:4], ch)...)
	})
	r := res[1:4]
	for j, x := range push(r, g.c('-')) {
		r[j] = k.Sel(neg, x, r[j])
	}
	n = k.Sel(neg, g.addc(n, 1), n)
	mul := g.add(g.c(fhK2), g.shlc(n, 1))
	return g.ifv(g.cmpc(arith.SLT, n, 8), func() *textir.Value {
		return g.short(n, r[0])
	}, func() *textir.Value {
		last := g.regWord(r, g.sub(n, g.c(8)))
		return g.mix(g.ifn(g.cmpc(arith.SLE, n, 16), 3, func() []*textir.Value {
			return g.len16(r[0], last, mul)
		}, func() []*textir.Value {
			return g.len32(r[0], r[1], g.regWord(r, g.sub(n, g.c(16))), last, mul)
		}))
	})
}

// hashBucket emits Fingerprint64 mod n as unsigned 64-bit remainder (what StringToHashBucketFast does); n : i64 > 0.
func (k *kb) hashBucket(h, n *textir.Value) *textir.Value {
	return k.Bin(arith.RemUIOp, h, n)
}
