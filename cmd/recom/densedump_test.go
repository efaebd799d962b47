package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/runtime/session"
	"github.com/recom-compiler/recom/runtime/simgpu"
)

// dumpDense of a small generated model's session (on the simulated GPU)
// writes dense.json and arrays that read back as the plan: every weight
// K×N, every bias N, the dense input read from the feeds, and the
// session's outputs, which the plan recomputes from the layer's output.
func TestDumpDense(t *testing.T) {
	s, eval := simSession(t, filepath.Join("..", "..", "examples", "small.pbtxt"), filepath.Join("..", "..", "examples", "small.tables.npz"), []string{"prediction"})
	interpRun := func(f map[string]*interp.Tensor) map[string]*interp.Tensor {
		t.Helper()
		got, err := eval(f, []string{gen.EmbeddingNode})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	spec, err := gen.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	const b, sets = 5, 2
	var feeds []map[string]*interp.Tensor
	for i := range sets + 1 {
		arrays, err := gen.Feeds(spec, b, uint64(40+i))
		if err != nil {
			t.Fatal(err)
		}
		f := map[string]*interp.Tensor{}
		for _, a := range arrays {
			f[tensorName(a.Name)] = a.Tensor
		}
		feeds = append(feeds, f)
	}
	dir := t.TempDir()
	if err := dumpDense(dir, s, feeds, sets, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "dense.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sets   int
		Layers int
		Inputs []struct{ Name, Feed string }
		Dense  []struct {
			Inputs []struct {
				Kind, Name string
				Rest       []int64
			}
			Ks                 []int64
			N                  int64
			Activation, Output string
			Weight, Bias       string
		}
		Host    []json.RawMessage
		Outputs []struct{ Kind, Name string }
		Names   []string `json:"output_names"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Sets != sets || doc.Layers != 1 || len(doc.Dense) == 0 || len(doc.Host) != 0 || len(doc.Names) != 1 || doc.Names[0] != "prediction" {
		t.Fatalf("dense.json: %s", raw)
	}
	read := func(name string) *interp.Tensor {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		x, err := npz.ReadNPY(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return x
	}
	// The plan in float64 from the interpreter's layer output and the
	// dumped dense inputs, as bench/peers.py computes it.
	for i := range sets {
		vals := map[string][]float64{"layer0": f64(t, interpRun(feeds[i])[gen.EmbeddingNode])}
		for _, in := range doc.Inputs {
			if in.Feed == "" {
				t.Fatalf("input %s not from a feed", in.Name)
			}
			x := read(fmt.Sprintf("dense_in_%s_%d.npy", in.Name, i))
			if err := x.Equal(feeds[i][in.Feed]); err != nil {
				t.Errorf("dense_in_%s_%d: %v", in.Name, i, err)
			}
			vals[in.Name] = f64(t, x)
		}
		for _, d := range doc.Dense {
			var K int64
			for _, k := range d.Ks {
				K += k
			}
			w := read(d.Weight)
			if sh := w.Shape(); len(sh) != 2 || sh[0] != K || sh[1] != d.N {
				t.Fatalf("%s: shape %v, want [%d %d]", d.Weight, sh, K, d.N)
			}
			wf := f64(t, w)
			var bias []float64
			if d.Bias != "" {
				bias = f64(t, read(d.Bias))
			}
			y := make([]float64, b*d.N)
			for r := range int64(b) {
				col := int64(0)
				for j, in := range d.Inputs {
					x := vals[in.Name]
					if x == nil || in.Kind != "device" {
						t.Fatalf("dense input %+v has no value", in)
					}
					for k := range d.Ks[j] {
						for n := range d.N {
							y[r*d.N+n] += x[r*d.Ks[j]+k] * wf[(col+k)*d.N+n]
						}
					}
					col += d.Ks[j]
				}
				for n := range d.N {
					v := y[r*d.N+n]
					if bias != nil {
						v += bias[n]
					}
					switch d.Activation {
					case "relu":
						v = max(v, 0)
					case "sigmoid":
						v = 1 / (1 + math.Exp(-v))
					case "none":
					default:
						t.Fatalf("activation %q", d.Activation)
					}
					y[r*d.N+n] = v
				}
			}
			vals[d.Output] = y
		}
		got := f64(t, read(fmt.Sprintf("dense_out_0_%d.npy", i)))
		want := vals[doc.Outputs[0].Name]
		if doc.Outputs[0].Kind != "device" || len(got) != len(want) {
			t.Fatalf("set %d: output %+v: %d values, the plan gives %d", i, doc.Outputs[0], len(got), len(want))
		}
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-5+1e-4*math.Abs(want[j]) {
				t.Errorf("set %d: prediction[%d] = %v, the plan gives %v", i, j, got[j], want[j])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("dense_out_0_%d.npy", sets))); err == nil {
		t.Errorf("a set past --sets was written")
	}
}

func f64(t *testing.T, x *interp.Tensor) []float64 {
	t.Helper()
	out := make([]float64, x.Len())
	for i := range out {
		out[i] = x.Float64At(i)
	}
	return out
}

// simSession is a session of the GraphDef at path (with the variables in
// the .npz tables, "" for none) on a simulated GPU (the generated dense
// kernels), and the interpreter on the imported graph.
func simSession(t *testing.T, path, tables string, outputs []string) (*session.Session, func(map[string]*interp.Tensor, []string) (map[string]*interp.Tensor, error)) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	allpasses.Register()
	f, err := graphdef.Parse(raw, path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	m, err := importer.Import(ctx, f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	var specs []pass.PassSpec
	for _, fl := range []string{"lower-emb", "simplify-shapes", "fuse", "fuse-dense"} {
		specs = append(specs, pass.PassSpec{Flag: fl})
	}
	pm, err := pass.FromSpecs("builtin.module", specs)
	if err != nil {
		t.Fatal(err)
	}
	if err := pm.Run(ctx, m); err != nil {
		t.Fatal(err)
	}
	ref, err := importer.Import(all.NewContext(), f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	opts := &exec.Options{Variables: map[string]*interp.Tensor{}, Tables: map[string]exec.TableData{}}
	if tables != "" {
		arrays, err := npz.ReadFile(tables)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arrays {
			opts.Variables[a.Name] = a.Tensor
		}
	}
	sim := cuda.NewSim()
	if err := simgpu.Register(sim, m); err != nil {
		t.Fatal(err)
	}
	if err := simgpu.Register(sim, densekern.Module(all.NewContext())); err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(context.Background(), session.Program{Context: ctx, Module: m}, []byte("simulated PTX"),
		session.Options{CUDA: c, Outputs: outputs, Dense: session.DenseGenerated, Interp: opts, Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	return s, func(feeds map[string]*interp.Tensor, names []string) (map[string]*interp.Tensor, error) {
		return exec.Run(context.Background(), ref, feeds, names, opts)
	}
}

// A dense input computed on the host before the graph (host_steps_shape:
// Cast, Shape, StridedSlice, Pack, Reshape of the feed) is dumped as the
// interpreter computes its node, marked computed; the head's host steps
// after the graph come with their constant operands.
func TestDumpDenseComputedInput(t *testing.T) {
	s, eval := simSession(t, filepath.Join("..", "..", "runtime", "session", "testdata", "host_steps_shape.pbtxt"), "", []string{"sm", "total"})
	x := make([]int64, 4*3)
	for i := range x {
		x[i] = int64(i%7) - 3
	}
	feeds := []map[string]*interp.Tensor{{"x": interp.Must(interp.New([]int64{3, 4}, x))}}
	dir := t.TempDir()
	if err := dumpDense(dir, s, feeds, 1, eval); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "dense.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Inputs []struct {
			Name, Node string
			Computed   bool
		}
		Host []struct {
			Op     string
			Inputs []struct{ Kind, Name string }
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Inputs) != 1 || !doc.Inputs[0].Computed || doc.Inputs[0].Node != "xr" {
		t.Fatalf("inputs %+v, want xr computed", doc.Inputs)
	}
	f, err := os.Open(filepath.Join(dir, "dense_in_"+doc.Inputs[0].Name+"_0.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := npz.ReadNPY(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval(feeds[0], []string{"xr"})
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Equal(want["xr"]); err != nil {
		t.Error(err)
	}
	var ops []string
	consts := 0
	for _, h := range doc.Host {
		ops = append(ops, h.Op)
		for _, r := range h.Inputs {
			if r.Kind == "const" {
				consts++
				if _, err := os.Stat(filepath.Join(dir, r.Name+".npy")); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if fmt.Sprint(ops) != "[AddN Softmax Sum]" || consts != 1 {
		t.Errorf("host steps %v with %d constants, want [AddN Softmax Sum] with the Sum's axis", ops, consts)
	}
}
