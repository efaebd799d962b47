package cublaslt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// openFake returns a handle on a fake cuBLASLt; the cleanup checks that
// every object was destroyed.
func openFake(t *testing.T, g *fakeLt) *Handle {
	t.Helper()
	lib := newLibrary(g.api(), "fake")
	if lib.Version() != 130100 || lib.String() != "cuBLASLt 13.1.0 (fake)" {
		t.Errorf("library %v, version %d", lib, lib.Version())
	}
	h, err := lib.newHandle(g.current)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
		if len(g.live) != 0 {
			t.Errorf("objects left: %v", g.live)
		}
	})
	return h
}

// fakeOperands allocates and fills the operands of hg's product on g.
func fakeOperands(g *fakeLt, p *Plan, hg *hostGEMM) Operands {
	gm := p.GEMM()
	_, in := gm.inType()
	_, out := gm.outType()
	o := Operands{X: g.alloc(gm.B * gm.K * in), W: g.alloc(gm.K * gm.N * in), Y: g.alloc(gm.B * gm.N * out)}
	if gm.Precision == BF16 {
		g.putBF16(o.X.(fakeBuf), ToBF16(hg.x))
		g.putBF16(o.W.(fakeBuf), ToBF16(hg.w))
	} else {
		g.putF32(o.X.(fakeBuf), hg.x)
		g.putF32(o.W.(fakeBuf), hg.w)
	}
	if gm.Epilogue.HasBias() {
		o.Bias = g.alloc(gm.N * out)
		if gm.OutBF16 {
			g.putBF16(o.Bias.(fakeBuf), ToBF16(hg.bias))
		} else {
			g.putF32(o.Bias.(fakeBuf), hg.bias)
		}
	}
	for i := range g.mem[o.Y.Addr()] {
		g.mem[o.Y.Addr()][i] = 0xff // NaN: every element must be written
	}
	if p.WorkspaceBytes() > 0 {
		o.Workspace = g.alloc(p.WorkspaceBytes())
	}
	return o
}

