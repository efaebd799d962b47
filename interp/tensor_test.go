package interp

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestNumElements(t *testing.T) {
	tests := []struct {
		shape []int64
		want  int64
		err   string
	}{
		{nil, 1, ""},
		{[]int64{2, 3}, 6, ""},
		{[]int64{0, 1 << 62}, 0, ""},
		{[]int64{1 << 40, 0}, 0, ""},
		{[]int64{-1}, 0, "negative"},
		{[]int64{1 << 31, 1 << 31}, 0, "more than"},
		{[]int64{1 << 62, 1 << 62, 4}, 0, "more than"},
		{make([]int64, 300), 0, "rank"},
	}
	for _, tc := range tests {
		got, err := NumElements(tc.shape)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NumElements(%v): got %v, want error %q", tc.shape, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NumElements(%v) = %d, %v; want %d", tc.shape, got, err, tc.want)
		}
	}
}

func TestNewChecksLength(t *testing.T) {
	if _, err := New([]int64{2, 2}, []float32{1, 2, 3}); err == nil {
		t.Error("want length error")
	}
	if _, err := Zeros(String, []int64{1 << 40, 1 << 40}); err == nil {
		t.Error("want overflow error")
	}
	z, err := Zeros(Int64, []int64{2, 0})
	if err != nil || z.Len() != 0 || z.Rank() != 2 {
		t.Errorf("Zeros empty: %v %v", z, err)
	}
	if _, err := FromSlice([]int64{1}, []complex64{1}); err == nil {
		t.Error("want unsupported type error")
	}
}

func TestCompare(t *testing.T) {
	a := Must(New([]int64{2, 2}, []float32{1, 2, 3, float32(math.NaN())}))
	b := Must(New([]int64{2, 2}, []float32{1, 2.001, 3.1, float32(math.NaN())}))
	if err := a.Equal(a.Clone()); err != nil {
		t.Errorf("Equal to clone: %v", err)
	}
	err := a.AllClose(b, 1e-3, 1e-3)
	var m *MismatchError
	if !errors.As(err, &m) {
		t.Fatalf("AllClose: got %v, want a MismatchError", err)
	}
	if m.Count != 1 || m.Index[0] != 1 || m.Index[1] != 0 || m.Got != "3" || m.Want != "3.1" {
		t.Errorf("worst element: %+v", m)
	}
	if err := a.AllClose(b, 0.05, 0); err != nil {
		t.Errorf("AllClose rtol 5%%: %v", err)
	}
	err = a.Equal(b)
	if !errors.As(err, &m) || m.Count != 2 || m.Index[1] != 1 {
		t.Errorf("Equal: first mismatch %+v", err)
	}
	if err := a.Equal(Vector[float32](1, 2, 3, 4)); err == nil || !strings.Contains(err.Error(), "shape mismatch") {
		t.Errorf("shape mismatch: %v", err)
	}
	if err := Vector[int32](1).Equal(Vector[int64](1)); err == nil || !strings.Contains(err.Error(), "dtype mismatch") {
		t.Errorf("dtype mismatch: %v", err)
	}
	inf := Vector(math.Inf(1))
	if err := inf.AllClose(Vector(math.Inf(-1)), 1, 1); err == nil {
		t.Error("+inf vs -inf: want mismatch")
	}
	if err := Vector("a", "b").AllClose(Vector("a", "c"), 1, 1); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Errorf("strings: %v", err)
	}
}

func TestString(t *testing.T) {
	got := Must(New([]int64{2, 5}, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})).String()
	want := "int32[2,5]{1, 2, 3, 4, 5, 6, 7, 8, ... (2 more)}"
	if got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := Scalar("x").String(); got != `string[]{"x"}` {
		t.Errorf("String() = %q", got)
	}
	if got := Vector(true).String(); got != "bool[1]{true}" {
		t.Errorf("String() = %q", got)
	}
}

// MakeSlice refuses a tensor whose memory is beyond MaxBytes, counting a
// string as its 16-byte header: a 200-million-element string splat (3.2 GB)
// is refused under the default, 2^28 eight-byte elements are not.
func TestMakeSliceBytes(t *testing.T) {
	for _, c := range []struct {
		dt   DType
		n    int
		want string
	}{
		{String, 200_000_000, "a tensor of 200000000 string elements (3200000000 bytes) is too large to materialise: more than 2147483648 bytes (set RECOM_MAX_TENSOR_BYTES to raise the limit; see docs/LIMITS.md)"},
		{String, 1<<27 + 1, "more than 2147483648 bytes"},
	} {
		if _, err := MakeSlice(c.dt, c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d %s elements: got %v, want %q", c.n, c.dt, err, c.want)
		}
	}
	saved := MaxBytes
	defer func() { MaxBytes = saved }()
	MaxBytes = 64
	if _, err := MakeSlice(Int64, 8); err != nil {
		t.Errorf("64 bytes: %v", err)
	}
	for _, dt := range []DType{Int64, Float32, String, Bool} {
		n := int(64/dt.ItemSize()) + 1
		var tl *TooLargeError
		if _, err := MakeSlice(dt, n); !errors.As(err, &tl) || !tl.Bytes {
			t.Errorf("%d %s elements: got %v, want a TooLargeError of bytes", n, dt, err)
		}
	}
	if _, err := Zeros(String, []int64{5}); err == nil {
		t.Errorf("Zeros of 80 bytes of strings under a limit of 64: no error")
	}
}
