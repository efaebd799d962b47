package serve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// checkNumber compares the fast paths with strconv on tok, if it is a
// JSON number (their callers give them nothing else).
func checkNumber(t *testing.T, tok string) {
	t.Helper()
	// fastF32 reads a whole token (as scanner.number reads it) or none,
	// and gives strconv's float32; what follows it is its caller's.
	for _, after := range []string{",", "", "x", "]"} {
		tb := &tbuf{dt: interp.Float32}
		if end, ok := fastF32(tb, []byte(tok+after), 0); ok {
			sc := &scanner{buf: []byte(tok + after)}
			num, err := sc.number()
			want, perr := strconv.ParseFloat(string(num), 32)
			if err != nil || perr != nil || len(num) != end || len(tb.f32) != 1 || math.Float32bits(tb.f32[0]) != math.Float32bits(float32(want)) {
				t.Fatalf("fastF32(%q) read %d bytes as %v; scanner.number: %q %v, strconv %v %v", tok+after, end, tb.f32, num, err, want, perr)
			}
		}
	}
	if !plainNumber([]byte(tok)) {
		return
	}
	for _, bits := range []int{32, 64} {
		if v, ok := fastFloat([]byte(tok), bits); ok {
			want, err := strconv.ParseFloat(tok, bits)
			if err != nil || math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("fastFloat(%q, %d) = %v, strconv: %v, %v", tok, bits, v, want, err)
			}
		}
	}
	// fastScalar's one-pass reading of the token in a list.
	for _, dt := range []interp.DType{interp.Float32, interp.Float64, interp.Int32, interp.Int64} {
		sc := &scanner{buf: []byte(tok + ",")}
		tb := &tbuf{dt: dt}
		if !sc.fastScalar(tb) {
			continue
		}
		if sc.pos != len(tok) {
			t.Fatalf("fastScalar read %d bytes of %q", sc.pos, tok)
		}
		var got, want any
		var err error
		switch dt {
		case interp.Float32:
			got = math.Float32bits(tb.f32[0])
			var w float64
			w, err = strconv.ParseFloat(tok, 32)
			want = math.Float32bits(float32(w))
		case interp.Float64:
			got = math.Float64bits(tb.f64[0])
			var w float64
			w, err = strconv.ParseFloat(tok, 64)
			want = math.Float64bits(w)
		case interp.Int32:
			got = int64(tb.i32[0])
			want, err = strconv.ParseInt(tok, 10, 32)
		case interp.Int64:
			got = tb.i64[0]
			want, err = strconv.ParseInt(tok, 10, 64)
		}
		if err != nil || got != want {
			t.Fatalf("fastScalar(%q) as %v = %v, strconv: %v, %v", tok, dt, got, want, err)
		}
	}
	for _, bits := range []int{32, 64} {
		if v, ok := fastInt([]byte(tok), bits); ok {
			want, err := strconv.ParseInt(tok, 10, bits)
			if err != nil || v != want {
				t.Fatalf("fastInt(%q, %d) = %v, strconv: %v, %v", tok, bits, v, want, err)
			}
		}
	}
}

// TestFastNumbers: the fast paths give strconv's values (bit for bit) on
// random short decimals, on the edges of their ranges, and decline the
// rest.
func TestFastNumbers(t *testing.T) {
	for _, tok := range []string{"0", "-0", "1", "16777216", "16777217", "9007199254740992", "9007199254740993",
		"0.1", "1e10", "1e11", "1e-10", "1e-11", "1e22", "1e23", "123456789012345678", "1234567890123456789",
		"12345678901234567890", "2147483647", "2147483648", "-2147483648", "-2147483649", "3.4028235e38", "1.5e-45",
		"16777219", "18446744073709551621", "1844674407.3709551621", "0.41040283", "-1.0850803", "3.4028235677973366e38", "3.4028235e38", "3.4028236e38", "1.1754943e-38", "1.1754942e-38", "1.401298464324817e-45", "7.006492321624085e-46",
		"00", "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1e0400"} {
		checkNumber(t, tok)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var tok string
		switch r.IntN(4) {
		case 0:
			tok = strconv.FormatFloat(float64(float32(r.NormFloat64()*math.Pow(10, float64(r.IntN(12)-6)))), 'g', -1, 32)
		case 3:
			// Halfway between two float32 values, or a few float64 ulps
			// off it, written in full or cut to 8 to 17 digits: where a
			// float64 rounded to float32 may not be the float32 nearest.
			f := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-6)))
			m := (float64(f) + float64(math.Nextafter32(f, float32(math.Inf(1))))) / 2
			m = math.Float64frombits(math.Float64bits(m) + uint64(r.IntN(5)) - 2)
			if r.IntN(2) == 0 {
				tok = strconv.FormatFloat(m, 'g', -1, 64)
			} else {
				tok = strconv.FormatFloat(m, 'e', 7+r.IntN(10), 64)
			}
		case 1:
			tok = fmt.Sprintf("%d.%0*d", r.IntN(100000)-50000, r.IntN(8)+1, r.IntN(10000000))
		default:
			tok = fmt.Sprintf("%de%d", r.IntN(1<<25)-1<<24, r.IntN(30)-15)
		}
		checkNumber(t, tok)
	}
}

// FuzzFastNumbers: the same on any token.
func FuzzFastNumbers(f *testing.F) {
	for _, s := range []string{"1.5", "-0.001", "16777217", "1e22", "9007199254740993", "0.41040283", "3.4028235677973366e38", "01", "1.5e3", "0.0000000001", "1234567890.123456789", "-"} {
		f.Add(s)
	}
	f.Fuzz(checkNumber)
}
