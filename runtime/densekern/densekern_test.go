package densekern

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/textir"
)

var update = flag.Bool("update", false, "TestPTX: rewrite densekern.ptx")

// TestPTX: the PTX shipped is what llc-19 makes of Module today (-update
// rewrites it, as go generate does), and it has every kernel.
func TestPTX(t *testing.T) {
	llctest.Need(t)
	ptx, err := Compile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("densekern.ptx", ptx, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(ptx, PTX) {
		t.Errorf("densekern.ptx is out of date: run go generate ./runtime/densekern (or this test with -update)")
	}
	for _, k := range Kernels() {
		if !strings.Contains(string(PTX), ".entry "+k.Name+"(") {
			t.Errorf("densekern.ptx has no kernel %s", k.Name)
		}
	}
}

// kernels compiles Module's kernels for the simulator.
func kernels(t *testing.T) map[string]*gpu.Kernel {
	t.Helper()
	ctx := all.NewContext()
	m := Module(ctx)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	ks := map[string]*gpu.Kernel{}
	for op := range m.Region(0).Front().Ops() {
		name, _ := textir.SymbolName(op)
		k, err := gpu.Compile(op)
		if err != nil {
			t.Fatal(err)
		}
		ks[name] = k
	}
	if len(ks) != len(Kernels()) {
		t.Fatalf("%d kernels compiled, want %d", len(ks), len(Kernels()))
	}
	return ks
}

// specials are float32 values whose rounding to bfloat16 is delicate.
var specials = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
	math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800001), // NaNs, quiet and signalling
	math.Float32frombits(0x3f808000), math.Float32frombits(0x3f818000), // ties to even: down, up
	math.Float32frombits(0x3f808001), math.Float32frombits(0x7f7fffff), // over half; the largest finite (to infinity)
	math.Float32frombits(0x00000001), math.Float32frombits(0x807fffff), // subnormals
}

// TestKernelsSim runs every kernel in the gpu dialect's simulator over
// matrices at pitches and offsets of either alignment, and compares with
// a copy in Go (cublaslt.RoundBF16 for the conversion): the moved columns
// hold the source's values, the others keep their poison.
func TestKernelsSim(t *testing.T) {
	ks := kernels(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ rows, cols, sld, dld, soff, doff int64 }{
		{1, 1, 1, 1, 0, 0}, {3, 8, 8, 12, 0, 4}, {5, 7, 9, 20, 1, 3}, {4, 16, 16, 24, 0, 8}, {9, 12, 12, 16, 4, 2},
		{2, 300, 300, 310, 0, 0},
	} {
		for _, kind := range [][2]Elem{{F32, F32}, {BF16, BF16}, {F32, BF16}} {
			from, to := kind[0], kind[1]
			m := Move{From: from, To: to, Rows: c.rows, Cols: c.cols, SrcLd: c.sld, DstLd: c.dld,
				Src: uint64(c.soff * from.Bytes()), Dst: uint64(c.doff * to.Bytes())}
			k, err := Pick(m)
			if err != nil {
				t.Fatal(err)
			}
			// Source values: the specials first, then random ones.
			n := c.soff + c.rows*c.sld
			src := make([]byte, n*from.Bytes())
			want := map[int64]uint32{} // destination element → bits
			for i := range n {
				v := math.Float32bits(float32(r.NormFloat64()))
				if int(i) < len(specials) {
					v = math.Float32bits(specials[i])
				}
				if from == BF16 {
					binary.LittleEndian.PutUint16(src[2*i:], uint16(v>>16))
				} else {
					binary.LittleEndian.PutUint32(src[4*i:], v)
				}
			}
			for row := range c.rows {
				for col := range c.cols {
					s := c.soff + row*c.sld + col
					var v uint32
					switch {
					case from == BF16:
						v = uint32(binary.LittleEndian.Uint16(src[2*s:]))
					case to == BF16:
						v = uint32(cublaslt.RoundBF16(math.Float32frombits(binary.LittleEndian.Uint32(src[4*s:]))))
					default:
						v = binary.LittleEndian.Uint32(src[4*s:])
					}
					want[c.doff+row*c.dld+col] = v
				}
			}
			dn := c.doff + c.rows*c.dld
			dst := bytes.Repeat([]byte{0xab}, int(dn*to.Bytes()))
			args := []any{
				gpu.Buf{Data: src[c.soff*from.Bytes():], Align: c.soff * from.Bytes()},
				gpu.Buf{Data: dst[c.doff*to.Bytes():], Align: c.doff * to.Bytes()},
				c.rows, c.cols, c.sld, c.dld,
			}
			if err := ks[k.Name].Launch(Grid(c.rows), Threads, args, nil); err != nil {
				t.Fatalf("%s %+v: %v", k.Name, c, err)
			}
			for i := range dn {
				var got uint32
				if to == BF16 {
					got = uint32(binary.LittleEndian.Uint16(dst[2*i:]))
				} else {
					got = binary.LittleEndian.Uint32(dst[4*i:])
				}
				w, moved := want[i]
				if !moved {
					w = 0xabababab >> (32 - 8*to.Bytes())
				}
				if got != w {
					t.Fatalf("%s %+v: element %d = %#x, want %#x (moved %v)", k.Name, c, i, got, w, moved)
				}
			}
		}
	}
}

