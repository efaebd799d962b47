package serve

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unsafe"
)

// littleEndian says whether the host stores numbers as the binary tensor
// data extension and raw_input_contents do (little-endian): then raw
// tensors are used where they lie.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// rawElem are the element types rawAs reads.
type rawElem interface {
	int8 | int16 | int32 | int64 | uint8 | float32 | float64
}

// rawAs is raw (exactly n little-endian elements' bytes) as a []T: a view
// of raw itself when the host is little-endian and raw is aligned for T
// (raw is never written after: the body or message it is part of is
// read-only once received), else a copy.
func rawAs[T rawElem](raw []byte, n int) []T {
	if n == 0 {
		return []T{}
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if littleEndian && uintptr(unsafe.Pointer(&raw[0]))%unsafe.Alignof(zero) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&raw[0])), n)
	}
	v := make([]T, n)
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), n*size), raw)
		return v
	}
	_, _ = binary.Decode(raw, binary.LittleEndian, v) // the caller checked len(raw) == n*size
	return v
}

// Request bodies are read into pooled buffers (by size class, powers of
// two) and given back once the request is answered: nothing of a request
// outlives it (decoded tensors are views of the body, and the batcher is
// done with a request's feeds before it replies; Batcher.DoTimed waits
// for that even when the client is gone).
var bodyPools [48]sync.Pool // of *[]byte, by bits.Len of the capacity - 1

// getBody is a buffer for a body of n bytes whose byte at index at is
// 8-aligned (at < 0: any), and the pooled buffer to give back to putBody.
func getBody(n, at int) (buf []byte, pooled *[]byte) {
	c := bits.Len(uint(n + 8 - 1))
	if c >= len(bodyPools) {
		return make([]byte, 0, n), nil
	}
	p, _ := bodyPools[c].Get().(*[]byte)
	if p == nil {
		b := make([]byte, 1<<c)
		p = &b
	}
	b := *p
	off := 0
	if at >= 0 {
		off = (8 - int((uintptr(unsafe.Pointer(&b[0]))+uintptr(at))%8)) % 8
	}
	return b[off : off : off+n], p
}

// putBody gives a buffer of getBody back.
func putBody(p *[]byte) {
	if p != nil {
		bodyPools[bits.Len(uint(cap(*p)-1))].Put(p)
	}
}
