package llc

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// needLLC returns llc-19's path, skipping the test when it is missing
// except under CI=true, where a missing llc-19 fails.
func needLLC(t *testing.T) string {
	t.Helper()
	p, err := FindLLC()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skip(err)
	}
	return p
}

const kernelLL = `target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(float addrspace(1)* %p) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = sext i32 %0 to i64
	%2 = getelementptr inbounds float, float addrspace(1)* %p, i64 %1
	store float 1.0, float addrspace(1)* %2, align 4
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*)* @k, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*)* @k, !"maxntidx", i32 128}
`

func TestCompilePTX(t *testing.T) {
	path := needLLC(t)
	for _, o := range []Options{{Path: path, OptLevel: 3}, {OptLevel: -1}, {Path: path, CPU: "sm_80", OptLevel: 0}} {
		ptx, err := CompilePTX(context.Background(), []byte(kernelLL), o)
		if err != nil {
			t.Fatalf("%v: %v", o.Args(), err)
		}
		cpu := o.CPU
		if cpu == "" {
			cpu = DefaultCPU
		}
		for _, want := range []string{".target " + cpu, ".entry k(", ".maxntid 128, 1, 1", "%tid.x", "st.global.u32"} {
			if !strings.Contains(string(ptx), want) {
				t.Errorf("%v: PTX lacks %q:\n%s", o.Args(), want, ptx)
			}
		}
	}
}

func TestCompilePTXError(t *testing.T) {
	path := needLLC(t)
	_, err := CompilePTX(context.Background(), []byte("define void @k() {\n  ret i32 0\n}\n"), Options{Path: path, OptLevel: 3})
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T), want a *ToolError", err, err)
	}
	if !strings.Contains(te.Stderr, "error:") || !strings.Contains(err.Error(), "value doesn't match function result type") {
		t.Errorf("the error does not carry llc's stderr:\n%v", err)
	}
	if _, err := CompilePTX(context.Background(), []byte(kernelLL), Options{Path: "/nonexistent/llc-19"}); err == nil {
		t.Error("a missing llc binary did not fail")
	}
}

// An empty module compiles to PTX without any .entry: callers must check
// for the kernels they expect (as the nvptx tests and lit tests do).
func TestEmptyModuleHasNoEntry(t *testing.T) {
	path := needLLC(t)
	ptx, err := CompilePTX(context.Background(), []byte("target triple = \"nvptx64-nvidia-cuda\"\n"), Options{Path: path, OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(ptx), ".entry") {
		t.Errorf("empty module produced an .entry:\n%s", ptx)
	}
}

func TestArgs(t *testing.T) {
	got := DefaultOptions().Args()
	want := []string{"-march=nvptx64", "-mcpu=sm_90", "-O3", "-o", "-", "-"}
	if !slices.Equal(got, want) {
		t.Errorf("Args() = %q, want %q", got, want)
	}
	got = Options{CPU: "sm_80", OptLevel: 1, Extra: []string{"-nvptx-short-ptr"}}.Args()
	want = []string{"-march=nvptx64", "-mcpu=sm_80", "-O1", "-nvptx-short-ptr", "-o", "-", "-"}
	if !slices.Equal(got, want) {
		t.Errorf("Args() = %q, want %q", got, want)
	}
}

func TestParseReport(t *testing.T) {
	tests := []struct {
		name, log string
		want      []Resources
	}{
		{"kernel and device function", `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'block_sum' for 'sm_90'
ptxas info    : Function properties for block_sum
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 1024 bytes smem, 368 bytes cmem[0]
ptxas info    : Function properties for scale
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'math' for 'sm_90'
ptxas info    : Function properties for math
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 255 registers, 1 barriers, 376 bytes cmem[0]
`, []Resources{
			{Function: "block_sum", Entry: true, Arch: "sm_90", Registers: 12, SharedBytes: 1024, ConstantBytes: 368},
			{Function: "scale", StackFrame: 8, SpillStores: 4, SpillLoads: 4},
			{Function: "math", Entry: true, Arch: "sm_90", Registers: 255, Barriers: 1, ConstantBytes: 376},
		}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReport(tc.log)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseReport:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if _, err := ParseReport("ptxas fatal   : Unresolved extern function 'f'\nerror"); err == nil {
		t.Error("a failure report parsed without error")
	}
}

// TestAssemble runs ptxas when it is installed; the cubin step is optional,
// so its absence skips the test (with the reason) even under CI.
func TestAssemble(t *testing.T) {
	ptxas, err := FindPtxas()
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		t.Skipf("cubin step skipped: %v", err)
	}
	path := needLLC(t)
	ptx, err := CompilePTX(context.Background(), []byte(kernelLL), Options{Path: path, OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	cubin, err := Assemble(context.Background(), ptxas, ptx, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	if len(cubin.Data) == 0 || len(cubin.Resources) != 1 || cubin.Resources[0].Function != "k" || cubin.Resources[0].Registers == 0 {
		t.Errorf("cubin of %d bytes, resources %+v\n%s", len(cubin.Data), cubin.Resources, cubin.Log)
	}
}

// CheckCPU accepts sm_NN, sm_NNN and their a/f variants only; CompilePTX and
// Assemble refuse anything else before a tool is looked for or run (the
// nonexistent paths would fail otherwise with a different error).
func TestCheckCPU(t *testing.T) {
	for _, cpu := range []string{"sm_50", "sm_80", "sm_90", "sm_90a", "sm_100a", "sm_120f"} {
		if err := CheckCPU(cpu); err != nil {
			t.Errorf("CheckCPU(%q) = %v, want nil", cpu, err)
		}
	}
	for _, cpu := range []string{"", "sm_90 -o x", "-o", "sm90", "sm_", "sm_9", "sm_1000", "sm_09", "sm_90b", "compute_90", "sm_90\n", " sm_90", "sm_90;-O0"} {
		err := CheckCPU(cpu)
		if err == nil {
			t.Errorf("CheckCPU(%q) = nil, want an error", cpu)
			continue
		}
		if !strings.Contains(err.Error(), "want sm_") {
			t.Errorf("CheckCPU(%q) = %v: does not say what is wanted", cpu, err)
		}
		if cpu == "" {
			continue // "" is the default in Options and Assemble
		}
		if _, err := CompilePTX(context.Background(), []byte(kernelLL), Options{Path: "/nonexistent/llc-19", CPU: cpu}); err == nil || !strings.Contains(err.Error(), "target GPU") {
			t.Errorf("CompilePTX with CPU %q: %v, want the CPU refused", cpu, err)
		}
		if _, err := Assemble(context.Background(), "/nonexistent/ptxas", []byte(".version 8.0\n"), cpu); err == nil || !strings.Contains(err.Error(), "target GPU") {
			t.Errorf("Assemble with arch %q: %v, want the arch refused", cpu, err)
		}
	}
}
