package nccl

import (
	"encoding/binary"
	"math"
	"unsafe"
)

func unsafeSlice[T any](p *T, n int) []T { return unsafe.Slice(p, n) }

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func putF32(b []byte, i uint64, v float32) {
	binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
}
