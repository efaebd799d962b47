package cublaslt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The C side of what this package assumes, checked against the installed
// headers by TestHeader.

// cConsts names each constant this package passes with its C name.
var cConsts = []struct {
	name string
	v    int64
}{
	{"CUDA_R_32F", int64(cudaR32F)},
	{"CUDA_R_16BF", int64(cudaR16BF)},
	{"CUBLAS_COMPUTE_32F", int64(computeF32)},
	{"CUBLAS_COMPUTE_32F_FAST_TF32", int64(computeF32TF32)},
	{"CUBLAS_OP_N", int64(opN)},
	{"CUBLAS_OP_T", int64(opT)},
	{"CUBLASLT_MATMUL_DESC_TRANSA", int64(descTransA)},
	{"CUBLASLT_MATMUL_DESC_TRANSB", int64(descTransB)},
	{"CUBLASLT_MATMUL_DESC_EPILOGUE", int64(descEpilogue)},
	{"CUBLASLT_MATMUL_DESC_BIAS_POINTER", int64(descBiasPointer)},
	{"CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE", int64(descBiasDataType)},
	{"CUBLASLT_EPILOGUE_DEFAULT", int64(epilogueDefault)},
	{"CUBLASLT_EPILOGUE_RELU", int64(epilogueReLU)},
	{"CUBLASLT_EPILOGUE_BIAS", int64(epilogueBias)},
	{"CUBLASLT_EPILOGUE_RELU_BIAS", int64(epilogueReLUBias)},
	{"CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES", int64(prefMaxWorkspaceBytes)},
	{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES", int64(prefMinAlignmentCBytes)},
	{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES", int64(prefMinAlignmentDBytes)},
	{"CUBLAS_STATUS_SUCCESS", int64(StatusSuccess)},
	{"CUBLAS_STATUS_NOT_INITIALIZED", int64(StatusNotInitialized)},
	{"CUBLAS_STATUS_ALLOC_FAILED", int64(StatusAllocFailed)},
	{"CUBLAS_STATUS_INVALID_VALUE", int64(StatusInvalidValue)},
	{"CUBLAS_STATUS_ARCH_MISMATCH", int64(StatusArchMismatch)},
	{"CUBLAS_STATUS_MAPPING_ERROR", int64(StatusMappingError)},
	{"CUBLAS_STATUS_EXECUTION_FAILED", int64(StatusExecutionFailed)},
	{"CUBLAS_STATUS_INTERNAL_ERROR", int64(StatusInternalError)},
	{"CUBLAS_STATUS_NOT_SUPPORTED", int64(StatusNotSupported)},
	{"CUBLAS_STATUS_LICENSE_ERROR", int64(StatusLicenseError)},
}

// cProtos are the C prototypes the api table's Go signatures stand for:
// return type, then the parameter types (names dropped).
var cProtos = map[string][]string{
	"cublasLtGetStatusName":                {"const char*", "cublasStatus_t"},
	"cublasLtGetStatusString":              {"const char*", "cublasStatus_t"},
	"cublasLtGetVersion":                   {"size_t", "void"},
	"cublasLtCreate":                       {"cublasStatus_t", "cublasLtHandle_t*"},
	"cublasLtDestroy":                      {"cublasStatus_t", "cublasLtHandle_t"},
	"cublasLtMatmulDescCreate":             {"cublasStatus_t", "cublasLtMatmulDesc_t*", "cublasComputeType_t", "cudaDataType_t"},
	"cublasLtMatmulDescDestroy":            {"cublasStatus_t", "cublasLtMatmulDesc_t"},
	"cublasLtMatmulDescSetAttribute":       {"cublasStatus_t", "cublasLtMatmulDesc_t", "cublasLtMatmulDescAttributes_t", "const void*", "size_t"},
	"cublasLtMatrixLayoutCreate":           {"cublasStatus_t", "cublasLtMatrixLayout_t*", "cudaDataType", "uint64_t", "uint64_t", "int64_t"},
	"cublasLtMatrixLayoutDestroy":          {"cublasStatus_t", "cublasLtMatrixLayout_t"},
	"cublasLtMatmulPreferenceCreate":       {"cublasStatus_t", "cublasLtMatmulPreference_t*"},
	"cublasLtMatmulPreferenceDestroy":      {"cublasStatus_t", "cublasLtMatmulPreference_t"},
	"cublasLtMatmulPreferenceSetAttribute": {"cublasStatus_t", "cublasLtMatmulPreference_t", "cublasLtMatmulPreferenceAttributes_t", "const void*", "size_t"},
	"cublasLtMatmulAlgoGetHeuristic": {"cublasStatus_t", "cublasLtHandle_t", "cublasLtMatmulDesc_t", "cublasLtMatrixLayout_t",
		"cublasLtMatrixLayout_t", "cublasLtMatrixLayout_t", "cublasLtMatrixLayout_t", "cublasLtMatmulPreference_t", "int",
		"cublasLtMatmulHeuristicResult_t[]", "int*"},
	"cublasLtMatmul": {"cublasStatus_t", "cublasLtHandle_t", "cublasLtMatmulDesc_t", "const void*", "const void*",
		"cublasLtMatrixLayout_t", "const void*", "cublasLtMatrixLayout_t", "const void*", "const void*", "cublasLtMatrixLayout_t",
		"void*", "cublasLtMatrixLayout_t", "const cublasLtMatmulAlgo_t*", "void*", "size_t", "cudaStream_t"},
}

// cStructs are the fields of the structures the package lays out itself.
var cStructs = map[string][]string{
	"cublasLtMatmulAlgo_t": {"uint64_t data[8]"},
	"cublasLtMatmulHeuristicResult_t": {"cublasLtMatmulAlgo_t algo", "size_t workspaceSize", "cublasStatus_t state",
		"float wavesCount", "int reserved[4]"},
}

// headerDir finds the folder of cublasLt.h: $CUDA_HOME/include, then the
// toolkit's usual places.
func headerDir() string {
	var dirs []string
	if h := os.Getenv("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "include"))
	}
	dirs = append(dirs, "/usr/local/cuda/include", "/usr/local/cuda/targets/x86_64-linux/include")
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "cublasLt.h")); err == nil {
			return d
		}
	}
	return ""
}

