package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// SavedModel is a SavedModel directory with its variables and assets
// read:
//
//	DIR/saved_model.pb (or saved_model.pbtxt)
//	DIR/variables/variables.index, variables.data-NNNNN-of-MMMMM
//	DIR/assets/...   (vocabulary files and other assets)
type SavedModel struct {
	// Dir is the directory and GraphPath its graph file, for
	// graphdef.Load(GraphPath, graphdef.WithTags(...)).
	Dir, GraphPath string
	// MetaGraph is the MetaGraph selected by the tags.
	MetaGraph *tfpb.MetaGraphDef
	// Prefix is the variables' checkpoint prefix (DIR/variables/variables),
	// or "" when the directory has none (a model without variables).
	Prefix string
	// Variables, Bindings and Missing are what Restore read from the
	// checkpoint for the MetaGraph's graph (Missing: the graph's variables
	// that the checkpoint has no value for).
	Restored
	// Assets maps each asset tensor of the graph ("node:0") to the absolute
	// path of its file under DIR/assets (see BindAssets).
	Assets map[string]string
}

// OpenSavedModel reads the SavedModel in dir: the MetaGraph with the tags
// of opts (default "serve"), its variables from dir/variables and its
// assets from dir/assets.
func OpenSavedModel(dir string, opts *Options) (*SavedModel, error) {
	if opts == nil {
		opts = &Options{}
	}
	path, sm, err := readSavedModel(dir)
	if err != nil {
		return nil, err
	}
	tags := opts.Tags
	if len(tags) == 0 {
		tags = []string{"serve"}
	}
	mg, err := selectMetaGraph(path, sm, tags)
	if err != nil {
		return nil, err
	}
	m, err := LoadSavedModel(dir, mg, opts)
	if err != nil {
		return nil, err
	}
	m.GraphPath = path
	return m, nil
}

// LoadSavedModel reads the variables and assets of the MetaGraph mg of the
// SavedModel in dir, for a caller that has parsed saved_model.pb itself.
func LoadSavedModel(dir string, mg *tfpb.MetaGraphDef, opts *Options) (*SavedModel, error) {
	m := &SavedModel{Dir: dir, MetaGraph: mg, Restored: Restored{Variables: map[string]*interp.Tensor{}}}
	g := mg.GetGraphDef()
	prefix := filepath.Join(dir, "variables", "variables")
	switch _, err := os.Stat(IndexPath(prefix)); {
	case err == nil:
		m.Prefix = prefix
		r, err := Restore(g, prefix, mg.GetSaverDef().GetRestoreOpName(), opts)
		if err != nil {
			return nil, err
		}
		m.Restored = *r
	case errors.Is(err, os.ErrNotExist):
		// TensorFlow writes no variables directory for a model without
		// variables; any the graph has are missing.
		for _, n := range g.GetNode() {
			if variableOps[n.GetOp()] && (opts == nil || opts.Only == nil || opts.Only(n.GetName())) {
				m.Missing = append(m.Missing, n.GetName())
			}
		}
	default:
		return nil, err
	}
	assets, err := assetFiles(dir, mg)
	if err != nil {
		return nil, err
	}
	m.Assets = assets
	return m, nil
}

// readSavedModel reads dir/saved_model.pb, or dir/saved_model.pbtxt.
func readSavedModel(dir string) (string, *tfpb.SavedModel, error) {
	sm := &tfpb.SavedModel{}
	path := filepath.Join(dir, "saved_model.pb")
	data, err := inputfile.Read(path)
	if err == nil {
		if err := proto.Unmarshal(data, sm); err != nil {
			return "", nil, fmt.Errorf("%s: %v", path, err)
		}
		return path, sm, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", nil, err
	}
	path = filepath.Join(dir, "saved_model.pbtxt")
	data, err = inputfile.Read(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil, fmt.Errorf("%s: not a SavedModel directory: it has neither saved_model.pb nor saved_model.pbtxt", dir)
		}
		return "", nil, err
	}
	// The text format cannot name what tfpb leaves out (the TF2 object
	// graph); it is not needed here.
	if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, sm); err != nil {
		return "", nil, fmt.Errorf("%s: %v", path, err)
	}
	return path, sm, nil
}

