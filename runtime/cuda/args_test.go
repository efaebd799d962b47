package cuda

import (
	"strings"
	"testing"
)

func TestPackArgs(t *testing.T) {
	p := &DevicePtr{addr: 0x7f0000001000, size: 64}
	tests := []struct {
		name    string
		args    []any
		buf     []byte
		offsets []int
	}{
		{"none", nil, make([]byte, 8), []int{}},
		{"pointer and i64", []any{p, int64(-2)},
			[]byte{0x00, 0x10, 0, 0, 0, 0x7f, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []int{0, 8}},
		{"i32 then i64 pads to 8", []any{int32(7), int64(1)},
			[]byte{7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, []int{0, 8}},
		{"f32 bits", []any{float32(1)}, []byte{0, 0, 0x80, 0x3f}, []int{0}},
		{"f64 bits", []any{float64(-2)}, []byte{0, 0, 0, 0, 0, 0, 0, 0xc0}, []int{0}},
		{"small ints and bool", []any{uint8(1), true, int16(-1), uint32(5)},
			[]byte{1, 1, 0xff, 0xff, 5, 0, 0, 0}, []int{0, 1, 2, 4}},
		{"u8 then u16 pads to 2", []any{int8(-1), uint16(0x0102)}, []byte{0xff, 0, 2, 1}, []int{0, 2}},
		{"uintptr and uint64", []any{uintptr(3), uint64(4)},
			[]byte{3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0}, []int{0, 8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := packArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.buf) != string(tc.buf) {
				t.Errorf("buf = % x, want % x", got.buf, tc.buf)
			}
			if len(got.offsets) != len(tc.offsets) {
				t.Fatalf("offsets = %v, want %v", got.offsets, tc.offsets)
			}
			for i := range tc.offsets {
				if got.offsets[i] != tc.offsets[i] {
					t.Errorf("offsets = %v, want %v", got.offsets, tc.offsets)
				}
			}
		})
	}
}

func TestPackArgsErrors(t *testing.T) {
	closed := &DevicePtr{closed: true}
	tests := []struct {
		name string
		args []any
		want string
	}{
		{"int", []any{int64(1), 3}, "argument 1: int has no fixed width"},
		{"uint", []any{uint(3)}, "argument 0: uint has no fixed width"},
		{"string", []any{"x"}, "argument 0: cannot pass a string to a kernel"},
		{"nil", []any{nil}, "argument 0: cannot pass a <nil> to a kernel"},
		{"nil pointer", []any{(*DevicePtr)(nil)}, "argument 0: nil *DevicePtr"},
		{"closed pointer", []any{closed}, "argument 0: cuda: use of closed DevicePtr"},
		{"slice", []any{[]float32{1}}, "cannot pass a []float32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := packArgs(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCheckParams(t *testing.T) {
	p, err := packArgs([]any{int32(1), int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		params []paramInfo
		want   string
	}{
		{nil, ""},
		{[]paramInfo{{0, 4}, {8, 8}}, ""},
		{[]paramInfo{{0, 4}}, "the kernel takes 1 parameters, got 2 arguments"},
		{[]paramInfo{{0, 8}, {8, 8}}, "argument 0 is 4 bytes, but the kernel's parameter 0 is 8 bytes"},
	}
	for _, tc := range tests {
		err := p.checkParams(tc.params)
		if (err == nil) != (tc.want == "") || err != nil && err.Error() != tc.want {
			t.Errorf("checkParams(%v) = %v, want %q", tc.params, err, tc.want)
		}
	}
}
