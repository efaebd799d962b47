package densetogpu_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"

	"github.com/recom-compiler/recom/backend/llc/llctest"
)

const pipeline = "lower-emb,simplify-shapes,fuse,fuse-dense"

func runPipeline(tb testing.TB, ctx *textir.Context, m *textir.Operation, text string) (*textir.Operation, map[string]map[string]int64) {
	tb.Helper()
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		tb.Fatal(err)
	}
	out := ctx.Clone(m, nil)
	if err := pm.Run(ctx, out); err != nil {
		tb.Fatal(err)
	}
	if err := textir.Verify(ctx, out); err != nil {
		tb.Fatal(err)
	}
	return out, pm.Statistics()
}

func run(m *textir.Operation, feeds map[string]*interp.Tensor, outputs []string, opts *exec.Options) (map[string]*interp.Tensor, error) {
	prog, err := exec.Compile(m)
	if err != nil {
		return nil, err
	}
	return prog.Run(context.Background(), feeds, outputs, opts)
}

// roundTrip prints m, parses it back, verifies it and checks that it
// prints the same.
func roundTrip(t *testing.T, ctx *textir.Context, m *textir.Operation) {
	t.Helper()
	var a, b bytes.Buffer
	if err := textir.Print(&a, m, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	m2, err := textir.Parse(ctx, "out.mlir", a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m2); err != nil {
		t.Fatal(err)
	}
	if err := textir.Print(&b, m2, textir.PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("the program does not print the same after a round trip")
	}
}

type model struct {
	name    string
	preset  string
	columns int
	dense   *gen.Dense // replaces the preset's dense part (nil: keep it)
	batches []int
}

// Simulating the presets' 1024-wide products is slow: most cases shrink
// the MLPs, keeping their structure (bottom MLP, the concatenation with
// the embedding layer, top MLP, sigmoid).
var models = []model{
	{name: "E-small-dense", preset: "E", columns: 6, dense: &gen.Dense{Features: 13, Bottom: []int{24, 8}, Top: []int{40, 17}}, batches: []int{1, 7, 64}},
	{name: "F-small-dense", preset: "F", columns: 5, dense: &gen.Dense{Features: 32, Bottom: []int{32}, Top: []int{64, 64, 32}}, batches: []int{1, 7, 64}},
	{name: "F-const-weights", preset: "F", columns: 3, dense: &gen.Dense{Features: 8, Bottom: []int{16}, Top: []int{16}, Tables: "const"}, batches: []int{7}},
	{name: "micro-with-dense", preset: "micro", columns: 6, dense: &gen.Dense{Features: 4, Bottom: []int{8}, Top: []int{12, 5}}, batches: []int{1, 7, 64}},
	{name: "E", preset: "E", columns: 4, batches: []int{1}},
}

func generate(tb testing.TB, c model) (*gen.Spec, *gen.Model) {
	tb.Helper()
	s, err := gen.Preset(c.preset)
	if err != nil {
		tb.Fatal(err)
	}
	if c.columns > 0 {
		if s, err = s.Scale(c.columns); err != nil {
			tb.Fatal(err)
		}
	}
	if c.dense != nil {
		d := *c.dense
		s.Dense = &d
	}
	m, err := gen.Generate(s, gen.Options{Seed: 5})
	if err != nil {
		tb.Fatal(err)
	}
	return s, m
}

func count(m *textir.Operation, name string) int {
	n := 0
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == name {
			n++
		}
		return true
	})
	return n
}

// compare checks outputs within the tolerances of recom run --check.
func compare(want, got map[string]*interp.Tensor, outputs []string) error {
	for _, o := range outputs {
		if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
			return fmt.Errorf("output %s: %v", o, err)
		}
	}
	return nil
}

