package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/interp/npz"
)

func runGen(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"gen"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String() + errb.String()
}

// TestGenModelAndFeeds: a preset is written with its side file, feeds
// cover every placeholder, and the same seed gives the same bytes.
func TestGenModelAndFeeds(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.pbtxt")
	if code, msg := runGen(t, "--preset", "small", "--seed", "3", "-o", model); code != 0 {
		t.Fatalf("gen: %d %s", code, msg)
	}
	f, err := graphdef.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := graphdef.Validate(f.Graph); err != nil {
		t.Fatal(err)
	}
	tables, err := npz.ReadFile(filepath.Join(dir, "m.tables.npz"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("side file: %v (%d arrays)", err, len(tables))
	}
	first, _ := os.ReadFile(model)
	if code, msg := runGen(t, "--preset", "small", "--seed", "3", "-o", model); code != 0 {
		t.Fatalf("gen again: %s", msg)
	}
	second, _ := os.ReadFile(model)
	if !bytes.Equal(first, second) {
		t.Fatal("same seed, different graph bytes")
	}
	feeds := filepath.Join(dir, "feeds.npz")
	if code, msg := runGen(t, "--feeds", "--batch", "32", model, "-o", feeds); code != 0 {
		t.Fatalf("feeds: %s", msg)
	}
	arrays, err := npz.ReadFile(feeds)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, a := range arrays {
		have[a.Name] = true
		if a.Tensor.Dim(0) != 32 {
			t.Errorf("feed %s: batch %d", a.Name, a.Tensor.Dim(0))
		}
	}
	for _, n := range f.Graph.Node {
		if n.Op == "Placeholder" && !have[n.Name] {
			t.Errorf("no feed for %s", n.Name)
		}
	}
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "E"}, "no output file"},
		{[]string{"-o", filepath.Join(dir, "x.pbtxt")}, "no model"},
		{[]string{"--preset", "nope", "-o", filepath.Join(dir, "x.pbtxt")}, `unknown preset "nope"`},
		{[]string{"--preset", "probe", "--tables=const", "-o", filepath.Join(dir, "x.pbtxt")}, "const tables need 6.0 GiB"},
		{[]string{"--preset", "micro", "--columns", "-3", "-o", filepath.Join(dir, "x.pbtxt")}, "columns: must be positive"},
		{[]string{"--feeds", "-o", filepath.Join(dir, "f.npz")}, "one model file"},
	}
	for _, c := range cases {
		code, msg := runGen(t, c.args...)
		if code == 0 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: status %d, %q; want an error with %q", c.args, code, msg, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.pbtxt")); err == nil {
			t.Errorf("%v: a failed run left its output", c.args)
		}
	}
}

// realFeedCase is a real graph and how it is cut, for gen --feeds.
type realFeedCase struct {
	name            string
	model           string // under ../shared/testdata
	inputs, outputs string
	batch           string
	rows            int64    // the feeds' rows
	flags           []string // for gen and compile
}

func seqInputs(node string, lo, hi int) string {
	var s []string
	for i := lo; i <= hi; i++ {
		s = append(s, fmt.Sprintf("%s:%d", node, i))
	}
	return strings.Join(s, ",")
}

