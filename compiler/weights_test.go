package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/checkpoint"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/internal/ckptwrite"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// tinyDir writes the tiny SavedModel (internal/ckptwrite) with sigs.
func tinyDir(t *testing.T, sigs ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := ckptwrite.WriteTiny(dir, sigs...); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runTiny interprets the imported module with the weights and returns y.
func runTiny(t *testing.T, res *Result, words []string) *interp.Tensor {
	t.Helper()
	opts := &exec.Options{Variables: res.Weights.Variables}
	feeds := map[string]*interp.Tensor{"words": interp.Vector(words...)}
	got, err := exec.Run(context.Background(), res.Module, feeds, []string{"y"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return got["y"]
}

// A SavedModel directory compiles with its trained weights: the graph is
// cut at serving_default, the vocabulary asset is bound (the interpreter
// reads it through the graph's initializer), the variables the cut holds
// are read through the saver (emb's two partitions from two shards, the
// resource variable w) and global_step, which y does not need, is not;
// the interpreter's outputs are the model's own predictions.
func TestSavedModelWeights(t *testing.T) {
	dir := tinyDir(t)
	res, err := Compile(context.Background(), dir, Options{StopAfter: StageImport, ReadWeights: true})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Weights
	if w == nil || w.Dir != dir || w.Prefix != filepath.Join(dir, "variables", "variables") {
		t.Fatalf("weights %+v", w)
	}
	want := ckptwrite.TinyWeights()
	full := want["emb"]
	for name, slice := range map[string]checkpoint.Slice{
		"emb/part_0": {Start: []int64{0, 0}, Length: []int64{3, 4}},
		"emb/part_1": {Start: []int64{3, 0}, Length: []int64{3, 4}},
	} {
		want[name] = interp.Must(checkpoint.Extract(full, slice))
	}
	delete(want, "emb")
	delete(want, "global_step")
	if len(w.Variables) != len(want) {
		t.Fatalf("read %d variables, want %d (%v)", len(w.Variables), len(want), w.Bindings)
	}
	for k, v := range want {
		if err := w.Variables[k].Equal(v); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if w.Bytes != 24*4+8*4+2*4 {
		t.Errorf("Bytes = %d", w.Bytes)
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "assets", "vocab.txt"))
	if w.Assets["asset_path:0"] != abs {
		t.Errorf("assets %v", w.Assets)
	}
	if got := strings.Join(res.Outputs, ","); got != "y:0" {
		t.Errorf("cut at %s", got)
	}
	words := []string{"banana", "nope", "elder", "pad", "apple"}
	if err := runTiny(t, res, words).AllClose(ckptwrite.TinyPredict(words), 1e-6, 1e-6); err != nil {
		t.Errorf("predictions: %v", err)
	}
	var b strings.Builder
	if err := res.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "weights: 4 variables (136 B) read from "+w.Prefix+", 1 asset file in "+filepath.Join(dir, "assets")) {
		t.Errorf("summary:\n%s", b.String())
	}

	// Without ReadWeights the index is checked and nothing read.
	res, err = Compile(context.Background(), dir, Options{StopAfter: StageImport})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Weights.Variables) != 0 || len(res.Weights.Bindings) != 4 || !strings.Contains(res.Weights.String(), "checked against the index of") {
		t.Errorf("index only: %s, %d values", res.Weights, len(res.Weights.Variables))
	}
}

// The signature: without serving_default the only one is taken; several
// are an error that lists them, unless one is chosen or the graph is cut
// by hand; a saved_model.pb alone compiles with a note that its weights
// are not read.
func TestSavedModelSignatures(t *testing.T) {
	one := tinyDir(t, "predict")
	res, err := Compile(context.Background(), one, Options{StopAfter: StageImport})
	if err != nil || strings.Join(res.Outputs, ",") != "y:0" {
		t.Fatalf("one signature: %v, %v", res.Outputs, err)
	}
	two := tinyDir(t, "predict", "classify")
	_, err = Compile(context.Background(), two, Options{StopAfter: StageImport})
	if err == nil || !strings.Contains(err.Error(), `tiny: the SavedModel has no "serving_default" signature and 2 others ("classify", "predict"): choose one with --signature`) {
		t.Fatalf("two signatures: %v", err)
	}
	if _, err := Compile(context.Background(), two, Options{StopAfter: StageImport, Signature: "classify"}); err != nil {
		t.Errorf("--signature classify: %v", err)
	}
	if _, err := Compile(context.Background(), two, Options{StopAfter: StageImport, Inputs: []string{"words"}, Outputs: []string{"y"}}); err != nil {
		t.Errorf("a cut by hand: %v", err)
	}
	res, err = Compile(context.Background(), filepath.Join(one, "saved_model.pb"), Options{StopAfter: StageImport})
	if err != nil || res.Weights != nil || !strings.Contains(strings.Join(res.Notes, "\n"), "saved_model.pb was read alone: the variables and assets beside it are not") {
		t.Errorf("saved_model.pb alone: %v, %v, %q", res.Weights, err, res.Notes)
	}
}

// A GraphDef takes its checkpoint with Options.Checkpoint (a prefix, or a
// directory with TensorFlow's checkpoint file); the saver of its graph
// binds the variables.
func TestGraphDefCheckpoint(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "graph.pbtxt")
	if err := os.WriteFile(graph, []byte(ckptwrite.TinyGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	vocab := filepath.Join(dir, "vocab.txt")
	if err := os.WriteFile(vocab, []byte(ckptwrite.TinyVocab), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix, err := ckptwrite.TinyBundle().Write(filepath.Join(dir, "model.ckpt-2500"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "checkpoint"), []byte("model_checkpoint_path: \"model.ckpt-2500\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ckpt := range []string{prefix, dir, prefix + ".index"} {
		res, err := Compile(context.Background(), graph, Options{StopAfter: StageImport, ReadWeights: true,
			Inputs: []string{"words"}, Outputs: []string{"y"}, Checkpoint: ckpt})
		if err != nil {
			t.Fatalf("%s: %v", ckpt, err)
		}
		if res.Weights.Prefix != prefix || len(res.Weights.Variables) != 4 {
			t.Fatalf("%s: weights %s", ckpt, res.Weights)
		}
		// The graph names vocab.txt relative to where it runs.
		opts := &exec.Options{Variables: res.Weights.Variables, AssetDir: dir}
		got, err := exec.Run(context.Background(), res.Module, map[string]*interp.Tensor{"words": interp.Vector("cherry", "x")}, []string{"y"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := got["y"].AllClose(ckptwrite.TinyPredict([]string{"cherry", "x"}), 1e-6, 1e-6); err != nil {
			t.Errorf("%s: %v", ckpt, err)
		}
	}
	if _, err := Compile(context.Background(), graph, Options{StopAfter: StageImport, Checkpoint: filepath.Join(dir, "nope")}); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Errorf("a missing checkpoint: %v", err)
	}
}

// What is wrong with a model's weights is an error that names the variable
// and the file: a variable the checkpoint lacks, one of another shape, a
// missing data shard, a corrupt tensor (found when the data is read; the
// index check does not read it), no variables directory, --checkpoint
// with a SavedModel directory or with IR.
func TestWeightsErrors(t *testing.T) {
	read := Options{StopAfter: StageImport, ReadWeights: true}
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, dir string)
		opts  Options
		want  string
		check bool // the index check (no ReadWeights) fails too
	}{
		{"missing shard", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "variables", "variables.data-00001-of-00002"))
		}, read, "variables.data-00001-of-00002: data shard 1 of 2 is missing", false},
		{"corrupt tensor", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "variables", "variables.data-00001-of-00002")
			b, _ := os.ReadFile(p)
			b[len(b)-1] ^= 0x40
			os.WriteFile(p, b, 0o644)
		}, read, "variables.data-00001-of-00002: tensor \"w\" at offset 48: CRC-32C mismatch", false},
		{"no variables", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "variables"))
		}, read, `the graph has 4 variables ("emb/part_0", "emb/part_1", "w", "b") but the SavedModel directory has no variables/variables.index`, true},
		{"checkpoint given", func(t *testing.T, dir string) {}, Options{StopAfter: StageImport, Checkpoint: "x"},
			"a SavedModel directory brings its checkpoint (variables/); --checkpoint is for a GraphDef", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tinyDir(t)
			tc.edit(t, dir)
			_, err := Compile(context.Background(), dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			idx := tc.opts
			idx.ReadWeights = false
			if _, err := Compile(context.Background(), dir, idx); (err != nil) != tc.check {
				t.Errorf("index check: %v", err)
			}
		})
	}

	// A variable of another shape, and one the checkpoint does not have:
	// the graph's variable nodes edited.
	for _, tc := range []struct{ from, to, want string }{
		{`dim { size: 4 } dim { size: 2 } } } } attr { key: "container"`, `dim { size: 4 } dim { size: 3 } } } } attr { key: "container"`,
			`variables/variables.index: variable "w" (key "w", via RestoreV2 node "save/RestoreV2" output 2): the checkpoint holds shape [4,2], the variable's is [4,3]`},
		{`node { name: "b" op: "VariableV2"`, `node { name: "bias" op: "VariableV2"`, ""},
	} {
		sm := ckptwrite.TinySavedModel()
		text := strings.Replace(ckptwrite.TinyGraph, tc.from, tc.to, 1)
		if tc.want == "" {
			// b renamed: the graph's nodes that use it follow, the saver
			// does not, and the checkpoint has no tensor "bias".
			text = strings.ReplaceAll(text, `input: "b" `, `input: "bias" `)
			text = strings.Replace(text, `node { name: "save/Assign_2" op: "Assign" input: "bias"`, `node { name: "save/Assign_2" op: "Assign" input: "b"`, 1)
			tc.want = "the checkpoint " // completed below
		}
		f, err := graphdef.Parse([]byte(text), "edited.pbtxt")
		if err != nil {
			t.Fatal(err)
		}
		sm.MetaGraphs[0].GraphDef = f.Graph
		dir := filepath.Join(t.TempDir(), "m")
		if err := ckptwrite.SavedModel(dir, sm, ckptwrite.TinyBundle(), map[string]string{"vocab.txt": ckptwrite.TinyVocab}); err != nil {
			t.Fatal(err)
		}
		_, err = Compile(context.Background(), dir, Options{StopAfter: StageImport})
		if tc.want == "the checkpoint " {
			tc.want += filepath.Join(dir, "variables", "variables.index") + ` has no value for 1 variable of the graph: "bias"`
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}

	if _, err := CompileBytes(context.Background(), "m.mlir", []byte("module {}"), Options{Checkpoint: "x"}); err == nil || !strings.Contains(err.Error(), "checkpoints apply to graph files, not to IR") {
		t.Errorf("IR with a checkpoint: %v", err)
	}
	if _, err := Compile(context.Background(), t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "not a SavedModel directory") {
		t.Errorf("an empty directory: %v", err)
	}
}

// The real export in ../shared/testdata/savedmodels compiles as a
// directory, its variable checked against its checkpoint.
func TestRealSavedModelDir(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "testdata", "savedmodels", "fast_serving_tutorial")
	res, err := Compile(context.Background(), dir, Options{StopAfter: StageImport, ReadWeights: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Weights == nil || res.Weights.Prefix == "" || strings.Join(res.Outputs, ",") != "addition_layer/add:0" {
		t.Fatalf("weights %v, outputs %v", res.Weights, res.Outputs)
	}
	// The serving graph adds its inputs and holds no variable; the whole
	// graph's one variable is in the checkpoint.
	if len(res.Weights.Bindings) != 0 {
		t.Errorf("the cut graph read %v", res.Weights.Bindings)
	}
	res, err = Compile(context.Background(), dir, Options{StopAfter: StageImport, ReadWeights: true, WholeGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Weights.Variables) != 1 {
		t.Errorf("whole graph: %s", res.Weights)
	}
}
