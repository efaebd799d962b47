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
