package nvptx_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"
)

var update = flag.Bool("update", false, "rewrite the golden .ll files under testdata")

// parse reads a textual module (the gpu dialect in generic form) and
// verifies it.
func parse(t testing.TB, name string, src []byte) *textir.Operation {
	t.Helper()
	ctx := all.NewContext()
	if ctx.Dialect("gpu") == nil {
		ctx.AllowUnregistered = true // until the gpu dialect is registered in dialects/all
	}
	m, err := textir.Parse(ctx, name, src)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify %s: %v", name, err)
	}
	return m
}

// The kernels under testdata: NAME.mlir is emitted, compared with the
// golden NAME.ll, and compiled by llc-19, whose PTX must contain ptx.
var kernels = []struct {
	name string
	ptx  []string
}{
	{"vector_add", []string{".entry vadd", "ld.global.nc.v4.f32", "ld.global.v4.f32", "st.global.v4.f32",
		".maxntid 256, 1, 1", ".minnctapersm 2", "mov.u32 %r{{}}, %tid.x", "%ctaid.x", "%ntid.x"}},
	{"block_reduce", []string{".entry block_sum", ".shared .align 16 .b8 block_sum_smem0[1024]", "bar.sync 0",
		"st.shared.f32", "ld.shared.f32", ".maxntid 256, 1, 1"}},
	{"warp_reduce", []string{".entry warp_sum", "shfl.sync.bfly.b32", "shfl.sync.down.b32", "atom.global.add.f32", "%laneid"}},
	{"csr_sum", []string{".entry csr_sum", "ld.global.nc.v4.f32", "st.global.v4.f32", "ld.global.nc.u64", "bra.uni"}},
	{"control_math", []string{".entry math", ".func (.param .b32 func_retval0) scale(", "call.uni", "sqrt.rn.f32",
		"rsqrt.approx.f32", "abs.f32", "fma.rn.f32", "min.f32", "max.f32", "cvt.rn.f32.s32", "selp", "shfl.sync.idx.b32", "shfl.sync.up.b32"}},
}

func TestKernels(t *testing.T) {
	llcPath := llctest.Need(t)
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", k.name+".mlir"))
			if err != nil {
				t.Fatal(err)
			}
			m := parse(t, k.name+".mlir", src)
			ll, err := nvptx.EmitText(m)
			if err != nil {
				t.Fatalf("emit: %v", err)
			}
			again, err := nvptx.EmitText(parse(t, k.name+".mlir", src))
			if err != nil || again != ll {
				t.Fatalf("emitting twice gave different modules (err %v)", err)
			}
			golden := filepath.Join("testdata", k.name+".ll")
			if *update {
				if err := os.WriteFile(golden, []byte(ll), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if ll != string(want) {
				t.Errorf("emitted LLVM IR differs from %s (go test -update rewrites it):\n%s", golden, lineDiff(string(want), ll))
			}
			ptx, err := llc.CompilePTX(context.Background(), []byte(ll), llc.Options{Path: llcPath, OptLevel: 3})
			if err != nil {
				t.Fatalf("llc: %v", err)
			}
			flat := strings.Join(strings.Fields(string(ptx)), " ")
			for _, s := range k.ptx {
				if !containsPattern(flat, s) {
					t.Errorf("PTX lacks %q:\n%s", s, ptx)
				}
			}
		})
	}
}

// containsPattern reports whether s contains pat, where {{}} in pat
// matches any run of digits. Whitespace runs are single spaces in both.
func containsPattern(s, pat string) bool {
	parts := strings.Split(pat, "{{}}")
	if len(parts) == 1 {
		return strings.Contains(s, pat)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], parts[0])
		if j < 0 {
			return false
		}
		if matchFrom(s[i+j+len(parts[0]):], parts[1:]) {
			return true
		}
		i += j + 1
	}
}