var (
	commentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	enumRE    = regexp.MustCompile(`\b([A-Z][A-Z0-9_]*)\s*=\s*([^,;{}]+?)\s*[,}]`)
	protoRE   = regexp.MustCompile(`([\w\s\*]+?)\s*\bCUBLASWINAPI\s+(\w+)\s*\(([^)]*)\)\s*;`)
	structRE  = regexp.MustCompile(`typedef\s+struct\s*\w*\s*\{([^{}]*)\}\s*(\w+)\s*;`)
	defineRE  = regexp.MustCompile(`#define\s+(CUBLAS_VER_(?:MAJOR|MINOR|PATCH))\s+(\d+)`)
	tokenRE   = regexp.MustCompile(`[A-Za-z_]\w*|\*|\[\w*\]`)
)

// cType normalises a parameter or return declaration to its type:
// "const void* alpha" → "const void*", "T results[]" → "T[]".
func cType(decl string, named bool) string {
	toks := tokenRE.FindAllString(decl, -1)
	ids := 0
	for _, t := range toks {
		if t != "*" && !strings.HasPrefix(t, "[") {
			ids++
		}
	}
	if named && ids > 1 { // drop the name: the last identifier
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i] != "*" && !strings.HasPrefix(toks[i], "[") {
				toks = slices.Delete(toks, i, i+1)
				break
			}
		}
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t != "*" && !strings.HasPrefix(t, "[") {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// evalEnum evaluates an enumerator's value: integers, other enumerators,
// parentheses, | and <<.
func evalEnum(expr string, defs map[string]string, depth int) (int64, error) {
	if depth > 20 {
		return 0, fmt.Errorf("%q: too deep", expr)
	}
	e := strings.TrimSpace(expr)
	for strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") && balanced(e[1:len(e)-1]) {
		e = strings.TrimSpace(e[1 : len(e)-1])
	}
	for _, op := range []string{"|", "<<"} {
		if i := topLevel(e, op); i >= 0 {
			l, err := evalEnum(e[:i], defs, depth+1)
			if err != nil {
				return 0, err
			}
			r, err := evalEnum(e[i+len(op):], defs, depth+1)
			if err != nil {
				return 0, err
			}
			if op == "|" {
				return l | r, nil
			}
			return l << r, nil
		}
	}
	if d, ok := defs[e]; ok {
		return evalEnum(d, defs, depth+1)
	}
	v, err := strconv.ParseInt(strings.TrimRight(e, "uUlL"), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot evaluate %q", expr)
	}
	return v, nil
}