// Smaller grids take the rows in turn.
func TestGridStride(t *testing.T) {
	ks := kernels(t)
	src := make([]byte, 4*5*3)
	for i := range 15 {
		binary.LittleEndian.PutUint32(src[4*i:], uint32(i+1))
	}
	dst := make([]byte, 4*5*3)
	if err := ks["copy_f32"].Launch(2, 2, []any{gpu.Buf{Data: src}, gpu.Buf{Data: dst}, int64(5), int64(3), int64(3), int64(3)}, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, dst) {
		t.Errorf("2 blocks of 2 threads over 5 rows of 3: %v", dst)
	}
}

func TestPick(t *testing.T) {
	for _, c := range []struct {
		m    Move
		want string
	}{
		{Move{From: F32, To: BF16, Rows: 2, Cols: 8120, SrcLd: 8120, DstLd: 8152}, "f32_to_bf16_v4"},
		{Move{From: F32, To: BF16, Rows: 2, Cols: 8120, SrcLd: 8120, DstLd: 8152, Dst: 4}, "f32_to_bf16"}, // 2 elements off
		{Move{From: F32, To: BF16, Rows: 2, Cols: 8120, SrcLd: 8120, DstLd: 8152, Dst: 8}, "f32_to_bf16_v4"},
		{Move{From: F32, To: F32, Rows: 2, Cols: 6, SrcLd: 8, DstLd: 8}, "copy_f32"},
		{Move{From: F32, To: F32, Rows: 2, Cols: 8, SrcLd: 8, DstLd: 8, Src: 8}, "copy_f32"},
		{Move{From: BF16, To: BF16, Rows: 2, Cols: 32, SrcLd: 32, DstLd: 8152, Dst: 16240}, "copy_bf16_v4"},
		{Move{From: BF16, To: BF16, Rows: 2, Cols: 32, SrcLd: 34, DstLd: 8152}, "copy_bf16"},
		{Move{From: BF16, To: F32, Rows: 1, Cols: 1, SrcLd: 1, DstLd: 1}, "no kernel converts bf16 to f32"},
		{Move{From: F32, To: F32, Rows: 1, Cols: 4, SrcLd: 3, DstLd: 4}, "a move of 1x4 between row pitches 3 and 4"},
	} {
		k, err := Pick(c.m)
		got := k.Name
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("Pick(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
	if Grid(0) != 1 || Grid(100) != 100 || Grid(1e6) != MaxGrid {
		t.Error("Grid")
	}
	if ActGrid(0, 1) != 1 || ActGrid(2048, 1) != 8 || ActGrid(2049, 1) != 9 || ActGrid(2048, 1024) != MaxGrid {
		t.Error("ActGrid")
	}
}

// The activations in the simulator against Go's math in float64 rounded
// to float32: within one unit in the last place (the interpreter's
// Sigmoid and Tanh compute so), NaN kept, columns beyond cols and rows'
// padding untouched.
func TestActivationsSim(t *testing.T) {
	ks := kernels(t)
	r := rand.New(rand.NewPCG(3, 4))
	xs := []float32{0, float32(math.Copysign(0, -1)), 1e-8, -1e-8, 1e-3, -0.5, 1, -1, 10, -10, 30, -30, 100, -100,
		1000, -1000, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0x00000001)}
	for len(xs) < 3*40 {
		xs = append(xs, float32(r.NormFloat64()*4))
	}
	const rows, cols, ld = 3, 37, 40
	for _, act := range []string{Sigmoid, Tanh} {
		k, err := Activation(act)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4*rows*ld)
		for i, x := range xs {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
		}
		// One block of a few threads: the elements are taken in turn.
		if err := ks[k.Name].Launch(1, 32, []any{gpu.Buf{Data: buf}, int64(rows), int64(cols), int64(ld)}, nil); err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			got := math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
			if i%ld >= cols {
				if math.Float32bits(got) != math.Float32bits(x) {
					t.Errorf("%s: element %d beyond the columns changed: %v", act, i, got)
				}
				continue
			}
			var want float32
			switch act {
			case Sigmoid:
				want = float32(1 / (1 + math.Exp(-float64(x))))
			case Tanh:
				want = float32(math.Tanh(float64(x)))
			}
			switch {
			case math.IsNaN(float64(want)):
				if !math.IsNaN(float64(got)) {
					t.Errorf("%s(%v) = %v, want NaN", act, x, got)
				}
			case got != want && math.Abs(float64(int64(math.Float32bits(got))-int64(math.Float32bits(want)))) > 1:
				t.Errorf("%s(%v) = %v, want %v (more than one ulp)", act, x, got, want)
			}
		}
	}
	if _, err := Activation("relu"); err == nil {
		t.Error("a kernel for relu")
	}
}
