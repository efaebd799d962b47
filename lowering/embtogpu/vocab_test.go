package embtogpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

var vcLoc = textir.NameLoc{Name: "vocab"}

const (
	vcBlock = 64
	vcBase  = 64 // word offset of the table in the test's words buffer
	vcIters = 6  // bucketize steps: exact up to 63 boundaries
)

func vcPtr(t textir.Type) textir.Type { return gpu.PtrType(t, gpu.Global) }

// The kernels of the tests, in one gpu.module @vc:
//
//	@int(%words: !gpu.ptr<i32>, %keys: !gpu.ptr<i64>, %out: !gpu.ptr<i64>, %base: i64, %count: i64)
//	    out[2g], out[2g+1] = vocabFindInt(words, base, keys[g])
//	@str(%words, %bytes: !gpu.ptr<i8>, %q: !gpu.ptr<i64>, %out, %base, %count)
//	    out[2g], out[2g+1] = vocabFindString(words, base, q[3g] (fp), bytes, q[3g+1] (offset), q[3g+2] (length))
//	@bkt_X_B(%bf: !gpu.ptr<B>, %xs: !gpu.ptr<X>, %out, %off: i64, %n: i64, %count)
//	    out[g] = bucketize(bf, off, n, xs[g], vcIters)
func vcModule(ctx *textir.Context) *textir.Operation {
	top := builtin.NewModule(ctx, vcLoc)
	gm := gpu.NewModule(ctx, vcLoc, "vc")
	builtin.Body(top).Append(gm)
	body := gm.Region(0).Front()
	// Threads g < count, the last argument, run each kernel's body.
	vcKernel := func(ctx *textir.Context, name string, inputs []textir.Type, f func(k *kb, a []*textir.Value, g *textir.Value)) *textir.Operation {
		return testKernel(ctx, vcLoc, name, vcBlock, inputs, len(inputs)-1, f)
	}
	found := func(k *kb, out, g, idx, ok *textir.Value) {
		k.Store([]*textir.Value{idx, k.Cast(arith.ExtUIOp, ok, i64)}, out, k.mulc(g, 2))
	}
	body.Append(vcKernel(ctx, "int", []textir.Type{vcPtr(i32), vcPtr(i64), vcPtr(i64), i64, i64},
		func(k *kb, a []*textir.Value, g *textir.Value) {
			idx, ok := k.vocabFindInt(a[0], a[3], k.Load(a[1], g, 1, true)[0])
			found(k, a[2], g, idx, ok)
		}))
	body.Append(vcKernel(ctx, "str", []textir.Type{vcPtr(i32), vcPtr(textir.I8()), vcPtr(i64), vcPtr(i64), i64, i64},
		func(k *kb, a []*textir.Value, g *textir.Value) {
			q := k.mulc(g, 3)
			fp := k.Load(a[2], q, 1, true)[0]
			off := k.Load(a[2], k.AddC(q, 1), 1, true)[0]
			n := k.Load(a[2], k.AddC(q, 2), 1, true)[0]
			idx, ok := k.vocabFindString(a[0], a[4], fp, a[1], off, n)
			found(k, a[3], g, idx, ok)
		}))
	for _, c := range vcBucketizeKinds {
		body.Append(vcKernel(ctx, c.name(), []textir.Type{vcPtr(c.b), vcPtr(c.x), vcPtr(i64), i64, i64, i64},
			func(k *kb, a []*textir.Value, g *textir.Value) {
				x := k.Load(a[1], g, 1, true)[0]
				k.Store([]*textir.Value{k.bucketize(a[0], a[3], a[4], x, vcIters)}, a[2], g)
			}))
	}
	return top
}

// vcKind is an (x, boundaries) pair of element types of bucketize.
type vcKind struct{ x, b textir.Type }

func (c vcKind) name() string { return "bkt_" + textir.TypeString(c.x) + "_" + textir.TypeString(c.b) }

// vcBucketizeKinds are the kinds tested.
var vcBucketizeKinds = []vcKind{
	{textir.F32(), textir.F32()},
	{textir.I32(), textir.F32()},
	{textir.I64(), textir.F32()},
	{textir.F64(), textir.F32()},
	{textir.F64(), textir.F64()},
}

