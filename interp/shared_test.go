package interp

import "testing"

func TestNewShared(t *testing.T) {
	shape := []int64{2, 3}
	x, err := NewShared(shape, make([]float32, 6))
	if err != nil {
		t.Fatal(err)
	}
	if got := x.ShapeView(); len(got) != 2 || &got[0] != &shape[0] {
		t.Fatalf("shape %v is not the caller's", got)
	}
	if _, err := NewShared([]int64{2, 3}, make([]float32, 5)); err == nil {
		t.Fatal("5 elements for shape [2,3]: no error")
	}
	if _, err := NewShared([]int64{-1}, []int32{}); err == nil {
		t.Fatal("negative dimension: no error")
	}
	s, err := NewShared[int64](nil, []int64{7})
	if err != nil || s.Rank() != 0 || s.Len() != 1 {
		t.Fatalf("scalar: %v, %v", s, err)
	}
}
