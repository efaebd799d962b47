package compiler

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"
)

// The table obeys its rules; each way of breaking them panics, as init
// would, with a message naming the broken rule.
func TestStageTable(t *testing.T) {
	if err := checkStages(stages, stageOrder); err != nil {
		t.Fatalf("the stage table: %v", err)
	}
	swap := func(a, b string) []Stage {
		s := slices.Clone(stages)
		i, j := stageIndex(a), stageIndex(b)
		s[i], s[j] = s[j], s[i]
		return s
	}
	edit := func(name string, f func(*Stage)) []Stage {
		s := slices.Clone(stages)
		f(&s[stageIndex(name)])
		return s
	}
	for _, c := range []struct {
		name  string
		table []Stage
		rules []orderRule
		want  string
	}{
		{"fuse-dense before fuse", swap(StageFuse, StageFuseDense), stageOrder,
			"fuse-dense must run after fuse (fuse-dense folds a ConcatV2"},
		{"llvm before an IR stage", swap(StageFuseDense, StageLLVM), stageOrder,
			"llvm must run after fuse-dense (llvm emits the module as the last IR stage leaves it)"},
		{"lower-emb first", swap(StageImport, StageLowerEmb), stageOrder,
			"lower-emb must run after import"},
		{"ptx after cubin", swap(StagePTX, StageCubin), stageOrder,
			"cubin must run after ptx"},
		{"a rule on a missing stage", stages, append(slices.Clone(stageOrder), orderRule{"fuse", "codegen", "?"}),
			`order rule "fuse" before "codegen": no stage codegen`},
		{"a stage twice", append(slices.Clone(stages), stages[1]), stageOrder,
			"stage lower-emb appears twice"},
		{"a file twice", edit(StageFuseDense, func(s *Stage) { s.File = "3-gpu.mlir" }), stageOrder,
			"stages fuse and fuse-dense both write 3-gpu.mlir"},
		{"an unregistered pass", edit(StageFuse, func(s *Stage) { s.Name = "no-such-pass" }), nil,
			"stage no-such-pass: no pass --no-such-pass is registered"},
		{"marks on a backend stage", edit(StageLLVM, func(s *Stage) { s.Marks = []string{"llvm"} }), stageOrder,
			"stage llvm has marks but leaves no IR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "compiler: stage table: ") || !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want one saying %q", msg, c.want)
				}
			}()
			mustCheckStages(c.table, c.rules)
		})
	}
}

// Pipeline lists the stages the options select, and FileName their files.
func TestPipeline(t *testing.T) {
	names := func(o Options) string {
		var n []string
		for _, s := range Pipeline(o) {
			n = append(n, s.Name+":"+s.File)
		}
		return strings.Join(n, " ")
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "import:0-tfg.mlir lower-emb:1-emb.mlir simplify-shapes:2-shape.mlir fuse:3-gpu.mlir llvm:model.ll ptx:model.ptx cubin:model.cubin"},
		{Options{Dense: true, NoCubin: true}, "import:0-tfg.mlir lower-emb:1-emb.mlir simplify-shapes:2-shape.mlir fuse:3-gpu.mlir fuse-dense:4-dense.mlir llvm:model.ll ptx:model.ptx"},
		{Options{Dense: true, StopAfter: StageSimplifyShapes}, "import:0-tfg.mlir lower-emb:1-emb.mlir simplify-shapes:2-shape.mlir"},
	} {
		if got := names(c.opts); got != c.want {
			t.Errorf("%+v: %s, want %s", c.opts, got, c.want)
		}
	}
	if got := FileName(StageFuseDense); got != "4-dense.mlir" {
		t.Errorf("FileName(fuse-dense) = %q", got)
	}
	if got := FileName("codegen"); got != "" {
		t.Errorf("FileName(codegen) = %q", got)
	}
}

// Each IR stage's output is detected as that stage; IR of no stage is an
// error that says what it looked for.
func TestDetectStage(t *testing.T) {
	r := compileSmall(t, Options{KeepIR: true, Dense: true, StopAfter: StageFuseDense})
	for _, s := range r.Stages {
		ctx := all.NewContext()
		m, err := textir.Parse(ctx, FileName(s.Name), s.Output)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := DetectStage(m); got != s.Name || err != nil {
			t.Errorf("%s: detected %q, %v", FileName(s.Name), got, err)
		}
	}
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "f.mlir", []byte("func.func @f() {\n  func.return\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DetectStage(m); err == nil || !strings.Contains(err.Error(), "holds none of tfg, emb, shape, fused.embedding_layer, gpu, fused.dense") {
		t.Errorf("plain func: %v", err)
	}
}

// A .mlir file of any stage compiles from the next stage to the same IR,
// LLVM IR and PTX as the whole compilation from the GraphDef. (The IR is
// printed with its locations: simplify-shapes names symbols after the
// TensorFlow nodes that locations carry.)
func TestCompileFromIR(t *testing.T) {
	llctest.Need(t)
	opts := Options{KeepIR: true, Dense: true, NoCubin: true, Print: textir.PrintOptions{DebugInfo: true}}
	full := compileSmall(t, opts)
	for i, s := range full.Stages {
		st, _ := LookupStage(s.Name)
		if !st.Kind.IR() {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			r, err := CompileBytes(context.Background(), FileName(s.Name), s.Output, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.From != s.Name {
				t.Errorf("started after %q, want %q", r.From, s.Name)
			}
			rest := full.Stages[i+1:]
			if len(r.Stages) != len(rest) {
				t.Fatalf("ran %d stages, want %d", len(r.Stages), len(rest))
			}
			for j, got := range r.Stages {
				if got.Name != rest[j].Name || !bytes.Equal(got.Output, rest[j].Output) {
					t.Errorf("%s: output differs from the whole compilation's %s", got.Name, rest[j].Name)
				}
			}
			if !slices.Equal(r.Kernels, full.Kernels) {
				t.Errorf("kernels %v, want %v", r.Kernels, full.Kernels)
			}
		})
	}
	// Stopping at or before the input's stage runs nothing.
	r, err := CompileBytes(context.Background(), "3-gpu.mlir", full.Stage(StageFuse).Output, Options{StopAfter: StageImport})
	if err != nil || len(r.Stages) != 0 || r.Module == nil || r.From != StageFuse {
		t.Errorf("stop before the input: %d stages, from %q, %v", len(r.Stages), r.From, err)
	}
	// Cut options apply to graphs only.
	if _, err := CompileBytes(context.Background(), "3-gpu.mlir", full.Stage(StageFuse).Output, Options{Outputs: []string{"prediction"}}); err == nil {
		t.Error("--outputs accepted for IR")
	}
}