// gen --feeds draws feeds for the real graphs and the SavedModel, cut as
// recom compile cuts them; the interpreter runs the GraphDef on them, and
// every compiled stage computes the same outputs (the check a user runs
// with recom interp and recom compare).
func TestGenFeedsRealGraphs(t *testing.T) {
	shared := filepath.Dir(realgraphs.Dir(t))
	for _, c := range []realFeedCase{
		{"census TF1", "graphdefs/census_wide_deep_tf1.pbtxt", seqInputs("IteratorGetNext", 0, 14),
			"head/predictions/logistic", "24", 24, nil},
		// A queue's placeholders get an unknown batch (the graph's is 128).
		{"census TF2", "graphdefs/census_wide_deep_tf2_resource.pbtxt", seqInputs("fifo_queue_DequeueMany", 1, 16),
			"head/predictions/logistic", "", gen.DefaultFeedBatch, nil},
		// Cut with static batches, the feeds take the graph's.
		{"census TF2, static batch", "graphdefs/census_wide_deep_tf2_resource.pbtxt", seqInputs("fifo_queue_DequeueMany", 1, 16),
			"head/predictions/logistic", "", 128, []string{"--dynamic-batch=false"}},
		{"criteo", "graphdefs/criteo_bucketized_tiles.pbtxt", seqInputs("IteratorGetNext", 0, 10),
			"dense/BiasAdd", "32", 32, nil},
		// Cut at its signature; the directory is read for its graph file.
		{"SavedModel", "savedmodels/fast_serving_tutorial", "", "", "8", 8, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			model := filepath.Join(shared, c.model)
			feeds := filepath.Join(dir, "feeds.npz")
			var cut []string
			if c.inputs != "" {
				cut = []string{"--inputs", c.inputs, "--outputs", c.outputs}
			}
			cut = append(cut, c.flags...)
			args := append([]string{"gen", "--feeds", model, "-o", feeds, "--seed", "3"}, cut...)
			if c.batch != "" {
				args = append(args, "--batch", c.batch)
			}
			st, _, se := runTool(args...)
			if st != 0 {
				t.Fatalf("gen --feeds: status %d: %s", st, se)
			}
			if !strings.Contains(se, "recom gen: "+feeds+": ") {
				t.Errorf("stderr does not say what was drawn: %q", se)
			}
			for name, f := range readNPZ(t, feeds) {
				if f.Rank() > 0 && f.Dim(0) != c.rows {
					t.Errorf("feed %s: %v, want %d rows", name, f.Shape(), c.rows)
				}
			}
			graph := model
			if c.inputs == "" {
				graph = filepath.Join(model, "saved_model.pb")
			}
			outs := c.outputs
			if outs == "" {
				outs = "addition_layer/add"
			}
			icut := []string{"--outputs", outs}
			if c.inputs != "" {
				icut = append(icut, "--inputs", c.inputs)
			}
			ref := filepath.Join(dir, "ref.npz")
			if st, _, se := runTool(append([]string{"interp", graph, "--feeds", feeds, "-o", ref}, icut...)...); st != 0 {
				t.Fatalf("interp on the graph: %s", se)
			}
			out := filepath.Join(dir, "c")
			if st, _, se := runTool(append([]string{"compile", graph, "-o", out, "-q", "--stop-after=fuse-dense"}, cut...)...); st != 0 {
				t.Fatalf("compile: %s", se)
			}
			for _, stage := range []string{"0-tfg", "1-emb", "2-shape", "3-gpu", "4-dense"} {
				got := filepath.Join(dir, stage+".npz")
				if st, _, se := runTool("interp", filepath.Join(out, stage+".mlir"), "--feeds", feeds, "--outputs", outs, "-o", got); st != 0 {
					t.Fatalf("interp on %s: %s", stage, se)
				}
				if st, so, se := runTool("compare", ref, got, "--rtol", "1e-5"); st != 0 {
					t.Errorf("%s differs from the graph: %s%s", stage, so, se)
				}
			}
		})
	}
}

