package interp

import (
	"math"
	"testing"
)

// TestView: a View's tensor is the same tensor after every Set, its Data
// shows the elements of the last Set, a []T taken before keeps the old
// ones, a Set that does not fit its shape changes nothing, Clear drops
// the elements, and Set does not allocate.
func TestView(t *testing.T) {
	v := NewView[int64]()
	x := v.Tensor()
	if x.DType() != Int64 || x.Len() != 0 || x.Rank() != 1 {
		t.Fatalf("new view: %v %v", x.DType(), x.Shape())
	}
	a, b := []int64{1, 2, 3, 4, 5, 6}, []int64{7, 8}
	if !v.Set([]int64{3, 2}, a) || v.Tensor() != x {
		t.Fatal("Set of a [3, 2] view failed")
	}
	old := x.Int64s()
	if !v.Set([]int64{2, 1}, b) {
		t.Fatal("Set of a [2, 1] view failed")
	}
	if got := x.Int64s(); len(got) != 2 || got[0] != 7 || x.Dim(0) != 2 || x.Dim(1) != 1 {
		t.Fatalf("after Set: %v of shape %v", got, x.Shape())
	}
	if len(old) != 6 || old[5] != 6 {
		t.Fatalf("a slice taken before Set changed: %v", old)
	}
	for _, bad := range []struct {
		shape []int64
		data  []int64
	}{{[]int64{3}, b}, {[]int64{-1, -2}, b}, {[]int64{math.MaxInt64, 4}, b}, {make([]int64, MaxRank+1), nil}} {
		if v.Set(bad.shape, bad.data) {
			t.Errorf("Set(%v, %d elements) succeeded", bad.shape, len(bad.data))
		}
	}
	if got := x.Int64s(); len(got) != 2 || got[1] != 8 {
		t.Fatalf("a failed Set changed the view: %v", got)
	}
	if !v.Set([]int64{0, 5}, nil) || x.Len() != 0 || x.Int64s() == nil {
		t.Fatal("Set of no elements failed")
	}
	v.Clear()
	if x.Len() != 0 || x.Rank() != 1 {
		t.Fatalf("after Clear: %v", x.Shape())
	}
	shape := []int64{6}
	if n := testing.AllocsPerRun(100, func() { v.Set(shape, a) }); n != 0 {
		t.Errorf("Set allocates %v times", n)
	}
	s := NewView[string]()
	if !s.Set([]int64{2}, []string{"a", "b"}) || s.Tensor().Strings()[1] != "b" || s.Tensor().DType() != String {
		t.Fatal("a string view")
	}
}
