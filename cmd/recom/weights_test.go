package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/internal/ckptwrite"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

// tinyModel writes the tiny SavedModel (internal/ckptwrite) and feeds of
// its words input; it returns the directory, the feeds file and the words.
func tinyModel(t *testing.T, sigs ...string) (dir, feeds string, words []string) {
	t.Helper()
	tmp := t.TempDir()
	dir = filepath.Join(tmp, "tiny")
	if err := ckptwrite.WriteTiny(dir, sigs...); err != nil {
		t.Fatal(err)
	}
	words = []string{"cherry", "apple", "unknown", "elder"}
	feeds = filepath.Join(tmp, "feeds.npz")
	if err := npz.WriteFile(feeds, []npz.Array{{Name: "words", Tensor: interp.Vector(words...)}}); err != nil {
		t.Fatal(err)
	}
	return dir, feeds, words
}

// recom interp runs a SavedModel directory with its trained weights and its
// vocabulary asset, and defaults to its signature's outputs; --write-tables
// writes the weights, with which the compiled IR gives the same outputs;
// --tables replaces the checkpoint's values of the variables it names.
func TestInterpSavedModelWeights(t *testing.T) {
	dir, feeds, words := tinyModel(t)
	tmp := t.TempDir()
	out, weights := filepath.Join(tmp, "out.npz"), filepath.Join(tmp, "weights.npz")
	if st, _, se := runTool("interp", dir, "--feeds", feeds, "-o", out, "--write-tables", weights); st != 0 {
		t.Fatalf("interp: %s", se)
	}
	want := ckptwrite.TinyPredict(words)
	if err := readNPZ(t, out)["y:0"].AllClose(want, 1e-6, 1e-6); err != nil {
		t.Fatalf("predictions: %v", err)
	}
	w := readNPZ(t, weights)
	if len(w) != 4 || w["emb/part_1"] == nil || w["global_step"] != nil {
		t.Errorf("written weights: %v", w)
	}

	// The imported stage, with the written weights.
	c := filepath.Join(tmp, "c")
	if st, _, se := runTool("compile", dir, "--stop-after=import", "-o", c, "-q"); st != 0 {
		t.Fatalf("compile: %s", se)
	}
	out2 := filepath.Join(tmp, "out2.npz")
	if st, _, se := runTool("interp", filepath.Join(c, "0-tfg.mlir"), "--feeds", feeds, "--tables", weights, "--outputs", "y", "-o", out2); st != 0 {
		t.Fatalf("interp 0-tfg.mlir: %s", se)
	}
	if err := readNPZ(t, out2)["y"].AllClose(want, 1e-6, 1e-6); err != nil {
		t.Errorf("the stage with --tables: %v", err)
	}
	// Without them the stage's variables are random.
	if st, _, _ := runTool("interp", filepath.Join(c, "0-tfg.mlir"), "--feeds", feeds, "--outputs", "y", "-o", out2); st != 0 ||
		readNPZ(t, out2)["y"].AllClose(want, 1e-3, 1e-3) == nil {
		t.Errorf("the stage without weights ran with them")
	}

	// --tables over the checkpoint: b replaced.
	bias := filepath.Join(tmp, "bias.npz")
	if err := npz.WriteFile(bias, []npz.Array{{Name: "b", Tensor: interp.Vector[float32](100, 200)}}); err != nil {
		t.Fatal(err)
	}
	if st, _, se := runTool("interp", dir, "--feeds", feeds, "--tables", bias, "-o", out); st != 0 {
		t.Fatalf("interp --tables: %s", se)
	}
	got := readNPZ(t, out)["y:0"].Float32s()
	for i, v := range want.Float32s() {
		shift := float32(100 - 0.5)
		if i%2 == 1 {
			shift = 200 + 0.5
		}
		if d := got[i] - v - shift; d > 1e-4 || d < -1e-4 {
			t.Fatalf("--tables b: y[%d] = %v, want %v", i, got[i], v+shift)
		}
	}

	// --write-tables without weights says so.
	st, _, se := runTool("interp", filepath.Join(c, "0-tfg.mlir"), "--feeds", feeds, "--outputs", "y", "-o", out2, "--write-tables", weights)
	if st != 1 || !strings.Contains(se, "--write-tables: the run has no weights to write") {
		t.Errorf("--write-tables without weights: %d %s", st, se)
	}
}

