package cublaslt

import "math"

// Bfloat16 is a bfloat16 (CUDA_R_16BF) value's bits: an fp32 with the low
// 16 bits of the mantissa dropped (1 sign, 8 exponent, 7 mantissa bits).
// cuda.CopyToDevice copies slices of it.
type Bfloat16 uint16

// RoundBF16 rounds f to the nearest bfloat16, ties to even, as the GPU's
// cvt.rn.bf16.f32 does: finite values too large for bfloat16 become
// infinities of their sign, infinities stay, subnormals round like any
// other value, and a NaN stays a NaN (quiet, with its sign and the top of
// its payload).
func RoundBF16(f float32) Bfloat16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 { // NaN: truncating could leave an infinity
		return Bfloat16(u>>16 | 0x0040)
	}
	// Adding 0x7fff, plus 1 when the kept part is odd, carries into the
	// kept part exactly when the dropped part is over half, or half with
	// the kept part odd.
	u += 0x7fff + (u>>16)&1
	return Bfloat16(u >> 16)
}

// Float32 is b's value (exact: every bfloat16 is an fp32).
func (b Bfloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// ToBF16 rounds every value of src with RoundBF16, for weights (and
// inputs) of a BF16 plan.
func ToBF16(src []float32) []Bfloat16 {
	dst := make([]Bfloat16, len(src))
	for i, f := range src {
		dst[i] = RoundBF16(f)
	}
	return dst
}
