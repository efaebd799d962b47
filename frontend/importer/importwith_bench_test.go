package importer

import (
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// checkImportGraph is the GraphDef of 1,000 columns of preset E (~99,000
// nodes), generated once.
func checkImportGraph(b *testing.B) *tfpb.GraphDef {
	b.Helper()
	spec, err := gen.Preset("E")
	if err != nil {
		b.Fatal(err)
	}
	if spec, err = spec.Scale(1_000); err != nil {
		b.Fatal(err)
	}
	m, err := gen.Generate(spec, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		b.Fatal(err)
	}
	return m.Graph
}

// BenchmarkCheckImport is the structural checks and the import of 1,000
// columns of preset E as the compiler ran them before ImportWith:
// graphdef.Validate beside Import, each with its own name map and parse of
// every input (compare BenchmarkCheckImportWith).
func BenchmarkCheckImport(b *testing.B) {
	g := checkImportGraph(b)
	b.ReportMetric(float64(len(g.Node)), "nodes")
	b.ReportAllocs()
	for b.Loop() {
		var verr error
		done := make(chan struct{})
		go func() { defer close(done); verr = graphdef.Validate(g) }()
		_, err := Import(all.NewContext(), g)
		<-done
		if verr != nil || err != nil {
			b.Fatal(verr, err)
		}
	}
}

// BenchmarkCheckImportWith is the same as the compiler runs it now:
// ImportWith with the checks, on one index of the graph, its nodes
// converted by GOMAXPROCS goroutines (the attributes are not consumed
// here: the graph is imported again on each round).
func BenchmarkCheckImportWith(b *testing.B) {
	g := checkImportGraph(b)
	b.ReportMetric(float64(len(g.Node)), "nodes")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ImportWith(all.NewContext(), g, Options{Check: true}); err != nil {
			b.Fatal(err)
		}
	}
}