// vcParsed builds the module, verifies it, prints it, parses it back and
// checks that it prints the same; the tests run the parsed module.
func vcParsed(t *testing.T) *textir.Operation {
	t.Helper()
	ctx := all.NewContext()
	return roundTrip(t, ctx, vcModule(ctx), "vocab.mlir")
}

// vcRun launches @name over count threads with args (then count).
func vcRun(t *testing.T, top *textir.Operation, name string, count int64, args ...any) {
	t.Helper()
	launch(t, top, name, vcBlock, count, append(args, count)...)
}

func vcPoison(n int) []byte { return slices.Repeat([]byte{0xa5}, n) }

// vcTable is the words buffer of a test: vcBase words of filler, then the
// table, which ends the buffer (a read past it fails in the simulator).
func vcTable(v *abi.GPUVocab) []byte {
	w := slices.Repeat([]uint32{0xdeadbeef}, vcBase)
	return leBytes(append(w, v.Words...))
}

// vcResults reads the (index, found) pairs of count queries.
func vcResults(t *testing.T, out []byte, count int) (idx []int64, found []bool) {
	t.Helper()
	for i := range count {
		idx = append(idx, int64(binary.LittleEndian.Uint64(out[16*i:])))
		f := binary.LittleEndian.Uint64(out[16*i+8:])
		if f > 1 {
			t.Fatalf("query %d: found = %d", i, f)
		}
		found = append(found, f == 1)
	}
	return idx, found
}

// vcHostFind is the device's lookup in Go, on the words: the index, and
// the slots inspected.
func vcHostFind(v *abi.GPUVocab, key uint64) (idx int64, probes int64) {
	w := v.Words
	mask4, shift, max4, seed := int64(w[0]), int64(w[1]), int64(w[2]), int32(w[3])
	h4 := abi.VocabHome(int64(key), seed, shift) * 4
	for i := int64(0); i < max4; i += 4 {
		s := abi.VocabHeaderWords + (h4+i)&mask4
		if uint64(w[s])|uint64(w[s+1])<<32 == key && int32(w[s+2]) >= 0 {
			return int64(int32(w[s+2])), i/4 + 1
		}
		if int32(w[s+2]) < 0 {
			return -1, i/4 + 1
		}
	}
	return -1, max4 / 4
}