// gen --feeds on a SavedModel directory draws a vocabulary's keys from its
// asset file (the graph names the file by its asset tensor).
func TestGenFeedsSavedModelAssets(t *testing.T) {
	dir := t.TempDir()
	sm := filepath.Join(dir, "model")
	if err := os.MkdirAll(filepath.Join(sm, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sm, "assets", "words.txt"), []byte("cat\ndog\nemu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := graphdef.Parse([]byte(`
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "table" op: "HashTableV2" attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } }
node { name: "vocab_file" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "words.txt" } } } }
node { name: "init" op: "InitializeTableFromTextFileV2" input: "table" input: "vocab_file" attr { key: "key_index" value { i: -2 } } attr { key: "value_index" value { i: -1 } } }
node { name: "default" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: -1 } } } }
node { name: "ids" op: "LookupTableFindV2" input: "table" input: "w" input: "default" attr { key: "Tin" value { type: DT_STRING } } attr { key: "Tout" value { type: DT_INT64 } } }
`), "graph.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	info := func(name string) *tfpb.TensorInfo {
		return &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: name}}
	}
	m := &tfpb.SavedModel{MetaGraphs: []*tfpb.MetaGraphDef{{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    g.Graph,
		SignatureDef: map[string]*tfpb.SignatureDef{"serving_default": {
			Inputs: map[string]*tfpb.TensorInfo{"w": info("w:0")}, Outputs: map[string]*tfpb.TensorInfo{"ids": info("ids:0")}}},
		AssetFileDef: []*tfpb.AssetFileDef{{TensorInfo: info("vocab_file:0"), Filename: "words.txt"}},
	}}}
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sm, "saved_model.pb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	feeds := filepath.Join(dir, "feeds.npz")
	st, _, se := runTool("gen", "--feeds", sm, "--batch", "64", "-o", feeds)
	if st != 0 {
		t.Fatalf("status %d: %s", st, se)
	}
	if !strings.Contains(se, "vocabulary of 3 keys (file "+filepath.Join(sm, "assets", "words.txt")+")") {
		t.Errorf("stderr: %q", se)
	}
	seen := map[string]bool{}
	for _, w := range readNPZ(t, feeds)["w"].Strings() {
		switch {
		case w == "cat" || w == "dog" || w == "emu":
			seen[w] = true
		case strings.HasPrefix(w, "oov-"):
		default:
			t.Errorf("value %q is neither a key nor out of vocabulary", w)
		}
	}
	if len(seen) != 3 {
		t.Errorf("keys drawn: %v", seen)
	}
}

// gen --feeds on a generated model draws from its recorded spec (as
// before), and from the graph with a feed spec or a cut; the flags of the
// graph's feeds go with --feeds only.
func TestGenFeedsGeneratedModel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.pbtxt")
	if code, msg := runGen(t, "--preset", "micro", "-o", model); code != 0 {
		t.Fatalf("gen: %s", msg)
	}
	spec := filepath.Join(dir, "feeds.json")
	if err := os.WriteFile(spec, []byte(`{"*": {"rows": 5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args     []string
		rows     int64
		fromSpec bool
	}{
		{[]string{"--batch", "7"}, 7, true},
		{[]string{"--batch", "7", "--feed-spec", spec}, 5, false},
	} {
		feeds := filepath.Join(dir, "f.npz")
		st, _, se := runTool(append([]string{"gen", "--feeds", model, "-o", feeds}, c.args...)...)
		if st != 0 {
			t.Fatalf("%v: %s", c.args, se)
		}
		if c.fromSpec == strings.Contains(se, "inputs of") {
			t.Errorf("%v: stderr %q: drawn from the spec %v", c.args, se, c.fromSpec)
		}
		for name, f := range readNPZ(t, feeds) {
			if f.Dim(0) != c.rows {
				t.Errorf("%v: %s has %d rows, want %d", c.args, name, f.Dim(0), c.rows)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "--preset", "micro", "--inputs", "x", "-o", model}, "go with --feeds"},
		{[]string{"gen", "--feeds", model, "--spec", spec, "--feed-spec", spec, "-o", filepath.Join(dir, "g.npz")}, "not both"},
		{[]string{"gen", "--feeds", model, "--feed-spec", filepath.Join(dir, "none.json"), "-o", filepath.Join(dir, "g.npz")}, "none.json"},
		{[]string{"gen", "--feeds", model, "--batch", "0", "--feed-spec", spec, "-o", filepath.Join(dir, "g.npz")}, "--batch 0: must be positive"},
	} {
		st, _, se := runTool(c.args...)
		if st == 0 || !strings.Contains(se, c.want) {
			t.Errorf("%v: status %d, %q; want an error with %q", c.args, st, se, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "g.npz")); err == nil {
			t.Errorf("%v: a failed run left its output", c.args)
		}
	}
}

// --progress shows each step of gen (building the graph, writing each
// file) as it starts and ends, with its time; without a terminal, and with
// --progress=never, nothing.
func TestGenProgress(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.pbtxt")
	code, msg := runGen(t, "--preset", "micro", "--columns", "3", "--progress", "-o", model)
	if code != 0 {
		t.Fatal(msg)
	}
	want := []string{
		"recom gen: building the graph of 3 columns ...",
		`recom gen: building the graph of 3 columns: \d+\.\d{3} s, \d+ nodes`,
		"recom gen: writing " + regexp.QuoteMeta(model) + " ...",
		"recom gen: writing " + regexp.QuoteMeta(model) + `: \d+\.\d{3} s`,
		"recom gen: writing 3 tables to " + regexp.QuoteMeta(filepath.Join(dir, "m.tables.npz")) + " ...",
		`recom gen: writing 3 tables to .*: \d+\.\d{3} s`,
		"recom gen: " + regexp.QuoteMeta(model) + ": 3 columns",
	}
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), msg)
	}
	for i, w := range want {
		if !regexp.MustCompile("^" + w).MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
	for _, args := range [][]string{{"--progress=never"}, nil} {
		code, msg := runGen(t, append([]string{"--preset", "micro", "--columns", "3", "-o", model}, args...)...)
		if code != 0 || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: %d, %q", args, code, msg)
		}
	}
	if code, msg := runGen(t, "--preset", "micro", "--progress=sometimes", "-o", model); code == 0 || !strings.Contains(msg, "--progress=sometimes: want auto, always or never") {
		t.Errorf("a bad --progress: %d, %q", code, msg)
	}
}
