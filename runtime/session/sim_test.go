package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/recom-compiler/recom/runtime/simgpu"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/textir"
)

// The bundled model and its tables.
var (
	smallModel  = filepath.Join("..", "..", "examples", "small.pbtxt")
	smallTables = filepath.Join("..", "..", "examples", "small.tables.npz")
)

// compiled is a model compiled for a session, with what its reference
// run needs.
type compiled struct {
	prog    Program
	ref     *textir.Operation // the imported GraphDef, for the interpreter
	opts    *exec.Options     // variables and tables
	spec    *gen.Spec
	outputs []string
}

// compileModel compiles the GraphDef at path through --fuse-dense, and
// imports it again for the reference run.
func compileModel(t testing.TB, path string, data []byte, opts *exec.Options, spec *gen.Spec) *compiled {
	t.Helper()
	prog, err := compileProgram(path, data)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	f, err := graphdef.Parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := importer.Import(all.NewContext(), f.Graph)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return &compiled{prog: prog, ref: ref, opts: opts, spec: spec, outputs: []string{"prediction"}}
}

// compileProgram imports a GraphDef and runs --lower-emb,
// --simplify-shapes, --fuse and --fuse-dense on it, as the compiler does.
func compileProgram(name string, data []byte) (Program, error) {
	return compilePasses(name, data, "lower-emb", "simplify-shapes", "fuse", "fuse-dense")
}

// compilePasses imports a GraphDef and runs the passes named by their
// flags on it.
func compilePasses(name string, data []byte, flags ...string) (Program, error) {
	allpasses.Register()
	f, err := graphdef.Parse(data, name)
	if err != nil {
		return Program{}, err
	}
	ctx := all.NewContext()
	m, err := importer.Import(ctx, f.Graph)
	if err != nil {
		return Program{}, err
	}
	specs := make([]pass.PassSpec, len(flags))
	for i, f := range flags {
		flag, opts, _ := strings.Cut(f, "=") // "fuse-dense=no-fold-bn=true"
		specs[i] = pass.PassSpec{Flag: flag, Options: opts}
	}
	pm, err := pass.FromSpecs("builtin.module", specs)
	if err != nil {
		return Program{}, err
	}
	if err := pm.Run(ctx, m); err != nil {
		return Program{}, err
	}
	return Program{Context: ctx, Module: m}, nil
}

// loadSmall compiles the bundled model with its tables.
func loadSmall(t testing.TB) *compiled {
	t.Helper()
	data := readFile(t, smallModel)
	opts := &exec.Options{Variables: map[string]*interp.Tensor{}, Tables: map[string]exec.TableData{}}
	arrays, err := npz.ReadFile(smallTables)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arrays {
		opts.Variables[a.Name] = a.Tensor
	}
	spec, err := gen.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	return compileModel(t, smallModel, data, opts, spec)
}

// feeds draws a batch of b rows from the model's spec.
func (m *compiled) feeds(t testing.TB, b int, seed uint64) map[string]*interp.Tensor {
	t.Helper()
	arrays, err := gen.Feeds(m.spec, b, seed)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]*interp.Tensor{}
	for _, a := range arrays {
		f[a.Name] = a.Tensor
	}
	return f
}

// reference runs the imported GraphDef in the interpreter.
func (m *compiled) reference(t testing.TB, feeds map[string]*interp.Tensor) map[string]*interp.Tensor {
	t.Helper()
	want, err := exec.Run(context.Background(), m.ref, feeds, m.outputs, m.opts)
	if err != nil {
		t.Fatalf("reference interpreter: %v", err)
	}
	return want
}

// check compares a session's outputs with the interpreter's: rtol 1e-5,
// atol 1e-6 (the dense kernels accumulate in float64, as the
// interpreter does), and no NaN (the poison of what was not written).
func check(t testing.TB, what string, got, want map[string]*interp.Tensor) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: output %q missing", what, name)
			continue
		}
		if f := g.Float32s(); f != nil {
			for i, x := range f {
				if math.IsNaN(float64(x)) {
					t.Errorf("%s: output %q element %d is NaN: the graph did not write it", what, name, i)
					break
				}
			}
		}
		if err := g.AllClose(w, 1e-5, 1e-6); err != nil {
			t.Errorf("%s: output %q differs from the interpreter: %v", what, name, err)
		}
	}
}

// simKernels registers every gpu.func kernel of the module on sim, run by
// the gpu dialect's simulator over the simulated device memory.
func simKernels(t testing.TB, sim *cuda.Sim, module *textir.Operation) {
	t.Helper()
	if err := simgpu.Register(sim, module); err != nil {
		t.Fatal(err)
	}
}