// A GraphDef takes --checkpoint; --signature chooses among several; the
// errors of a model's weights name the variable and the file.
func TestWeightsFlags(t *testing.T) {
	dir, feeds, words := tinyModel(t, "predict", "classify")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out.npz")
	st, _, se := runTool("interp", dir, "--feeds", feeds, "-o", out)
	if st != 1 || !strings.Contains(se, `has no "serving_default" signature and 2 others ("classify", "predict"): choose one with --signature`) {
		t.Fatalf("two signatures: %d %s", st, se)
	}
	if st, _, se := runTool("interp", dir, "--signature", "classify", "--feeds", feeds, "-o", out); st != 0 {
		t.Fatalf("--signature: %s", se)
	}

	// The training graph and its checkpoint, the vocabulary named by its
	// absolute path.
	vocab := filepath.Join(tmp, "vocab.txt")
	os.WriteFile(vocab, []byte(ckptwrite.TinyVocab), 0o644)
	graph := filepath.Join(tmp, "graph.pbtxt")
	os.WriteFile(graph, []byte(strings.Replace(ckptwrite.TinyGraph, `string_val: "vocab.txt"`, `string_val: "`+vocab+`"`, 1)), 0o644)
	prefix, err := ckptwrite.TinyBundle().Write(filepath.Join(tmp, "model.ckpt-2500"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _, se := runTool("interp", graph, "--inputs", "words", "--outputs", "y", "--checkpoint", prefix, "--feeds", feeds, "-o", out); st != 0 {
		t.Fatalf("--checkpoint: %s", se)
	}
	if err := readNPZ(t, out)["y"].AllClose(ckptwrite.TinyPredict(words), 1e-6, 1e-6); err != nil {
		t.Errorf("--checkpoint: %v", err)
	}
	st, stdout, se := runTool("compile", graph, "--inputs", "words", "--outputs", "y", "--checkpoint", prefix, "-o", filepath.Join(tmp, "c"), "--no-cubin")
	if st != 0 || !strings.Contains(stdout, "weights: 4 variables (136 B) checked against the index of "+prefix) {
		t.Errorf("compile --checkpoint: %d %s%s", st, stdout, se)
	}

	// A corrupt checkpoint: compile checks the index only, interp reads.
	data := prefix + ".data-00000-of-00002"
	b, _ := os.ReadFile(data)
	b[0] ^= 1
	os.WriteFile(data, b, 0o644)
	st, _, se = runTool("interp", graph, "--inputs", "words", "--outputs", "y", "--checkpoint", prefix, "--feeds", feeds, "-o", out)
	if st != 1 || !strings.Contains(se, data+`: tensor "emb[0,3:-]" at offset 0: CRC-32C mismatch`) {
		t.Errorf("corrupt: %d %s", st, se)
	}
	os.Remove(data)
	st, _, se = runTool("interp", graph, "--inputs", "words", "--outputs", "y", "--checkpoint", prefix, "--feeds", feeds, "-o", out)
	if st != 1 || !strings.Contains(se, data+": data shard 0 of 2 is missing") {
		t.Errorf("missing shard: %d %s", st, se)
	}
	// A variable of the wrong shape.
	bad := filepath.Join(tmp, "bad.pbtxt")
	os.WriteFile(bad, []byte(strings.Replace(ckptwrite.TinyGraph, `name: "b" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } }`,
		`name: "b" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } }`, 1)), 0o644)
	st, _, se = runTool("compile", bad, "--inputs", "words", "--outputs", "y", "--checkpoint", prefix, "-o", filepath.Join(tmp, "c2"))
	if st != 1 || !strings.Contains(se, prefix+`.index: variable "b" (key "b", via RestoreV2 node "save/RestoreV2" output 3): the checkpoint holds shape [2], the variable's is [3]`) {
		t.Errorf("shape: %d %s", st, se)
	}
}

// recom gen --feeds draws a SavedModel directory's words from its
// vocabulary asset; recom run reads the weights before it needs the GPU.
func TestSavedModelFeedsAndRun(t *testing.T) {
	dir, _, _ := tinyModel(t)
	tmp := t.TempDir()
	feeds := filepath.Join(tmp, "f.npz")
	st, _, se := runTool("gen", "--feeds", "--batch", "16", dir, "-o", feeds)
	if st != 0 || !strings.Contains(se, "vocab.txt") {
		t.Fatalf("gen --feeds: %d %s", st, se)
	}
	words := readNPZ(t, feeds)["words"]
	if words == nil || words.Len() != 16 {
		t.Fatalf("feeds: %v", words)
	}
	hits := 0
	for _, w := range words.Strings() {
		if strings.Contains(ckptwrite.TinyVocab, w+"\n") {
			hits++
		}
	}
	if hits == 0 {
		t.Errorf("no word of the vocabulary in %v", words.Strings())
	}
	// The tiny model has no embedding column for --fuse: run says so
	// after reading its weights.
	st, _, se = runTool("run", dir, "--feeds", feeds, "-o", filepath.Join(tmp, "o.npz"), "--emit-ptx", filepath.Join(tmp, "m.ptx"))
	if st != 1 || !strings.Contains(se, "--fuse made no fused.embedding_layer") {
		t.Errorf("run: %d %s", st, se)
	}
	st, _, se = runTool("run", dir, "--checkpoint", "x", "-o", filepath.Join(tmp, "o.npz"))
	if st != 1 || !strings.Contains(se, "a SavedModel directory brings its checkpoint (variables/); --checkpoint is for a GraphDef") {
		t.Errorf("run --checkpoint on a directory: %d %s", st, se)
	}
}

// recom run cuts a training graph at --inputs as recom compile does (a
// node alone stands for all its outputs); without the cut it names the
// iterator to feed instead.
func TestRunInputs(t *testing.T) {
	census := filepath.Join(realgraphs.Dir(t), "census_wide_deep_tf1.pbtxt")
	tmp := t.TempDir()
	ptx := filepath.Join(tmp, "c.ptx")
	st, _, se := runTool("run", census, "--inputs", "IteratorGetNext", "--outputs", "head/predictions/logistic",
		"--emit-ptx", ptx, "-o", filepath.Join(tmp, "o.npz"))
	if st != 0 {
		t.Fatalf("run --inputs: %d %s", st, se)
	}
	if b, err := os.ReadFile(ptx); err != nil || !strings.Contains(string(b), ".entry") {
		t.Errorf("no kernel in the PTX: %v", err)
	}
	st, _, se = runTool("run", census, "--outputs", "head/predictions/logistic", "--emit-ptx", ptx, "-o", filepath.Join(tmp, "o.npz"))
	if st != 1 || !strings.Contains(se, "op IteratorGetNext reads a tf.data iterator; feed its outputs instead") {
		t.Errorf("run without --inputs: %d %s", st, se)
	}
}
