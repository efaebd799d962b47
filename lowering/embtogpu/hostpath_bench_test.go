package embtogpu_test

import (
	"context"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// The host side of one run of the fused layer, as `recom run` does it
// before the copy to the GPU: the interpreter computes the layer's
// operands (the ragged sources; with ids-in-kernel=false also the id
// transforms), then Pack lays them out. Model E (1000 columns) at batch
// 256 (its 8M-row tables capped at 100k rows), with the id transforms in
// the kernel and without. The fused op's kernel is replaced by a stub that
// packs and returns zeros (one tensor for all runs); the tables are given
// as variables.
//
//	go test -run '^$' -bench HostPath -benchtime 5x ./lowering/embtogpu/
func BenchmarkHostPathE256(b *testing.B) {
	for _, opts := range []string{"", "ids-in-kernel=false"} {
		name := "ids-in-kernel"
		if opts != "" {
			name = "ids-on-host"
		}
		b.Run(name, func(b *testing.B) { benchHostPath(b, "E", 256, opts) })
	}
}

func benchHostPath(b *testing.B, preset string, batch int, opts string) {
	s, err := gen.Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	// Tables do not change the host path; the largest (8M rows) would
	// take gigabytes here: cap them at 100k rows.
	for i := range s.Groups {
		s.Groups[i].Buckets = min(s.Groups[i].Buckets, 100000)
	}
	m, err := gen.Generate(s, gen.Options{Seed: 3, NoTableValues: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := all.NewContext()
	ref, err := importer.Import(ctx, m.Graph)
	if err != nil {
		b.Fatal(err)
	}
	low, _ := runPipeline(b, ctx, ref, "lower-emb,simplify-shapes")
	fz, _ := runPipeline(b, ctx, low, "fuse{"+opts+"}")
	arrays, err := gen.Feeds(s, batch, 1)
	if err != nil {
		b.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{}
	for _, a := range arrays {
		feeds[a.Name] = a.Tensor
	}
	prog, err := exec.Compile(fz)
	if err != nil {
		b.Fatal(err)
	}
	// Every table once, as variables (random tables would be drawn again
	// on each run).
	vars := map[string]*interp.Tensor{}
	fz.Walk(func(op *textir.Operation) bool {
		if op.Name() == "emb.table" {
			tt := op.Result(0).Type().(*textir.TensorType)
			name := op.LookupAttr("name").(textir.StringAttr).Value
			if vars[name], err = interp.Zeros(interp.Float32, tt.Shape); err != nil {
				b.Fatal(err)
			}
		}
		return true
	})
	var layer *abi.Layer
	var packed int64
	var out *interp.Tensor
	stub := func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		if layer == nil {
			if layer, err = abi.LayerOf(op); err != nil {
				return nil, err
			}
		}
		cols, err := layer.Inputs(op, in)
		if err != nil {
			return nil, err
		}
		p, err := layer.PackInputs(cols)
		if err != nil {
			return nil, err
		}
		packed = int64(len(p.Inputs))
		if out == nil {
			// One output for every run: the GPU runtime's copy back is
			// not the host work measured here.
			if out, err = interp.New([]int64{p.Batch, layer.Width}, make([]float32, p.Batch*layer.Width)); err != nil {
				return nil, err
			}
		}
		return []*interp.Tensor{out}, nil
	}
	ro := &exec.Options{Variables: vars, Kernels: map[string]exec.Kernel{fused.EmbeddingLayerOp: stub}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := prog.Run(context.Background(), feeds, []string{gen.EmbeddingNode}, ro); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(packed), "packed-bytes")
}
