package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/checkpoint"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/internal/ckptwrite"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

// A model's trained weights, read from its SavedModel's checkpoint, are
// what the session runs with: the bundled model exported as a SavedModel
// whose checkpoint holds its tables and MLP weights scaled (the embedding
// tables by 0.5, two of them over a second shard, the MLP's by 0.9),
// restored by variable name (the graph has no saver), uploaded by the
// session into the table arena and the dense layers, gives on the
// simulated GPU the interpreter's outputs with those weights, and not
// those with the unscaled .npz tables.
func TestSimCheckpointWeights(t *testing.T) {
	data := readFile(t, smallModel)
	f, err := graphdef.Parse(data, smallModel)
	if err != nil {
		t.Fatal(err)
	}
	arrays, err := npz.ReadFile(smallTables)
	if err != nil {
		t.Fatal(err)
	}
	b := ckptwrite.New(2)
	orig := map[string]*interp.Tensor{}
	for i, a := range arrays {
		orig[a.Name] = a.Tensor
		scale := float32(0.5)
		if strings.Contains(a.Name, "mlp/") {
			scale = 0.9
		}
		v := append([]float32(nil), a.Tensor.Float32s()...)
		for j := range v {
			v[j] *= scale
		}
		b.Add(a.Name, interp.Must(interp.New(a.Tensor.Shape(), v)), i%2)
	}
	dir := filepath.Join(t.TempDir(), "small")
	sm := &tfpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*tfpb.MetaGraphDef{{
		MetaInfoDef: &tfpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}}, GraphDef: f.Graph}}}
	if err := ckptwrite.SavedModel(dir, sm, b, nil); err != nil {
		t.Fatal(err)
	}
	saved, err := checkpoint.OpenSavedModel(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Variables) != len(arrays) || len(saved.Missing) != 0 {
		t.Fatalf("restored %d of %d variables, missing %v", len(saved.Variables), len(arrays), saved.Missing)
	}
	m := loadSmall(t)
	m.opts.Variables = saved.Variables
	s, sim := simSession(t, m, Options{})
	feeds := m.feeds(t, 29, 5)
	got, err := s.Run(feeds)
	if err != nil {
		t.Fatal(simErr(sim, err))
	}
	check(t, "checkpoint weights", got, m.reference(t, feeds))
	m.opts.Variables = orig
	if err := got["prediction"].AllClose(m.reference(t, feeds)["prediction"], 1e-3, 1e-4); err == nil {
		t.Errorf("the session's predictions are those of the unscaled tables: the checkpoint's weights were not used")
	}
}
