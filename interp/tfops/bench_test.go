package tfops

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// BenchmarkSparseSegmentMean pools 256 bags of 1000 ids each from a
// 100,000 x 16 float32 table.
func BenchmarkSparseSegmentMean(b *testing.B) {
	const rows, dim, bags, perBag = 100000, 16, 256, 1000
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = r.Float32()
	}
	ind := make([]int32, bags*perBag)
	ids := make([]int32, bags*perBag)
	for i := range ind {
		ind[i] = int32(r.IntN(rows))
		ids[i] = int32(i / perBag)
	}
	d := tn(sh(rows, dim), data...)
	it, st := vec(ind...), vec(ids...)
	b.ResetTimer()
	for b.Loop() {
		if _, err := SparseSegmentMean(d, it, st); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bags*perBag)*float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}

// BenchmarkStringToHashBucketFast hashes 1M short strings.
func BenchmarkStringToHashBucketFast(b *testing.B) {
	const n = 1 << 20
	s := make([]string, n)
	for i := range s {
		s[i] = "user_" + strconv.Itoa(i*7919)
	}
	x := interp.Vector(s...)
	b.ResetTimer()
	for b.Loop() {
		if _, err := StringToHashBucketFast(x, 10000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "strings/s")
}

// BenchmarkHead runs, on a batch of 2048 float32 rows, the ops a wide &
// deep classifier head leaves on the host after the GPU graph (the real
// taxi export's: Sum of the linear part's [B, 9] over axis 1, BiasAdd,
// AddV2 of the wide and deep logits, ConcatV2 of two logits, Softmax).
func BenchmarkHead(b *testing.B) {
	const rows = 2048
	r := rand.New(rand.NewPCG(3, 4))
	f := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()
		}
		return v
	}
	lin := tn(sh(rows, 9), f(rows*9)...)
	deep := tn(sh(rows, 1), f(rows)...)
	bias := tn(sh(1), f(1)...)
	axis := tn(sh(), int32(1))
	logits := tn(sh(rows, 2), f(rows*2)...)
	for _, c := range []struct {
		name string
		run  func() (*interp.Tensor, error)
	}{
		{"Sum", func() (*interp.Tensor, error) { return Sum(lin, axis, true) }},
		{"BiasAdd", func() (*interp.Tensor, error) { return BiasAdd(deep, bias, "NHWC") }},
		{"AddV2", func() (*interp.Tensor, error) { return AddV2(deep, deep) }},
		{"ConcatV2", func() (*interp.Tensor, error) { return ConcatV2([]*interp.Tensor{deep, deep}, axis) }},
		{"Softmax", func() (*interp.Tensor, error) { return Softmax(logits) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
