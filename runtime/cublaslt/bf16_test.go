package cublaslt

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRoundBF16(t *testing.T) {
	tests := []struct {
		name string
		in   uint32
		want uint16
	}{
		{"one", 0x3f800000, 0x3f80},
		{"just above one: down", 0x3f800001, 0x3f80},
		{"below half: down", 0x3f807fff, 0x3f80},
		{"tie, even kept: down", 0x3f808000, 0x3f80},
		{"tie, odd kept: up to even", 0x3f818000, 0x3f82},
		{"above half: up", 0x3f808001, 0x3f81},
		{"negative tie, even kept", 0xbf808000, 0xbf80},
		{"negative tie, odd kept", 0xbf818000, 0xbf82},
		{"carry into the exponent", 0x3fffc000, 0x4000},
		{"+0", 0x00000000, 0x0000},
		{"-0", 0x80000000, 0x8000},
		{"+inf", 0x7f800000, 0x7f80},
		{"-inf", 0xff800000, 0xff80},
		{"largest bf16", 0x7f7f7fff, 0x7f7f},
		{"largest fp32 overflows", 0x7f7fffff, 0x7f80},
		{"tie at the top overflows to even", 0x7f7f8000, 0x7f80},
		{"negative overflow", 0xff7fffff, 0xff80},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"NaN with only low payload stays NaN", 0x7f800001, 0x7fc0},
		{"signalling NaN is quieted, payload kept", 0x7fa00000, 0x7fe0},
		{"negative NaN keeps its sign", 0xffc00001, 0xffc0},
		{"smallest subnormal: down to 0", 0x00000001, 0x0000},
		{"subnormal tie, even kept", 0x00008000, 0x0000},
		{"subnormal tie, odd kept", 0x00018000, 0x0002},
		{"subnormal above half", 0x00008001, 0x0001},
		{"largest subnormal rounds to the smallest normal", 0x007fffff, 0x0080},
	}
	for _, tc := range tests {
		if got := RoundBF16(math.Float32frombits(tc.in)); uint16(got) != tc.want {
			t.Errorf("%s: RoundBF16(%#08x) = %#04x, want %#04x", tc.name, tc.in, uint16(got), tc.want)
		}
	}
}

// TestRoundBF16Nearest compares RoundBF16 with a reference that picks the
// nearer of the two neighbouring bfloat16 values in float64 arithmetic
// (ties to the even one), over random bit patterns.
func TestRoundBF16Nearest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1 << 18 {
		u := r.Uint32()
		f := math.Float32frombits(u)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		lo := u &^ 0xffff // truncated toward zero
		hi := lo + 0x10000
		dl := math.Abs(float64(f) - float64(math.Float32frombits(lo)))
		var want uint32
		if hi&0x7fffffff >= 0x7f800000 { // the next magnitude is past the largest finite: infinity
			// Halfway to 2^128 rounds up, as IEEE's unbounded-exponent rule says.
			dh := math.Abs(math.Ldexp(math.Copysign(1, float64(f)), 128) - float64(f))
			want = lo
			if dh < dl || (dh == dl && (lo>>16)&1 == 1) {
				want = u&0x80000000 | 0x7f800000
			}
		} else {
			dh := math.Abs(float64(math.Float32frombits(hi)) - float64(f))
			want = lo
			if dh < dl || (dh == dl && (lo>>16)&1 == 1) {
				want = hi
			}
		}
		if got := RoundBF16(f); uint32(got)<<16 != want {
			t.Fatalf("RoundBF16(%#08x) = %#04x, want %#04x", u, uint16(got), want>>16)
		}
	}
}

// TestBF16RoundTrip: every bfloat16 is an fp32 that rounds back to itself
// (NaNs to NaNs).
func TestBF16RoundTrip(t *testing.T) {
	for b := range 1 << 16 {
		f := Bfloat16(b).Float32()
		got := RoundBF16(f)
		if math.IsNaN(float64(f)) {
			if !math.IsNaN(float64(got.Float32())) || got&0x8000 != Bfloat16(b)&0x8000 {
				t.Fatalf("NaN %#04x became %#04x", b, uint16(got))
			}
			continue
		}
		if got != Bfloat16(b) {
			t.Fatalf("%#04x -> %v -> %#04x", b, f, uint16(got))
		}
	}
	if got := ToBF16([]float32{1, -2.5, 3.1415927}); !slices.Equal(got, []Bfloat16{0x3f80, 0xc020, 0x4049}) {
		t.Errorf("ToBF16 = %#04x", got)
	}
	if got := ToBF16(nil); len(got) != 0 {
		t.Errorf("ToBF16(nil) = %v", got)
	}
}

// roundTF32 keeps 10 mantissa bits, to nearest with ties to even.
func TestRoundTF32(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0x3f800000, 0x3f800000}, // 1
		{0x3f800fff, 0x3f800000}, // below half: down
		{0x3f801000, 0x3f800000}, // half, even kept part: down
		{0x3f803000, 0x3f804000}, // half, odd kept part: up
		{0x3f801001, 0x3f802000}, // over half: up
		{0x7f7fffff, 0x7f800000}, // the largest finite: to infinity
		{0xff800000, 0xff800000}, // -infinity
		{0x00000fff, 0x00000000}, // a subnormal rounds like the rest
	} {
		got := math.Float32bits(float32(roundTF32(float64(math.Float32frombits(c.in)))))
		if got != c.want {
			t.Errorf("roundTF32(%#08x) = %#08x, want %#08x", c.in, got, c.want)
		}
	}
	if !math.IsNaN(roundTF32(math.NaN())) {
		t.Error("NaN")
	}
}