// eachKernel calls f with every gpu.func kernel of the module, its name
// and its parameters' sizes in bytes (and which are global pointers).
func eachKernel(t testing.TB, module *textir.Operation, f func(name string, op *textir.Operation, sizes []uint64, ptr []bool)) {
	t.Helper()
	simgpu.EachKernel(module, func(name string, op *textir.Operation, sizes []uint64, ptr []bool) error {
		f(name, op, sizes, ptr)
		return nil
	})
}

// simSession makes a session of m on a simulated GPU (deferred streams,
// so that a missing wait shows) with poisoned results.
func simSession(t testing.TB, m *compiled, opts Options) (*Session, *cuda.Sim) {
	t.Helper()
	s, sim, _ := simSessionLt(t, m, opts, nil)
	return s, sim
}

// simSessionLt is simSession with the layout kernels registered and, for
// Dense "cublaslt" without a library or with a backend made by backend,
// the simulated cuBLASLt on the same device (returned; its objects must
// all be destroyed by Close).
func simSessionLt(t testing.TB, m *compiled, opts Options, backend func(*cublaslt.Library) DenseBackend) (*Session, *cuda.Sim, *cublaslt.Sim) {
	t.Helper()
	sim := cuda.NewSim()
	sim.Deferred = true
	simKernels(t, sim, m.prog.Module)
	simKernels(t, sim, densekern.Module(all.NewContext()))
	var lt *cublaslt.Sim
	switch {
	case backend != nil:
		lt = cublaslt.NewSim(sim)
		opts.DenseBackend = backend(lt.Library())
	case opts.Dense == DenseCublasLt && opts.CublasLt == nil && opts.DenseBackend == nil:
		lt = cublaslt.NewSim(sim)
		opts.CublasLt = lt.Library()
	}
	drv, err := sim.Driver()
	if err != nil {
		t.Fatal(err)
	}
	c, err := drv.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	opts.CUDA = c
	opts.Poison = true
	if opts.Outputs == nil {
		opts.Outputs = m.outputs
	}
	if opts.Dense == "" && opts.CublasLt == nil && opts.DenseBackend == nil {
		opts.Dense = DenseGenerated // never the machine's cuBLASLt on a simulated context
	}
	if opts.Interp == nil {
		opts.Interp = m.opts
	}
	s, err := New(context.Background(), m.prog, []byte("simulated PTX"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if c := sim.Counts(); c.Allocs != 0 || c.HostAllocs != 0 {
			t.Errorf("the session leaked %d device and %d pinned allocations", c.Allocs, c.HostAllocs)
		}
		if lt != nil && lt.Live() != 0 {
			t.Errorf("the session left %v", lt)
		}
		c.Close()
	})
	return s, sim, lt
}

// simErr adds the simulator's fault to err.
func simErr(sim *cuda.Sim, err error) error {
	if f := sim.Err(); f != nil {
		return errors.Join(err, fmt.Errorf("simulator: %w", f))
	}
	return err
}

