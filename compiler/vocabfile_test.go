package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// vocabFileModel is a generated model of vocabulary columns whose tables
// are filled from vocabulary files, as categorical_column_with_vocabulary_file
// makes them (index_table_from_file: InitializeTableFromTextFileV2, each
// whole line a key, its line number the id): each LookupTableImportV2 of
// the generated graph becomes one, reading a file of the same words named
// by a relative path, written into dir. A file's lines are the keys, one
// a line; edit changes the text of the file of table i.
func vocabFileModel(t *testing.T, dir string, edit func(i int, text string) string) (*gen.Spec, *gen.Model) {
	t.Helper()
	cov, inv := 0.8, 0.3
	s := &gen.Spec{Name: "vocabulary files", Groups: []gen.Group{
		// default_value = -1: missing words pruned from the bags.
		{Count: 2, Kind: gen.Vocabulary, VocabularySize: 7, Dim: 4, Combiner: "mean",
			Feed: gen.Feed{Coverage: &cov, Invalid: inv, Pooling: &gen.Pooling{Dist: "uniform", Min: 1, Max: 3}}},
		// Out-of-vocabulary buckets.
		{Count: 1, Kind: gen.Vocabulary, VocabularySize: 5, NumOOVBuckets: 3, Dim: 8, Combiner: "sqrtn",
			Feed: gen.Feed{Invalid: inv, Pooling: &gen.Pooling{Dist: "uniform", Min: 1, Max: 4}}},
	}}
	m, err := gen.Generate(s, gen.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	m.Graph = proto.Clone(m.Graph).(*tfpb.GraphDef)
	consts := map[string]*tfpb.NodeDef{}
	for _, n := range m.Graph.Node {
		if n.Op == "Const" {
			consts[n.Name] = n
		}
	}
	i := 0
	var nodes []*tfpb.NodeDef
	for _, n := range m.Graph.Node {
		if n.Op != "LookupTableImportV2" {
			nodes = append(nodes, n)
			continue
		}
		keys := consts[n.Input[1]].GetAttr()["value"].GetTensor().GetStringVal()
		var lines []string
		for _, k := range keys {
			lines = append(lines, string(k))
		}
		file := "vocab_" + string(rune('a'+i)) + ".txt"
		text := edit(i, strings.Join(lines, "\n")+"\n")
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fn := &tfpb.NodeDef{Name: n.Name + "/filename", Op: "Const", Attr: map[string]*tfpb.AttrValue{
			"dtype": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_STRING}},
			"value": {Value: &tfpb.AttrValue_Tensor{Tensor: &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING,
				TensorShape: &tfpb.TensorShapeProto{}, StringVal: [][]byte{[]byte(file)}}}}}}
		ia := func(v int64) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}} }
		init := &tfpb.NodeDef{Name: n.Name, Op: "InitializeTableFromTextFileV2", Input: []string{n.Input[0], fn.Name},
			Attr: map[string]*tfpb.AttrValue{"key_index": ia(-2), "value_index": ia(-1), "vocab_size": ia(int64(len(keys))),
				"delimiter": {Value: &tfpb.AttrValue_S{S: []byte("\t")}}, "offset": ia(0)}}
		nodes = append(nodes, fn, init)
		i++
	}
	if i != 3 {
		t.Fatalf("%d vocabulary tables, want 3", i)
	}
	m.Graph.Node = nodes
	return s, m
}

// Vocabulary files are read when compiling (relative names from
// lower-emb's asset-dir) into the tables' constants: the columns are
// vocabulary columns with their ids in the kernel (default_value = -1 and
// out-of-vocabulary buckets), and the compiled program computes what the
// GraphDef computes, which reads the same files (exec.Options.AssetDir), at
// batch 1 and 19. A file that cannot be read leaves its table's lookups in
// tfg, with a remark, and the compilation goes on.
func TestVocabularyFiles(t *testing.T) {
	dir := t.TempDir()
	s, m := vocabFileModel(t, dir, func(_ int, text string) string { return text })
	text, err := gen.MarshalGraph(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	r, err := CompileBytes(context.Background(), "vocab.pbtxt", text, Options{StopAfter: StageFuse,
		PassOptions: map[string]string{"lower-emb": "asset-dir=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	le, fs := r.Stage(StageLowerEmb), r.Stage(StageFuse)
	if le.Stat("vocabulary-files") != 3 || le.Stat("columns-vocabulary") != 3 || fs.Stat("columns") != 3 || fs.Stat("id-chains") != 3 {
		t.Errorf("files %d, vocabulary columns %d, fused %d, ids in the kernel %d; want 3 each",
			le.Stat("vocabulary-files"), le.Stat("columns-vocabulary"), fs.Stat("columns"), fs.Stat("id-chains"))
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range m.Tables {
		vars[a.Name] = a.Tensor
	}
	outputs := []string{gen.EmbeddingNode}
	for _, batch := range []int{1, 19} {
		arrays, err := gen.Feeds(s, batch, uint64(batch))
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		opts := &exec.Options{Variables: vars, AssetDir: dir}
		want := runProgram(t, ref, feeds, outputs, opts)
		// The compiled program does not read the files.
		got := runProgram(t, r.Module, feeds, outputs, &exec.Options{Variables: vars})
		if err := closeTo(want[outputs[0]], got[outputs[0]]); err != nil {
			t.Errorf("batch %d: %v", batch, err)
		}
	}

	// Unreadable files: one missing, one with a repeated key.
	bad := t.TempDir()
	_, m2 := vocabFileModel(t, bad, func(i int, text string) string {
		if i == 1 {
			return "w0\n" + text
		}
		return text
	})
	if err := os.Remove(filepath.Join(bad, "vocab_a.txt")); err != nil {
		t.Fatal(err)
	}
	text, err = gen.MarshalGraph(m2.Graph)
	if err != nil {
		t.Fatal(err)
	}
	r, err = CompileBytes(context.Background(), "vocab.pbtxt", text, Options{StopAfter: StageFuse,
		PassOptions: map[string]string{"lower-emb": "asset-dir=" + bad}})
	if err != nil {
		t.Fatal(err)
	}
	var remarks []string
	for _, d := range r.Diagnostics {
		if strings.Contains(d.Message, "vocabulary file not read: ") {
			remarks = append(remarks, d.Message)
		}
	}
	if len(remarks) != 2 || !strings.Contains(remarks[0], "vocab_a.txt") || !strings.Contains(remarks[1], `line 2 repeats the key "w0"`) {
		t.Errorf("remarks %q", remarks)
	}
	if le := r.Stage(StageLowerEmb); le.Stat("vocabulary-files") != 1 || le.Stat("columns-vocabulary") != 1 {
		t.Errorf("files %d, vocabulary columns %d; want 1 each", le.Stat("vocabulary-files"), le.Stat("columns-vocabulary"))
	}
}