func balanced(s string) bool {
	n := 0
	for _, c := range s {
		switch c {
		case '(':
			n++
		case ')':
			n--
			if n < 0 {
				return false
			}
		}
	}
	return n == 0
}

// topLevel is the index of op in s outside parentheses, or -1.
func topLevel(s, op string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			n++
		case ')':
			n--
		}
		if n == 0 && strings.HasPrefix(s[i:], op) {
			return i
		}
	}
	return -1
}

// parsedHeaders is what TestHeader reads from the headers' text.
type parsedHeaders struct {
	enums   map[string]string
	protos  map[string][]string
	structs map[string][]string
	version string
}

func parseHeaders(texts ...string) *parsedHeaders {
	p := &parsedHeaders{enums: map[string]string{}, protos: map[string][]string{}, structs: map[string][]string{}}
	ver := map[string]string{}
	for _, raw := range texts {
		for _, m := range defineRE.FindAllStringSubmatch(raw, -1) {
			ver[m[1]] = m[2]
		}
		text := commentRE.ReplaceAllString(raw, " ")
		for _, m := range enumRE.FindAllStringSubmatch(text, -1) {
			if _, ok := p.enums[m[1]]; !ok {
				p.enums[m[1]] = m[2]
			}
		}
		for _, m := range protoRE.FindAllStringSubmatch(text, -1) {
			ret := m[1] // from the start of its line: the match may begin on an earlier one ("#endif")
			if i := strings.LastIndex(ret, "\n"); i >= 0 {
				ret = ret[i+1:]
			}
			sig := []string{cType(ret, false)}
			for _, prm := range strings.Split(m[3], ",") {
				sig = append(sig, cType(prm, true))
			}
			p.protos[m[2]] = sig
		}
		for _, m := range structRE.FindAllStringSubmatch(text, -1) {
			var fields []string
			for _, f := range strings.Split(m[1], ";") {
				if f = strings.Join(strings.Fields(f), " "); f != "" {
					fields = append(fields, f)
				}
			}
			p.structs[m[2]] = fields
		}
	}
	if ver["CUBLAS_VER_MAJOR"] != "" {
		p.version = ver["CUBLAS_VER_MAJOR"] + "." + ver["CUBLAS_VER_MINOR"] + "." + ver["CUBLAS_VER_PATCH"]
	}
	return p
}

// check compares the package's assumptions with p.
func (p *parsedHeaders) check() []string {
	var errs []string
	for _, c := range cConsts {
		expr, ok := p.enums[c.name]
		if !ok {
			errs = append(errs, c.name+": not in the headers")
			continue
		}
		v, err := evalEnum(expr, p.enums, 0)
		if err != nil || v != c.v {
			errs = append(errs, fmt.Sprintf("%s = %s (%d, %v), this package uses %d", c.name, expr, v, err, c.v))
		}
	}
	for name, want := range cProtos {
		if got, ok := p.protos[name]; !ok || !slices.Equal(got, want) {
			errs = append(errs, fmt.Sprintf("%s: the header declares %q, the api table assumes %q", name, got, want))
		}
	}
	for name, want := range cStructs {
		if got := p.structs[name]; !slices.Equal(got, want) {
			errs = append(errs, fmt.Sprintf("struct %s: the header has fields %q, this package lays out %q", name, got, want))
		}
	}
	return errs
}

