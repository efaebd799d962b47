package cuda

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/runtime/internal/dlbind"
)

func TestErrorMapping(t *testing.T) {
	a := newFakeGPU().api()
	tests := []struct {
		r    Result
		want string
	}{
		{Success, ""},
		{ErrorOutOfMemory, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY: out of memory"},
		{ErrorInvalidPTX, "cuMemAlloc_v2: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed"},
		{Result(12345), "cuMemAlloc_v2: CUresult(12345)"}, // a code the driver does not know
	}
	for _, tc := range tests {
		err := a.check("cuMemAlloc_v2", tc.r)
		if tc.want == "" {
			if err != nil {
				t.Errorf("check(%d) = %v, want nil", tc.r, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("check(%d) = %v, want %q", tc.r, err, tc.want)
		}
		wrapped := fmt.Errorf("cuda: alloc: %w", err)
		if Code(wrapped) != tc.r {
			t.Errorf("Code(%v) = %d, want %d", wrapped, Code(wrapped), tc.r)
		}
	}
	// Without the driver's strings (a nil table) the code still shows.
	if got := (*api)(nil).check("cuInit", ErrorNoDevice).Error(); got != "cuInit: CUresult(100)" {
		t.Errorf("nil api: %q", got)
	}
	if Code(nil) != Success || Code(errors.New("x")) != ErrorUnknown {
		t.Error("Code of nil or a foreign error")
	}
}

// TestNoDriver: a missing library is ErrNoDriver with the clear message.
func TestNoDriver(t *testing.T) {
	_, err := OpenLibrary("/nonexistent/libcuda.so.1")
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
	if !strings.HasPrefix(err.Error(), "no CUDA driver: libcuda.so.1 not found") {
		t.Errorf("message %q", err)
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libcuda.so.1"); err == nil {
		return // a driver may be here: Open's result is the GPU test's business
	}
	if _, err := Open(); err != nil && !errors.Is(err, ErrNoDriver) {
		t.Errorf("Open without a driver: %v, want ErrNoDriver", err)
	}
}

// TestBindSignatures binds every entry point to a dummy address, which
// proves purego can call each Go signature (nothing is called).
func TestBindSignatures(t *testing.T) {
	a := &api{}
	if err := a.bind(func(string) (uintptr, error) { return 0x1000, nil }); err != nil {
		t.Fatal(err)
	}
	for _, s := range a.symbols() {
		if s.Fptr == nil {
			t.Errorf("%s: no field", s.Names[0])
		}
	}
	if a.cuLaunchKernel == nil || a.cuFuncGetParamInfo == nil || a.cuEventElapsedTime == nil {
		t.Error("entry points left unbound")
	}
}

func TestBindMissing(t *testing.T) {
	missing := func(names ...string) func(string) (uintptr, error) {
		return func(n string) (uintptr, error) {
			for _, m := range names {
				if n == m {
					return 0, errors.New("undefined symbol: " + n)
				}
			}
			return 0x1000, nil
		}
	}
	// A required entry point: an error naming it.
	err := (&api{}).bind(missing("cuGraphInstantiateWithFlags"))
	if err == nil || !strings.Contains(err.Error(), "the driver has no cuGraphInstantiateWithFlags (undefined symbol: cuGraphInstantiateWithFlags)") {
		t.Errorf("err = %v", err)
	}
	// An optional one is left nil; an older name is the fallback.
	a := &api{}
	if err := a.bind(missing("cuFuncGetParamInfo", "cuEventElapsedTime_v2")); err != nil {
		t.Fatal(err)
	}
	if a.cuFuncGetParamInfo != nil || a.cuEventElapsedTime == nil {
		t.Error("optional or fallback binding")
	}
	// A signature purego cannot call is an error, not a panic.
	var bad func(s struct{ a, b, c, d, e [8]uint64 }) Result
	if err := dlbind.Bind(func(string) (uintptr, error) { return 0x1000, nil }, []dlbind.Symbol{{Names: []string{"bad"}, Fptr: &bad}}, nil); err == nil {
		t.Error("Bind accepted an unsupported signature")
	}
}

func TestGoString(t *testing.T) {
	b := []byte("CUDA_SUCCESS\x00junk")
	if got := goString(&b[0]); got != "CUDA_SUCCESS" {
		t.Errorf("goString = %q", got)
	}
	if goString(nil) != "" {
		t.Error("goString(nil)")
	}
}
