package shardrt

import (
	"encoding/binary"
	"math"
)

func putF32(b []byte, i int64, v float32) {
	binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
}
