package nvptx_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llir/llvm/asm"

	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"
)

// FuzzEmitLLVM drives the NVPTX emitter with mutated textual gpu-dialect
// programs: textir.Parse, textir.Verify, then nvptx.EmitText. Each stage may
// refuse its input with an error (a *textir.Diagnostic from the emitter,
// never a panic); when emission succeeds, the LLVM IR it prints must parse
// with llir's own parser. Seeds: backend/nvptx/testdata/*.mlir and
// lit-tests/Target/NVPTX/*.mlir (each split at `// -----`).
func FuzzEmitLLVM(f *testing.F) {
	var seeds []string
	for _, pat := range []string{"testdata/*.mlir", "../../lit-tests/Target/NVPTX/*.mlir", "../../lit-tests/Robustness/nvptx-*.mlir"} {
		files, _ := filepath.Glob(pat)
		seeds = append(seeds, files...)
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, chunk := range splitChunks(b) {
			f.Add(chunk)
		}
	}
	// Keep each input cheap: partial dense tensors of millions of elements are
	// legal but slow.
	defer func(n, d int64) { textir.MaxDenseElements, textir.MaxNesting = n, d }(textir.MaxDenseElements, textir.MaxNesting)
	textir.MaxDenseElements = 1 << 12
	textir.MaxNesting = 64
	ctx := all.NewContext()
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if fuzzing {
			// A hang is a finding: crash the worker so the fuzzer keeps the input.
			w := time.AfterFunc(20*time.Second, func() { panic("FuzzEmitLLVM: input took more than 20s") })
			defer w.Stop()
		}
		m, err := textir.Parse(ctx, "fuzz.mlir", data)
		if err != nil {
			return
		}
		if err := textir.Verify(ctx, m); err != nil {
			return
		}
		ll, err := nvptx.EmitText(m)
		if err != nil {
			var d *textir.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("emitter error %T is not a *Diagnostic (no location): %v", err, err)
			}
			return
		}
		if _, err := asm.ParseString("fuzz.ll", ll); err != nil {
			t.Fatalf("emitted LLVM IR does not parse: %v\n--- input\n%s\n--- output\n%s", err, data, ll)
		}
	})
}

// splitChunks splits a lit file at `// -----` lines, like --split-input-file.
func splitChunks(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i <= len(b); {
		j := i
		for j < len(b) && b[j] != '\n' {
			j++
		}
		line := b[i:j]
		if string(trimSpace(line)) == "// -----" {
			out = append(out, b[start:i])
			start = j + 1
		}
		i = j + 1
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