// The bundled model on the simulated GPU, against the interpreter, at
// several batch sizes, synchronously and with batches in flight.
func TestSimSmall(t *testing.T) {
	m := loadSmall(t)
	s, sim := simSession(t, m, Options{Slots: 2})
	seed := uint64(100)
	for _, b := range []int{1, 37, 64} {
		seed++
		f := m.feeds(t, b, seed)
		got, err := s.Run(f)
		if err != nil {
			t.Fatalf("B=%d: %v", b, simErr(sim, err))
		}
		check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
		if p := got["prediction"]; p == nil || p.Rank() != 2 || p.Dim(0) != int64(b) || p.Dim(1) != 1 {
			t.Errorf("B=%d: prediction of shape %v", b, p.Shape())
		}
	}
	before := sim.Counts()
	// Batches in flight: each packed while the others are on the GPU.
	const n = 6
	fs := make([]map[string]*interp.Tensor, n)
	ps := make([]*Pending, n)
	for i := range fs {
		fs[i] = m.feeds(t, 37, 200+uint64(i))
		p, err := s.RunAsync(fs[i])
		if err != nil {
			t.Fatal(simErr(sim, err))
		}
		ps[i] = p
	}
	for i, p := range ps {
		got, err := p.Wait()
		if err != nil {
			t.Fatal(simErr(sim, err))
		}
		check(t, fmt.Sprintf("async batch %d", i), got, m.reference(t, fs[i]))
	}
	after := sim.Counts()
	if d := after.GraphLaunches - before.GraphLaunches; d != n {
		t.Errorf("%d graph launches for %d batches", d, n)
	}
	if d := after.CopiesToDevice - before.CopiesToDevice; d != n {
		t.Errorf("%d host-to-device copies for %d batches, want one each", d, n)
	}
	if d := after.CopiesToHost - before.CopiesToHost; d != n {
		t.Errorf("%d device-to-host copies for %d batches, want one each", d, n)
	}
	// One graph per batch size, size class of the packed inputs and
	// slot: at most two per class here.
	classes := map[int64]bool{}
	for _, f := range fs {
		p, err := s.plan.layers[0].packer.Pack(f, func(_, n int64) ([]byte, error) { return make([]byte, n), nil })
		if err != nil {
			t.Fatal(err)
		}
		classes[bucketOf(int64(len(p.Inputs)))] = true
	}
	if g := after.Graphs - before.Graphs; g > 2*len(classes) {
		t.Errorf("%d graphs captured for 6 batches of one size in %d size classes on 2 slots", g, len(classes))
	}
	if err := s.Profile(fs[0], 2); err != nil {
		t.Fatal(simErr(sim, err))
	}
	sum := s.Summary()
	text := sum.String()
	t.Logf("\n%s", text)
	for _, want := range []string{"hostpack (20 columns straight from their feeds", "the batch's graph on the device", "kernel layer", "copy out",
		"GPU, step alone: batch 37: kernel layer", "GPU, step alone: batch 37: copy out 256 bytes"} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if sum.Batches != 10 {
		t.Errorf("summary: %d batches, want 10 (9 and Profile's)", sum.Batches)
	}
}

