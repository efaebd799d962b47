package gen

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// twoTowers is a small two-tower spec: a user tower of a hashed and a
// vocabulary column with a two-layer MLP, an item tower of one hashed
// column with a one-layer MLP.
func twoTowers() *Spec {
	return &Spec{Name: "towers", Groups: []Group{
		{Count: 1, Kind: HashedString, Buckets: 10, Dim: 4, Combiner: "mean"},
		{Count: 1, Kind: Vocabulary, VocabularySize: 5, Dim: 4, Combiner: "sum"},
		{Count: 2, Kind: HashedString, Buckets: 20, Dim: 4, Combiner: "sqrtn"},
	}, Towers: []Tower{
		{Name: "user", Groups: []int{0, 1}, Hidden: []int{6, 3}},
		{Name: "item", Groups: []int{2}, Hidden: []int{3}},
	}}
}

// A two-tower model imports, verifies, records its spec and draws feeds;
// each tower has its own input_layer (named under its scope) and the
// output is the sigmoid of the dot product. The golden file holds its
// nodes.
func TestTowers(t *testing.T) {
	m := checkModel(t, twoTowers(), Options{Seed: 1})
	if m.Output != PredictionNode {
		t.Errorf("output %q, want %q", m.Output, PredictionNode)
	}
	ops := map[string]string{}
	for _, n := range m.Graph.Node {
		ops[n.Name] = n.Op
	}
	for name, op := range map[string]string{TowerEmbeddingNode("user"): "ConcatV2", TowerEmbeddingNode("item"): "ConcatV2",
		"user/dense/Relu": "Relu", "user/dense_1/BiasAdd": "BiasAdd", "item/dense/BiasAdd": "BiasAdd",
		"dot/mul": "Mul", "dot/Sum": "Sum", PredictionNode: "Sigmoid"} {
		if got, ok := ops[name]; !ok || (op != "" && got != op) {
			t.Errorf("node %s: op %q, want %q", name, got, op)
		}
	}
	if _, ok := ops["user/dense_1/Relu"]; ok {
		t.Error("the last layer of a tower has a ReLU")
	}
	g, err := Generate(twoTowers(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.SplitAfter(Listing(g.Graph), "\n") {
		if !strings.HasPrefix(line, SpecNode+" ") {
			got = append(got, line)
		}
	}
	golden(t, filepath.Join("testdata", "towers.golden"), strings.Join(got, ""))

	s, err := Preset("dssm")
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, s, Options{Seed: 2})
	if sc, err := s.Scale(40); err != nil || sc.NumColumns() != 40 {
		t.Fatalf("scale the dssm preset to 40 columns: %v", err)
	}
}

// Each error of a two-tower spec names its field.
func TestTowerValidation(t *testing.T) {
	groups := `"groups":[{"count":1,"kind":"hashed_string","buckets":10,"dim":4,"combiner":"mean"},` +
		`{"count":1,"kind":"hashed_string","buckets":10,"dim":4,"combiner":"mean"}]`
	cases := []struct{ towers, field string }{
		{`[{"name":"u","groups":[0,1]}]`, "towers"},
		{`[{"name":"u","groups":[0]},{"name":"v","groups":[1]},{"name":"w","groups":[]}]`, "towers"},
		{`[{"name":"u/x","groups":[0]},{"name":"v","groups":[1]}]`, "towers[0].name"},
		{`[{"name":"u","groups":[0]},{"name":"u","groups":[1]}]`, "towers[1].name"},
		{`[{"name":"u","groups":[0]},{"name":"v","groups":[]}]`, "towers[1].groups"},
		{`[{"name":"u","groups":[0]},{"name":"v","groups":[2]}]`, "towers[1].groups[0]"},
		{`[{"name":"u","groups":[0]},{"name":"v","groups":[0]}]`, "towers[1].groups[0]"},
		{`[{"name":"u","groups":[0]},{"name":"v","groups":[]}]`, "groups[1]"},
		{`[{"name":"u","groups":[0],"hidden":[4,0]},{"name":"v","groups":[1]}]`, "towers[0].hidden[1]"},
		{`[{"name":"u","groups":[0],"hidden":[5]},{"name":"v","groups":[1]}]`, "towers"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			_, err := ParseSpec([]byte(fmt.Sprintf(`{%s,"towers":%s}`, groups, c.towers)), "spec.json")
			var fe *FieldError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.field+": ") {
				t.Fatalf("got %v, want an error about %s", err, c.field)
			}
		})
	}
	_, err := ParseSpec([]byte(fmt.Sprintf(`{%s,"towers":[{"name":"u","groups":[0]},{"name":"v","groups":[1]}],"dense":{"features":2}}`, groups)), "spec.json")
	if err == nil || !strings.Contains(err.Error(), "dense: ") {
		t.Fatalf("towers with a dense part: %v", err)
	}
	empty := twoTowers()
	empty.Groups[2].Count = 0
	if err := empty.Validate(); err == nil || !strings.Contains(err.Error(), "towers[1].groups: ") {
		t.Fatalf("a tower without columns: %v", err)
	}
}

