package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// savedModelDir writes a SavedModel directory: tf1Graph with an asset
// tensor under the "serve" tags, an empty "train" MetaGraph, the
// checkpoint in variables/ and a vocabulary in assets/. text writes
// saved_model.pbtxt instead of saved_model.pb.
func savedModelDir(t *testing.T, text bool, edit func(sm *tfpb.SavedModel)) string {
	dir := t.TempDir()
	g := tf1Graph()
	g.Node = append(g.Node, strConst("vocab_path", nil, "vocab.txt"))
	sm := &tfpb.SavedModel{MetaGraphs: []*tfpb.MetaGraphDef{
		{
			MetaInfoDef:  &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
			GraphDef:     g,
			SaverDef:     &tfpb.SaverDef{RestoreOpName: "save/restore_all", FilenameTensorName: "save/Const:0"},
			AssetFileDef: []*tfpb.AssetFileDef{{TensorInfo: &tfpb.TensorInfo{Encoding: &tfpb.TensorInfo_Name{Name: "vocab_path:0"}}, Filename: "vocab.txt"}},
		},
		{MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"train", "gpu"}}, GraphDef: &tfpb.GraphDef{}},
	}}
	if edit != nil {
		edit(sm)
	}
	if text {
		b, err := prototext.Marshal(sm)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "saved_model.pbtxt"), b, 0o644)
	} else {
		b, _ := proto.Marshal(sm)
		os.WriteFile(filepath.Join(dir, "saved_model.pb"), b, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "variables"), 0o755)
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "assets", "vocab.txt"), []byte("a\nb\n"), 0o644)
	prefix, _ := tf1Checkpoint(t, filepath.Join(dir, "variables"))
	for _, f := range []string{IndexPath(prefix), DataPath(prefix, 0, 2), DataPath(prefix, 1, 2)} {
		if err := os.Rename(f, strings.Replace(f, "model.ckpt-1234", "variables", 1)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpenSavedModel(t *testing.T) {
	for _, text := range []bool{false, true} {
		dir := savedModelDir(t, text, nil)
		m, err := OpenSavedModel(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, want := tf1Checkpoint(t, t.TempDir())
		for k, w := range want {
			if err := m.Variables[k].Equal(w); err != nil {
				t.Errorf("%q: %v", k, err)
			}
		}
		if len(m.Missing) != 0 || m.Prefix != filepath.Join(dir, "variables", "variables") || filepath.Dir(m.GraphPath) != dir {
			t.Fatalf("missing %v, prefix %s, graph %s", m.Missing, m.Prefix, m.GraphPath)
		}
		abs, _ := filepath.Abs(filepath.Join(dir, "assets", "vocab.txt"))
		if m.Assets["vocab_path:0"] != abs || len(m.Assets) != 1 {
			t.Fatalf("assets %v", m.Assets)
		}
		g := proto.CloneOf(m.MetaGraph.GetGraphDef())
		if err := m.BindAssets(g); err != nil {
			t.Fatal(err)
		}
		c := g.Node[len(g.Node)-1]
		if got := string(c.GetAttr()["value"].GetTensor().GetStringVal()[0]); got != abs {
			t.Fatalf("bound asset %q, want %q", got, abs)
		}
		// A graph cut without the asset tensor binds nothing.
		if err := m.BindAssets(&tfpb.GraphDef{}); err != nil {
			t.Fatal(err)
		}
		// An asset tensor that is not a Const cannot be bound.
		g.Node[len(g.Node)-1] = nd("vocab_path", "Placeholder", nil, nil)
		if err := m.BindAssets(g); err == nil || !strings.Contains(err.Error(), `node "vocab_path": asset tensor "vocab_path:0" is not a string scalar Const (it is a Placeholder)`) {
			t.Fatalf("Placeholder asset: %v", err)
		}
	}

	// Another tag set.
	m, err := OpenSavedModel(savedModelDir(t, false, nil), &Options{Tags: []string{"gpu", "train"}})
	if err != nil || len(m.Variables) != 0 || len(m.Assets) != 0 {
		t.Fatalf("train: %v %v", m, err)
	}
}

func TestOpenSavedModelErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(sm *tfpb.SavedModel)
		dir  func(dir string)
		opts *Options
		want string
	}{
		{name: "tags", opts: &Options{Tags: []string{"tpu"}}, want: "no MetaGraph has tags [tpu]; it has [serve] [gpu,train]"},
		{name: "no meta graphs", edit: func(sm *tfpb.SavedModel) { sm.MetaGraphs = nil }, want: "the SavedModel has no MetaGraph"},
		{name: "asset missing", dir: func(dir string) { os.Remove(filepath.Join(dir, "assets", "vocab.txt")) }, want: `asset "vocab.txt" of tensor "vocab_path:0": no such file`},
		{name: "asset outside assets", edit: func(sm *tfpb.SavedModel) { sm.MetaGraphs[0].AssetFileDef[0].Filename = "../saved_model.pb" }, want: "is not a file name inside assets/"},
		{name: "asset without tensor", edit: func(sm *tfpb.SavedModel) { sm.MetaGraphs[0].AssetFileDef[0].TensorInfo = nil }, want: `asset "vocab.txt" has no tensor`},
		{name: "corrupt variables", dir: func(dir string) {
			os.WriteFile(filepath.Join(dir, "variables", "variables.index"), []byte("short"), 0o644)
		}, want: "variables.index: 5 bytes is too short"},
		{name: "no graph file", dir: func(dir string) { os.Remove(filepath.Join(dir, "saved_model.pb")) }, want: "not a SavedModel directory"},
		{name: "graph file corrupt", dir: func(dir string) { os.WriteFile(filepath.Join(dir, "saved_model.pb"), []byte{0xff}, 0o644) }, want: "saved_model.pb:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := savedModelDir(t, false, tc.edit)
			if tc.dir != nil {
				tc.dir(dir)
			}
			_, err := OpenSavedModel(dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSavedModelWithoutVariables(t *testing.T) {
	dir := savedModelDir(t, false, nil)
	os.RemoveAll(filepath.Join(dir, "variables"))
	m, err := OpenSavedModel(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Prefix != "" || len(m.Variables) != 0 || !slices.Equal(m.Missing, []string{"w", "emb/part_0", "emb/part_1", "h", "step"}) {
		t.Fatalf("prefix %q, variables %v, missing %v", m.Prefix, m.Variables, m.Missing)
	}
}

// TestLegacyAssets reads assets listed only in the saved_model_assets
// collection, as TensorFlow 1 exports before asset_file_def did.
func TestLegacyAssets(t *testing.T) {
	dir := savedModelDir(t, false, func(sm *tfpb.SavedModel) {
		mg := sm.MetaGraphs[0]
		a, err := anypb.New(mg.AssetFileDef[0])
		if err != nil {
			t.Fatal(err)
		}
		mg.AssetFileDef = nil
		mg.CollectionDef = map[string]*tfpb.CollectionDef{"saved_model_assets": {Kind: &tfpb.CollectionDef_AnyList_{AnyList: &tfpb.CollectionDef_AnyList{Value: []*anypb.Any{a}}}}}
	})
	m, err := OpenSavedModel(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(m.Assets["vocab_path:0"], filepath.Join("assets", "vocab.txt")) {
		t.Fatalf("assets %v", m.Assets)
	}
}

// TestRealSavedModelDir opens the real TensorFlow export (see
// ../shared/testdata/savedmodels/SOURCES.md): its saver restores
// global_step through save/RestoreV2.
func TestRealSavedModelDir(t *testing.T) {
	m, err := OpenSavedModel(realModelDir(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Variables) != 1 || m.Variables["global_step"].Int64s()[0] != 1 || len(m.Missing) != 0 || len(m.Assets) != 0 {
		t.Fatalf("variables %v, missing %v, assets %v", m.Variables, m.Missing, m.Assets)
	}
	if b := m.Bindings[0]; b.Key != "global_step" || b.Via != `RestoreV2 node "save/RestoreV2" output 0` {
		t.Fatalf("binding %+v", b)
	}
}