// A pipeline returns the outputs in submission order, whatever order the
// workers finish in.
func TestSimPipeline(t *testing.T) {
	m := loadSmall(t)
	s, sim := simSession(t, m, Options{Slots: 3})
	p := s.NewPipeline(3)
	defer p.Close()
	const n = 7
	fs := make([]map[string]*interp.Tensor, n)
	for i := range fs {
		fs[i] = m.feeds(t, 1+5*i, 300+uint64(i))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, f := range fs {
			if err := p.Submit(f); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range fs {
		got, err := p.Next()
		if err != nil {
			t.Fatal(simErr(sim, err))
		}
		if b := got["prediction"].Dim(0); b != int64(1+5*i) {
			t.Fatalf("result %d has %d rows: out of order", i, b)
		}
		check(t, fmt.Sprintf("pipelined batch %d", i), got, m.reference(t, fs[i]))
	}
	wg.Wait()
	p.Close()
	if _, err := p.Next(); err == nil {
		t.Error("Next on a closed pipeline with nothing left")
	}
	if err := p.Submit(fs[0]); err == nil {
		t.Error("Submit on a closed pipeline")
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Host steps before the graph (a cast of the feed, uploaded), after it (a
// reshape and a product of a result copied back), a device alias, and
// outputs of every kind: a model without an embedding layer.
func TestSimHostSteps(t *testing.T) {
	path := filepath.Join("testdata", "host_steps.pbtxt")
	m := compileModel(t, path, readFile(t, path), &exec.Options{}, nil)
	m.outputs = []string{"out", "ident", "r1", "xf", "x", "two"}
	s, sim := simSession(t, m, Options{Slots: 1})
	for _, b := range []int64{3, 1, 130} {
		x := make([]int64, 4*b)
		for i := range x {
			x[i] = int64(i%7) - 3
		}
		f := map[string]*interp.Tensor{"x": interp.Must(interp.New([]int64{b, 4}, x))}
		got, err := s.Run(f)
		if err != nil {
			t.Fatalf("B=%d: %v", b, simErr(sim, err))
		}
		check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
		if sh := got["ident"].Shape(); len(sh) != 2 || sh[0] != b || sh[1] != 1 {
			t.Errorf("B=%d: ident of shape %v", b, sh)
		}
	}
	text := s.Summary().String()
	t.Logf("\n%s", text)
	for _, want := range []string{`tfg.Cast (node "xf") before the graph`, `tfg.Reshape (node "flat") after the graph`,
		`tfg.Mul (node "out") after the graph`, "into pinned memory (1)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if _, err := s.Run(map[string]*interp.Tensor{}); err == nil || err.Error() != `session: feed "x" is missing` {
		t.Errorf("missing feed: %v", err)
	}
	if _, err := s.Run(map[string]*interp.Tensor{"x": interp.Vector[int64](1, 2)}); err == nil || err.Error() != `session: input #0 of fused.dense (node "r1") must be a float32 [2, 4] matrix, got float32 of shape [2]` {
		t.Errorf("feed of the wrong shape: %v", err)
	}
}

// The shape arithmetic of a numeric column before the graph (Shape,
// StridedSlice, Pack, Reshape) runs as compiled host steps, a classifier
// head after the dense layer as device steps in the graph (AddN, Softmax,
// Sum) and a host step after it (ArgMax), and all equal the interpreter.
func TestSimHostShapeSteps(t *testing.T) {
	path := filepath.Join("testdata", "host_steps_shape.pbtxt")
	m := compileModel(t, path, readFile(t, path), &exec.Options{}, nil)
	m.outputs = []string{"sm", "total", "cls"}
	s, sim := simSession(t, m, Options{Slots: 1})
	for _, b := range []int64{3, 1, 130} {
		x := make([]int64, 4*b)
		for i := range x {
			x[i] = int64(i%7) - 3
		}
		f := map[string]*interp.Tensor{"x": interp.Must(interp.New([]int64{b, 4}, x))}
		got, err := s.Run(f)
		if err != nil {
			t.Fatalf("B=%d: %v", b, simErr(sim, err))
		}
		check(t, fmt.Sprintf("B=%d", b), got, m.reference(t, f))
	}
	text := s.Summary().String()
	for _, want := range []string{`tfg.Shape (node "sh") before the graph`, `tfg.StridedSlice (node "rows") before the graph`,
		`tfg.Pack (node "pk") before the graph`, `device step: tfg.AddN (node "twice") in the batch's graph: map_f32`,
		`device step: tfg.Softmax (node "sm") in the batch's graph: rows_f32`, `device step: tfg.Sum (node "total") in the batch's graph: rows_f32`,
		`tfg.ArgMax (node "cls") after the graph`, `kernel rows_f32 1 x 256 (tfg.Softmax (node "sm"))`} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
}

// A slot keeps the frames of its last BatchSizes batch sizes; the others
// are freed and made again, and their graphs captured again. A batch that
// fails (a feed missing) leaves the slot usable.
func TestSimBatchSizes(t *testing.T) {
	m := loadSmall(t)
	s, sim := simSession(t, m, Options{Slots: 1, BatchSizes: 2})
	f := m.feeds(t, 5, 1)
	delete(f, "str_0000")
	if _, err := s.Run(f); err == nil || !strings.Contains(err.Error(), "str_0000") {
		t.Errorf("a missing feed: %v", err)
	}
	graphs := 0
	for i, b := range []int{1, 40, 3, 40, 1, 1} {
		f := m.feeds(t, b, 10+uint64(i))
		before := sim.Counts().Graphs
		got, err := s.Run(f)
		if err != nil {
			t.Fatalf("batch %d (B=%d): %v", i, b, simErr(sim, err))
		}
		check(t, fmt.Sprintf("batch %d (B=%d)", i, b), got, m.reference(t, f))
		graphs += sim.Counts().Graphs - before
	}
	// 1, 40, 3 (drops 1), 40 (kept), 1 (made again, drops 3), 1 (kept);
	// one more where a second batch of a size packs into another size
	// class (the feeds are fixed: the count is too).
	if graphs < 4 || graphs > 5 {
		t.Errorf("%d graphs captured, want 4 (5 if a packed size changed class)", graphs)
	}
	if n := len(s.slots[0].frames); n != 2 {
		t.Errorf("the slot keeps %d frames, want 2", n)
	}
}

// Bench on the simulated GPU: the harness, not the numbers.
func TestSimBench(t *testing.T) {
	m := loadSmall(t)
	s, sim := simSession(t, m, Options{Slots: 2})
	var sets []map[string]*interp.Tensor
	for i := range 4 {
		sets = append(sets, m.feeds(t, 2, 40+uint64(i)))
	}
	if _, err := Bench(s, sets[:3], BenchOptions{}); err == nil {
		t.Error("Bench with 3 feed sets")
	}
	if _, err := Bench(s, sets, BenchOptions{InFlight: []int{4}}); err == nil {
		t.Error("Bench with 4 in flight on 2 slots")
	}
	r, err := Bench(s, sets, BenchOptions{InFlight: []int{1, 2}, Batches: 12})
	if err != nil {
		t.Fatal(simErr(sim, err))
	}
	t.Logf("\n%s%s", r, r.Summary)
	if r.Batch != 2 || r.Latency.N != 200 || r.Latency.Min > r.Latency.Median || r.Latency.Median > r.Latency.P99 || r.Latency.P99 > r.Latency.Max {
		t.Errorf("latency %+v of batch %d", r.Latency, r.Batch)
	}
	if len(r.Throughput) != 2 || r.Throughput[1].InFlight != 2 || r.Throughput[1].Batches != 12 || r.Throughput[1].SamplesPerSec <= 0 {
		t.Errorf("throughput %+v", r.Throughput)
	}
	if r.Summary.Batches != 200 {
		t.Errorf("the summary counts %d batches, want the 200 timed", r.Summary.Batches)
	}
	if !strings.Contains(r.String(), "E2E batch=2 sets=4 latency_n=200") || !strings.Contains(r.String(), "in_flight=2 batches=12") {
		t.Errorf("result:\n%s", r)
	}
	// Sets of different batch sizes are refused.
	sets[3] = m.feeds(t, 3, 44)
	if _, err := Bench(s, sets, BenchOptions{InFlight: []int{1}}); err == nil || !strings.Contains(err.Error(), "one batch size") {
		t.Errorf("sets of two batch sizes: %v", err)
	}
}

// A PTX without the program's kernels is refused when the session is
// made, naming the op.
func TestSimWrongPTX(t *testing.T) {
	m := loadSmall(t)
	sim := cuda.NewSim()
	sim.AddKernel("layer", []uint64{8, 8, 8, 8}, func(*cuda.Sim, uint32, uint32, []uint64) {})
	drv, err := sim.Driver()
	if err != nil {
		t.Fatal(err)
	}
	c, err := drv.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = New(context.Background(), m.prog, []byte("other PTX"), Options{CUDA: c, Outputs: m.outputs, Interp: m.opts, Dense: DenseGenerated})
	want := `'fused.embedding_layer' op (node "input_layer/concat") kernel "layer" takes 4 parameters; the layer's kernel takes 5 (was the PTX made from this program?)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	sim.AddKernel("layer", []uint64{8, 8, 8, 8, 8}, func(*cuda.Sim, uint32, uint32, []uint64) {})
	_, err = New(context.Background(), m.prog, []byte("other PTX"), Options{CUDA: c, Outputs: m.outputs, Interp: m.opts, Dense: DenseGenerated})
	want = `'fused.dense' op (node "bottom_mlp/dense/Relu") cuda: function "bottom_mlp_dense": cuModuleGetFunction: CUDA_ERROR_NOT_FOUND: named symbol not found (was the PTX made with --fuse-dense from this program?)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	if n := sim.Counts(); n.Allocs != 0 || n.HostAllocs != 0 {
		t.Errorf("a failed New leaked %d device and %d pinned allocations", n.Allocs, n.HostAllocs)
	}
}

// The size classes of the packed inputs: at least 4 KiB, at most a
// sixteenth more than the bytes.
func TestBucketOf(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{
		{0, 0}, {1, 4096}, {4096, 4096}, {4097, 8192}, {65536, 65536}, {65537, 69632},
		{1 << 20, 1 << 20}, {1<<20 + 1, 1<<20 + 65536}, {1443488, 1507328},
	} {
		if got := bucketOf(c.n); got != c.want {
			t.Errorf("bucketOf(%d) = %d, want %d", c.n, got, c.want)
		}
		if c.n > 0 && (bucketOf(c.n) < c.n || float64(bucketOf(c.n)-c.n) > max(4096, float64(c.n)/16)) {
			t.Errorf("bucketOf(%d) = %d: more than a sixteenth (or 4 KiB) over", c.n, bucketOf(c.n))
		}
	}
}

// The packers side by side on the bundled model: hostpack (the default:
// straight from the feeds, with the interpreter only for the values it
// cannot compute) and the interpreter fallback give the interpreter's
// outputs, and the Summary names each.
func TestSimPackers(t *testing.T) {
	m := loadSmall(t)
	for _, tc := range []struct {
		name   string
		packer PackerFactory
		want   string
	}{
		{"native", NativePacker, "hostpack ("},
		{"host", HostPacker, "hostpack ("},
		{"interp", InterpPacker, "fallback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, sim := simSession(t, m, Options{Slots: 1, Packer: tc.packer})
			for i, b := range []int{1, 13, 64} {
				f := m.feeds(t, b, 700+uint64(i))
				got, err := s.Run(f)
				if err != nil {
					t.Fatal(simErr(sim, err))
				}
				check(t, fmt.Sprintf("%s batch %d", tc.name, b), got, m.reference(t, f))
			}
			if text := s.Summary().String(); !strings.Contains(text, tc.want) {
				t.Errorf("the summary does not name the packer %q:\n%s", tc.want, text)
			}
		})
	}
}
