package tfops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// naiveMatMul is the definition: float64 sums in order p = 0..k-1.
func naiveMatMul(a, b []float32, m, n, k int) []float32 {
	r := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			acc := 0.0
			for p := 0; p < k; p++ {
				acc += float64(a[i*k+p]) * float64(b[p*n+j])
			}
			r[i*n+j] = float32(acc)
		}
	}
	return r
}

// TestMatMulTiled checks the tiled, parallel, zero-skipping kernel against
// the definition bit for bit, on sizes around the tile edges, with zeros
// in a (ReLU outputs) and non-finite values in b.
func TestMatMulTiled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		m, n, k   int
		nonFinite bool
	}{
		{1, 1, 1, false}, {3, 5, 7, false}, {17, 257, 129, false}, {64, 300, 260, false},
		{40, 513, 131, true},
	} {
		a := make([]float32, c.m*c.k)
		for i := range a {
			if r.IntN(3) > 0 {
				a[i] = float32(r.NormFloat64())
			}
		}
		b := make([]float32, c.k*c.n)
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		if c.nonFinite {
			b[5*c.n+3] = float32(math.Inf(1))
			b[9*c.n+1] = float32(math.NaN())
		}
		got, err := MatMul(tn(sh(int64(c.m), int64(c.k)), a...), tn(sh(int64(c.k), int64(c.n)), b...), false, false)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveMatMul(a, b, c.m, c.n, c.k)
		g := got.Float32s()
		for i := range want {
			if math.Float32bits(g[i]) != math.Float32bits(want[i]) && !(g[i] != g[i] && want[i] != want[i]) {
				t.Fatalf("%dx%dx%d: element %d = %v, want %v", c.m, c.n, c.k, i, g[i], want[i])
			}
		}
	}
}

// BenchmarkMatMulTopMLP is model E's first top layer at batch 256: [256,
// 8152] x [8152, 1024], about half of the inputs zero.
func BenchmarkMatMulTopMLP(b *testing.B) {
	const m, k, n = 256, 8152, 1024
	r := rand.New(rand.NewPCG(1, 2))
	av := make([]float32, m*k)
	for i := range av {
		if r.IntN(2) == 0 {
			av[i] = r.Float32()
		}
	}
	bv := make([]float32, k*n)
	for i := range bv {
		bv[i] = r.Float32() - 0.5
	}
	x, w := interp.Must(interp.New([]int64{m, k}, av)), interp.Must(interp.New([]int64{k, n}, bv))
	for b.Loop() {
		if _, err := MatMul(x, w, false, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
}

// TestPow covers TensorFlow's CPU Pow: floats through pow(3) with
// broadcasting (a negative base to a fractional power is NaN), integers by
// squaring with wrap-around, negative integer exponents refused, and the
// dtypes the CPU kernel has.
func TestPow(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		name    string
		x, y    *interp.Tensor
		want    *interp.Tensor
		wantErr string
	}{
		{"float broadcast scalar", tn(sh(2, 2), float32(1), 2, 3, -4), sc(float32(2)), tn(sh(2, 2), float32(1), 4, 9, 16), ""},
		{"float broadcast row", tn(sh(2, 2), float32(4), 9, 16, 25), tn(sh(2), float32(0.5), 1), tn(sh(2, 2), float32(2), 9, 4, 25), ""},
		{"float negative base fractional", vec(float32(-8), 0), vec(float32(1.0/3), -1), vec(nan, float32(math.Inf(1))), ""},
		{"float64", vec(2.0, 10), vec(-1.0, 3), vec(0.5, 1000), ""},
		{"int32", vec[int32](2, -3, 0, 7), vec[int32](10, 3, 0, 1), vec[int32](1024, -27, 1, 7), ""},
		{"int32 wraps", vec[int32](2), vec[int32](31), vec[int32](math.MinInt32), ""},
		{"int64", vec[int64](3), vec[int64](39), vec[int64](4052555153018976267), ""},
		{"int negative exponent", vec[int64](2), vec[int64](-1), nil, "Integers to negative integer powers are not allowed"},
		{"int8 has no CPU kernel", vec[int8](2), vec[int8](2), nil, "unsupported dtype"},
		{"dtype mismatch", vec[float32](2), vec[float64](2), nil, "expected to be a float32"},
		{"shapes", vec[float32](1, 2), vec[float32](1, 2, 3), nil, "incompatible shapes"},
	} {
		got, err := Pow(c.x, c.y)
		if c.wantErr == "" && err == nil {
			// NaN positions must agree: AllClose treats NaN as equal to NaN.
			if cerr := got.AllClose(c.want, 1e-6, 0); cerr != nil {
				t.Errorf("%s: %v (got %v)", c.name, cerr, got)
			}
			continue
		}
		check(t, "Pow "+c.name, got, err, c.want, c.wantErr)
	}
}
