package serve

import (
	"encoding/binary"
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

// alignedBuf is an empty buffer of capacity n whose byte at index at is
// 8-aligned: the binary tensor data after a JSON header of at bytes is
// then aligned for every element type.
func alignedBuf(n, at int) []byte {
	b := make([]byte, n+8)
	off := (8 - int((uintptr(unsafe.Pointer(&b[0]))+uintptr(at))%8)) % 8
	return b[off : off : off+n]
}
