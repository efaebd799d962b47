package tfg_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/internal/tfgfeeds"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

func newCtx() *textir.Context { return textir.NewContext(builtin.Dialect(), tfg.Dialect()) }

// realCase is an inference extraction of a real graph, as in
// frontend/graphdef's tests.
type realCase struct {
	file     string
	iterator string   // every output of this node is an input
	inputs   []string // or these
	outputs  []string
	// wantCols are the expected widths (dim 1) of the outputs.
	wantCols []int64
}

var realCases = []realCase{
	{file: "census_wide_deep_tf1.pbtxt", iterator: "IteratorGetNext",
		outputs:  []string{"dnn/input_from_feature_columns/input_layer/concat", "dnn/logits/BiasAdd", "head/predictions/logistic"},
		wantCols: []int64{-1, 1, 1}},
	{file: "census_wide_deep_tf2_resource.pbtxt", inputs: fifoInputs(), outputs: []string{"head/predictions/logistic"}, wantCols: []int64{1}},
	{file: "criteo_bucketized_tiles.pbtxt", iterator: "IteratorGetNext", outputs: []string{"input_layer/concat", "dense/BiasAdd"},
		wantCols: []int64{-1, -1}},
}

func fifoInputs() []string {
	var ins []string
	for i := 1; i <= 16; i++ {
		ins = append(ins, fmt.Sprintf("fifo_queue_DequeueMany:%d", i))
	}
	return ins
}

// realProgram is an extracted, imported real graph with the contents of
// the tables its original initialized.
type realProgram struct {
	module *textir.Operation
	tables map[string]exec.TableData
	vocab  []string
}

func loadRealProgram(tb testing.TB, c realCase) *realProgram {
	tb.Helper()
	f, err := graphdef.Load(filepath.Join(realgraphs.Dir(tb), c.file))
	if err != nil {
		tb.Fatal(err)
	}
	ins := c.inputs
	if c.iterator != "" {
		for _, n := range f.Graph.GetNode() {
			if n.GetName() == c.iterator {
				k, err := graphdef.NumOutputs(n)
				if err != nil {
					tb.Fatal(err)
				}
				for i := range k {
					ins = append(ins, fmt.Sprintf("%s:%d", c.iterator, i))
				}
			}
		}
	}
	x, err := graphdef.Extract(f.Graph, ins, c.outputs)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := newCtx()
	full, err := importer.Import(ctx, f.Graph)
	if err != nil {
		tb.Fatal(err)
	}
	tables, err := tfg.TableInitData(context.Background(), full, nil)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := importer.Import(ctx, x)
	if err != nil {
		tb.Fatal(err)
	}
	// A small vocabulary: a few keys of every table, and some misses.
	vocab := tfgfeeds.Vocab([]string{"", "a", "b", "unknown", "x y"}, tables)
	return &realProgram{module: m, tables: tables, vocab: vocab}
}

// randomFeeds makes a feed for every placeholder (tfgfeeds.Random): ints in
// [0, 100).
func randomFeeds(tb testing.TB, m *textir.Operation, batch int64, vocab []string, seed uint64) map[string]*interp.Tensor {
	tb.Helper()
	return tfgfeeds.Random(tb, m, batch, vocab, rand.New(rand.NewPCG(seed, 7)), 0)
}

func TestRunRealGraphs(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.file, func(t *testing.T) {
			p := loadRealProgram(t, c)
			prog, err := exec.Compile(p.module)
			if err != nil {
				t.Fatal(err)
			}
			for _, batch := range []int64{4, 1} {
				feeds := randomFeeds(t, p.module, batch, p.vocab, 1)
				opts := &exec.Options{RandomTables: true, Seed: 42, Tables: p.tables}
				got, err := prog.Run(context.Background(), feeds, c.outputs, opts)
				if err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
				again, err := prog.Run(context.Background(), feeds, c.outputs, opts)
				if err != nil {
					t.Fatal(err)
				}
				other, err := prog.Run(context.Background(), feeds, c.outputs, &exec.Options{RandomTables: true, Seed: 43, Tables: p.tables})
				if err != nil {
					t.Fatal(err)
				}
				// The batch of a placeholder with a static batch dim.
				wantRows := batch
				for _, f := range feeds {
					if f.Rank() > 0 {
						wantRows = f.Dim(0)
					}
				}
				differs := false
				for i, o := range c.outputs {
					v := got[o]
					if v.DType() != interp.Float32 || v.Rank() != 2 || v.Dim(0) != wantRows || (c.wantCols[i] > 0 && v.Dim(1) != c.wantCols[i]) {
						t.Errorf("batch %d: %s = %v%s, want float32[%d,%d]", batch, o, v.DType(), interp.ShapeString(v.Shape()), wantRows, c.wantCols[i])
					}
					for j := range v.Len() {
						if f := v.Float64At(j); math.IsNaN(f) || math.IsInf(f, 0) {
							t.Fatalf("batch %d: %s[%d] = %v", batch, o, j, f)
						}
					}
					if err := v.Equal(again[o]); err != nil {
						t.Errorf("batch %d: %s is not deterministic: %v", batch, o, err)
					}
					if v.Equal(other[o]) != nil {
						differs = true
					}
				}
				if !differs {
					t.Errorf("batch %d: another seed gives the same outputs", batch)
				}
				t.Logf("batch %d: %s", batch, got[c.outputs[len(c.outputs)-1]])
			}
		})
	}
}

// Extraction keeps the initializers of the lookup tables it keeps, so the
// extracted graph fills its own tables (no table data from outside); but
// variables still need values.
func TestRunRealGraphNeedsTables(t *testing.T) {
	c := realCases[0]
	p := loadRealProgram(t, c)
	feeds := randomFeeds(t, p.module, 2, p.vocab, 1)
	withInit, err := exec.Run(context.Background(), p.module, feeds, c.outputs, &exec.Options{RandomTables: true})
	if err != nil {
		t.Fatalf("the extracted graph does not fill its own tables: %v", err)
	}
	fromOutside, err := exec.Run(context.Background(), p.module, feeds, c.outputs, &exec.Options{RandomTables: true, Tables: p.tables})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range c.outputs {
		if err := withInit[o].Equal(fromOutside[o]); err != nil {
			t.Errorf("%s: the kept initializers and the whole graph's table data disagree: %v", o, err)
		}
	}
	// Without random tables, variables need values.
	_, err = exec.Run(context.Background(), p.module, feeds, c.outputs, &exec.Options{Tables: p.tables})
	if err == nil || !strings.Contains(err.Error(), "no value for variable") {
		t.Errorf("got %v, want a missing variable error", err)
	}
}

func BenchmarkRunRealGraph(b *testing.B) {
	for _, c := range realCases {
		for _, batch := range []int64{1, 256} {
			b.Run(fmt.Sprintf("%s/batch%d", c.file, batch), func(b *testing.B) {
				p := loadRealProgram(b, c)
				prog, err := exec.Compile(p.module)
				if err != nil {
					b.Fatal(err)
				}
				feeds := randomFeeds(b, p.module, batch, p.vocab, 1)
				opts := &exec.Options{RandomTables: true, Seed: 1, Tables: p.tables}
				b.ResetTimer()
				for b.Loop() {
					if _, err := prog.Run(context.Background(), feeds, c.outputs, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

var _ = tfpb.DataType_DT_FLOAT