// selectMetaGraph returns the MetaGraph whose tag set equals tags.
func selectMetaGraph(path string, sm *tfpb.SavedModel, tags []string) (*tfpb.MetaGraphDef, error) {
	want := tagSet(tags)
	var have []string
	for _, mg := range sm.GetMetaGraphs() {
		got := tagSet(mg.GetMetaInfoDef().GetTags())
		if slices.Equal(got, want) {
			return mg, nil
		}
		have = append(have, "["+strings.Join(got, ",")+"]")
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("%s: the SavedModel has no MetaGraph", path)
	}
	return nil, fmt.Errorf("%s: no MetaGraph has tags [%s]; it has %s", path, strings.Join(want, ","), strings.Join(have, " "))
}

func tagSet(tags []string) []string {
	s := slices.Clone(tags)
	sort.Strings(s)
	return slices.Compact(s)
}

// assetFiles maps the asset tensors of mg to their files under dir/assets:
// the MetaGraph's asset_file_def, and the "saved_model_assets" collection
// of older TF1 exports.
func assetFiles(dir string, mg *tfpb.MetaGraphDef) (map[string]string, error) {
	defs := slices.Clone(mg.GetAssetFileDef())
	for i, a := range mg.GetCollectionDef()["saved_model_assets"].GetAnyList().GetValue() {
		d := &tfpb.AssetFileDef{}
		if err := a.UnmarshalTo(d); err != nil {
			return nil, fmt.Errorf("%s: collection saved_model_assets, value %d: %v", dir, i, err)
		}
		defs = append(defs, d)
	}
	out := map[string]string{}
	for _, d := range defs {
		name := d.GetTensorInfo().GetName()
		if name == "" {
			return nil, fmt.Errorf("%s: asset %q has no tensor", dir, d.GetFilename())
		}
		if !strings.Contains(name, ":") {
			name += ":0"
		}
		if !filepath.IsLocal(d.GetFilename()) {
			return nil, fmt.Errorf("%s: asset %q of tensor %q is not a file name inside assets/", dir, d.GetFilename(), name)
		}
		path, err := filepath.Abs(filepath.Join(dir, "assets", d.GetFilename()))
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			return nil, fmt.Errorf("%s: asset %q of tensor %q: no such file", dir, d.GetFilename(), name)
		}
		if old, ok := out[name]; ok && old != path {
			return nil, fmt.Errorf("%s: tensor %q names two assets, %s and %s", dir, name, old, path)
		}
		out[name] = path
	}
	return out, nil
}

// GraphFile returns the graph file of the SavedModel directory dir:
// dir/saved_model.pb, else dir/saved_model.pbtxt; an error says that dir is
// no SavedModel directory when it has neither.
func GraphFile(dir string) (string, error) {
	for _, name := range []string{"saved_model.pb", "saved_model.pbtxt"} {
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if err == nil && !st.IsDir() {
			return path, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: not a SavedModel directory: it has neither saved_model.pb nor saved_model.pbtxt", dir)
}

// Assets maps the asset tensors of the MetaGraph mg of the SavedModel in
// dir ("node:0") to the absolute paths of their files under dir/assets,
// after checking that each file exists (see BindAssets).
func Assets(dir string, mg *tfpb.MetaGraphDef) (map[string]string, error) {
	return assetFiles(dir, mg)
}

// BindAssets points the asset tensors of g at the asset files, as
// TensorFlow does when it loads a SavedModel (it feeds each asset tensor
// the file's path): each asset tensor's Const node gets the absolute path
// as its value, so that initializers such as InitializeTableFromTextFileV2
// read the file. Asset tensors whose node g does not have (cut away by
// subgraph extraction) are skipped; one that is not a string Const is an
// error.
func (m *SavedModel) BindAssets(g *tfpb.GraphDef) error {
	return BindAssets(g, m.Assets)
}

// BindAssets is SavedModel.BindAssets for the assets of Assets.
func BindAssets(g *tfpb.GraphDef, assets map[string]string) error {
	byName := map[string]*tfpb.NodeDef{}
	for _, n := range g.GetNode() {
		byName[n.GetName()] = n
	}
	names := make([]string, 0, len(assets))
	for k := range assets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, tensor := range names {
		node, idx, _ := strings.Cut(tensor, ":")
		n, ok := byName[node]
		if !ok {
			continue
		}
		tp := n.GetAttr()["value"].GetTensor()
		if n.GetOp() != "Const" || idx != "0" || tp == nil || tp.GetDtype() != tfpb.DataType_DT_STRING || len(tp.GetTensorShape().GetDim()) != 0 {
			return fmt.Errorf("node %q: asset tensor %q is not a string scalar Const (it is a %s)", node, tensor, n.GetOp())
		}
		tp.StringVal = [][]byte{[]byte(assets[tensor])}
		tp.TensorContent = nil
	}
	return nil
}
