package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

var (
	smallOnce sync.Once
	smallData []byte
	smallErr  error
)

// small returns the bundled examples/small.pbtxt.
func small(t *testing.T) []byte {
	t.Helper()
	smallOnce.Do(func() {
		smallData, smallErr = os.ReadFile(filepath.Join("..", "examples", "small.pbtxt"))
	})
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallData
}

func compileSmall(t *testing.T, opts Options) *Result {
	t.Helper()
	r, err := CompileBytes(context.Background(), "small.pbtxt", small(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every stage runs and records what it did: ops before a stage are the ops
// after the one before, statistics are those of the pass, and the kept
// output of each IR stage parses back and verifies.
func TestCompileStages(t *testing.T) {
	llctest.Need(t)
	r := compileSmall(t, Options{KeepIR: true, NoCubin: true})
	var names []string
	for _, s := range r.Stages {
		names = append(names, s.Name)
	}
	want := slices.DeleteFunc(slices.Clone(Stages[:len(Stages)-1]), func(s string) bool { return s == StageFuseDense }) // Options.Dense is off
	if !slices.Equal(names, want) {
		t.Fatalf("stages %v, want %v", names, want)
	}
	if r.Nodes != 2068 || r.FileNodes != 2068 || r.Format != "text GraphDef" {
		t.Errorf("nodes %d/%d format %q", r.Nodes, r.FileNodes, r.Format)
	}
	for i, s := range r.Stages[:4] {
		if len(s.Output) == 0 {
			t.Errorf("%s: no IR kept", s.Name)
			continue
		}
		ctx := all.NewContext()
		m, err := textir.Parse(ctx, FileName(s.Name), s.Output)
		if err == nil {
			err = textir.Verify(ctx, m)
		}
		if err != nil {
			t.Errorf("%s: kept IR does not parse back: %v", s.Name, err)
			continue
		}
		if got := CountOps(m); got.Total() != s.After.Total() {
			t.Errorf("%s: kept IR has %d ops, the stage counted %d", s.Name, got.Total(), s.After.Total())
		}
		if i > 0 && s.Before.Total() != r.Stages[i-1].After.Total() {
			t.Errorf("%s: %d ops before, %d after the stage before", s.Name, s.Before.Total(), r.Stages[i-1].After.Total())
		}
	}
	if got := r.Stage(StageImport).After["tfg"]; got != 2069 { // the nodes and tfg.graph
		t.Errorf("import: %d tfg ops", got)
	}
	if r.Stage(StageLowerEmb).Stat("columns") != 24 || r.Stage(StageFuse).Stat("columns") != 24 {
		t.Errorf("columns: lower-emb %d, fuse %d", r.Stage(StageLowerEmb).Stat("columns"), r.Stage(StageFuse).Stat("columns"))
	}
	if r.Stage(StageFuse).After["gpu"] == 0 || r.Stage(StageSimplifyShapes).After["shape"] == 0 {
		t.Errorf("fuse made no gpu ops or simplify-shapes no shape ops")
	}
	if !slices.Equal(r.Kernels, []string{"layer"}) {
		t.Errorf("kernels %v, want [layer]", r.Kernels)
	}
	if !bytes.Equal(r.Stage(StageLLVM).Output, r.LLVM) || !bytes.Equal(r.Stage(StagePTX).Output, r.PTX) {
		t.Errorf("kept .ll/.ptx differ from the result's")
	}
	if !bytes.Contains(r.LLVM, []byte(`!"kernel", i32 1`)) {
		t.Errorf(".ll has no kernel annotation")
	}
	if VectorLoads(r.PTX) == 0 {
		t.Errorf("PTX has no 16-byte loads")
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "cubin: skipped") }) {
		t.Errorf("notes %q: want the skipped cubin", r.Notes)
	}
	kinds, total := r.ColumnKinds()
	sum := int64(0)
	for _, k := range kinds {
		sum += k.Value
	}
	if total != 24 || sum != 24 {
		t.Errorf("columns by kind %v (sum %d), total %d", kinds, sum, total)
	}
}

// The scaled presets E, F and probe (no table values: they are not needed
// to compile) give exactly one kernel entry, which llc-19 compiles.
func TestCompilePresets(t *testing.T) {
	llctest.Need(t)
	for _, c := range []struct {
		preset  string
		columns int
	}{{"E", 60}, {"F", 72}, {"probe", 50}} {
		t.Run(c.preset, func(t *testing.T) {
			data := genText(t, c.preset, c.columns)
			r, err := CompileBytes(context.Background(), c.preset+".pbtxt", data, Options{NoCubin: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := PTXEntries(r.PTX); len(got) != 1 {
				t.Errorf("PTX entries %v, want exactly one", got)
			}
			if got := r.Stage(StageFuse).Stat("columns"); got != int64(c.columns) {
				t.Errorf("fused %d columns, want %d", got, c.columns)
			}
			if got := r.Stage(StageLowerEmb).Stat("columns-unmatched"); got != 0 {
				t.Errorf("%d unmatched columns", got)
			}
		})
	}
}

// Pass options reach the passes: each ablation changes the statistic or
// the attribute it is about.
func TestPassOptions(t *testing.T) {
	base := compileSmall(t, Options{StopAfter: StageFuse})
	cases := []struct {
		flag, opts string
		check      func(r *Result) string
	}{
		{"lower-emb", "no-range-analysis", func(r *Result) string {
			if base.Stage(StageLowerEmb).Stat("removed-by-range-analysis") == 0 {
				return "the default removed nothing by range analysis: the case proves nothing"
			}
			if n := r.Stage(StageLowerEmb).Stat("removed-by-range-analysis"); n != 0 {
				return "range analysis still removed ops"
			}
			return ""
		}},
		{"lower-emb", "no-unique-removal", func(r *Result) string {
			if r.Stage(StageLowerEmb).Stat("removed-unique") != 0 {
				return "Unique still removed"
			}
			return ""
		}},
		{"simplify-shapes", "disable", func(r *Result) string {
			s := r.Stage(StageSimplifyShapes)
			if s.Before.Total() != s.After.Total() || s.After["shape"] != 0 {
				return "simplify-shapes changed the IR: " + s.After.String()
			}
			return ""
		}},
		{"fuse", "schedule=recom", func(r *Result) string {
			if l := r.Layers(); len(l) != 1 || !strings.Contains(l[0], "schedule recom") || !strings.Contains(l[0], "block 64") {
				return "layers " + strings.Join(l, "; ")
			}
			return ""
		}},
		{"fuse", "max-threads=128", func(r *Result) string {
			if l := r.Layers(); len(l) != 1 || !strings.Contains(l[0], "block 128") {
				return "layers " + strings.Join(l, "; ")
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.flag+"="+c.opts, func(t *testing.T) {
			r := compileSmall(t, Options{StopAfter: StageFuse, PassOptions: map[string]string{c.flag: c.opts}})
			if msg := c.check(r); msg != "" {
				t.Error(msg)
			}
			var sum bytes.Buffer
			r.WriteSummary(&sum)
			if want := "pass options: --" + c.flag + "='" + c.opts + "'"; !strings.Contains(sum.String(), want) {
				t.Errorf("summary lacks %q", want)
			}
		})
	}
	if l := base.Layers(); len(l) != 1 || !strings.Contains(l[0], "schedule tuned") {
		t.Errorf("default layers %v", l)
	}
}

// StopAfter ends the compilation after the named stage.
func TestStopAfter(t *testing.T) {
	for i, stage := range Stages[:4] {
		t.Run(stage, func(t *testing.T) {
			r := compileSmall(t, Options{StopAfter: stage})
			if len(r.Stages) != i+1 || r.Stages[i].Name != stage {
				t.Fatalf("ran %d stages, want %d ending with %s", len(r.Stages), i+1, stage)
			}
			if r.LLVM != nil || r.PTX != nil {
				t.Errorf("backend ran")
			}
			if wantKernel := i == 3; (len(r.Kernels) == 1) != wantKernel {
				t.Errorf("kernels %v", r.Kernels)
			}
		})
	}
	t.Run("fuse-dense left out", func(t *testing.T) {
		r := compileSmall(t, Options{StopAfter: StageFuseDense})
		if s := r.Stages[len(r.Stages)-1]; s.Name != StageFuse || r.LLVM != nil || len(r.Kernels) != 1 {
			t.Errorf("stop at a stage left out: last stage %s, %d bytes of .ll, kernels %v", s.Name, len(r.LLVM), r.Kernels)
		}
	})
	t.Run(StageLLVM, func(t *testing.T) {
		r := compileSmall(t, Options{StopAfter: StageLLVM})
		if r.LLVM == nil || r.PTX != nil || r.Stage(StageLLVM).Size != len(r.LLVM) {
			t.Errorf("llvm stage: %d bytes of .ll, %d of PTX", len(r.LLVM), len(r.PTX))
		}
	})
}

// Extraction at --inputs/--outputs happens before import.
func TestInputsOutputs(t *testing.T) {
	full := compileSmall(t, Options{StopAfter: StageImport})
	cut := compileSmall(t, Options{StopAfter: StageImport, Outputs: []string{"input_layer/concat"}})
	if cut.Nodes >= full.Nodes || cut.FileNodes != full.FileNodes {
		t.Errorf("cut to input_layer/concat: %d nodes of %d; the whole graph has %d", cut.Nodes, cut.FileNodes, full.Nodes)
	}
	var sum bytes.Buffer
	cut.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "after extraction") {
		t.Errorf("summary does not say the graph was cut:\n%s", sum.String())
	}
	_, err := CompileBytes(context.Background(), "small.pbtxt", small(t), Options{Outputs: []string{"no_such_node"}})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageImport || !strings.Contains(err.Error(), "no_such_node") {
		t.Errorf("missing output: %v", err)
	}
}

// Bad options are refused before anything runs; failures name their stage.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{StopAfter: "codegen"}, `unknown stage "codegen"`},
		{Options{PassOptions: map[string]string{"cse": ""}}, `options for "cse"`},
		{Options{PassOptions: map[string]string{"fuse": "no-such-option=1"}}, "no-such-option"},
		{Options{PassOptions: map[string]string{"lower-emb": "no-range-analysis=maybe"}}, "no-range-analysis"},
		{Options{OptLevel: 7}, "optimisation level 7"},
	} {
		_, err := CompileBytes(context.Background(), "small.pbtxt", small(t), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.want)
		}
	}
	_, err := CompileBytes(context.Background(), "bad.pbtxt", []byte("node { name: "), Options{})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageImport {
		t.Errorf("bad graph: %v", err)
	}
	if _, err := Compile(context.Background(), filepath.Join(t.TempDir(), "missing.pb"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CompileBytes(ctx, "small.pbtxt", small(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// An llc that fails.
	_, err = CompileBytes(context.Background(), "small.pbtxt", small(t), Options{LLC: "/bin/false"})
	var te *llc.ToolError
	if !errors.As(err, &se) || se.Stage != StagePTX || !errors.As(err, &te) {
		t.Errorf("failing llc: %v (%T)", err, err)
	}
}

// A pass failure is a StageError wrapping the pass manager's PassError.
func TestPassFailure(t *testing.T) {
	pass.Register(&pass.Decl{Flag: "test-pipeline-fail", Summary: "fails", New: func(*pass.Options) pass.Runner { return failPass{} }})
	old := stages
	stages = slices.Insert(slices.Clone(old), stageIndex(StageSimplifyShapes), Stage{Name: "test-pipeline-fail", File: "fail.mlir", Kind: KindPass})
	defer func() { stages = old }()
	r, err := CompileBytes(context.Background(), "small.pbtxt", small(t), Options{})
	var pe *pass.PassError
	var se *StageError
	if !errors.As(err, &se) || se.Stage != "test-pipeline-fail" || !errors.As(err, &pe) {
		t.Fatalf("error %v (%T)", err, err)
	}
	if len(r.Stages) != 3 || r.Module == nil {
		t.Errorf("partial result: %d stages", len(r.Stages))
	}
}

type failPass struct{}

func (failPass) Run(op *textir.Operation, _ *pass.State) error {
	return op.Errorf("the test pass fails")
}

// Progress names each stage as it starts.
func TestProgress(t *testing.T) {
	var got []string
	compileSmall(t, Options{StopAfter: StageFuse, Progress: func(s string, i, n int) {
		got = append(got, fmt.Sprintf("%s %d/%d", s, i, n))
	}})
	if want := []string{"import 1/4", "lower-emb 2/4", "simplify-shapes 3/4", "fuse 4/4"}; !slices.Equal(got, want) {
		t.Errorf("progress %v, want %v", got, want)
	}
}

// The summary names every part the report is for.
func TestSummary(t *testing.T) {
	llctest.Need(t)
	r := compileSmall(t, Options{NoCubin: true})
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"model: small.pbtxt (text GraphDef, 2068 nodes)\n",
		"\ncolumns: 24\n", "  hashed_string         4\n",
		"ops removed by rewrites:\n", "lower-emb        removed-unique",
		"simplify-shapes  shape-ops-removed",
		"\nstages:\n", "  import           2068 nodes       2070 ",
		"  lower-emb              2070 ", "  fuse   ", "  llvm   ", "  ptx    ", "  total  ",
		"\nkernels: 1 (layer)\n", "@emb::@layer: schedule tuned, 24 columns",
		"note: cubin: skipped",
		"\npass statistics:\n", "    lookups-to-gather-scatter ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestPTXEntries(t *testing.T) {
	ptx := []byte(".version 8.5\n.visible .entry layer(\n\t.param .u64 a\n)\n.entry other(\n.func helper(\n  // .entry comment\n")
	if got := PTXEntries(ptx); !slices.Equal(got, []string{"layer", "other"}) {
		t.Errorf("entries %v", got)
	}
	if n := VectorLoads([]byte("\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n\tld.global.nc.f32 %f5, [%rd2];\n\tld.global.v2.u64 {%rd3, %rd4}, [%rd5];\n")); n != 2 {
		t.Errorf("vector loads %d, want 2", n)
	}
}

// fakePtxas writes a ptxas that makes a cubin and reports resources as
// ptxas -v does.
func fakePtxas(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ptxas")
	script := `#!/bin/sh
out=
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift;; esac
  shift
done
printf 'CUBIN' > "$out"
cat <<'LOG'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'layer' for 'sm_90'
ptxas info    : Function properties for layer
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 512 bytes smem, 400 bytes cmem[0]
LOG
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Where ptxas runs, the cubin is kept and the summary gives each kernel's
// registers and shared memory.
func TestCubin(t *testing.T) {
	llctest.Need(t)
	r := compileSmall(t, Options{Ptxas: fakePtxas(t), KeepIR: true})
	s := r.Stage(StageCubin)
	if s == nil || r.Cubin == nil || string(s.Output) != "CUBIN" || s.Size != 5 {
		t.Fatalf("cubin stage %+v", s)
	}
	var b bytes.Buffer
	r.WriteSummary(&b)
	for _, want := range []string{"  layer: 40 registers, 512 bytes shared, 0 bytes stack, 0/0 bytes spill stores/loads\n", "  cubin   "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "note: cubin") {
		t.Errorf("summary says the cubin was skipped")
	}
	// A failing ptxas fails the stage.
	_, err := CompileBytes(context.Background(), "small.pbtxt", small(t), Options{Ptxas: "/bin/false"})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageCubin {
		t.Errorf("failing ptxas: %v", err)
	}
}

// The summary counts the diagnostics the passes reported.
func TestSummaryDiagnostics(t *testing.T) {
	r := &Result{Model: "m.pbtxt", Diagnostics: []*textir.Diagnostic{
		{Severity: textir.SevRemark, Loc: textir.UnknownLoc{}, Message: "a"},
		{Severity: textir.SevRemark, Loc: textir.UnknownLoc{}, Message: "b"},
		{Severity: textir.SevWarning, Loc: textir.UnknownLoc{}, Message: "c"},
	}}
	var b bytes.Buffer
	r.WriteSummary(&b)
	if want := "diagnostics: 2 remark 1 warning (printed on stderr)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

// A layer that is not one kernel is called out in the notes. (Cutting the
// bundled model at its embedding output currently leaves the vocabulary
// columns unmatched, so no kernel comes out; the note must say so, and must
// be absent when the layer is one kernel.)
func TestKernelNote(t *testing.T) {
	llctest.Need(t)
	note := func(r *Result) bool {
		return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "fuse made") })
	}
	if r := compileSmall(t, Options{NoCubin: true}); note(r) {
		t.Errorf("one kernel, yet notes %q", r.Notes)
	}
	r := compileSmall(t, Options{NoCubin: true, Outputs: []string{"input_layer/concat"}})
	if (len(r.Kernels) != 1) != note(r) {
		t.Errorf("kernels %v, notes %q", r.Kernels, r.Notes)
	}
}
