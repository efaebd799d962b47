package cublaslt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/recom-compiler/recom/runtime/internal/dlbind"
)

// api is the table of cuBLASLt entry points. Open fills it from the
// library through purego; tests fill it with fakes. Handles and
// descriptors (cublasLtHandle_t, cublasLtMatmulDesc_t,
// cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, cudaStream_t) are
// uintptr; enums are int32 or uint32 as their C values are passed;
// size_t and uint64_t are uint64; device pointers are uint64.
type api struct {
	cublasLtGetStatusName   func(s Status) string
	cublasLtGetStatusString func(s Status) string
	cublasLtGetVersion      func() uint64

	cublasLtCreate  func(h *uintptr) Status
	cublasLtDestroy func(h uintptr) Status

	cublasLtMatmulDescCreate       func(d *uintptr, compute, scale int32) Status
	cublasLtMatmulDescDestroy      func(d uintptr) Status
	cublasLtMatmulDescSetAttribute func(d uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status

	cublasLtMatrixLayoutCreate  func(l *uintptr, typ int32, rows, cols uint64, ld int64) Status
	cublasLtMatrixLayoutDestroy func(l uintptr) Status

	cublasLtMatmulPreferenceCreate       func(p *uintptr) Status
	cublasLtMatmulPreferenceDestroy      func(p uintptr) Status
	cublasLtMatmulPreferenceSetAttribute func(p uintptr, attr uint32, buf unsafe.Pointer, size uint64) Status

	cublasLtMatmulAlgoGetHeuristic func(h, op, a, b, c, d, pref uintptr, requested int32, results *heuristicResult, returned *int32) Status

	// cublasLtMatmul(handle, desc, alpha, A, Adesc, B, Bdesc, beta, C,
	// Cdesc, D, Ddesc, algo, workspace, workspaceSize, stream): 16
	// arguments, 10 of them on the stack (purego allows 32 in all).
	cublasLtMatmul func(h, op uintptr, alpha unsafe.Pointer, a uint64, adesc uintptr, b uint64, bdesc uintptr,
		beta unsafe.Pointer, c uint64, cdesc uintptr, d uint64, ddesc uintptr, al *algo, ws, wsSize uint64, stream uintptr) Status
}

// symbols lists the entry points of a, by the names libcublasLt exports.
func (a *api) symbols() []dlbind.Symbol {
	s := func(name string, fptr any) dlbind.Symbol { return dlbind.Symbol{Names: []string{name}, Fptr: fptr} }
	return []dlbind.Symbol{
		s("cublasLtGetStatusName", &a.cublasLtGetStatusName),
		s("cublasLtGetStatusString", &a.cublasLtGetStatusString),
		s("cublasLtGetVersion", &a.cublasLtGetVersion),
		s("cublasLtCreate", &a.cublasLtCreate),
		s("cublasLtDestroy", &a.cublasLtDestroy),
		s("cublasLtMatmulDescCreate", &a.cublasLtMatmulDescCreate),
		s("cublasLtMatmulDescDestroy", &a.cublasLtMatmulDescDestroy),
		s("cublasLtMatmulDescSetAttribute", &a.cublasLtMatmulDescSetAttribute),
		s("cublasLtMatrixLayoutCreate", &a.cublasLtMatrixLayoutCreate),
		s("cublasLtMatrixLayoutDestroy", &a.cublasLtMatrixLayoutDestroy),
		s("cublasLtMatmulPreferenceCreate", &a.cublasLtMatmulPreferenceCreate),
		s("cublasLtMatmulPreferenceDestroy", &a.cublasLtMatmulPreferenceDestroy),
		s("cublasLtMatmulPreferenceSetAttribute", &a.cublasLtMatmulPreferenceSetAttribute),
		s("cublasLtMatmulAlgoGetHeuristic", &a.cublasLtMatmulAlgoGetHeuristic),
		s("cublasLtMatmul", &a.cublasLtMatmul),
	}
}

// bind fills a's fields with the addresses lookup finds; a missing entry
// point is an error naming it.
func (a *api) bind(lookup func(name string) (uintptr, error)) error {
	return dlbind.Bind(lookup, a.symbols(), func(name string, err error) error {
		return fmt.Errorf("the library has no %s (%v): it is older than this runtime needs", name, err)
	})
}

// Names are the library file names Open tries, the newest major version
// first.
var Names = []string{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}

// Dirs returns the folders Open searches before the dynamic loader's own
// path: $CUDA_HOME/lib64 when cudaHome is set, then the toolkit's usual
// places.
func Dirs(cudaHome string) []string {
	var d []string
	if cudaHome != "" {
		d = append(d, filepath.Join(cudaHome, "lib64"))
	}
	return append(d, "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib")
}

// Library is a loaded cuBLASLt.
type Library struct {
	api     *api
	path    string
	version int
}

// Open loads cuBLASLt: each of Names in each of Dirs($CUDA_HOME) where the
// file exists, then each of Names through the dynamic loader's search
// (LD_LIBRARY_PATH, the ld.so cache). When none loads, the error wraps
// ErrNotFound and lists what was tried.
func Open() (*Library, error) {
	var tried []string
	for _, dir := range Dirs(os.Getenv("CUDA_HOME")) {
		for _, n := range Names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			l, err := OpenLibrary(p)
			if err == nil {
				return l, nil
			}
			if !errors.Is(err, ErrNotFound) {
				return nil, err // it loaded but is unusable: say so rather than look further
			}
			tried = append(tried, strings.TrimPrefix(err.Error(), ErrNotFound.Error()+": "))
		}
	}
	for _, n := range Names {
		l, err := OpenLibrary(n)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: none of %s in %s, nor on the dynamic loader's path (LD_LIBRARY_PATH, ld.so.cache)%s",
		ErrNotFound, strings.Join(Names, ", "), strings.Join(Dirs(os.Getenv("CUDA_HOME")), ", "), triedList(tried))
}

func triedList(tried []string) string {
	if len(tried) == 0 {
		return ""
	}
	return "; present but not loadable: " + strings.Join(tried, "; ")
}

// OpenLibrary loads the cuBLASLt library at path (a file, or a name for
// the dynamic loader) and binds its entry points. A library that cannot be
// loaded is ErrNotFound; one that lacks an entry point is another error.
func OpenLibrary(path string) (*Library, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot load %s: %v", ErrNotFound, path, err)
	}
	a := &api{}
	if err := a.bind(func(name string) (uintptr, error) { return purego.Dlsym(h, name) }); err != nil {
		return nil, fmt.Errorf("cublaslt: %s: %w", path, err)
	}
	return newLibrary(a, path), nil
}

func newLibrary(a *api, path string) *Library {
	return &Library{api: a, path: path, version: int(a.cublasLtGetVersion())}
}

// Path is what the library was loaded from.
func (l *Library) Path() string { return l.path }

// Version is cublasLtGetVersion: 10000*major + 100*minor + patch (130100
// for cuBLAS 13.1.0).
func (l *Library) Version() int { return l.version }

func (l *Library) String() string {
	return fmt.Sprintf("cuBLASLt %d.%d.%d (%s)", l.version/10000, l.version/100%100, l.version%100, l.path)
}