func matchFrom(s string, parts []string) bool {
	if len(parts) == 0 {
		return true
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || !strings.HasPrefix(s[n:], parts[0]) {
		return false
	}
	return matchFrom(s[n+len(parts[0]):], parts[1:])
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			if shown++; shown == 5 {
				break
			}
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// TestEmitErrors: what cannot be emitted fails with a diagnostic naming the op.
func TestEmitErrors(t *testing.T) {
	const head = `"gpu.module"() ({
  "gpu.func"() ({
  ^bb0(%p: !gpu.ptr<f32, global>, %i: i64, %c: i1):
`
	const tail = `
    "gpu.return"() : () -> ()
  }) {function_type = (!gpu.ptr<f32, global>, i64, i1) -> (), kernel, sym_name = "k"} : () -> ()
}) {sym_name = "m"} : () -> ()
`
	tests := []struct {
		name, body, want string
	}{
		{"unknown op", `%0 = "test.magic"() : () -> i32`, "'test.magic' op cannot be emitted as NVPTX LLVM IR"},
		{"bad width", `%0 = "gpu.load"(%p, %i) {width = 3 : i64} : (!gpu.ptr<f32, global>, i64) -> f32`, "'gpu.load' op width must be 1, 2 or 4, got 3"},
		{"bad mode", `%w = "arith.constant"() {value = 32 : i32} : () -> i32
    %o = "arith.constant"() {value = 1 : i32} : () -> i32
    %v = "gpu.load"(%p, %i) : (!gpu.ptr<f32, global>, i64) -> f32
    %0 = "gpu.shuffle"(%v, %o, %w) {mode = "sideways"} : (f32, i32, i32) -> f32`, `'gpu.shuffle' op unknown shuffle mode "sideways"`},
		{"bad shuffle width", `%w = "arith.constant"() {value = 12 : i32} : () -> i32
    %v = "gpu.load"(%p, %i) : (!gpu.ptr<f32, global>, i64) -> f32
    %0 = "gpu.shuffle"(%v, %w, %w) {mode = "xor"} : (f32, i32, i32) -> f32`, "'gpu.shuffle' op width must be a power of two in [1, 32], got 12"},
		{"no dim", `%0 = "gpu.thread_id"() : () -> i32`, "'gpu.thread_id' op needs a 'dim' attribute (x, y or z)"},
		{"bad dim", `%0 = "gpu.thread_id"() {dimension = "w"} : () -> i32`, "'gpu.thread_id' op 'dimension' must be x, y or z"},
		{"dense constant", `%0 = "arith.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>`, "'arith.constant' op result #0: unsupported type tensor<4xf32>"},
		{"if results without else", `%0 = "gpu.if"(%c) ({
      %z = "arith.constant"() {value = 0.0 : f32} : () -> f32
      "gpu.yield"(%z) : (f32) -> ()
    }, {
    }) : (i1) -> f32`, "'gpu.if' op has results but no else region"},
		{"unknown callee", `"gpu.call"() {callee = @nowhere} : () -> ()`, "'gpu.call' op calls @nowhere, which is not a gpu.func of the gpu.module"},
		{"shared in global space", `%0 = "gpu.shared_alloc"() {count = 4 : i64} : () -> !gpu.ptr<f32, global>`, "'gpu.shared_alloc' op result must be a !gpu.ptr in the shared address space"},
		{"stored type", `%z = "arith.constant"() {value = 0 : i32} : () -> i32
    "gpu.store"(%z, %p, %i) : (i32, !gpu.ptr<f32, global>, i64) -> ()`, "'gpu.store' op stored value #0 has type i32, the pointer's elements are float"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := head + "    " + tc.body + tail
			ctx := all.NewContext()
			ctx.AllowUnregistered = true
			m, err := textir.Parse(ctx, "test.mlir", []byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			_, err = nvptx.Emit(m)
			if err == nil {
				t.Fatalf("emitted; want error %q", tc.want)
			}
			var d *textir.Diagnostic
			if !errors.As(err, &d) {
				t.Errorf("error %T is not a *textir.Diagnostic: %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n  %v\nwant it to contain:\n  %s", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "test.mlir:") {
				t.Errorf("error %q does not start with the op's location", err)
			}
		})
	}
}

// TestHostSkipped: the host program is not emitted; a module without
// gpu.module gives an LLVM module without functions.
func TestHostSkipped(t *testing.T) {
	src := `func.func @host(%n: i64) {
  %c = arith.constant 1 : i64
  func.return
}
`
	m := parse(t, "host.mlir", []byte(src))
	mod, err := nvptx.Emit(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(mod.Funcs) != 0 {
		t.Errorf("host functions were emitted:\n%s", mod)
	}
	if mod.TargetTriple != nvptx.Triple || mod.DataLayout != nvptx.DataLayout {
		t.Errorf("triple %q, data layout %q", mod.TargetTriple, mod.DataLayout)
	}
}