// TestHeaderParser checks the parser on a text in the headers' style, so
// that TestHeader's passing means something where it runs.
func TestHeaderParser(t *testing.T) {
	text := `#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0
typedef enum { CUBLASLT_EPILOGUE_RELU = 2, /** bias */ CUBLASLT_EPILOGUE_BIAS = 4,
  CUBLASLT_EPILOGUE_RELU_BIAS = (CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS),
  CUBLASLT_EPILOGUE_X = 1 << 7 } cublasLtEpilogue_t;
typedef struct {
  cublasLtMatmulAlgo_t algo; /**< the algorithm */
  size_t   workspaceSize;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;
cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t lightHandle,
    const void* alpha, /* host or device pointer */
    const cublasLtMatmulAlgo_t* algo, void *workspace,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], cudaStream_t stream);
#endif
const char* CUBLASWINAPI cublasLtGetStatusName(cublasStatus_t status);
size_t CUBLASWINAPI cublasLtGetVersion(void);
`
	p := parseHeaders(text)
	for name, want := range map[string]int64{"CUBLASLT_EPILOGUE_RELU_BIAS": 6, "CUBLASLT_EPILOGUE_BIAS": 4, "CUBLASLT_EPILOGUE_X": 128} {
		if v, err := evalEnum(p.enums[name], p.enums, 0); err != nil || v != want {
			t.Errorf("%s = %d, %v, want %d", name, v, err, want)
		}
	}
	if got := p.protos["cublasLtMatmul"]; !slices.Equal(got, []string{"cublasStatus_t", "cublasLtHandle_t", "const void*",
		"const cublasLtMatmulAlgo_t*", "void*", "cublasLtMatmulHeuristicResult_t[]", "cudaStream_t"}) {
		t.Errorf("cublasLtMatmul: %q", got)
	}
	if got := p.protos["cublasLtGetStatusName"]; !slices.Equal(got, []string{"const char*", "cublasStatus_t"}) {
		t.Errorf("cublasLtGetStatusName: %q", got)
	}
	if got := p.protos["cublasLtGetVersion"]; !slices.Equal(got, []string{"size_t", "void"}) {
		t.Errorf("cublasLtGetVersion: %q", got)
	}
	if got := p.structs["cublasLtMatmulHeuristicResult_t"]; !slices.Equal(got, []string{"cublasLtMatmulAlgo_t algo", "size_t workspaceSize", "int reserved[4]"}) {
		t.Errorf("struct: %q", got)
	}
	if p.version != "13.1.0" {
		t.Errorf("version %q", p.version)
	}
	// A wrong assumption is reported.
	errs := p.check()
	if !slices.ContainsFunc(errs, func(s string) bool {
		return strings.HasPrefix(s, "struct cublasLtMatmulHeuristicResult_t: the header has fields")
	}) ||
		!slices.Contains(errs, "CUDA_R_32F: not in the headers") {
		t.Errorf("check of a partial header: %q", errs)
	}
	if _, err := evalEnum("FOO + 1", nil, 0); err == nil {
		t.Error("an unknown expression evaluated")
	}
}

// TestHeader compares every constant, prototype and structure this
// package assumes with cublasLt.h, cublas_api.h and library_types.h of
// the installed CUDA toolkit. Without one it is skipped and says so,
// unless RECOM_GPU=1 demands it (the GPU machine has the toolkit).
func TestHeader(t *testing.T) {
	dir := headerDir()
	if dir == "" {
		if os.Getenv("RECOM_GPU") == "1" {
			t.Fatal("RECOM_GPU=1 but no cublasLt.h in $CUDA_HOME/include or /usr/local/cuda")
		}
		t.Skip("no cublasLt.h (no CUDA toolkit here): the constants are checked where one is installed (RECOM_GPU=1 makes this a failure)")
	}
	var texts []string
	for _, f := range []string{"cublasLt.h", "cublas_api.h", "library_types.h"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	p := parseHeaders(texts...)
	t.Logf("headers of cuBLAS %s in %s: %d enumerators, %d prototypes, %d structures", p.version, dir, len(p.enums), len(p.protos), len(p.structs))
	for _, e := range p.check() {
		t.Error(e)
	}
}