// vcIntKeys returns n random integer keys of a few shapes.
func vcIntKeys(r *rand.Rand, n int, shape int) []int64 {
	keys := make([]int64, n)
	for i := range keys {
		switch shape {
		case 0: // dense ids
			keys[i] = int64(i)
		case 1: // a stride: multiplicative hashing's bad case
			keys[i] = int64(i) << 20
		default:
			keys[i] = int64(r.Uint64())
			if r.IntN(4) == 0 {
				keys[i] = r.Int64N(2000) - 1000
			}
		}
	}
	if n > 3 {
		keys[0], keys[1], keys[2] = math.MinInt64, math.MaxInt64, 0
	}
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

func TestBuildGPUVocab(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 5000} {
		for shape := range 3 {
			keys := vcIntKeys(r, n, shape)
			v, err := abi.BuildGPUVocab(interp.Vector(keys...))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("n=%d/shape=%d", n, shape)
			last := map[int64]int64{} // random keys may repeat
			for i, key := range keys {
				last[key] = int64(i)
			}
			if v.Strings || v.Size != int64(len(last)) || v.Capacity < 2 || v.Capacity < 2*v.Size || v.Capacity&(v.Capacity-1) != 0 ||
				v.Capacity > max(2, 4*v.Size) {
				t.Errorf("%s: size %d, capacity %d", name, v.Size, v.Capacity)
			}
			if want := abi.VocabHeaderWords + abi.VocabSlotWords*v.Capacity; int64(len(v.Words)) != want {
				t.Errorf("%s: %d words, want %d", name, len(v.Words), want)
			}
			// Every key within MaxProbe; MaxProbe is tight.
			longest := int64(0)
			for key, i := range last {
				idx, p := vcHostFind(v, uint64(key))
				if idx != i {
					t.Fatalf("%s: key %d: index %d, want %d", name, key, idx, i)
				}
				longest = max(longest, p)
			}
			if longest != v.MaxProbe {
				t.Errorf("%s: longest probe %d, MaxProbe %d", name, longest, v.MaxProbe)
			}
			t.Logf("%s: capacity %d, MaxProbe %d, seed %d", name, v.Capacity, v.MaxProbe, v.Seed)
		}
	}
	// Duplicates: the last index, as the interpreter's map; Size counts
	// distinct keys.
	v, err := abi.BuildGPUVocab(interp.Vector[int64](5, 7, 5, 9, 7))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[int64]int64{5: 2, 7: 4, 9: 3, 6: -1} {
		if idx, _ := vcHostFind(v, uint64(key)); idx != want || v.Size != 3 {
			t.Errorf("duplicates: key %d: index %d (size %d), want %d (size 3)", key, idx, v.Size, want)
		}
	}
	s, err := abi.BuildGPUVocab(interp.Vector("b", "a", "b", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Strings || s.Size != 3 {
		t.Errorf("strings: Strings %v, size %d", s.Strings, s.Size)
	}
	for key, want := range map[string]int64{"a": 1, "b": 2, "": 3, "c": -1} {
		if idx, _ := vcHostFind(s, farm.Fingerprint64([]byte(key))); idx != want {
			t.Errorf("strings: key %q: index %d, want %d", key, idx, want)
		}
	}
	// The record of "b": length, then the bytes.
	if idx, _ := vcHostFind(s, farm.Fingerprint64([]byte("b"))); idx == 2 {
		h := abi.VocabHome(int64(farm.Fingerprint64([]byte("b"))), s.Seed, s.Shift)
		for p := int64(0); p < s.MaxProbe; p++ {
			at := abi.VocabHeaderWords + abi.VocabSlotWords*((h+p)&(s.Capacity-1))
			if s.Words[at+2] == 2 {
				rec := s.Words[at+3]
				if s.Words[rec] != 1 || s.Words[rec+1] != 'b' {
					t.Errorf("record of \"b\": %v", s.Words[rec:rec+2])
				}
			}
		}
	}
	for _, bad := range []*interp.Tensor{nil, interp.Vector[float32](1, 2), interp.Vector(true)} {
		if _, err := abi.BuildGPUVocab(bad); err == nil {
			t.Errorf("abi.BuildGPUVocab(%v): no error", bad)
		}
	}
}

// Integer vocabularies in the simulator: half the queries present, half
// absent, against a Go map (last duplicate wins).
func TestVocabIntKernel(t *testing.T) {
	top := vcParsed(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 5, 64, 1000, 4096} {
		for shape := range 3 {
			keys := vcIntKeys(r, n, shape)
			if n > 4 { // a duplicate
				keys[n-1] = keys[n/2]
			}
			want := map[int64]int64{}
			for i, k := range keys {
				want[k] = int64(i)
			}
			v, err := abi.BuildGPUVocab(interp.Vector(keys...))
			if err != nil {
				t.Fatal(err)
			}
			var qs []int64
			for i := range 2*n + 8 {
				switch {
				case i%2 == 0 && n > 0:
					qs = append(qs, keys[r.IntN(n)])
				case i%4 == 1:
					qs = append(qs, int64(r.Uint64()))
				default:
					q := r.Int64N(4000) - 2000
					if n > 0 {
						q = keys[r.IntN(n)] + 1
					}
					qs = append(qs, q)
				}
			}
			qs = append(qs, math.MinInt64, math.MaxInt64, 0, -1)
			out := vcPoison(16 * len(qs))
			vcRun(t, top, "int", int64(len(qs)), gpu.Buf{Data: vcTable(v)}, gpu.Buf{Data: leBytes(qs)}, gpu.Buf{Data: out}, int64(vcBase))
			idx, found := vcResults(t, out, len(qs))
			for i, q := range qs {
				w, ok := want[q]
				if !ok {
					w = -1
				}
				if idx[i] != w || found[i] != ok {
					t.Fatalf("n=%d shape=%d: key %d: (%d, %v), want (%d, %v)", n, shape, q, idx[i], found[i], w, ok)
				}
			}
		}
	}
}

// vcStringKeys returns n distinct random strings: the empty string, long
// keys and keys sharing prefixes among them.
func vcStringKeys(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(s string) {
		if !seen[s] && len(keys) < n {
			seen[s] = true
			keys = append(keys, s)
		}
	}
	add("")
	for len(keys) < n {
		var s string
		switch r.IntN(4) {
		case 0: // long
			b := make([]byte, 60+r.IntN(200))
			for i := range b {
				b[i] = byte(r.UintN(256))
			}
			s = string(b)
		case 1: // a prefix or extension of a key
			p := keys[r.IntN(len(keys))]
			if len(p) > 0 && r.IntN(2) == 0 {
				s = p[:r.IntN(len(p))]
			} else {
				s = p + string(rune('a'+r.IntN(26)))
			}
		default:
			s = fmt.Sprintf("feature_%d", r.IntN(100000))
		}
		add(s)
	}
	return keys
}

// String vocabularies in the simulator; queries present, absent
// (prefixes and extensions of keys included), and forged: a key's
// fingerprint with other bytes (same length or not), which must not be
// found, so the bytes are compared.
func TestVocabStringKernel(t *testing.T) {
	top := vcParsed(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 7, 300, 2000} {
		keys := vcStringKeys(r, n)
		if n > 4 { // a duplicate
			keys = append(keys, keys[1])
		}
		want := map[string]int64{}
		for i, k := range keys {
			want[k] = int64(i)
		}
		v, err := abi.BuildGPUVocab(interp.Vector(keys...))
		if err != nil {
			t.Fatal(err)
		}
		type query struct {
			s    string
			fp   uint64
			want int64
		}
		var qs []query
		look := func(s string) {
			w, ok := want[s]
			if !ok {
				w = -1
			}
			qs = append(qs, query{s, farm.Fingerprint64([]byte(s)), w})
		}
		for i := range 2*n + 8 {
			switch {
			case i%2 == 0 && n > 0:
				look(keys[r.IntN(len(keys))])
			case i%4 == 1 && n > 0:
				k := keys[r.IntN(len(keys))]
				if len(k) > 0 {
					look(k[:len(k)-1])
				} else {
					look("x")
				}
			default:
				look(fmt.Sprintf("absent_%d", r.IntN(1000)))
			}
		}
		look("")
		if n > 0 {
			for range 20 {
				k := keys[r.IntN(len(keys))]
				forged := k + "!"
				if len(k) > 0 && r.IntN(2) == 0 {
					b := []byte(k)
					b[r.IntN(len(b))] ^= 0x20
					forged = string(b)
				}
				if _, ok := want[forged]; !ok {
					qs = append(qs, query{forged, farm.Fingerprint64([]byte(k)), -1})
				}
			}
		}
		// The query bytes, each at an odd offset after filler.
		var buf []byte
		var meta []int64
		for _, q := range qs {
			buf = append(buf, vcPoison(1+2*r.IntN(3))...)
			meta = append(meta, int64(q.fp), int64(len(buf)), int64(len(q.s)))
			buf = append(buf, q.s...)
		}
		out := vcPoison(16 * len(qs))
		vcRun(t, top, "str", int64(len(qs)), gpu.Buf{Data: vcTable(v)}, gpu.Buf{Data: append(buf, 0)}, gpu.Buf{Data: leBytes(meta)},
			gpu.Buf{Data: out}, int64(vcBase))
		idx, found := vcResults(t, out, len(qs))
		for i, q := range qs {
			if idx[i] != q.want || found[i] != (q.want >= 0) {
				t.Fatalf("n=%d: key %q (fp %#x): (%d, %v), want %d", n, q.s, q.fp, idx[i], found[i], q.want)
			}
		}
	}
}

// vcBoundarySets are the boundaries of the bucketize tests: none, one
// (NaN included), signed zeros, infinities, duplicates, subnormals, the
// extremes of f32, and random sorted sets up to 2^vcIters - 1.
func vcBoundarySets(r *rand.Rand) [][]float32 {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	sets := [][]float32{
		{}, {0}, {float32(math.Copysign(0, -1))}, {1.5}, {nan}, {inf}, {-inf}, {-inf, inf},
		{-1, float32(math.Copysign(0, -1)), 0, 1}, {1, 1, 1, 2, 2}, {-3, -3},
		{-math.MaxFloat32, -math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32, 2e-45, 1.1754942e-38, math.MaxFloat32},
		{0x1p62, 0x1p62 + 0x1p39}, {-0x1p31, 0x1p31 - 128, 0x1p31},
	}
	for _, n := range []int{2, 3, 31, 32, 62, 63} {
		b := make([]float32, n)
		for i := range b {
			b[i] = float32(r.NormFloat64() * 100)
			if r.IntN(5) == 0 {
				b[i] = float32(r.IntN(20) - 10)
			}
		}
		slices.Sort(b)
		sets = append(sets, b)
	}
	return sets
}

// vcQueries returns the x values of a boundary set: each boundary and its
// f32 and f64 neighbours, zeros, infinities, NaN and random values.
func vcQueries(r *rand.Rand, bs []float32) []float64 {
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0x1p62 + 0x1p38 + 1, 0x1p31, -0x1p31}
	for _, b := range bs {
		d := float64(b)
		xs = append(xs, d, math.Nextafter(d, math.Inf(1)), math.Nextafter(d, math.Inf(-1)),
			float64(math.Nextafter32(b, float32(math.Inf(1)))), float64(math.Nextafter32(b, float32(math.Inf(-1)))), math.Round(d))
	}
	for range 40 {
		xs = append(xs, r.NormFloat64()*200)
	}
	return xs
}

// Bucketize in the simulator against tfops.Bucketize, for each kind of x
// and of boundaries, the boundaries at an offset in a buffer that ends
// with them (a probe outside [off, off+n) would fail or read filler NaNs).
func TestBucketizeKernel(t *testing.T) {
	top := vcParsed(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, kind := range vcBucketizeKinds {
		for si, bs := range vcBoundarySets(r) {
			xs := vcQueries(r, bs)
			var x *interp.Tensor
			var xb []byte
			switch kind.x {
			case textir.F32():
				v := make([]float32, len(xs))
				for i, f := range xs {
					v[i] = float32(f)
				}
				x, xb = interp.Vector(v...), leBytes(v)
			case textir.F64():
				x, xb = interp.Vector(xs...), leBytes(xs)
			case textir.I32():
				v := make([]int32, 0, len(xs))
				for _, f := range xs {
					if f == f && f >= math.MinInt32 && f <= math.MaxInt32 {
						v = append(v, int32(f))
					}
				}
				v = append(v, math.MinInt32, math.MaxInt32, math.MaxInt32-64, 1<<24+1)
				x, xb = interp.Vector(v...), leBytes(v)
			case textir.I64():
				v := make([]int64, 0, len(xs))
				for _, f := range xs {
					if f == f && f >= -0x1p63 && f < 0x1p63 {
						v = append(v, int64(f))
					}
				}
				v = append(v, math.MinInt64, math.MaxInt64, 1<<62+1<<38+1, 1<<62+1<<38, -(1<<62 + 1<<38 + 1), 1<<53+1)
				x, xb = interp.Vector(v...), leBytes(v)
			}
			want, err := tfops.Bucketize(x, bs)
			if err != nil {
				t.Fatal(err)
			}
			const off = 5
			var bf []byte
			if kind.b == textir.F64() {
				w := slices.Repeat([]float64{math.NaN()}, off)
				for _, b := range bs {
					w = append(w, float64(b))
				}
				bf = leBytes(w)
			} else {
				bf = leBytes(append(slices.Repeat([]float32{float32(math.NaN())}, off), bs...))
			}
			out := vcPoison(8 * x.Len())
			vcRun(t, top, kind.name(), int64(x.Len()), gpu.Buf{Data: bf}, gpu.Buf{Data: xb}, gpu.Buf{Data: out}, int64(off), int64(len(bs)))
			for i, w := range want.Int32s() {
				if got := int64(binary.LittleEndian.Uint64(out[8*i:])); got != int64(w) {
					t.Fatalf("%s: boundaries #%d %v: x = %v: bucket %d, want %d", kind.name(), si, bs, x.ElemString(i), got, w)
				}
			}
		}
	}
}

// vcF32ToF64 is exact on every class of f32: checked through bucketize
// with one boundary b and x = float64(b) and its f64 neighbours.
func TestBucketizeF32ToF64(t *testing.T) {
	top := vcParsed(t)
	r := rand.New(rand.NewPCG(9, 10))
	var bs []float32
	for _, u := range []uint32{0, 1, 2, 0x7fffff, 0x800000, 0x800001, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x4b000001} {
		bs = append(bs, math.Float32frombits(u), math.Float32frombits(u|1<<31))
	}
	for range 200 {
		bs = append(bs, math.Float32frombits(r.Uint32()))
	}
	kind := vcKind{textir.F64(), textir.F32()}
	for _, b := range bs {
		d := float64(b)
		xs := []float64{d, math.Nextafter(d, math.Inf(1)), math.Nextafter(d, math.Inf(-1)), math.NaN()}
		want, err := tfops.Bucketize(interp.Vector(xs...), []float32{b})
		if err != nil {
			t.Fatal(err)
		}
		out := vcPoison(8 * len(xs))
		vcRun(t, top, kind.name(), int64(len(xs)), gpu.Buf{Data: leBytes([]float32{b})}, gpu.Buf{Data: leBytes(xs)}, gpu.Buf{Data: out}, int64(0), int64(1))
		for i, w := range want.Int32s() {
			if got := int64(binary.LittleEndian.Uint64(out[8*i:])); got != int64(w) {
				t.Fatalf("boundary %v (%#x): x = %v: bucket %d, want %d", b, math.Float32bits(b), xs[i], got, w)
			}
		}
	}
}

// The module emits as NVPTX LLVM IR, and llc-19 compiles it (skipped
// without llc-19, except under CI=true).
func TestVocabPTX(t *testing.T) {
	top := vcParsed(t)
	ll, err := nvptx.EmitText(top)
	if err != nil {
		t.Fatal(err)
	}
	s := llctest.PTX(t, []byte(ll))
	want := []string{".entry int", ".entry str", "ld.global.nc.v4.u32", "ld.global.nc.u8"}
	for _, c := range vcBucketizeKinds {
		want = append(want, ".entry "+c.name())
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("no %q in the PTX", w)
		}
	}
}

// vcCount counts the ops in op's regions (nested ones included), but
// constants (immediates in the PTX).
func vcCount(op *textir.Operation) int {
	n := 0
	op.Walk(func(o *textir.Operation) bool {
		if o != op && o.Name() != arith.ConstantOp {
			n++
		}
		return true
	})
	return n
}

// vcFirstFor returns the first gpu.for in fn.
func vcFirstFor(fn *textir.Operation) *textir.Operation {
	var f *textir.Operation
	fn.Walk(func(o *textir.Operation) bool {
		if f == nil && o.Name() == gpu.ForOp {
			f = o
		}
		return f == nil
	})
	return f
}

// Code size: the ops each emitter adds (constants aside: immediates in the
// PTX) and those of its loop body (one probe, one search step), bounded so
// that growth shows.
func TestVocabCodeSize(t *testing.T) {
	ctx := all.NewContext()
	i8p := vcPtr(textir.I8())
	for _, c := range []struct {
		name          string
		x, b          textir.Type // the key / x type, the boundaries' element type
		total, perFor int
	}{
		{"vocabFindInt", i64, nil, 30, 13},
		{"vocabFindString", i64, nil, 52, 34},
		{"bucketize", f32, f32, 13, 10},
		{"bucketize", textir.I64(), f32, 14, 10},
		{"bucketize", textir.F64(), textir.F64(), 13, 10},
		{"bucketize", textir.F64(), f32, 40, 36},
	} {
		inputs := []textir.Type{vcPtr(i32), i8p, i64, i64, c.x}
		if c.b != nil {
			inputs[0] = vcPtr(c.b)
		}
		fn := gpu.NewFunc(ctx, vcLoc, "f", &textir.FunctionType{Inputs: inputs}, true)
		a := fn.Region(0).Front().Args()
		b := textir.NewBuilder(ctx)
		b.SetInsertionPointToEnd(fn.Region(0).Front())
		k := &kb{kernelir.Builder{B: b, Loc: vcLoc}}
		switch c.name {
		case "vocabFindInt":
			k.vocabFindInt(a[0], a[2], a[4])
		case "vocabFindString":
			k.vocabFindString(a[0], a[2], a[4], a[1], a[2], a[3])
		default:
			k.bucketize(a[0], a[2], a[3], a[4], vcIters)
		}
		name := c.name
		if c.b != nil {
			name += "(" + textir.TypeString(c.x) + ", " + textir.TypeString(c.b) + ")"
		}
		total, loop := vcCount(fn), vcCount(vcFirstFor(fn))
		t.Logf("%s: %d ops, %d in the loop", name, total, loop)
		if total > c.total || loop > c.perFor {
			t.Errorf("%s: %d ops, %d in the loop; at most %d and %d expected", name, total, loop, c.total, c.perFor)
		}
	}
}
