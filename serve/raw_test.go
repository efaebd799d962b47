package serve

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/recom-compiler/recom/interp"
)

// TestRawAs: raw tensors read the same from aligned bytes (a view) and
// misaligned ones (a copy), for every fixed-size dtype.
func TestRawAs(t *testing.T) {
	for _, src := range []*interp.Tensor{
		interp.Vector[float32](1.5, -2, 3e38),
		interp.Vector[float64](1.5, -2, 3e300),
		interp.Vector[int8](-128, 0, 127),
		interp.Vector[int16](-32768, 1, 32767),
		interp.Vector[int32](-1<<31, 2, 1<<31-1),
		interp.Vector[int64](-1<<63, 3, 1<<63-1),
		interp.Vector[uint8](0, 1, 255),
		interp.Vector(true, false, true),
	} {
		raw := AppendRaw(nil, src)
		buf, _ := getBody(len(raw)+1, 0)
		aligned := append(buf, raw...)
		mbuf, _ := getBody(len(raw)+1, 0)
		misaligned := append(mbuf, 0)
		misaligned = append(misaligned, raw...)[1:]
		if uintptr(unsafe.Pointer(&aligned[0]))%8 != 0 || uintptr(unsafe.Pointer(&misaligned[0]))%8 == 0 {
			t.Fatal("getBody's buffer is not 8-aligned")
		}
		for name, b := range map[string][]byte{"aligned": aligned, "misaligned": misaligned} {
			got, err := decodeRaw(src.DType(), []int64{3}, b)
			if err != nil {
				t.Fatalf("%v %s: %v", src.DType(), name, err)
			}
			if fmt.Sprint(got.Data()) != fmt.Sprint(src.Data()) {
				t.Errorf("%v %s: %v, want %v", src.DType(), name, got.Data(), src.Data())
			}
		}
	}
	// getBody aligns the byte at the given index, in a new buffer and in
	// one given back and reused (a size class: powers of two).
	for at := range 9 {
		for range 2 {
			b, p := getBody(64, at)
			if p := uintptr(unsafe.Pointer(&b[:at+1][at])); p%8 != 0 {
				t.Errorf("getBody(64, %d): byte %d at %#x", at, at, p)
			}
			if len(b) != 0 || cap(b) != 64 || p == nil || cap(*p) != 128 {
				t.Errorf("getBody(64, %d): len %d cap %d, pooled %v", at, len(b), cap(b), p != nil)
			}
			putBody(p)
		}
	}
}
