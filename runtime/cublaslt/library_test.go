package cublaslt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/runtime/internal/dlbind"
)

func TestErrorMapping(t *testing.T) {
	a := newFakeLt().api()
	tests := []struct {
		s    Status
		want string
	}{
		{StatusSuccess, ""},
		{StatusNotSupported, "cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED: the requested functionality is not supported"},
		{StatusInvalidValue, "cublasLtMatmul: CUBLAS_STATUS_INVALID_VALUE: an invalid numeric value was used as an argument"},
		{Status(12345), "cublasLtMatmul: <unknown>"}, // the library's name for a code it does not know, once
	}
	for _, tc := range tests {
		err := a.check("cublasLtMatmul", tc.s)
		if tc.want == "" {
			if err != nil {
				t.Errorf("check(%d) = %v, want nil", tc.s, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("check(%d) = %v, want %q", tc.s, err, tc.want)
		}
		if wrapped := fmt.Errorf("cublaslt: run: %w", err); Code(wrapped) != tc.s {
			t.Errorf("Code(%v) = %d, want %d", wrapped, Code(wrapped), tc.s)
		}
	}
	// Without the library's strings the code still shows.
	if got := (*api)(nil).check("cublasLtCreate", StatusArchMismatch).Error(); got != "cublasLtCreate: cublasStatus_t(8)" {
		t.Errorf("nil api: %q", got)
	}
	if Code(nil) != StatusSuccess || Code(errors.New("x")) != StatusUnknown {
		t.Error("Code of nil or a foreign error")
	}
}

func TestDirs(t *testing.T) {
	std := []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"}
	if got := Dirs(""); !slices.Equal(got, std) {
		t.Errorf("Dirs(\"\") = %v", got)
	}
	if got := Dirs("/opt/cuda-13.0"); !slices.Equal(got, append([]string{"/opt/cuda-13.0/lib64"}, std...)) {
		t.Errorf("Dirs(/opt/cuda-13.0) = %v", got)
	}
	if !slices.Equal(Names, []string{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}) {
		t.Errorf("Names = %v", Names)
	}
}

// TestNotFound: a library that cannot be loaded is ErrNotFound, and Open's
// error names the places it looked, and a file there that did not load.
func TestNotFound(t *testing.T) {
	_, err := OpenLibrary("/nonexistent/libcublasLt.so.13")
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "cuBLASLt not found: cannot load /nonexistent/libcublasLt.so.13: ") {
		t.Errorf("OpenLibrary of a missing file: %v", err)
	}
	home := t.TempDir()
	bogus := filepath.Join(home, "lib64", "libcublasLt.so.13")
	if err := os.MkdirAll(filepath.Dir(bogus), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bogus, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CUDA_HOME", home)
	l, err := Open()
	if err == nil {
		// A real cuBLASLt is installed: the bogus file was passed over.
		if l.Path() == bogus {
			t.Errorf("loaded the bogus %s", bogus)
		}
		t.Logf("found %v", l)
		return
	}
	for _, want := range []string{
		"cuBLASLt not found: none of libcublasLt.so.13, libcublasLt.so.12, libcublasLt.so in " + home +
			"/lib64, /usr/local/cuda/lib64, /usr/local/cuda/targets/x86_64-linux/lib, nor on the dynamic loader's path",
		"present but not loadable: cannot load " + bogus,
	} {
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open: %v\nwant it to contain %q", err, want)
		}
	}
}

// TestBind: a library without an entry point is refused by name, and a Go
// signature purego cannot call is an error, not a panic.
func TestBind(t *testing.T) {
	a := &api{}
	err := a.bind(func(name string) (uintptr, error) {
		if name == "cublasLtMatmulAlgoGetHeuristic" {
			return 0, errors.New("undefined symbol")
		}
		return 0x1000, nil // never called
	})
	if err == nil || err.Error() != "the library has no cublasLtMatmulAlgoGetHeuristic (undefined symbol): it is older than this runtime needs" {
		t.Errorf("missing symbol: %v", err)
	}
	var bad func(chan int)
	if err := dlbind.Bind(func(string) (uintptr, error) { return 0x1000, nil }, []dlbind.Symbol{{Names: []string{"bad"}, Fptr: &bad}}, nil); err == nil || !strings.HasPrefix(err.Error(), "binding bad: purego: ") {
		t.Errorf("bad signature: %v", err)
	}
	// Every field of the table is bound.
	n := 0
	if err := (&api{}).bind(func(string) (uintptr, error) { n++; return 0x1000, nil }); err != nil || n != 15 {
		t.Errorf("bind: %v after %d symbols", err, n)
	}
}
