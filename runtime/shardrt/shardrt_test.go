package shardrt

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/nccl"
	"github.com/recom-compiler/recom/runtime/simgpu"
	"github.com/recom-compiler/recom/textir"
)

func init() { allpasses.Register() }

type model struct {
	spec *gen.Spec
	vars map[string]*interp.Tensor
	low  *textir.Operation // the emb program: the reference
	fz   *textir.Operation // after --fuse
	ctx  *textir.Context
}

func newModel(t testing.TB, preset string, columns int) *model {
	t.Helper()
	s, err := gen.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	if columns > 0 {
		if s, err = s.Scale(columns); err != nil {
			t.Fatal(err)
		}
	}
	gm, err := gen.Generate(s, gen.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{spec: s, vars: map[string]*interp.Tensor{}, ctx: all.NewContext()}
	for _, a := range gm.Tables {
		m.vars[a.Name] = a.Tensor
	}
	ref, err := importer.Import(m.ctx, gm.Graph)
	if err != nil {
		t.Fatal(err)
	}
	m.low = m.pipeline(t, ref, "lower-emb")
	m.fz = m.pipeline(t, m.low, "fuse")
	return m
}

func (m *model) pipeline(t testing.TB, in *textir.Operation, text string) *textir.Operation {
	t.Helper()
	pm, err := pass.ParsePipeline(text)
	if err != nil {
		t.Fatal(err)
	}
	out := m.ctx.Clone(in, nil)
	if err := pm.Run(m.ctx, out); err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(m.ctx, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func (m *model) feeds(t testing.TB, batch int, seed uint64) map[string]*interp.Tensor {
	t.Helper()
	arrays, err := gen.Feeds(m.spec, batch, seed)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]*interp.Tensor{}
	for _, a := range arrays {
		f[a.Name] = a.Tensor
	}
	return f
}

// want is the interpreter's layer output on the emb program.
func (m *model) want(t testing.TB, feeds map[string]*interp.Tensor) *interp.Tensor {
	t.Helper()
	prog, err := exec.Compile(m.low)
	if err != nil {
		t.Fatal(err)
	}
	out, err := prog.Run(context.Background(), feeds, []string{gen.EmbeddingNode}, &exec.Options{Variables: m.vars})
	if err != nil {
		t.Fatal(err)
	}
	return out[gen.EmbeddingNode]
}

func closeTo(a, b *interp.Tensor) error {
	if interp.ShapeString(a.Shape()) != interp.ShapeString(b.Shape()) {
		return fmt.Errorf("got shape %s, want %s", interp.ShapeString(b.Shape()), interp.ShapeString(a.Shape()))
	}
	for i := range a.Len() {
		x, y := a.Float64At(i), b.Float64At(i)
		if math.Abs(x-y) > 1e-5*math.Max(math.Abs(x), math.Abs(y))+1e-5 || math.IsNaN(y) != math.IsNaN(x) {
			return fmt.Errorf("element %d: got %v, want %v", i, y, x)
		}
	}
	return nil
}

// rig is a simulated GPU (deferred streams: a missing wait shows) with
// the module's kernels, one context, and a simulated NCCL.
type rig struct {
	gpu  *cuda.Sim
	ctx  *cuda.Context
	nccl *nccl.Sim
	lib  *nccl.Library
}

func newRig(t testing.TB, module *textir.Operation) *rig {
	t.Helper()
	r := &rig{gpu: cuda.NewSim()}
	r.gpu.Deferred = true
	if err := simgpu.Register(r.gpu, module); err != nil {
		t.Fatal(err)
	}
	drv, err := r.gpu.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if r.ctx, err = drv.NewContext(0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.ctx.Close() })
	r.nccl = nccl.NewSim(r.gpu)
	if r.lib, err = r.nccl.Library(); err != nil {
		t.Fatal(err)
	}
	return r
}

// The sharded layer, its device layers on streams of one GPU gathered by
// device-to-device copies, or on the ranks of a (simulated) NCCL clique,
// computes the layer's output as the interpreter does on the emb program,
// for plans from all table-wise to all row-wise; so does the unsharded
// layer on the same code path.
func TestShardedLayerMatchesInterpreter(t *testing.T) {
	m := newModel(t, "small", 0)
	cases := []struct {
		devices   int
		threshold int64
		mode      Mode
	}{
		{1, 0, Streams}, // the unsharded layer
		{2, 0, Streams},
		{3, 3000, Streams},
		{4, 1 << 30, Streams},
		{3, 3000, NCCL},
		{2, 0, NCCL},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("devices=%d,threshold=%d,%s", c.devices, c.threshold, c.mode), func(t *testing.T) {
			mod := m.fz
			if c.devices > 1 {
				mod = m.pipeline(t, m.fz, fmt.Sprintf("shard{devices=%d row-threshold=%d}", c.devices, c.threshold))
			}
			r := newRig(t, mod)
			opts := Options{Mode: c.mode, Contexts: []*cuda.Context{r.ctx}, Interp: &exec.Options{Variables: m.vars}}
			if c.mode == NCCL {
				opts.NCCL = r.lib
				opts.Contexts, opts.Ordinals = nil, nil
				for d := range c.devices {
					opts.Contexts = append(opts.Contexts, r.ctx)
					opts.Ordinals = append(opts.Ordinals, d)
				}
			}
			l, err := New(context.Background(), mod, []byte("simulated PTX"), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Shards() != c.devices {
				t.Fatalf("%d shards, want %d", l.Shards(), c.devices)
			}
			for _, batch := range []int{1, 19, 7} {
				feeds := m.feeds(t, batch, uint64(batch)+11)
				got, err := l.Run(feeds)
				if err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
				if err := closeTo(m.want(t, feeds), got); err != nil {
					t.Fatalf("batch %d: %v", batch, err)
				}
			}
			if c.mode == NCCL && (r.nccl.Calls["ncclSend"] == 0 || r.nccl.Calls["ncclSend"] != r.nccl.Calls["ncclRecv"] || r.nccl.Calls["ncclGroupEnd"] != 3) {
				t.Errorf("NCCL calls %v: want a group per batch of matched sends and receives", r.nccl.Calls)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if n := r.gpu.Counts(); n.Allocs != 0 || n.HostAllocs != 0 {
				t.Errorf("Close left %d device and %d pinned allocations", n.Allocs, n.HostAllocs)
			}
		})
	}
}

// Options that cannot work are errors naming what is wrong.
func TestOptionErrors(t *testing.T) {
	m := newModel(t, "small", 0)
	sh := m.pipeline(t, m.fz, "shard{devices=2 row-threshold=0}")
	r := newRig(t, sh)
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Mode: "carrier-pigeon", Contexts: []*cuda.Context{r.ctx}}, `unknown mode "carrier-pigeon"`},
		{Options{Mode: Streams}, "streams mode runs on one context, got 0"},
		{Options{Mode: NCCL, Contexts: []*cuda.Context{r.ctx}, Ordinals: []int{0}, NCCL: r.lib}, "the plan uses 2 devices; NCCL mode got 1 contexts"},
		{Options{Mode: NCCL, Contexts: []*cuda.Context{r.ctx, r.ctx}, Ordinals: []int{0, 1}}, "needs the NCCL library"},
	} {
		_, err := New(context.Background(), sh, []byte("simulated PTX"), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.opts.Mode, err, c.want)
		}
	}
	if _, err := New(context.Background(), m.low, nil, Options{Mode: Streams, Contexts: []*cuda.Context{r.ctx}}); err == nil || !strings.Contains(err.Error(), "needs a sharded layer") {
		t.Errorf("emb program: %v", err)
	}
	if n := r.gpu.Counts(); n.Allocs != 0 || n.HostAllocs != 0 {
		t.Errorf("failed New left %d device and %d pinned allocations", n.Allocs, n.HostAllocs)
	}
}
