package importer

import (
	"io"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/textir"
)

// BenchmarkImportPrint400kNodes measures the import path of a production-
// sized model: the text GraphDef of 4,000 bucketized feature columns (the
// micro preset; TensorFlow's chains are ~100 nodes a column, so ~410,000
// nodes) is parsed, imported into tfg, verified and printed.
// Issue target: a 400,000-node GraphDef in under 10 s and 4 GiB.
func BenchmarkImportPrint400kNodes(b *testing.B) {
	spec, err := gen.Preset("micro")
	if err != nil {
		b.Fatal(err)
	}
	if spec, err = spec.Scale(4_000); err != nil {
		b.Fatal(err)
	}
	m, err := gen.Generate(spec, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		b.Fatal(err)
	}
	text := graphdef.MarshalText(m.Graph)
	b.ReportMetric(float64(len(m.Graph.Node)), "nodes")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f, err := graphdef.Parse(text, "model.pbtxt")
		if err != nil {
			b.Fatal(err)
		}
		ctx := all.NewContext()
		mod, err := Import(ctx, f.Graph)
		if err != nil {
			b.Fatal(err)
		}
		if err := textir.Verify(ctx, mod); err != nil {
			b.Fatal(err)
		}
		if err := textir.Print(io.Discard, mod, textir.PrintOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