// TestRowMajor runs every precision, transposition and epilogue through
// the fake, which computes what cuBLASLt does with the descriptors the
// plan made: the result must be the row-major product exactly (the fake
// and the reference sum the same float64 products in the same order).
func TestRowMajor(t *testing.T) {
	g := newFakeLt()
	h := openFake(t, g)
	r := rand.New(rand.NewPCG(1, 2))
	type prec struct {
		p   Precision
		out bool
	}
	for _, sh := range [][3]int64{{1, 1, 1}, {3, 5, 4}, {4, 2, 7}, {6, 3, 1}} {
		for _, pr := range []prec{{FP32, false}, {TF32, false}, {BF16, false}, {BF16, true}} {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for ep := EpilogueDefault; ep <= EpilogueReLUBias; ep++ {
					gm := GEMM{B: sh[0], K: sh[1], N: sh[2], TransposeX: tr[0], TransposeW: tr[1],
						Precision: pr.p, OutBF16: pr.out, Epilogue: ep}
					t.Run(gm.String(), func(t *testing.T) {
						p, err := h.NewPlan(gm)
						if err != nil {
							t.Fatal(err)
						}
						defer p.Close()
						hg := newHostGEMM(gm, r)
						o := fakeOperands(g, p, hg)
						if err := p.Run(nil, o); err != nil {
							t.Fatal(err)
						}
						var got []float32
						if pr.out {
							got = g.getBF16(o.Y.(fakeBuf), int(gm.B*gm.N))
						} else {
							got = g.getF32(o.Y.(fakeBuf), int(gm.B*gm.N))
						}
						ref := hg.rounded()
						for b := range gm.B {
							for n, v := range ref.row(b) {
								if w := store(gm, v); got[b*gm.N+int64(n)] != w {
									t.Fatalf("Y[%d][%d] = %v, want %v", b, n, got[b*gm.N+int64(n)], w)
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestDescriptors: the compute type, attributes, layouts and preference
// each GEMM gets.
func TestDescriptors(t *testing.T) {
	type lay = fakeLayout
	tests := []struct {
		g                GEMM
		compute          int32
		transA, transB   int32
		epilogue         uint32
		biasType         int32 // -1: not set
		a, b, d          lay
		maxWS            uint64
		inBytes, outSize int64
	}{
		{GEMM{B: 3, K: 5, N: 4}, computeF32, opN, opN, epilogueDefault, -1,
			lay{cudaR32F, 4, 5, 4}, lay{cudaR32F, 5, 3, 5}, lay{cudaR32F, 4, 3, 4}, DefaultWorkspaceBytes, 4, 4},
		{GEMM{B: 3, K: 5, N: 4, Precision: TF32, TransposeW: true, Epilogue: EpilogueBias, MaxWorkspaceBytes: 1 << 20},
			computeF32TF32, opT, opN, epilogueBias, cudaR32F,
			lay{cudaR32F, 5, 4, 5}, lay{cudaR32F, 5, 3, 5}, lay{cudaR32F, 4, 3, 4}, 1 << 20, 4, 4},
		{GEMM{B: 3, K: 5, N: 4, Precision: BF16, TransposeX: true, Epilogue: EpilogueReLUBias},
			computeF32, opN, opT, epilogueReLUBias, cudaR32F,
			lay{cudaR16BF, 4, 5, 4}, lay{cudaR16BF, 3, 5, 3}, lay{cudaR32F, 4, 3, 4}, DefaultWorkspaceBytes, 2, 4},
		{GEMM{B: 3, K: 5, N: 4, Precision: BF16, OutBF16: true, TransposeX: true, TransposeW: true, Epilogue: EpilogueReLU},
			computeF32, opT, opT, epilogueReLU, -1,
			lay{cudaR16BF, 5, 4, 5}, lay{cudaR16BF, 3, 5, 3}, lay{cudaR16BF, 4, 3, 4}, DefaultWorkspaceBytes, 2, 2},
		{GEMM{B: 2048, K: 8152, N: 1024, Precision: BF16, OutBF16: true, Epilogue: EpilogueBias},
			computeF32, opN, opN, epilogueBias, cudaR16BF,
			lay{cudaR16BF, 1024, 8152, 1024}, lay{cudaR16BF, 8152, 2048, 8152}, lay{cudaR16BF, 1024, 2048, 1024}, DefaultWorkspaceBytes, 2, 2},
		// Y as columns of a wider matrix, accumulated into.
		{GEMM{B: 3, K: 5, N: 4, Precision: BF16, OutBF16: true, Epilogue: EpilogueReLUBias, LdY: 10, AlignY: 4, Accumulate: true},
			computeF32, opN, opN, epilogueReLUBias, cudaR16BF,
			lay{cudaR16BF, 4, 5, 4}, lay{cudaR16BF, 5, 3, 5}, lay{cudaR16BF, 4, 3, 10}, DefaultWorkspaceBytes, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.g.String(), func(t *testing.T) {
			g := newFakeLt()
			h := openFake(t, g)
			p, err := h.NewPlan(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			d := g.descs[p.desc]
			if d.compute != tc.compute || d.scale != cudaR32F {
				t.Errorf("compute %d scale %d, want %d and CUDA_R_32F", d.compute, d.scale, tc.compute)
			}
			if got := d.i32(descTransA, -1); got != tc.transA {
				t.Errorf("TRANSA %d, want %d", got, tc.transA)
			}
			if got := d.i32(descTransB, -1); got != tc.transB {
				t.Errorf("TRANSB %d, want %d", got, tc.transB)
			}
			if got := uint32(d.i32(descEpilogue, -1)); got != tc.epilogue {
				t.Errorf("EPILOGUE %d, want %d", got, tc.epilogue)
			}
			if got := d.i32(descBiasDataType, -1); got != tc.biasType {
				t.Errorf("BIAS_DATA_TYPE %d, want %d", got, tc.biasType)
			}
			for _, l := range []struct {
				name string
				h    uintptr
				want fakeLayout
			}{{"A", p.a, tc.a}, {"B", p.b, tc.b}, {"D", p.d, tc.d}} {
				if got := g.layouts[l.h]; got != l.want {
					t.Errorf("layout %s %+v, want %+v", l.name, got, l.want)
				}
			}
			if got := g.lastPref[prefMaxWorkspaceBytes]; got != tc.maxWS {
				t.Errorf("MAX_WORKSPACE_BYTES %d, want %d", got, tc.maxWS)
			}
			// The alignments of C and D are promised only when Y's is
			// less than the default's.
			for _, attr := range []uint32{prefMinAlignmentCBytes, prefMinAlignmentDBytes} {
				got, set := g.lastPref[attr]
				if want := tc.g.AlignY; set != (want != 0) || int64(got) != want {
					t.Errorf("MIN_ALIGNMENT attribute %d: %d (set %v), want %d", attr, got, set, want)
				}
			}
			if want := map[bool]float32{false: 0, true: 1}[tc.g.Accumulate]; p.alpha != 1 || p.beta != want {
				t.Errorf("alpha %v beta %v, want 1 and %v", p.alpha, p.beta, want)
			}
			gm := tc.g
			bias := int64(0)
			if gm.Epilogue.HasBias() {
				bias = gm.N * tc.outSize
			}
			if p.xBytes != gm.B*gm.K*tc.inBytes || p.wBytes != gm.K*gm.N*tc.inBytes || p.yBytes != ((gm.B-1)*tc.d.ld+gm.N)*tc.outSize || p.biasSize != bias {
				t.Errorf("operand sizes X %d W %d Y %d bias %d", p.xBytes, p.wBytes, p.yBytes, p.biasSize)
			}
			if p.Waves() != 0.5 || p.WorkspaceBytes() != 0 || p.GEMM() != tc.g {
				t.Errorf("waves %v workspace %d GEMM %v", p.Waves(), p.WorkspaceBytes(), p.GEMM())
			}
			// Only the plan's own objects are left: the preference is gone.
			if n := len(g.live); n != 5 {
				t.Errorf("%d live objects, want the handle, the descriptor and 3 layouts: %v", n, g.live)
			}
		})
	}
}

// TestPlanChecks: bad GEMMs are refused before any cuBLASLt call.
func TestPlanChecks(t *testing.T) {
	ok := GEMM{B: 2, K: 3, N: 4}
	with := func(f func(*GEMM)) GEMM { g := ok; f(&g); return g }
	tests := []struct {
		g    GEMM
		want string
	}{
		{with(func(g *GEMM) { g.B = 0 }), "B is 0: it must be in [1, 2147483647]"},
		{with(func(g *GEMM) { g.K = -3 }), "K is -3: it must be in [1, 2147483647]"},
		{with(func(g *GEMM) { g.N = MaxDim + 1 }), "N is 2147483648: it must be in [1, 2147483647] (cuBLASLt takes int32 sizes)"},
		{with(func(g *GEMM) { g.Precision = 7 }), "unknown precision Precision(7)"},
		{with(func(g *GEMM) { g.Precision = TF32; g.OutBF16 = true }), "a bf16 output needs precision bf16, not tf32"},
		{with(func(g *GEMM) { g.Epilogue = -1 }), "unknown epilogue Epilogue(-1)"},
		{with(func(g *GEMM) { g.MaxWorkspaceBytes = -1 }), "the workspace limit -1 is negative"},
		{with(func(g *GEMM) { g.B, g.K, g.N = MaxDim, MaxDim, MaxDim }), "X (2147483647x2147483647) exceeds 2^63 bytes"},
		{with(func(g *GEMM) { g.B, g.K, g.N = 1, MaxDim, MaxDim }), "W (2147483647x2147483647) exceeds 2^63 bytes"},
		{with(func(g *GEMM) { g.LdY = 3 }), "LdY is 3: it must be 0 or in [N, 2147483647]"},
		{with(func(g *GEMM) { g.B, g.N, g.LdY = MaxDim, 1, MaxDim }), "Y (2147483647x2147483647) exceeds 2^63 bytes"},
		{with(func(g *GEMM) { g.AlignY = 2 }), "AlignY is 2: it must be 0 or a power of two in [4, 256]"},
		{with(func(g *GEMM) { g.AlignY = 48 }), "AlignY is 48"},
		{with(func(g *GEMM) { g.AlignY = 512 }), "AlignY is 512"},
	}
	g := newFakeLt()
	h := openFake(t, g)
	for _, tc := range tests {
		calls := g.calls
		tc.g.Name = "dense/MatMul"
		_, err := h.NewPlan(tc.g)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `cublaslt: plan gemm "dense/MatMul"`) {
			t.Errorf("%v: %v, want %q", tc.g, err, tc.want)
		}
		if g.calls != calls {
			t.Errorf("%v: %d cuBLASLt calls before the error", tc.g, g.calls-calls)
		}
	}
	// The largest sizes that fit pass the checks: a bf16 X of MaxDim² is
	// 2⁶³-2³³+2 bytes.
	if err := with(func(g *GEMM) { g.B, g.K, g.N, g.Precision = MaxDim, MaxDim, 1, BF16 }).check(); err != nil {
		t.Error(err)
	}
}

// TestHeuristicFailures: no algorithm, a failing heuristic or a bad
// result is an error, and the descriptors made so far are destroyed (the
// cleanup of openFake checks).
func TestHeuristicFailures(t *testing.T) {
	tests := []struct {
		set  func(*fakeLt)
		want string
		code Status
	}{
		{func(g *fakeLt) { g.noAlgo = true }, "cublasLtMatmulAlgoGetHeuristic found no algorithm within a 33554432-byte workspace", StatusUnknown},
		{func(g *fakeLt) { g.heuristicS = StatusNotSupported },
			"cublasLtMatmulAlgoGetHeuristic: CUBLAS_STATUS_NOT_SUPPORTED: the requested functionality is not supported", StatusNotSupported},
		{func(g *fakeLt) { g.algoState = StatusInvalidValue }, "cublasLtMatmulAlgoGetHeuristic (the algorithm's state): CUBLAS_STATUS_INVALID_VALUE", StatusInvalidValue},
		{func(g *fakeLt) { g.algoWS = 64 << 20 }, "the algorithm needs 67108864 bytes of workspace, over the limit 33554432", StatusUnknown},
	}
	for _, tc := range tests {
		g := newFakeLt()
		h := openFake(t, g)
		tc.set(g)
		_, err := h.NewPlan(GEMM{B: 2, K: 3, N: 4, Epilogue: EpilogueBias})
		if err == nil || !strings.Contains(err.Error(), tc.want) || Code(err) != tc.code {
			t.Errorf("%v (code %d), want %q (code %d)", err, Code(err), tc.want, tc.code)
		}
		if len(g.live) != 1 {
			t.Errorf("objects left after a failed plan: %v", g.live)
		}
	}
	g := newFakeLt()
	g.createS = StatusAllocFailed
	if _, err := newLibrary(g.api(), "fake").newHandle(g.current); err == nil ||
		err.Error() != "cublaslt: create a handle: cublasLtCreate: <unknown>" || Code(err) != StatusAllocFailed {
		t.Errorf("failed create: %v", err)
	}
}

// fakeStream is a Stream of the fake.
type fakeStream struct {
	h   uintptr
	err error
}

func (s fakeStream) Handle() (uintptr, error) { return s.h, s.err }

// TestRunChecks: Run checks its operands before calling cuBLASLt, and
// passes the stream and the algorithm's workspace.
func TestRunChecks(t *testing.T) {
	g := newFakeLt()
	g.algoWS = 1000
	h := openFake(t, g)
	gm := GEMM{B: 2, K: 3, N: 4, Epilogue: EpilogueReLUBias}
	p, err := h.NewPlan(gm)
	if err != nil {
		t.Fatal(err)
	}
	if p.WorkspaceBytes() != 1000 {
		t.Errorf("workspace %d", p.WorkspaceBytes())
	}
	good := fakeOperands(g, p, newHostGEMM(gm, rand.New(rand.NewPCG(3, 4))))
	if err := p.Run(fakeStream{h: 0x5eed}, good); err != nil {
		t.Fatal(err)
	}
	if g.lastStream != 0x5eed || g.lastWS != 1000 || g.matmuls != 1 {
		t.Errorf("stream %#x, workspace %d, %d matmuls", g.lastStream, g.lastWS, g.matmuls)
	}
	odd := fakeBuf{addr: good.Y.Addr() + 16, size: 64}
	with := func(f func(*Operands)) Operands { o := good; f(&o); return o }
	tests := []struct {
		s    Stream
		o    Operands
		want string
	}{
		{nil, with(func(o *Operands) { o.X = nil }), "X: no buffer"},
		{nil, with(func(o *Operands) { o.W = fakeBuf{addr: good.W.Addr(), size: 47} }), "W: 47 bytes do not hold the 48 the product needs"},
		{nil, with(func(o *Operands) { o.Y = odd }), "Y: address 0x"},
		{nil, with(func(o *Operands) { o.Bias = nil }), "bias: no buffer"},
		{nil, with(func(o *Operands) { o.Bias = fakeBuf{addr: good.Bias.Addr(), size: 15} }), "bias: 15 bytes do not hold the 16"},
		{nil, with(func(o *Operands) { o.Workspace = nil }), "workspace: no buffer"},
		{nil, with(func(o *Operands) { o.Workspace = fakeBuf{addr: good.Workspace.Addr(), size: 999} }), "workspace: 999 bytes do not hold the 1000"},
		{fakeStream{err: errors.New("cuda: use of closed Stream")}, good, "cuda: use of closed Stream"},
	}
	for _, tc := range tests {
		calls := g.calls
		err := p.Run(tc.s, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cublaslt: run gemm 2x3x4 fp32 relu_bias: ") {
			t.Errorf("%v, want %q", err, tc.want)
		}
		if g.calls != calls {
			t.Errorf("%q: %d cuBLASLt calls before the error", tc.want, g.calls-calls)
		}
	}
	if err := p.Close(); err != nil || p.Close() != nil {
		t.Errorf("close: %v", err)
	}
	if err := p.Run(nil, good); err == nil || !strings.Contains(err.Error(), "use of closed Plan") {
		t.Errorf("run of a closed plan: %v", err)
	}

	// Without a bias epilogue a bias is refused; without a workspace need
	// none is required, but one given must be aligned.
	p2, err := h.NewPlan(GEMM{B: 2, K: 3, N: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if err := p2.Run(nil, good); err == nil || !strings.Contains(err.Error(), "bias: the default epilogue adds none") {
		t.Errorf("bias without an epilogue: %v", err)
	}
	g.algoWS = 0
	p3, err := h.NewPlan(GEMM{B: 2, K: 3, N: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer p3.Close()
	o := with(func(o *Operands) { o.Bias, o.Workspace = nil, nil })
	if err := p3.Run(nil, o); err != nil || g.lastWS != 0 || g.lastStream != 0 {
		t.Errorf("no workspace: %v (workspace %d, stream %#x)", err, g.lastWS, g.lastStream)
	}
	o.Workspace = odd
	if err := p3.Run(nil, o); err == nil || !strings.Contains(err.Error(), "workspace: address") {
		t.Errorf("misaligned workspace: %v", err)
	}
	// A cuBLASLt failure names the call.
	g.descs[p3.desc].attrs[descTransA] = binary.LittleEndian.AppendUint32(nil, uint32(opT)) // op(A) no longer fits op(B)
	o.Workspace = nil
	err = p3.Run(nil, o)
	if err == nil || err.Error() != "cublaslt: run gemm 2x3x4 fp32 default: cublasLtMatmul: CUBLAS_STATUS_INVALID_VALUE: an invalid numeric value was used as an argument" {
		t.Errorf("failed matmul: %v", err)
	}
	// A closed handle stops its plans.
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p3.Run(nil, o); err == nil || !strings.Contains(err.Error(), "use of closed Handle") {
		t.Errorf("run on a closed handle: %v", err)
	}
	if _, err := h.NewPlan(GEMM{B: 1, K: 1, N: 1}); err == nil || !strings.Contains(err.Error(), "use of closed Handle") {
		t.Errorf("plan on a closed handle: %v", err)
	}
}

func TestEnums(t *testing.T) {
	for _, tc := range []struct {
		act       string
		bias      bool
		e         Epilogue
		rest      string
		name      string
		valueOfEp uint32
	}{
		{"none", false, EpilogueDefault, "", "default", epilogueDefault},
		{"", true, EpilogueBias, "", "bias", epilogueBias},
		{"relu", false, EpilogueReLU, "", "relu", epilogueReLU},
		{"relu", true, EpilogueReLUBias, "", "relu_bias", epilogueReLUBias},
		{"sigmoid", true, EpilogueBias, "sigmoid", "bias", epilogueBias},
		{"tanh", false, EpilogueDefault, "tanh", "default", epilogueDefault},
	} {
		e, rest, err := ForActivation(tc.act, tc.bias)
		if err != nil || e != tc.e || rest != tc.rest || e.String() != tc.name || epilogues[e].value != tc.valueOfEp || e.HasBias() != tc.bias {
			t.Errorf("ForActivation(%q, %v) = %v, %q, %v", tc.act, tc.bias, e, rest, err)
		}
	}
	if _, _, err := ForActivation("gelu", true); err == nil || err.Error() != `cublaslt: unknown activation "gelu" (want none, relu, sigmoid or tanh)` {
		t.Errorf("gelu: %v", err)
	}
	for _, p := range []Precision{FP32, TF32, BF16} {
		if q, err := ParsePrecision(p.String()); err != nil || q != p {
			t.Errorf("ParsePrecision(%v) = %v, %v", p, q, err)
		}
	}
	if _, err := ParsePrecision("fp16"); err == nil {
		t.Error("fp16 parsed")
	}
	if s := fmt.Sprint(Epilogue(9), Precision(-1), Epilogue(9).HasBias()); s != "Epilogue(9) Precision(-1) false" {
		t.Errorf("invalid enums print %q", s)
	}
	want := `gemm "d/MatMul" 2x3x4 transpose_a transpose_b bf16->bf16 relu_bias`
	if s := fmt.Sprint(GEMM{Name: "d/MatMul", B: 2, K: 3, N: 4, TransposeX: true, TransposeW: true, Precision: BF16, OutBF16: true, Epilogue: EpilogueReLUBias}); s != want {
		t.Errorf("GEMM prints %q, want %q", s, want)
	}
	want = `gemm 2x3x4 fp32 ldy=8 aligny=16 y+= bias`
	if s := fmt.Sprint(GEMM{B: 2, K: 3, N: 4, LdY: 8, AlignY: 16, Accumulate: true, Epilogue: EpilogueBias}); s != want {
		t.Errorf("GEMM prints %q, want %q", s, want)
	}
}

// TestHeuristicResultLayout: the Go structures have cublasLt.h's sizes
// and offsets.
func TestHeuristicResultLayout(t *testing.T) {
	var r heuristicResult
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(cublasLtMatmulAlgo_t)", unsafe.Sizeof(algo{}), 64},
		{"sizeof(cublasLtMatmulHeuristicResult_t)", unsafe.Sizeof(r), 96},
		{"offsetof(algo)", unsafe.Offsetof(r.algo), 0},
		{"offsetof(workspaceSize)", unsafe.Offsetof(r.workspaceSize), 64},
		{"offsetof(state)", unsafe.Offsetof(r.state), 72},
		{"offsetof(wavesCount)", unsafe.Offsetof(r.wavesCount), 76},
		{"offsetof(reserved)", unsafe.Offsetof(r.reserved), 80},
		{"alignof(cublasLtMatmulHeuristicResult_t)", unsafe.Alignof(r), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if math.MaxInt32 != MaxDim {
		t.Error("MaxDim")
	}
}

// TestConcatParts computes Y = relu(concat(X1, X2)·W + bias) in two
// products, the second accumulating into the first's Y (the split of K
// over the inputs of a concatenation), with Y the columns [off, off+N) of
// a wider row-major matrix (the output placed in the next product's
// concatenated input): the columns around it keep their values, and Y is
// the product of the whole K up to one rounding of the first part.
func TestConcatParts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const B, K1, K2, N, ld = 5, 3, 4, 6, 11
	for _, out := range []bool{false, true} {
		for _, off := range []int64{0, 1, 5} {
			prec := FP32
			if out {
				prec = BF16
			}
			outB := int64(4)
			if out {
				outB = 2
			}
			align := (off * outB) & -(off * outB) // the offset's alignment
			if off == 0 {
				align = 0
			}
			first := GEMM{B: B, K: K1, N: N, Precision: prec, OutBF16: out, LdY: ld, AlignY: min(align, Alignment)}
			second := first
			second.K, second.Accumulate, second.Epilogue = K2, true, EpilogueReLUBias
			full := GEMM{B: B, K: K1 + K2, N: N, Precision: prec, OutBF16: out, Epilogue: EpilogueReLUBias}
			t.Run(second.String()+fmt.Sprintf(" off=%d", off), func(t *testing.T) {
				g := newFakeLt()
				h := openFake(t, g)
				p1, err := h.NewPlan(first)
				if err != nil {
					t.Fatal(err)
				}
				defer p1.Close()
				p2, err := h.NewPlan(second)
				if err != nil {
					t.Fatal(err)
				}
				defer p2.Close()
				hg := newHostGEMM(full, r)
				// X1, X2 and W1, W2: the columns of X and rows of W.
				x1, x2 := make([]float32, 0, B*K1), make([]float32, 0, B*K2)
				for b := range int64(B) {
					x1 = append(x1, hg.x[b*(K1+K2):b*(K1+K2)+K1]...)
					x2 = append(x2, hg.x[b*(K1+K2)+K1:(b+1)*(K1+K2)]...)
				}
				w1, w2 := hg.w[:K1*N], hg.w[K1*N:]
				in := int64(4)
				if out {
					in = 2
				}
				put := func(v []float32) fakeBuf {
					b := g.alloc(int64(len(v)) * in)
					if out {
						g.putBF16(b, ToBF16(v))
					} else {
						g.putF32(b, v)
					}
					return b
				}
				wide := g.alloc(B * ld * outB)
				for i := range g.mem[wide.addr] {
					g.mem[wide.addr][i] = 0xff
				}
				y := fakeBuf{addr: wide.addr + uint64(off*outB), size: wide.size - off*outB}
				bias := put(hg.bias)
				if !out {
					bias = g.alloc(N * 4)
					g.putF32(bias, hg.bias)
				}
				if err := p1.Run(nil, Operands{X: put(x1), W: put(w1), Y: y}); err != nil {
					t.Fatal(err)
				}
				if err := p2.Run(nil, Operands{X: put(x2), W: put(w2), Y: y, Bias: bias}); err != nil {
					t.Fatal(err)
				}
				var got []float32
				if out {
					got = g.getBF16(wide, B*ld)
				} else {
					got = g.getF32(wide, B*ld)
				}
				ref := hg.rounded()
				for b := range int64(B) {
					row := ref.row(b)
					// The first part is rounded to Y's type before the
					// second is added: within a rounding of the row's
					// largest value.
					scale := 1.0
					for _, v := range row {
						scale = math.Max(scale, math.Abs(v))
					}
					tol := 1e-6 * scale
					if out {
						tol = 1.0 / 128 * scale
					}
					for c := range int64(ld) {
						v := got[b*ld+c]
						if c < off || c >= off+N {
							if !math.IsNaN(float64(v)) {
								t.Fatalf("row %d column %d outside Y was written: %v", b, c, v)
							}
							continue
						}
						want := store(full, row[c-off])
						if d := math.Abs(float64(v - want)); d > tol {
							t.Fatalf("Y[%d][%d] = %v, want %v", b, c-off, v, want)
						}
					}
				}
			})
		}
	}
}

// TestRunPitchedY: Y's size counts its pitch, and its address is held to
// AlignY.
func TestRunPitchedY(t *testing.T) {
	g := newFakeLt()
	h := openFake(t, g)
	gm := GEMM{B: 3, K: 2, N: 4, LdY: 10, AlignY: 8}
	p, err := h.NewPlan(gm)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x, w, wide := g.alloc(3*2*4), g.alloc(2*4*4), g.alloc(3*10*4)
	for _, tc := range []struct {
		y    fakeBuf
		want string
	}{
		{fakeBuf{addr: wide.addr + 8, size: (2*10 + 4) * 4}, ""},
		{fakeBuf{addr: wide.addr + 8, size: (2*10+4)*4 - 1}, "Y: 95 bytes do not hold the 96 the product needs"},
		{fakeBuf{addr: wide.addr + 4, size: 100}, "is not 8-byte aligned"},
	} {
		err := p.Run(nil, Operands{X: x, W: w, Y: tc.y})
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Y at %#x, %d bytes: %v, want %q", tc.y.addr, tc.y.size, err, tc.want)
		}
	}
	// The fake refuses a Y less aligned than the heuristic was told: a
	// plan without AlignY promises 256 bytes.
	p2, err := h.NewPlan(GEMM{B: 3, K: 2, N: 4, LdY: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	p2.g.AlignY = 8 // Run's check passes; cuBLASLt's does not
	if err := p2.Run(nil, Operands{X: x, W: w, Y: fakeBuf{addr: wide.addr + 8, size: 96}}); Code(err) != StatusInvalidValue {
		t.Errorf("a Y less aligned than promised: %v", err)
	}
}
