package embtogpu

import (
	"fmt"
	"math"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// GPUVocab is the device form of an emb.vocab_lookup's keys: an
// open-addressing hash table (power-of-two capacity, load at most 1/2,
// linear probing, probe length bounded by MaxProbe) laid out as 32-bit
// words, to be placed in the kernel's static arena.
//
// The table is self-describing, so that the code of a class of columns can
// be shared by columns with different vocabularies. At word offset base
// (a multiple of 4: the header and the slots are read with 16-byte loads):
//
//	base+0                 header: [4*(Capacity-1), Shift, 4*MaxProbe, Seed]
//	base+4+4*s             slot s: [key lo, key hi, index, record]
//	base+4+4*Capacity ...  string keys only: records [len, bytes...]
//
// A slot's key is the key itself for integer keys and Fingerprint64 of the
// key for string keys (two words, little-endian); index is the key's
// position in the vocabulary, -1 for an empty slot (whose other words are
// 0). For string keys, record is the word offset from base of the key's
// record: its length in bytes, then its bytes packed little-endian into
// words (byte j at byte 4*(base+record+1)+j of the table).
//
// The home slot of key k is ((k ^ Seed) * 0x9E3779B97F4A7C15) >> Shift
// (unsigned, Shift = 64 - log2(Capacity)); a lookup inspects the slots from
// there on, wrapping around, until it finds the key or an empty slot, and
// never more than MaxProbe of them (the builder places keys Robin Hood
// style, which keeps MaxProbe small, and picks among a few seeds the one
// with the shortest longest probe).
type GPUVocab struct {
	Words    []uint32
	Strings  bool
	Size     int64 // distinct keys: the vocabulary size the OOV buckets follow
	Capacity int64 // slots, a power of two >= max(2, 2*Size)
	MaxProbe int64 // slots a lookup inspects at most (0 for no keys)
	Shift    int64 // 64 - log2(Capacity)
	Seed     int32
}

const (
	vcHeaderWords = 4
	vcSlotWords   = 4
	vcMul         = 0x9E3779B97F4A7C15
	vcSeeds       = 8 // seeds the builder tries
)

// vcHome is the home slot of key k.
func vcHome(k int64, seed int32, shift int64) int64 {
	return int64((uint64(k^int64(seed)) * vcMul) >> uint(shift))
}

// BuildGPUVocab builds the table of keys, a tensor of strings or of
// integers (as emb.vocab_lookup's keys). As in the interpreter (which
// fills a map in key order), the last of duplicate keys gives the index,
// and Size counts distinct keys.
func BuildGPUVocab(keys *interp.Tensor) (*GPUVocab, error) {
	if keys == nil {
		return nil, fmt.Errorf("vocabulary: no keys")
	}
	v := &GPUVocab{Strings: keys.DType() == interp.String}
	if !v.Strings && !keys.DType().IsInteger() {
		return nil, fmt.Errorf("vocabulary: keys must be strings or integers, got %v", keys.DType())
	}
	// The distinct keys in order of first appearance, each with its last
	// index.
	var hashes, index []int64
	var strs []string
	if v.Strings {
		pos := map[string]int{}
		for i, s := range keys.Strings() {
			if p, ok := pos[s]; ok {
				index[p] = int64(i)
				continue
			}
			pos[s] = len(strs)
			strs = append(strs, s)
			hashes = append(hashes, int64(farm.Fingerprint64([]byte(s))))
			index = append(index, int64(i))
		}
	} else {
		pos := map[int64]int{}
		for i := range keys.Len() {
			k, _ := keys.Int64At(i)
			if p, ok := pos[k]; ok {
				index[p] = int64(i)
				continue
			}
			pos[k] = len(hashes)
			hashes = append(hashes, k)
			index = append(index, int64(i))
		}
	}
	n := int64(len(hashes))
	if n >= math.MaxInt32 {
		return nil, fmt.Errorf("vocabulary: %d keys do not fit 32-bit indices", n)
	}
	v.Size = n
	v.Capacity, v.Shift = 2, 63
	for v.Capacity < 2*n {
		v.Capacity, v.Shift = 2*v.Capacity, v.Shift-1
	}
	words := vcHeaderWords + vcSlotWords*v.Capacity
	for _, s := range strs {
		words += 1 + (int64(len(s))+3)/4
	}
	if words > math.MaxInt32 {
		return nil, fmt.Errorf("vocabulary: the table takes %d words, more than 2^31-1", words)
	}
	var slots []int32
	v.MaxProbe = -1
	for t := range vcSeeds {
		seed := vcSeed(t)
		s, probe := vcPlace(hashes, seed, v.Capacity, v.Shift)
		if v.MaxProbe < 0 || probe < v.MaxProbe {
			slots, v.MaxProbe, v.Seed = s, probe, seed
		}
		if probe <= 1 {
			break
		}
	}
	w := make([]uint32, words)
	w[0], w[1], w[2], w[3] = uint32(4*(v.Capacity-1)), uint32(v.Shift), uint32(4*v.MaxProbe), uint32(v.Seed)
	rec := vcHeaderWords + vcSlotWords*v.Capacity
	recOf := make([]int64, len(strs))
	for e, s := range strs {
		recOf[e] = rec
		w[rec] = uint32(len(s))
		for j := range len(s) {
			w[rec+1+int64(j/4)] |= uint32(s[j]) << (8 * (j % 4))
		}
		rec += 1 + (int64(len(s))+3)/4
	}
	for s, e := range slots {
		at := vcHeaderWords + vcSlotWords*int64(s)
		if e < 0 {
			w[at+2] = math.MaxUint32
			continue
		}
		h := uint64(hashes[e])
		w[at], w[at+1], w[at+2] = uint32(h), uint32(h>>32), uint32(index[e])
		if v.Strings {
			w[at+3] = uint32(recOf[e])
		}
	}
	v.Words = w
	return v, nil
}

// vcSeed is the t-th seed the builder tries (0 first).
func vcSeed(t int) int32 {
	x := uint64(t) * 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return int32(uint32(x >> 32))
}

// vcPlace places the keys by Robin Hood linear probing: slots[s] is the
// key at slot s (-1 empty); probe is the longest probe of a key (its
// distance from home + 1).
func vcPlace(hashes []int64, seed int32, capacity, shift int64) (slots []int32, probe int64) {
	mask := capacity - 1
	slots = make([]int32, capacity)
	for i := range slots {
		slots[i] = -1
	}
	for e := range hashes {
		cur := int32(e)
		pos := vcHome(hashes[cur], seed, shift)
		d := int64(0)
		for {
			o := slots[pos]
			if o < 0 {
				slots[pos] = cur
				probe = max(probe, d+1)
				break
			}
			if od := (pos - vcHome(hashes[o], seed, shift)) & mask; od < d {
				slots[pos] = cur
				probe = max(probe, d+1)
				cur, d = o, od
			}
			pos, d = (pos+1)&mask, d+1
		}
	}
	return slots, probe
}

// vocabFindInt emits the lookup of key (i64) in the table at word offset
// base (i64, a multiple of 4) of words (a !gpu.ptr<i32, global>): the key's
// index (i64, -1 when missing) and whether it was found (i1). The bound of
// the probe loop and the hash parameters are read from the table's header,
// so v only needs to be of the right kind (integer keys) and the code
// serves any table of that kind.
func (k *kb) vocabFindInt(words, base, key *textir.Value, v *GPUVocab) (idx, found *textir.Value) {
	return k.vcFind(words, base, key, nil)
}

// vocabFindString emits the lookup of a string key given its
// Fingerprint64 fp (i64) and its bytes (qn bytes at element qoff of qp, a
// !gpu.ptr<i8, global>) in the table at word offset base of words (see
// vocabFindInt). A slot matches when its fingerprint is fp and the key's
// bytes are equal, so fingerprint collisions never give a wrong index.
func (k *kb) vocabFindString(words, base, fp, qp, qoff, qn *textir.Value, v *GPUVocab) (idx, found *textir.Value) {
	return k.vcFind(words, base, fp, &vcQuery{qp, qoff, qn})
}

// vcQuery is the bytes of a string key.
type vcQuery struct{ p, off, n *textir.Value }

func (k *kb) vcFind(words, base, key *textir.Value, q *vcQuery) (idx, found *textir.Value) {
	hdr := k.load(words, base, 4, true)
	mask4 := k.cast(arith.ExtSIOp, hdr[0], i64)
	shift := k.cast(arith.ExtSIOp, hdr[1], i64)
	probes4 := k.cast(arith.ExtSIOp, hdr[2], i64)
	seed := k.cast(arith.ExtSIOp, hdr[3], i64)
	h := k.bin(arith.ShRUIOp, k.mul(k.bin(arith.XOrIOp, key, seed), k.c64(vcMul-1<<64)), shift)
	h4 := k.bin(arith.ShLIOp, h, k.c64(2))
	klo := k.cast(arith.TruncIOp, key, i32)
	khi := k.cast(arith.TruncIOp, k.bin(arith.ShRUIOp, key, k.c64(32)), i32)
	slots := k.op(gpu.PtrOffsetOp, []*textir.Value{words, k.addc(base, vcHeaderWords)}, []textir.Type{words.Type()}).Result(0)
	var bytes *textir.Value
	if q != nil {
		bytes = k.op(gpu.PtrCastOp, []*textir.Value{words}, []textir.Type{gpu.PtrType(textir.I8(), gpu.Global)}).Result(0)
	}
	none := k.vcC32(-1)
	res := k.forLoop(k.c64(0), probes4, k.c64(vcSlotWords), []*textir.Value{none, k.vcBool(false)},
		func(i *textir.Value, it []*textir.Value) []*textir.Value {
			return k.vcIf(it[1], []textir.Type{i32, i1}, func() []*textir.Value { return it }, func() []*textir.Value {
				w := k.load(slots, k.bin(arith.AndIOp, k.add(h4, i), mask4), 4, true)
				m := k.bin(arith.AndIOp, k.cmp(arith.EQ, w[0], klo), k.cmp(arith.EQ, w[1], khi))
				if q != nil {
					m = k.vcIf(m, []textir.Type{i1}, func() []*textir.Value {
						return []*textir.Value{k.vcBytesEqual(words, bytes, k.add(base, k.cast(arith.ExtSIOp, w[3], i64)), q)}
					}, func() []*textir.Value { return []*textir.Value{k.vcBool(false)} })[0]
				}
				// An empty slot (index -1) ends the search; its key words
				// are 0, so it may "match" key 0 (or a fingerprint 0 whose
				// bytes happen to equal the header's: its record is the
				// header), but its index is -1 all the same.
				empty := k.cmp(arith.SLT, w[2], k.vcC32(0))
				return []*textir.Value{k.sel(m, w[2], none), k.bin(arith.OrIOp, m, empty)}
			})
		})
	return k.cast(arith.ExtSIOp, res[0], i64), k.cmp(arith.SGE, res[0], k.vcC32(0))
}

// vcBytesEqual compares the bytes of the key record at word rec of the
// table (bytes is the table as !gpu.ptr<i8, global>) with the query's.
func (k *kb) vcBytesEqual(words, bytes, rec *textir.Value, q *vcQuery) *textir.Value {
	n := k.cast(arith.ExtSIOp, k.load(words, rec, 1, true)[0], i64)
	return k.vcIf(k.cmp(arith.EQ, n, q.n), []textir.Type{i1}, func() []*textir.Value {
		at := k.bin(arith.ShLIOp, k.addc(rec, 1), k.c64(2))
		return k.forLoop(k.c64(0), q.n, k.c64(1), []*textir.Value{k.vcBool(true)}, func(j *textir.Value, it []*textir.Value) []*textir.Value {
			a := k.load(q.p, k.add(q.off, j), 1, true)[0]
			b := k.load(bytes, k.add(at, j), 1, true)[0]
			return []*textir.Value{k.bin(arith.AndIOp, it[0], k.cmp(arith.EQ, a, b))}
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
		x = k.cast(arith.SIToFPOp, x, f32)
	}
	load := func(j *textir.Value) *textir.Value { return k.load(bf, j, 1, true)[0] }
	if wide && gpu.PtrElem(bf.Type()) == f32 {
		bits := k.op(gpu.PtrCastOp, []*textir.Value{bf}, []textir.Type{gpu.PtrType(i32, gpu.Global)}).Result(0)
		load = func(j *textir.Value) *textir.Value { return k.vcF32ToF64(k.load(bits, j, 1, true)[0]) }
	}
	zero := k.c64(0)
	offm1 := k.addc(off, -1)
	steps := k.bin(arith.MinSIOp, n, k.c64(iters))
	// The answer is in [base, base+len]; each step halves len whatever
	// the comparison gives (len' = len/2 rounded down), so a step after
	// len reaches 0 changes nothing, and every probe is in [0, n).
	res := k.forLoop(zero, steps, k.c64(1), []*textir.Value{zero, n}, func(_ *textir.Value, it []*textir.Value) []*textir.Value {
		base, ln := it[0], it[1]
		nl := k.bin(arith.ShRUIOp, ln, k.c64(1))
		half := k.bin(arith.SubIOp, ln, nl)
		j := k.bin(arith.MaxSIOp, k.add(k.add(offm1, base), half), off)
		le := k.vcCmpF(arith.FUGE, x, load(j)) // !(x < b)
		return []*textir.Value{k.add(base, k.sel(le, half, zero)), nl}
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
	c := k.c64
	w := k.cast(arith.ExtSIOp, bits, i64)
	e := k.bin(arith.AndIOp, k.bin(arith.ShRUIOp, w, c(23)), c(0xff))
	m := k.bin(arith.AndIOp, w, c(0x7fffff))
	mant := k.bin(arith.OrIOp, m, k.sel(k.cmp(arith.NE, e, c(0)), c(1<<23), c(0)))
	t := k.bin(arith.MaxSIOp, e, c(1))
	mant = k.bin(arith.ShLIOp, mant, k.bin(arith.AndIOp, t, c(3)))
	p := k.cast(arith.UIToFPOp, k.bin(arith.ShLIOp, c(1), k.bin(arith.ShRUIOp, t, c(2))), f64)
	p = k.bin(arith.MulFOp, p, p)
	p = k.bin(arith.MulFOp, p, p)
	special := k.cmp(arith.EQ, e, c(0xff))
	v := k.bin(arith.MulFOp, k.cast(arith.SIToFPOp, mant, f64), p)
	v = k.bin(arith.MulFOp, v, k.sel(special, k.vcF64(0x1p1000), k.vcF64(0x1p-150)))
	nan := k.bin(arith.AndIOp, special, k.cmp(arith.NE, m, c(0)))
	neg := k.bin(arith.OrIOp, k.cmp(arith.SLT, w, c(0)), nan)
	return k.sel(neg, k.cast(arith.NegFOp, v, f64), v)
}

func (k *kb) vcC32(v int64) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.IntegerAttr{Value: v, Type: i32}).Result(0)
}

func (k *kb) vcBool(v bool) *textir.Value {
	b := int64(0)
	if v {
		b = 1
	}
	return arith.Constant(k.b, k.loc, textir.IntegerAttr{Value: b, Type: i1}).Result(0)
}

func (k *kb) vcF64(v float64) *textir.Value {
	return arith.Constant(k.b, k.loc, textir.FloatAttr{Value: v, Type: textir.F64()}).Result(0)
}

func (k *kb) vcCmpF(p arith.FPredicate, x, y *textir.Value) *textir.Value {
	return k.op(arith.CmpFOp, []*textir.Value{x, y}, []textir.Type{i1},
		textir.NamedAttribute{Name: "predicate", Value: textir.I64Attr(int64(p))}).Result(0)
}

// vcIf builds %r = gpu.if %c -> (types) { then } else { els }, each branch
// returning the values it yields.
func (k *kb) vcIf(c *textir.Value, types []textir.Type, then, els func() []*textir.Value) []*textir.Value {
	op := k.b.Create(&textir.OperationState{Name: gpu.IfOp, Loc: k.loc, Operands: []*textir.Value{c}, ResultTypes: types, NumRegions: 2})
	saved := *k.b
	for r, body := range []func() []*textir.Value{then, els} {
		op.Region(r).AppendBlock(textir.NewBlock())
		k.b.SetInsertionPointToEnd(op.Region(r).Front())
		k.op(gpu.YieldOp, body(), nil)
	}
	*k.b = saved
	return op.Results()
}
