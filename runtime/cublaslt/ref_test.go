package cublaslt

import (
	"math"
	"math/rand/v2"
)

// hostGEMM holds one product's host matrices, stored as g says (X B×K or
// K×B, W K×N or N×K, row-major), and computes reference rows of Y.
type hostGEMM struct {
	g          GEMM
	x, w, bias []float32
}

// newHostGEMM draws X, W and the bias uniformly from [-1, 1).
func newHostGEMM(g GEMM, r *rand.Rand) *hostGEMM {
	h := &hostGEMM{g: g, x: make([]float32, g.B*g.K), w: make([]float32, g.K*g.N), bias: make([]float32, g.N)}
	for _, s := range [][]float32{h.x, h.w, h.bias} {
		for i := range s {
			s[i] = float32(2*r.Float64() - 1)
		}
	}
	return h
}

// rounded returns h with the values its plan reads: X and W in bfloat16
// for BF16 (from memory), in TF32 for TF32 (the tensor cores' inputs, as
// the simulator models them), the bias in bfloat16 for a bf16 output.
func (h *hostGEMM) rounded() *hostGEMM {
	r := &hostGEMM{g: h.g, x: h.x, w: h.w, bias: h.bias}
	bf := func(s []float32) []float32 {
		o := make([]float32, len(s))
		for i, v := range s {
			o[i] = RoundBF16(v).Float32()
		}
		return o
	}
	tf := func(s []float32) []float32 {
		o := make([]float32, len(s))
		for i, v := range s {
			o[i] = float32(roundTF32(float64(v)))
		}
		return o
	}
	switch h.g.Precision {
	case BF16:
		r.x, r.w = bf(h.x), bf(h.w)
	case TF32:
		r.x, r.w = tf(h.x), tf(h.w)
	}
	if h.g.OutBF16 {
		r.bias = bf(h.bias)
	}
	return r
}

func (h *hostGEMM) xAt(b, k int64) float64 {
	if h.g.TransposeX {
		return float64(h.x[k*h.g.B+b])
	}
	return float64(h.x[b*h.g.K+k])
}

// row computes row b of Y in float64: the sum over k in ascending order,
// then the bias and the ReLU the epilogue says.
func (h *hostGEMM) row(b int64) []float64 {
	g := h.g
	y := make([]float64, g.N)
	for k := range g.K {
		xv := h.xAt(b, k)
		if g.TransposeW {
			for n := range g.N {
				y[n] += xv * float64(h.w[n*g.K+k])
			}
			continue
		}
		wr := h.w[k*g.N : (k+1)*g.N]
		for n, wv := range wr {
			y[n] += xv * float64(wv)
		}
	}
	for n := range y {
		if g.Epilogue.HasBias() {
			y[n] += float64(h.bias[n])
		}
		if g.Epilogue == EpilogueReLU || g.Epilogue == EpilogueReLUBias {
			y[n] = math.Max(y[n], 0)
		}
	}
	return y
}

// store is the value a plan stores for v: fp32, or bf16 of the fp32.
func store(g GEMM, v float64) float32 {
	if g.OutBF16 {
		return RoundBF16(float32(v)).Float32()
	}
	return float32(v)
}
