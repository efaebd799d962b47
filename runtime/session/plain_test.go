package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// A model of plain lookups (recom gen --lookups) runs in a session as a
// feature-column model does: partitioned tables read from their shards'
// variables, embedding_lookup_sparse's bags counted from its segment ids
// before the graph, weights beside their ids; the outputs are the
// interpreter's on the GraphDef.
func TestSimPlainLookups(t *testing.T) {
	s, err := gen.ParseLookupSpec([]byte(`{"tf": "1.15", "lookups": [
		{"count": 1, "api": "embedding_lookup", "rows": 13, "dim": 4, "partitions": 3},
		{"count": 1, "api": "embedding_lookup", "rows": 11, "dim": 8, "bag": 2, "combiner": "mean", "tables": "resource", "partitions": 2, "partition_strategy": "div"},
		{"count": 1, "api": "embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sum", "weighted": true},
		{"count": 1, "api": "safe_embedding_lookup_sparse", "rows": 20, "dim": 4, "combiner": "sqrtn", "partitions": 2}]}`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := gen.GenerateLookups(s, gen.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range gm.Tables {
		vars[a.Name] = a.Tensor
	}
	m := compileModel(t, "plain.pbtxt", graphdef.MarshalText(gm.Graph), &exec.Options{Variables: vars}, nil)
	m.outputs = []string{gm.Output}
	sess, sim := simSession(t, m, Options{Slots: 1})
	for _, b := range []int{1, 9, 64} {
		arrays, _, err := gen.GraphFeeds(context.Background(), m.ref, gen.GraphFeedOptions{Batch: b, Seed: uint64(b)})
		if err != nil {
			t.Fatal(err)
		}
		f := map[string]*interp.Tensor{}
		for _, a := range arrays {
			f[a.Name] = a.Tensor
		}
		got, err := sess.Run(f)
		if err != nil {
			t.Fatalf("B=%d: %v", b, simErr(sim, err))
		}
		check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
	}
	t.Logf("\n%s", sess.Summary().String())
}
