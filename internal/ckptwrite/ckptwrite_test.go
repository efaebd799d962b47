package ckptwrite

import (
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/frontend/checkpoint"
	"github.com/recom-compiler/recom/interp"
)

// TestReadBack: what the writer writes, frontend/checkpoint reads back:
// every dtype over three shards, and a tensor partitioned in three slices
// (one of them of a whole dimension) reassembled.
func TestReadBack(t *testing.T) {
	b := New(3)
	want := map[string]*interp.Tensor{
		"f32":  interp.Must(interp.New([]int64{2, 2}, []float32{1, -2, 3.5, 4})),
		"f64":  interp.Vector[float64](1e300, -1),
		"i8":   interp.Vector[int8](-128, 127),
		"i16":  interp.Vector[int16](-3, 300),
		"i32":  interp.Vector[int32](7, -70000),
		"i64":  interp.Scalar(int64(-1) << 40),
		"u8":   interp.Vector[uint8](0, 255),
		"bool": interp.Vector(true, false, true),
		"str":  interp.Vector("a", "", "bc\x00d"),
		"none": interp.Must(interp.New([]int64{0, 3}, []float32{})),
	}
	i := 0
	for k, v := range want {
		b.Add(k, v, i%3)
		i++
	}
	// Starts and lengths of one and two bytes of ordered code (64 and
	// more take two).
	emb := make([]float32, 600)
	for j := range emb {
		emb[j] = float32(j)
	}
	full := interp.Must(interp.New([]int64{300, 2}, emb))
	parts := [][2][]int64{{{0, 0}, {70, -1}}, {{70, 0}, {130, 2}}, {{200, 0}, {100, 2}}}
	for j, p := range parts {
		part := interp.Must(checkpoint.Extract(full, checkpoint.Slice{Start: p[0], Length: p[1]}))
		b.AddSlice("emb", []int64{300, 2}, p[0], p[1], part, j)
	}
	want["emb"] = full
	prefix, err := b.Write(filepath.Join(t.TempDir(), "model.ckpt-7"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := checkpoint.Read(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d tensors, want %d", len(got), len(want))
	}
	for k, w := range want {
		if err := got[k].Equal(w); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
