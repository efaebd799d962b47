package gen

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfexample"
)

// TestServingKinds: every kind, served from tf.Example records by either
// parse op, generates a graph that validates, imports and verifies, whose
// recorded spec draws its feeds.
func TestServingKinds(t *testing.T) {
	for _, serving := range []string{ServingTFExample, ServingTFExampleV1} {
		for _, k := range Kinds {
			t.Run(serving+"/"+string(k), func(t *testing.T) {
				s := oneGroup(k, Variable)
				s.Serving = serving
				s.Dense = &Dense{Features: 3, Bottom: []int{4}, Top: []int{5}}
				checkModel(t, s, Options{Seed: 1})
			})
		}
	}
}

// TestServingGolden: the parse of a spec with sparse, weighted, dense and
// split features, as the Estimator's serving input writes it.
func TestServingGolden(t *testing.T) {
	for name, serving := range map[string]string{"serving_v2": ServingTFExample, "serving_v1": ServingTFExampleV1} {
		t.Run(name, func(t *testing.T) {
			s := &Spec{Serving: serving, Groups: []Group{
				{Count: 1, Kind: Weighted, Buckets: 10, Dim: 4, Combiner: "sum"},
				{Count: 1, Kind: Bucketized, Boundaries: 3, Dim: 4, Combiner: "mean"},
				{Count: 1, Kind: SplitString, Separator: ";", Buckets: 10, Dim: 4, Combiner: "sum"},
			}, Dense: &Dense{Features: 2, Top: []int{3}}}
			m, err := Generate(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.SplitAfter(Listing(m.Graph), "\n") {
				if strings.HasPrefix(line, ExampleInput) || strings.HasPrefix(line, "ParseExample/") {
					got = append(got, line)
				}
			}
			golden(t, filepath.Join("testdata", name+".golden"), strings.Join(got, ""))
		})
	}
}

// TestServingMeaning: a model served from tf.Example records computes the
// embedding layer of the same model fed feature by feature, in the
// interpreter, when its records hold the placeholders' feeds (the dense
// part's features, some left out for their default, differ).
func TestServingMeaning(t *testing.T) {
	base, err := Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *Spec) *interp.Tensor {
		t.Helper()
		m, err := Generate(s, Options{Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := importer.Import(all.NewContext(), m.Graph)
		if err != nil {
			t.Fatal(err)
		}
		arrays, err := Feeds(s, 40, 9)
		if err != nil {
			t.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		vars := map[string]*interp.Tensor{}
		for _, a := range m.Tables {
			vars[a.Name] = a.Tensor
		}
		out, err := exec.Run(context.Background(), mod, feeds, []string{EmbeddingNode, m.Output}, &exec.Options{Variables: vars})
		if err != nil {
			t.Fatal(err)
		}
		return out[EmbeddingNode]
	}
	want := run(base)
	for _, serving := range []string{ServingTFExample, ServingTFExampleV1} {
		s := base.Clone()
		s.Serving = serving
		got := run(s)
		if err := got.Equal(want); err != nil {
			t.Errorf("%s: the embedding layer differs from the placeholders' model: %v", serving, err)
		}
	}
}

// TestServingFeeds: the records hold each feature's values without the
// placeholders' padding, leave empty sparse rows and "" split strings
// out, never end in a zero byte, and are the same for a seed.
func TestServingFeeds(t *testing.T) {
	s := &Spec{Serving: ServingTFExample, Groups: []Group{
		{Count: 1, Kind: HashedInt, Buckets: 10, Dim: 4, Combiner: "sum",
			Feed: Feed{Pooling: &Pooling{Dist: "uniform", Min: 1, Max: 3}, Coverage: ptr(0.5), Invalid: 0.2}},
		{Count: 1, Kind: Weighted, Buckets: 10, Dim: 4, Combiner: "sum", Feed: Feed{Pooling: &Pooling{Dist: "fixed", Length: 2}}},
		{Count: 1, Kind: SplitString, Separator: ";", Buckets: 10, Dim: 4, Combiner: "sum", Feed: Feed{Coverage: ptr(0.5)}},
	}, Dense: &Dense{Features: 2}}
	const batch = 200
	a, err := Feeds(s, batch, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || a[0].Name != ExampleInput || a[0].Tensor.Len() != batch {
		t.Fatalf("want one array %s of %d records, got %v", ExampleInput, batch, a)
	}
	plain := s.Clone()
	plain.Serving = ""
	p, err := Feeds(plain, batch, 4)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*interp.Tensor{}
	for _, x := range p {
		byName[x.Name] = x.Tensor
	}
	missingDense, emptyInts := 0, 0
	for i, rec := range a[0].Tensor.Strings() {
		if rec == "" || rec[len(rec)-1] == 0 {
			t.Fatalf("record %d ends in a zero byte", i)
		}
		ex, err := tfexample.Unmarshal([]byte(rec))
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		got := map[string]tfexample.Feature{}
		for _, e := range ex {
			got[e.Key] = e.Feature
		}
		var ints []int64
		for _, x := range byName["int_0000"].Int64s()[3*i : 3*i+3] {
			if x != -1 {
				ints = append(ints, x)
			}
		}
		if f, ok := got["int_0000"]; ok != (len(ints) > 0) || ok && !equalInts(f.Int64s, ints) {
			t.Errorf("record %d: int_0000 = %v, want %v", i, f.Int64s, ints)
		}
		if len(ints) == 0 {
			emptyInts++
		}
		if w, ok := got["wstr_0001_weight"]; !ok || len(w.Floats) != 2 || len(got["wstr_0001"].Bytes) != 2 {
			t.Errorf("record %d: weighted feature %v with weights %v", i, got["wstr_0001"], w)
		}
		if tok := byName["tok_0002"].Strings()[i]; tok != "" {
			if f := got["tok_0002"]; len(f.Bytes) != 1 || f.Bytes[0] != tok {
				t.Errorf("record %d: tok_0002 = %v, want %q", i, f.Bytes, tok)
			}
		} else if _, ok := got["tok_0002"]; ok {
			t.Errorf("record %d: an empty split string is written", i)
		}
		if _, ok := got[DenseInput]; !ok {
			missingDense++
		}
	}
	if missingDense == 0 || missingDense > batch/4 || emptyInts == 0 {
		t.Errorf("%d records without dense features, %d without int_0000", missingDense, emptyInts)
	}
	b, err := Feeds(s, batch, 4)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Tensor.Equal(b[0].Tensor) != nil {
		t.Error("the same seed gave other records")
	}
}

func ptr[T any](v T) *T { return &v }

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNPZSafe: a record that would end in a zero byte is rotated, or ends
// in a skipped field, and decodes to the same features.
func TestNPZSafe(t *testing.T) {
	for _, e := range []tfexample.Example{
		{}, // no features: nothing to rotate (it panicked)
		{tfexample.Pair("a", tfexample.Int64s(0))},
		{tfexample.Pair("a", tfexample.Int64s(0)), tfexample.Pair("b", tfexample.Bytes("x"))},
		{tfexample.Pair("a", tfexample.Int64s(0)), tfexample.Pair("b", tfexample.Floats(0))},
	} {
		b := npzSafe(append(tfexample.Example{}, e...))
		if len(b) > 0 && b[len(b)-1] == 0 {
			t.Errorf("%v: ends in a zero byte", e)
		}
		back, err := tfexample.Unmarshal(b)
		if err != nil || len(back) != len(e) {
			t.Errorf("%v: decodes to %v, %v", e, back, err)
		}
	}
}
