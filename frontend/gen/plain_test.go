package gen

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// lookupGoldens are one plain lookup of each form: the node names, ops
// and inputs TensorFlow's embedding_ops.py writes (testdata/lookups_*).
var lookupGoldens = map[string]string{
	"lookup_ids":             `{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 10, "dim": 4}]}`,
	"lookup_mean_resource":   `{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 10, "dim": 4, "bag": 3, "combiner": "mean", "tables": "resource"}]}`,
	"lookup_mod":             `{"tf": "1.15", "lookups": [{"count": 1, "api": "embedding_lookup", "rows": 10, "dim": 4, "bag": 2, "combiner": "sum", "partitions": 3}]}`,
	"lookup_div_resource":    `{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 10, "dim": 4, "partitions": 3, "tables": "resource"}]}`,
	"lookup_sparse":          `{"lookups": [{"count": 1, "api": "embedding_lookup_sparse", "rows": 10, "dim": 4, "combiner": "sqrtn"}]}`,
	"lookup_sparse_tf216":    `{"tf": "2.16", "lookups": [{"count": 1, "api": "embedding_lookup_sparse", "rows": 10, "dim": 4, "combiner": "sum", "tables": "resource"}]}`,
	"lookup_sparse_weighted": `{"tf": "2.16", "lookups": [{"count": 1, "api": "embedding_lookup_sparse", "rows": 10, "dim": 4, "combiner": "mean", "weighted": true}]}`,
	"lookup_safe_div":        `{"lookups": [{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 10, "dim": 4, "combiner": "mean", "partitions": 2}]}`,
}

func TestLookupGolden(t *testing.T) {
	for name, spec := range lookupGoldens {
		t.Run(name, func(t *testing.T) {
			s, err := ParseLookupSpec([]byte(spec), name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := GenerateLookups(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".golden"), Listing(m.Graph))
		})
	}
}

// Every generated plain-lookup model is a valid graph that imports,
// verifies and runs in the interpreter on the feeds GraphFeeds draws for
// it, with the values of its variables.
func TestLookupModelsRun(t *testing.T) {
	for name, spec := range lookupGoldens {
		t.Run(name, func(t *testing.T) {
			s, err := ParseLookupSpec([]byte(spec), name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := GenerateLookups(s, Options{Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			if err := graphdef.Validate(m.Graph); err != nil {
				t.Fatal(err)
			}
			ctx := all.NewContext()
			mod, err := importer.Import(ctx, m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			if err := textir.Verify(ctx, mod); err != nil {
				t.Fatal(err)
			}
			arrays, _, err := GraphFeeds(context.Background(), mod, GraphFeedOptions{Batch: 7, Seed: 1})
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
			out, err := exec.Run(context.Background(), mod, feeds, []string{m.Output}, &exec.Options{Variables: vars})
			if err != nil {
				t.Fatal(err)
			}
			if got := out[m.Output]; got.Rank() != 2 || got.Dim(0) != 7 || got.Dim(1) != 4 {
				t.Errorf("output %s, want [7, 4]", interp.ShapeString(got.Shape()))
			}
		})
	}
}

func TestLookupSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, err string }{
		{`{"lookups": []}`, "lookups: needs at least one group"},
		{`{"tf": "3.0", "lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2}]}`, `unknown TensorFlow version "3.0"`},
		{`{"lookups": [{"count": 0, "api": "embedding_lookup", "rows": 3, "dim": 2}]}`, "lookups[0].count: must be at least 1"},
		{`{"lookups": [{"count": 1, "api": "gather", "rows": 3, "dim": 2}]}`, `unknown API "gather"`},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 0, "dim": 2}]}`, "needs at least one row"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3000000000, "dim": 2}]}`, "beyond 2^31-1 rows"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 2000000000, "dim": 4096}]}`, "is larger than"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "combiner": "sum"}]}`, "give a bag to pool them"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "bag": 2, "combiner": "sqrtn"}]}`, "must be sum or mean"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "weighted": true}]}`, "takes no weights"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "ids": "int8"}]}`, "must be int64 or int32"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup_sparse", "rows": 3, "dim": 2, "combiner": "max"}]}`, "must be sum, mean or sqrtn"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup_sparse", "rows": 3, "dim": 2, "combiner": "sum", "bag": 2}]}`, "are for embedding_lookup"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "tables": "hbm"}]}`, `unknown table style "hbm"`},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "partitions": 4}]}`, "partitions: must be in [0, min(rows, 1024)]"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "partitions": 2, "partition_strategy": "range"}]}`, "must be mod or div"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "partition_strategy": "mod"}]}`, "is for a table in 2 or more partitions"},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2}], "extra": 1}`, `unknown field "extra"`},
		{`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2}]} {}`, "trailing data"},
	} {
		_, err := ParseLookupSpec([]byte(c.spec), "s.json")
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "s.json: ") {
			t.Errorf("%s: error %v, want one containing %q", c.spec, err, c.err)
		}
	}
	// Too many lookups, before anything is built.
	old := MaxColumns
	MaxColumns = 3
	defer func() { MaxColumns = old }()
	_, err := ParseLookupSpec([]byte(`{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 3, "dim": 2}, {"count": 2, "api": "embedding_lookup", "rows": 3, "dim": 2}]}`), "s.json")
	if err == nil || !strings.Contains(err.Error(), "too many lookups") || !strings.Contains(err.Error(), EnvMaxColumns) {
		t.Errorf("error %v, want the column limit", err)
	}
	// Tables beyond the options' limits.
	s, err := ParseLookupSpec([]byte(`{"lookups": [{"count": 2, "api": "embedding_lookup", "rows": 1000, "dim": 8, "tables": "const"}]}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateLookups(s, Options{ConstLimit: 1 << 10}); err == nil || !strings.Contains(err.Error(), "exceed the limit") {
		t.Errorf("error %v, want the const limit", err)
	}
}

// FuzzParseLookupSpec: any bytes give a spec or an error, never a panic;
// a spec that parses generates (small tables only) or fails with an error.
func FuzzParseLookupSpec(f *testing.F) {
	for _, s := range lookupGoldens {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"lookups": [{"count": 1, "api": "embedding_lookup", "rows": 3, "dim": 2, "partitions": 3, "partition_strategy": "div"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseLookupSpec(data, "fuzz")
		if err != nil {
			return
		}
		var n int64
		for _, l := range s.Lookups {
			n += int64(l.Count) * (l.Rows*int64(l.Dim) + int64(l.Partitions))
		}
		if n > 1<<16 {
			return
		}
		if _, err := GenerateLookups(s, Options{NoTableValues: true}); err != nil && !strings.Contains(err.Error(), "limit") {
			t.Fatalf("generate: %v", err)
		}
	})
}
