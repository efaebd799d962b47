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
