package embtogpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/kernelir"
	"github.com/recom-compiler/recom/textir"
)

var fhLoc = textir.NameLoc{Name: "farmhash"}

const fhBlock = 128

// fhModule returns a builtin.module holding gpu.module @fh with
//
//	@str(%bytes: !gpu.ptr<i8, global>, %spans: !gpu.ptr<i64, global>, %out: !gpu.ptr<i64, global>, %count: i64, %buckets: i64)
//	    out[2g] = Fingerprint64(bytes[spans[2g] : spans[2g]+spans[2g+1]]), out[2g+1] = out[2g] mod buckets
//	@num(%vals: !gpu.ptr<i64, global>, %out: !gpu.ptr<i64, global>, %count: i64, %buckets: i64)
//	    out[2g] = Fingerprint64(AsString(vals[g])), out[2g+1] = out[2g] mod buckets
func fhModule(ctx *textir.Context) *textir.Operation {
	top := builtin.NewModule(ctx, fhLoc)
	gm := gpu.NewModule(ctx, fhLoc, "fh")
	builtin.Body(top).Append(gm)
	ptr := func(t textir.Type) textir.Type { return gpu.PtrType(t, gpu.Global) }
	// Threads g < count, the next-to-last argument, run each kernel's body.
	fhKernel := func(ctx *textir.Context, name string, inputs []textir.Type, f func(k *kb, a []*textir.Value, g *textir.Value)) *textir.Operation {
		return testKernel(ctx, fhLoc, name, fhBlock, inputs, len(inputs)-2, f)
	}
	out := func(k *kb, o, g, h, buckets *textir.Value) {
		k.Store([]*textir.Value{h, k.hashBucket(h, buckets)}, o, k.mulc(g, 2))
	}
	gm.Region(0).Front().Append(fhKernel(ctx, "str", []textir.Type{ptr(textir.I8()), ptr(i64), ptr(i64), i64, i64},
		func(k *kb, a []*textir.Value, g *textir.Value) {
			sp := k.Load(a[1], k.mulc(g, 2), 2, true)
			out(k, a[2], g, k.fingerprint64(a[0], sp[0], sp[1]), a[4])
		}))
	gm.Region(0).Front().Append(fhKernel(ctx, "num", []textir.Type{ptr(i64), ptr(i64), i64, i64},
		func(k *kb, a []*textir.Value, g *textir.Value) {
			v := k.Load(a[0], g, 1, true)[0]
			out(k, a[1], g, k.fingerprint64Int(v), a[3])
		}))
	return top
}

// fhLaunch runs kernel name of top over count threads; args are the
// kernel's leading buffers; it returns the (hash, bucket) pairs.
func fhLaunch(t *testing.T, top *textir.Operation, name string, count, buckets int64, bufs ...[]byte) (hash, bucket []uint64) {
	t.Helper()
	out := make([]byte, 16*count)
	for i := range out {
		out[i] = 0xff
	}
	var args []any
	for _, b := range bufs {
		args = append(args, gpu.Buf{Data: b})
	}
	launch(t, top, name, fhBlock, count, append(args, gpu.Buf{Data: out}, count, buckets)...)
	for i := range count {
		hash = append(hash, binary.LittleEndian.Uint64(out[16*i:]))
		bucket = append(bucket, binary.LittleEndian.Uint64(out[16*i+8:]))
	}
	return hash, bucket
}

// fhStrings lays strs out in one byte buffer, each at an odd offset after
// random filler, the last string ending in the buffer's last 4-byte word
// (fingerprint64 reads whole aligned words, never one past the word of a
// string's last byte: the packed inputs pad their string bytes to 16), and
// returns the buffer and the (offset, length) spans.
func fhStrings(r *rand.Rand, strs [][]byte) ([]byte, []int64) {
	var buf []byte
	var spans []int64
	for i, s := range strs {
		pad := r.IntN(9)
		if (len(buf)+pad)%2 == 0 {
			pad++
		}
		if i == len(strs)-1 {
			pad = 0
		}
		for range pad {
			buf = append(buf, byte(r.Uint32()))
		}
		spans = append(spans, int64(len(buf)), int64(len(s)))
		buf = append(buf, s...)
	}
	for len(buf)%4 != 0 {
		buf = append(buf, 0xa5)
	}
	return buf, spans
}

func TestFarmhashStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var strs [][]byte
	for _, s := range []string{"", "a", "b", "c", "d", "hello", "hello, world", "TensorFlow",
		"The quick brown fox jumps over the lazy dog",
		strings.Repeat("x", 64), strings.Repeat("y", 65), strings.Repeat("z", 128), strings.Repeat("w", 129), "\xff\x80\x00\x7f"} {
		strs = append(strs, []byte(s))
	}
	for n := range 201 {
		for range 3 {
			s := make([]byte, n)
			for i := range s {
				s[i] = byte(r.Uint32())
			}
			strs = append(strs, s)
		}
	}
	for _, n := range []int{1000, 4097} {
		s := make([]byte, n)
		for i := range s {
			s[i] = byte(r.Uint32())
		}
		strs = append(strs, s)
	}
	strs = append(strs, []byte("ends at the buffer's end, 33 b..."), nil)
	buf, spans := fhStrings(r, strs)
	const buckets = 1000003
	ctx := all.NewContext()
	top := fhModule(ctx)
	if err := textir.Verify(ctx, top); err != nil {
		t.Fatal(err)
	}
	hash, bucket := fhLaunch(t, top, "str", int64(len(strs)), buckets, buf, leBytes(spans))
	for i, s := range strs {
		want := farm.Fingerprint64(s)
		if hash[i] != want || bucket[i] != want%buckets {
			t.Errorf("string #%d (%d bytes at offset %d): hash %#x bucket %d, want %#x %d", i, len(s), spans[2*i], hash[i], bucket[i], want, want%buckets)
		}
	}
	// TensorFlow's StringToHashBucketFast examples (string_to_hash_bucket_op_test.py).
	tf := map[string]uint64{"a": 12917804110809363939, "b": 11795596070477164822, "c": 11430444447143000872, "d": 4470636696479570465}
	for i, s := range strs[:5] {
		if w, ok := tf[string(s)]; ok && hash[i] != w {
			t.Errorf("Fingerprint64(%q) = %d, TensorFlow says %d", s, hash[i], w)
		}
	}
	tfBuf, tfSpans := fhStrings(r, [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")})
	_, b10 := fhLaunch(t, top, "str", 4, 10, tfBuf, leBytes(tfSpans))
	for i, w := range []uint64{9, 2, 2, 5} {
		if b10[i] != w {
			t.Errorf("bucket of %q in 10: %d, TensorFlow says %d", "abcd"[i:i+1], b10[i], w)
		}
	}
}

func TestFarmhashInts(t *testing.T) {
	vals := []int64{0, 1, -1, 9, -9, 10, -10, 99, 100, -100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p <= 1e18; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p+1, -p, -p-1)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		v := int64(r.Uint64()) >> r.IntN(64)
		vals = append(vals, v)
	}
	ctx := all.NewContext()
	top := fhModule(ctx)
	const buckets = 97
	hash, bucket := fhLaunch(t, top, "num", int64(len(vals)), buckets, leBytes(vals))
	for i, v := range vals {
		want := farm.Fingerprint64([]byte(strconv.FormatInt(v, 10)))
		if hash[i] != want || bucket[i] != want%buckets {
			t.Errorf("%d: hash %#x bucket %d, want %#x %d", v, hash[i], bucket[i], want, want%buckets)
		}
	}
}

// The kernels verify, print and parse back to the same text, and
// backend/nvptx emits them for llc-19 (needed under CI=true).
func TestFarmhashIR(t *testing.T) {
	ctx := all.NewContext()
	back := roundTrip(t, ctx, fhModule(ctx), "farmhash.mlir")
	// The parsed kernels compute what the built ones do.
	r := rand.New(rand.NewPCG(5, 6))
	strs := [][]byte{nil, []byte("a"), []byte("hello"), []byte(strings.Repeat("farmhash", 20))}
	buf, spans := fhStrings(r, strs)
	hash, _ := fhLaunch(t, back, "str", int64(len(strs)), 7, buf, leBytes(spans))
	for i, s := range strs {
		if w := farm.Fingerprint64(s); hash[i] != w {
			t.Errorf("parsed @str, %q: %#x, want %#x", s, hash[i], w)
		}
	}
	hash, _ = fhLaunch(t, back, "num", 2, 7, leBytes([]int64{-12345678901234567, 42}))
	for i, v := range []string{"-12345678901234567", "42"} {
		if w := farm.Fingerprint64([]byte(v)); hash[i] != w {
			t.Errorf("parsed @num, %s: %#x, want %#x", v, hash[i], w)
		}
	}
	ll, err := nvptx.EmitText(back)
	if err != nil {
		t.Fatal(err)
	}
	s := llctest.PTX(t, []byte(ll))
	for _, want := range []string{".entry str", ".entry num", "ld.global.nc.u32"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in the PTX", want)
		}
	}
}

// Code size: the ops each emitter adds (constants included), bounded so
// that growth shows; the hash is inlined once per schedule class.
// fingerprint64: 575 since its 8..16-byte path of two fetches;
// fingerprint64Int: 240 since its digit count (18 independent
// comparisons, so that the digit loop makes one trip per digit).
func TestFarmhashSize(t *testing.T) {
	ctx := all.NewContext()
	ptr := gpu.PtrType(textir.I8(), gpu.Global)
	for _, c := range []struct {
		name string
		max  int
		emit func(k *kb, a []*textir.Value) *textir.Value
	}{
		{"fingerprint64", 600, func(k *kb, a []*textir.Value) *textir.Value { return k.fingerprint64(a[0], a[1], a[2]) }},
		{"fingerprint64Int", 250, func(k *kb, a []*textir.Value) *textir.Value { return k.fingerprint64Int(a[1]) }},
		{"hashBucket", 1, func(k *kb, a []*textir.Value) *textir.Value { return k.hashBucket(a[1], a[2]) }},
	} {
		fn := gpu.NewFunc(ctx, fhLoc, "f", &textir.FunctionType{Inputs: []textir.Type{ptr, i64, i64}}, false)
		b := textir.NewBuilder(ctx)
		b.SetInsertionPointToEnd(fn.Region(0).Front())
		c.emit(&kb{kernelir.Builder{B: b, Loc: fhLoc}}, fn.Region(0).Front().Args())
		n := -1 // the gpu.func
		fn.Walk(func(*textir.Operation) bool { n++; return true })
		t.Logf("%s: %d ops", c.name, n)
		if n > c.max {
			t.Errorf("%s emits %d ops, more than %d", c.name, n, c.max)
		}
	}
}
