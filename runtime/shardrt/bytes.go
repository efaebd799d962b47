package shardrt

import (
	"encoding/binary"
	"math"
)

func f32At(b []byte, i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
}

func putF32(b []byte, i int64, v float32) {
	binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
}