// Every dense layer of generated models is fused, the result verifies and
// round-trips, and the program with the kernels on the simulator gives the
// imported model's outputs on random feeds.
func TestModelsMatchInterpreter(t *testing.T) {
	for _, c := range models {
		t.Run(c.name, func(t *testing.T) {
			if c.dense == nil && testing.Short() {
				t.Skip("a 1024-wide product on the simulator")
			}
			s, m := generate(t, c)
			ctx := all.NewContext()
			ref, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			mms := count(ref, "tfg.MatMul")
			out, stats := runPipeline(t, ctx, ref, pipeline)
			if got := stats[densetogpu.Flag]["layers"]; got != int64(mms) || mms == 0 {
				t.Errorf("fused %d layers, the model has %d MatMuls", got, mms)
			}
			if n := count(out, "tfg.MatMul") + count(out, "tfg.BiasAdd") + count(out, "tfg.Relu") + count(out, "tfg.Sigmoid") + count(out, "tfg.ConcatV2"); n != 0 {
				t.Errorf("%d dense tfg ops remain", n)
			}
			if stats[densetogpu.Flag]["concats"] != 1 {
				t.Errorf("%d concatenations fused, want 1", stats[densetogpu.Flag]["concats"])
			}
			roundTrip(t, ctx, out)
			vars := map[string]*interp.Tensor{}
			for _, a := range m.Tables {
				vars[a.Name] = a.Tensor
			}
			outputs := []string{m.Output}
			for _, batch := range c.batches {
				arrays, err := gen.Feeds(s, batch, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				feeds := map[string]*interp.Tensor{}
				for _, a := range arrays {
					feeds[a.Name] = a.Tensor
				}
				opts := &exec.Options{Variables: vars}
				want, err := run(ref, feeds, outputs, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := run(out, feeds, outputs, opts)
				if err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
				if err := compare(want, got, outputs); err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
			}
		})
	}
}

// The bundled example: its tables from the side file, random dense
// weights by name (the interpreter's: exec.RandomTensor), batches 1, 7, 64.
func TestBundledSmall(t *testing.T) {
	gf, err := graphdef.Load("../../examples/small.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, gf.Graph)
	if err != nil {
		t.Fatal(err)
	}
	out, stats := runPipeline(t, ctx, ref, pipeline)
	if n := count(ref, "tfg.MatMul"); stats[densetogpu.Flag]["layers"] != int64(n) {
		t.Errorf("fused %d layers of %d", stats[densetogpu.Flag]["layers"], n)
	}
	tables, err := npz.ReadFile("../../examples/small.tables.npz")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range tables {
		vars[a.Name] = a.Tensor
	}
	spec, err := gen.SpecFromGraph(gf.Graph)
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{"prediction"}
	for _, batch := range []int{1, 7, 64} {
		arrays, err := gen.Feeds(spec, batch, 11)
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		for _, random := range []bool{false, true} {
			opts := &exec.Options{Variables: vars, Seed: 9}
			if random { // every variable drawn by name
				opts = &exec.Options{RandomTables: true, Seed: 9}
			}
			want, err := run(ref, feeds, outputs, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(out, feeds, outputs, opts)
			if err != nil {
				t.Fatalf("batch %d: %v", batch, err)
			}
			if err := compare(want, got, outputs); err != nil {
				t.Fatalf("batch %d (random %v): %v", batch, random, err)
			}
		}
	}
}

// What is not a dense chain stays: a MatMul of two computed matrices, and
// a chain whose intermediate result has another user keeps that part.
func TestNotFused(t *testing.T) {
	src := `module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
    %y:2 = "tfg.Placeholder"() {_mlir_name = "y", dtype = f32, shape = #tfg.shape<4x3>} : () -> (tensor<*xf32>, !tfg.control)
    %w:2 = "tfg.VariableV2"() {_mlir_name = "w", container = "", dtype = f32, shape = #tfg.shape<4x3>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %wr:2 = "tfg.Identity"(%w#0) {T = f32, _mlir_name = "w/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %m:2 = "tfg.MatMul"(%x#0, %y#0) {T = f32, _mlir_name = "free", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %n:2 = "tfg.MatMul"(%x#0, %wr#0) {T = f32, _mlir_name = "dense", transpose_a = false, transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %r:2 = "tfg.Relu"(%n#0) {T = f32, _mlir_name = "relu"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %s:2 = "tfg.Sigmoid"(%n#0) {T = f32, _mlir_name = "sig"} : (tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}
`
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, stats := runPipeline(t, ctx, m, "fuse-dense")
	if got := stats[densetogpu.Flag]["layers"]; got != 1 {
		t.Errorf("fused %d layers, want 1", got)
	}
	if count(out, "tfg.MatMul") != 1 || count(out, "tfg.Relu") != 1 || count(out, "tfg.Sigmoid") != 1 || count(out, fused.DenseOp) != 1 {
		t.Error("want the free MatMul, the Relu and the Sigmoid kept, and one fused.dense")
	}
	feeds := map[string]*interp.Tensor{
		"x": interp.Must(interp.New([]int64{2, 4}, []float32{1, 2, 3, 4, -5, 6, 7, 8})),
		"y": interp.Must(interp.New([]int64{4, 3}, []float32{1, 0, 2, 0, 1, 0, 3, 0, 1, 0, -1, 0})),
	}
	outputs := []string{"free", "relu", "sig"}
	opts := &exec.Options{RandomTables: true, Seed: 4}
	want, err := run(m, feeds, outputs, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(out, feeds, outputs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(want, got, outputs); err != nil {
		t.Fatal(err)
	}
}

// The fused program emits as NVPTX LLVM IR (both gpu.modules) and llc-19
// compiles it: one .entry per kernel, 16-byte loads, shared tiles,
// float64 fma. A missing llc-19 skips the test, except under CI=true.
func TestPTX(t *testing.T) {
	llctest.Need(t)
	_, m := generate(t, models[0])
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runPipeline(t, ctx, ref, pipeline)
	ll, err := nvptx.EmitText(out)
	if err != nil {
		t.Fatal(err)
	}
	ptx := llctest.PTX(t, []byte(ll))
	s := string(ptx)
	want := 1 + count(out, fused.DenseOp)
	if n := strings.Count(s, ".entry"); n != want {
		t.Errorf("%d .entry in the PTX, want %d", n, want)
	}
	for _, w := range []string{".entry top_mlp_dense(", ".entry bottom_mlp_dense(", "fma.rn.f64", "cvt.f64.f32", "cvt.rn.f32.f64", "bar.sync", ".shared .align"} {
		if !strings.Contains(s, w) {
			t.Errorf("no %q in the PTX", w)
		}
	}
}

// The options are checked before any layer is planned: an option no layer
// could take fails the pass even in a module without dense layers (they
// were checked only when a layer was planned, and block-m=2^62 wrapped
// around to "0 threads per block").
func TestOptionsChecked(t *testing.T) {
	ctx := all.NewContext()
	m, err := textir.Parse(ctx, "t.mlir", []byte(`module {
  "tfg.graph"() ({
    %x:2 = "tfg.Placeholder"() {_mlir_name = "x", dtype = f32, shape = #tfg.shape<?x4>} : () -> (tensor<*xf32>, !tfg.control)
  }) : () -> ()
}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ opts, want string }{
		{"split-k=0", `split-k must be auto or a number in [1, 256], got "0"`},
		{"split-k=257", `split-k must be auto or a number in [1, 256], got "257"`},
		{"split-k=some", `split-k must be auto or a number`},
		{"block-m=-1", "block-m must be 0 (chosen per layer) or a power of two up to 8192, got -1"},
		{"block-m=4611686018427387904 block-n=4", "block-m must be 0 (chosen per layer) or a power of two up to 8192, got 4611686018427387904"},
		{"block-k=3", "block-k must be 0 (chosen per layer) or a power of two"},
		{"thread-n=16", "thread-n must be 0 (chosen per layer) or a power of two up to 8, got 16"},
		{"accumulate=f16", `accumulate must be f64 or f32, got "f16"`},
	} {
		pm, err := pass.ParsePipeline("fuse-dense{" + c.opts + "}")
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		if err := pm.Run(ctx, ctx.Clone(m, nil)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	for _, good := range []string{"split-k=1", "split-k=AUTO", "block-m=128 thread-n=8", "accumulate=f32"} {
		pm, err := pass.ParsePipeline("fuse-dense{" + good + "}")
		if err != nil {
			t.Fatalf("%s: %v", good, err)
		}
		if err := pm.Run(ctx, ctx.Clone(m, nil)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
