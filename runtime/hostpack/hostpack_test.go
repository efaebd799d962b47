package hostpack

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/internal/realgraphs"
	"github.com/recom-compiler/recom/internal/tfgfeeds"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// model is a program after --fuse and how to draw its feeds.
type model struct {
	name  string
	m     *textir.Operation
	opts  *exec.Options // the interpreter's options (hash tables)
	feeds func(tb testing.TB, batch int, seed uint64) map[string]*interp.Tensor
}

// compile imports a GraphDef (cut at inputs and outputs when given) and
// runs --lower-emb, --simplify-shapes and --fuse (with options fuse) on
// it, as the compiler does up to its fuse stage.
func compile(tb testing.TB, name string, data []byte, inputs, outputs []string, fuse string) *textir.Operation {
	tb.Helper()
	m, _ := compileCtx(tb, name, data, inputs, outputs, fuse)
	return m
}

func compileCtx(tb testing.TB, name string, data []byte, inputs, outputs []string, fuse string) (*textir.Operation, *textir.Context) {
	tb.Helper()
	allpasses.Register()
	f, err := graphdef.Parse(data, name)
	if err != nil {
		tb.Fatal(err)
	}
	g := f.Graph
	if len(inputs) > 0 || len(outputs) > 0 {
		if g, err = graphdef.Extract(g, inputs, outputs); err != nil {
			tb.Fatal(err)
		}
	}
	ctx := all.NewContext()
	m, err := importer.Import(ctx, g)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	pm, err := pass.FromSpecs("builtin.module", []pass.PassSpec{{Flag: "lower-emb"}, {Flag: "simplify-shapes"}, {Flag: "fuse", Options: fuse}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := pm.Run(ctx, m); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return m, ctx
}

// specFeeds draws gen's feeds of s.
func specFeeds(s *gen.Spec) func(tb testing.TB, batch int, seed uint64) map[string]*interp.Tensor {
	return func(tb testing.TB, batch int, seed uint64) map[string]*interp.Tensor {
		arrays, err := gen.Feeds(s, batch, seed)
		if err != nil {
			tb.Fatal(err)
		}
		feeds := map[string]*interp.Tensor{}
		for _, a := range arrays {
			feeds[a.Name] = a.Tensor
		}
		return feeds
	}
}

// genModel compiles a preset, scaled to columns (0: its own size), with
// tables capped at 1000 rows (the host side does not read them).
func genModel(tb testing.TB, preset string, columns int, fuse string) *model {
	tb.Helper()
	s, err := gen.Preset(preset)
	if err != nil {
		tb.Fatal(err)
	}
	if columns > 0 {
		if s, err = s.Scale(columns); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range s.Groups {
		s.Groups[i].Buckets = min(s.Groups[i].Buckets, 1000)
	}
	g, err := gen.Generate(s, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		tb.Fatal(err)
	}
	m := compile(tb, preset, graphdef.MarshalText(g.Graph), nil, nil, fuse)
	return &model{name: preset, m: m, opts: &exec.Options{}, feeds: specFeeds(s)}
}

// smallModel compiles the bundled model examples/small.pbtxt.
func smallModel(tb testing.TB, fuse string) *model {
	tb.Helper()
	data, err := os.ReadFile("../../examples/small.pbtxt")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := gen.Preset("small")
	if err != nil {
		tb.Fatal(err)
	}
	return &model{name: "small", m: compile(tb, "small.pbtxt", data, nil, nil, fuse), opts: &exec.Options{}, feeds: specFeeds(s)}
}

// censusGraphs are the real graphs with embedding columns, cut as
// lowering/pipeline's tests cut them.
var censusGraphs = []struct {
	file            string
	inputs, outputs []string
}{
	{"census_wide_deep_tf1.pbtxt", outs("IteratorGetNext:%d", 0, 14), []string{"head/predictions/logistic"}},
	{"census_wide_deep_tf2_resource.pbtxt", outs("fifo_queue_DequeueMany:%d", 1, 16), []string{"head/predictions/logistic"}},
}

func outs(format string, lo, hi int) []string {
	var s []string
	for i := lo; i <= hi; i++ {
		s = append(s, fmt.Sprintf(format, i))
	}
	return s
}

// realModel compiles a real graph, its feeds tfgfeeds' random ones.
func realModel(tb testing.TB, file string, inputs, outputs []string, fuse string) *model {
	tb.Helper()
	path := filepath.Join(realgraphs.Dir(tb), file)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := graphdef.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	m, ctx := compileCtx(tb, file, data, inputs, outputs, fuse)
	full, err := importer.Import(ctx, f.Graph)
	if err != nil {
		tb.Fatal(err)
	}
	tables, err := tfg.TableInitData(context.Background(), full, nil)
	if err != nil {
		tb.Fatal(err)
	}
	vocab := tfgfeeds.Vocab([]string{"", "a", "unknown", "a much longer string than a slot"}, tables)
	return &model{name: file, m: m, opts: &exec.Options{Tables: tables},
		feeds: func(tb testing.TB, batch int, seed uint64) map[string]*interp.Tensor {
			return tfgfeeds.Random(tb, m, int64(batch), vocab, rand.New(rand.NewPCG(seed, 9)), -5)
		}}
}

// layerOp returns the model's only fused.embedding_layer.
func layerOp(tb testing.TB, m *textir.Operation) *textir.Operation {
	tb.Helper()
	ops := Find(m)
	if len(ops) != 1 {
		tb.Fatalf("%d fused.embedding_layer ops", len(ops))
	}
	return ops[0]
}

// tensorName is the interpreter's name of op's result 0.
func tensorName(op *textir.Operation) string { return exec.OpName(op) }

// reference runs the interpreter up to the layer and packs the layer's
// operands with abi.Layer.PackInputs; it also returns the values of the
// tensors named extra (the computed inputs of a partial plan).
func reference(tb testing.TB, md *model, feeds map[string]*interp.Tensor, extra []string) (*abi.Packed, map[string]*interp.Tensor, error) {
	tb.Helper()
	op := layerOp(tb, md.m)
	l, err := abi.LayerOf(op)
	if err != nil {
		tb.Fatal(err)
	}
	var packed *abi.Packed
	stub := func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		cols, err := l.Inputs(op, in)
		if err != nil {
			return nil, err
		}
		if packed, err = l.PackInputs(cols); err != nil {
			return nil, err
		}
		out, err := interp.Zeros(interp.Float32, []int64{packed.Batch, l.Width})
		return []*interp.Tensor{out}, err
	}
	opts := *md.opts
	opts.RandomTables = true
	opts.Kernels = map[string]exec.Kernel{fused.EmbeddingLayerOp: stub}
	outputs := append([]string{tensorName(op)}, extra...)
	got, err := exec.Run(context.Background(), md.m, feeds, outputs, &opts)
	if err != nil {
		return nil, nil, err
	}
	return packed, got, nil
}

// native packs feeds with a plan into a buffer of garbage (every byte of
// it must be written), through the word view or, with unaligned, the
// copy.
func native(tb testing.TB, pk *Packer, in []*interp.Tensor, unaligned bool) (*abi.Packed, error) {
	lay, err := pk.Measure(in)
	if err != nil {
		return nil, err
	}
	n := 4 * lay.Words
	buf := make([]byte, n+8)
	for i := range buf {
		buf[i] = 0xab
	}
	off := 0
	if unaligned {
		off = 1
	}
	p, err := pk.Pack(buf[off : off+int(n)])
	if err != nil {
		return nil, err
	}
	if buf[off+int(n)] != 0xab {
		tb.Fatalf("Pack wrote past the %d bytes of the packed inputs", n)
	}
	return p, nil
}

// comparePacked fails tb unless got is want, byte for byte, naming the
// first word that differs and the region it is in.
func comparePacked(tb testing.TB, l *abi.Layer, got, want *abi.Packed) {
	tb.Helper()
	if got.Batch != want.Batch || got.Tasks != want.Tasks || got.Grid != want.Grid || got.Block != want.Block || got.Scratch != want.Scratch {
		tb.Fatalf("launch: got batch %d tasks %d grid %d block %d scratch %d, want %d %d %d %d %d",
			got.Batch, got.Tasks, got.Grid, got.Block, got.Scratch, want.Batch, want.Tasks, want.Grid, want.Block, want.Scratch)
	}
	if bytes.Equal(got.Inputs, want.Inputs) {
		return
	}
	if len(got.Inputs) != len(want.Inputs) {
		tb.Fatalf("packed inputs: %d bytes, want %d", len(got.Inputs), len(want.Inputs))
	}
	word := func(b []byte, i int64) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	for i := int64(0); 4*i < int64(len(want.Inputs)); i++ {
		if g, w := word(got.Inputs, i), word(want.Inputs, i); g != w {
			tb.Fatalf("packed inputs differ first at word %d (%s): %#x, want %#x", i, region(l, want, i), g, w)
		}
	}
}

// region names the region of word i of p.
func region(l *abi.Layer, p *abi.Packed, i int64) string {
	C := int64(len(l.Columns))
	if i < abi.DescWords*C+C+1 {
		return "header"
	}
	word := func(i int64) int64 { return int64(int32(binary.LittleEndian.Uint32(p.Inputs[4*i:]))) }
	best, name := int64(-1), "task map"
	for c := range C {
		for k, r := range []string{"splits", "values", "weights", "", "", "", "bytes"} {
			if at := word(C + 1 + abi.DescWords*c + int64(k)); r != "" && at >= 0 && at <= i && at > best {
				best, name = at, fmt.Sprintf("column %d %q %s from word %d", c, l.Columns[c].Name, r, at)
			}
		}
	}
	return name
}

// check packs one batch natively and with the interpreter and compares
// them; when the interpreter fails, the plan must fail too. It returns
// the interpreter's error.
func check(tb testing.TB, md *model, plan *Plan, pk *Packer, feeds map[string]*interp.Tensor) error {
	tb.Helper()
	var extra []string
	for _, in := range plan.Inputs() {
		if in.Computed {
			extra = append(extra, in.Name)
		}
	}
	want, computed, werr := reference(tb, md, feeds, extra)
	all := map[string]*interp.Tensor{}
	for k, v := range feeds {
		all[k] = v
	}
	for _, name := range extra {
		all[name] = computed[name]
	}
	in, err := plan.Gather(all)
	if werr != nil {
		if err == nil {
			if _, err = native(tb, pk, in, false); err == nil {
				tb.Fatalf("the interpreter fails (%v), the plan packs", werr)
			}
		}
		if _, err := plan.Pack(all, garbage); err == nil {
			tb.Fatalf("the interpreter fails (%v), Plan.Pack packs", werr)
		}
		return werr
	}
	if err != nil {
		tb.Fatal(err)
	}
	for _, unaligned := range []bool{false, true} {
		got, err := native(tb, pk, in, unaligned)
		if err != nil {
			tb.Fatalf("native: %v (the interpreter packs)", err)
		}
		comparePacked(tb, plan.Layer(), got, want)
	}
	// By name (MeasureFeeds: the feeds looked up and checked column by
	// column in the parallel pass), as a runtime packs.
	got, err := plan.Pack(all, garbage)
	if err != nil {
		tb.Fatalf("Plan.Pack: %v (the interpreter packs)", err)
	}
	comparePacked(tb, plan.Layer(), got, want)
	return nil
}

// garbage is a Plan.Pack alloc whose buffers hold garbage (every byte
// must be written).
func garbage(_, n int64) ([]byte, error) {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xab
	}
	return b, nil
}

// mustCheck is check on feeds the interpreter takes.
func mustCheck(tb testing.TB, md *model, plan *Plan, pk *Packer, feeds map[string]*interp.Tensor) {
	tb.Helper()
	if err := check(tb, md, plan, pk, feeds); err != nil {
		tb.Fatalf("the interpreter: %v", err)
	}
}

// The plan packs what Pack packs from the interpreter's inputs, byte for
// byte, for the bundled model and the presets (with the id transforms
// in the kernel, before it, and RECom's schedule), at several batches.
func TestPackMatchesInterpreter(t *testing.T) {
	type cse struct {
		preset  string
		columns int
	}
	cases := []cse{{"small", 0}, {"E", 120}, {"F", 120}, {"micro", 0}, {"probe", 60}}
	for _, c := range cases {
		for _, fuse := range []string{"", "ids-in-kernel=false", "schedule=recom", "host-ids=hash,bucketize,split_strings"} {
			t.Run(c.preset+"/"+fuse, func(t *testing.T) {
				var md *model
				if c.preset == "small" {
					md = smallModel(t, fuse)
				} else {
					md = genModel(t, c.preset, c.columns, fuse)
				}
				plan, err := NewForModule(md.m, nil)
				if err != nil {
					t.Fatal(err)
				}
				// With the id transforms in the kernel, gen's columns
				// (but the bundled model's filtered and weighted ones)
				// come straight from their feeds.
				direct, computed, _ := plan.Columns()
				if (fuse == "" || fuse == "schedule=recom") && c.preset != "small" && computed > 0 {
					t.Errorf("%d columns direct, %d computed", direct, computed)
				}
				if fuse == "ids-in-kernel=false" && c.preset != "micro" && computed == 0 {
					t.Errorf("the id transforms before the layer: %d columns direct, none computed", direct)
				}
				pk := plan.NewPacker()
				for i, batch := range []int{1, 7, 33, 256} {
					mustCheck(t, md, plan, pk, md.feeds(t, batch, uint64(i+1)))
				}
			})
		}
	}
}

// The real census graphs: the TF2 graph's hashed columns come straight
// from their feeds, the TF1 graph's crossed and bucketized ones are
// computed from theirs; where a column starts at a tfg op (its
// vocabulary columns' chains) or an op the plan does not compute (the
// id transforms left before the layer), New refuses it naming the op and
// its node, and a partial plan takes it as a computed input.
func TestPackRealGraphs(t *testing.T) {
	for _, g := range censusGraphs {
		for _, fuse := range []string{"", "ids-in-kernel=false"} {
			t.Run(g.file+"/"+fuse, func(t *testing.T) {
				md := realModel(t, g.file, g.inputs, g.outputs, fuse)
				op := layerOp(t, md.m)
				plan, err := New(op, nil)
				partial := false
				if err != nil {
					var u *UnsupportedError
					if !errors.As(err, &u) || !strings.Contains(err.Error(), "(node \"") || !strings.HasPrefix(u.Op.Name(), "tfg.") {
						t.Fatalf("New: %v, want an *UnsupportedError naming a tfg op and its node", err)
					}
					if plan, err = New(op, &Options{Partial: true}); err != nil {
						t.Fatal(err)
					}
					partial = true
				}
				computed := 0
				for _, in := range plan.Inputs() {
					if in.Computed {
						computed++
					}
				}
				if partial != (computed > 0) {
					t.Fatalf("partial plan %v with %d computed inputs", partial, computed)
				}
				pk := plan.NewPacker()
				for i, batch := range []int{1, 16, 200} {
					mustCheck(t, md, plan, pk, md.feeds(t, batch, uint64(i+7)))
				}
			})
		}
	}
}
