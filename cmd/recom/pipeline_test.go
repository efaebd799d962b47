package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/compiler"
)

// What recom run and recom bench compile in-process is what recom compile
// writes for the same model and flags: every IR stage, model.ll and
// model.ptx, byte for byte.
func TestRunCompilesAsCompile(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name         string
		run, compile []string
	}{
		{"defaults", nil, nil},
		{"schedule", []string{"--schedule=recom"}, []string{"--fuse=schedule=recom"}},
		{"pass flags", []string{"--fuse=max-threads=128", "--simplify-shapes=no-assertions", "--dense=cpu"},
			[]string{"--fuse=max-threads=128", "--simplify-shapes=no-assertions", "--dense=cpu"}},
		{"cut", []string{"--outputs=prediction,input_layer/concat", "--fuse-dense=accumulate=f32"},
			[]string{"--outputs=prediction,input_layer/concat", "--fuse-dense=accumulate=f32"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if status, _, stderr := runTool(append([]string{"compile", compileSmallModel, "-o", out, "-q", "--no-cubin"}, c.compile...)...); status != 0 {
				t.Fatalf("compile: status %d: %s", status, stderr)
			}
			var f runFlags
			fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
			f.common(fl)
			if err := fl.Parse(c.run); err != nil {
				t.Fatal(err)
			}
			f.keepIR = true
			m, err := f.compileModel(context.Background(), compileSmallModel)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, s := range m.res.Stages {
				files = append(files, compiler.FileName(s.Name))
				want, err := os.ReadFile(filepath.Join(out, compiler.FileName(s.Name)))
				if err != nil {
					t.Errorf("%s: recom compile wrote none: %v", s.Name, err)
					continue
				}
				if !bytes.Equal(s.Output, want) {
					t.Errorf("%s: run's differs from recom compile's", compiler.FileName(s.Name))
				}
			}
			if got := strings.Join(files, " "); !strings.HasSuffix(got, "model.ll model.ptx") || !strings.HasPrefix(got, "0-tfg.mlir 1-emb.mlir") {
				t.Errorf("run compiled %s", got)
			}
		})
	}
}

// --print-stages lists the stages of the table that the flags select, each
// reading the file the one before wrote, with the standalone tool's
// command; it takes no MODEL.
func TestCompilePrintStages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, `import           MODEL         0-tfg.mlir    recom-translate --import-graphdef
lower-emb        0-tfg.mlir    1-emb.mlir    recom-opt --lower-emb
simplify-shapes  1-emb.mlir    2-shape.mlir  recom-opt --simplify-shapes
fuse             2-shape.mlir  3-gpu.mlir    recom-opt --fuse
fuse-dense       3-gpu.mlir    4-dense.mlir  recom-opt --fuse-dense
llvm             4-dense.mlir  model.ll      recom-translate --emit-llvm
ptx              model.ll      model.ptx     llc-19 -march=nvptx64 -mcpu=sm_90 -O3
cubin            model.ptx     model.cubin   ptxas -arch=sm_90 -v
`},
		{[]string{"--dense=cpu", "--no-cubin", "-O2", "--mcpu=sm_80", "--fuse=schedule=recom max-threads=128", "--outputs=a,b:1"},
			`import           MODEL         0-tfg.mlir    recom-translate --import-graphdef --outputs=a,b:1
lower-emb        0-tfg.mlir    1-emb.mlir    recom-opt --lower-emb
simplify-shapes  1-emb.mlir    2-shape.mlir  recom-opt --simplify-shapes
fuse             2-shape.mlir  3-gpu.mlir    recom-opt --fuse='schedule=recom max-threads=128'
llvm             3-gpu.mlir    model.ll      recom-translate --emit-llvm
ptx              model.ll      model.ptx     llc-19 -march=nvptx64 -mcpu=sm_80 -O2
`},
		{[]string{"--stop-after=simplify-shapes"}, `import           MODEL         0-tfg.mlir    recom-translate --import-graphdef
lower-emb        0-tfg.mlir    1-emb.mlir    recom-opt --lower-emb
simplify-shapes  1-emb.mlir    2-shape.mlir  recom-opt --simplify-shapes
`},
	} {
		status, stdout, stderr := runTool(append([]string{"compile", "--print-stages"}, c.args...)...)
		if status != 0 || stdout != c.want {
			t.Errorf("%v: status %d, stderr %q, stdout:\n%s\nwant:\n%s", c.args, status, stderr, stdout, c.want)
		}
	}
	if status, _, stderr := runTool("compile", "--print-stages", compileSmallModel); status == 0 || !strings.Contains(stderr, "unknown command") && !strings.Contains(stderr, "accepts 0 arg") {
		t.Errorf("--print-stages with a MODEL: status %d, %q", status, stderr)
	}
	if status, _, stderr := runTool("compile", "--print-stages", "--fuse=no-such-option"); status == 0 || !strings.Contains(stderr, "no-such-option") {
		t.Errorf("bad pass options: status %d, %q", status, stderr)
	}
}

// recom compile takes a .mlir file of any stage and goes on from the next
// stage: from its own 2-shape.mlir it writes the same kernels.
func TestCompileFromStage(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if status, _, stderr := runTool("compile", compileSmallModel, "-o", full, "-q", "--no-cubin", "--mlir-print-debuginfo"); status != 0 {
		t.Fatal(stderr)
	}
	part := filepath.Join(dir, "part")
	status, stdout, stderr := runTool("compile", filepath.Join(full, "2-shape.mlir"), "-o", part, "--no-cubin", "--mlir-print-debuginfo")
	if status != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "(textual IR at stage simplify-shapes)") {
		t.Errorf("summary:\n%s", stdout)
	}
	for _, f := range []string{"3-gpu.mlir", "4-dense.mlir", "model.ll", "model.ptx"} {
		a, _ := os.ReadFile(filepath.Join(full, f))
		b, err := os.ReadFile(filepath.Join(part, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: from 2-shape.mlir differs from the whole compile's (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(part, "2-shape.mlir")); err == nil {
		t.Errorf("the input's stage was written again")
	}
}