// twoTowersTF1 is a two-tower spec written as a TF1 Estimator DSSM is
// (hallucination11/serving's): every column an input_layer of its own,
// dense layers with batch normalization, a one-column item tower.
func twoTowersTF1() *Spec {
	return &Spec{Name: "towers_tf1", Groups: []Group{
		{Count: 2, Kind: HashedInt, Buckets: 10, Dim: 3, Combiner: "mean"},
		{Count: 1, Kind: Bucketized, Boundaries: 4, Dim: 2, Combiner: "sum"},
		{Count: 1, Kind: HashedInt, Buckets: 20, Dim: 3, Combiner: "mean"},
	}, Towers: []Tower{
		{Name: "user", Groups: []int{0, 1}, Hidden: []int{6, 3}, ColumnLayers: true, BatchNorm: true},
		{Name: "item", Groups: []int{2}, Hidden: []int{4, 3}, ColumnLayers: true, BatchNorm: true},
	}}
}

// With ColumnLayers each column is an input_layer of its own at the top
// scope and the towers concatenate them under their names (the one-column
// item tower through an Identity "item/item", no ConcatV2); BatchNorm puts
// the inference batch normalization and dropout after each dense layer but
// the last; the dense layers are numbered across the towers at the top
// scope. The golden file holds the nodes.
func TestTowersColumnLayers(t *testing.T) {
	m := checkModel(t, twoTowersTF1(), Options{Seed: 1})
	ops := map[string]string{}
	for _, n := range m.Graph.Node {
		ops[n.Name] = n.Op
	}
	for name, op := range map[string]string{
		"input_layer/concat": "Identity", "input_layer_2/concat": "Identity", "input_layer_3/concat": "Identity",
		"user": "ConcatV2", "item/item": "Identity",
		"dense/Relu": "Relu", "batch_normalization/batchnorm/Rsqrt": "Rsqrt", "batch_normalization/batchnorm/add_1": "AddV2",
		"dropout/Identity": "Identity", "dense_1/BiasAdd": "BiasAdd", "dense_2/Relu": "Relu",
		"batch_normalization_1/batchnorm/sub": "Sub", "dense_3/BiasAdd": "BiasAdd", PredictionNode: "Sigmoid",
		"input_layer/int_0000_embedding/int_0000_embedding_weights/Reshape_2": "Reshape",
	} {
		if got := ops[name]; got != op {
			t.Errorf("node %s: op %q, want %q", name, got, op)
		}
	}
	for _, name := range []string{"item", "user/user", "dense_1/Relu", "batch_normalization_2/batchnorm/add"} {
		if op, ok := ops[name]; ok {
			t.Errorf("node %s (%s) should not exist", name, op)
		}
	}
	g, err := Generate(twoTowersTF1(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.SplitAfter(Listing(g.Graph), "\n") {
		if !strings.HasPrefix(line, SpecNode+" ") {
			got = append(got, line)
		}
	}
	golden(t, filepath.Join("testdata", "towers_tf1.golden"), strings.Join(got, ""))
}
