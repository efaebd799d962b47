package session

// The tests of this file need an NVIDIA GPU: without the driver they are
// skipped and say why (RECOM_GPU=1 makes its absence a failure), as
// runtime/cuda's are. The GPU machine has no llc: the PTX comes from
// -ptx-dir (or $RECOM_PTX_DIR), written beforehand where llc-19 is by
// TestWritePTX:
//
//	here:  go test ./runtime/session -run TestWritePTX -args -ptx-out build/session
//	       CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o build/session/session.test ./runtime/session
//	GPU:   cd runtime/session && RECOM_GPU=1 ../../build/session/session.test -test.v -test.run 'GPU|E2E' -ptx-dir ../../build/session
//
// (bench/experiments/session-e2e.sh does both.)

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/backend/nvptx"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cublaslt"
	"github.com/recom-compiler/recom/runtime/cuda"
)

var (
	ptxDir = flag.String("ptx-dir", os.Getenv("RECOM_PTX_DIR"),
		"folder of the models' PTX for the GPU tests (MODEL.ptx, written by TestWritePTX -ptx-out); empty: compile with llc-19 now")
	ptxOut = flag.String("ptx-out", "",
		"TestWritePTX: write the PTX of the bundled model, of preset E and of testdata/device_steps.pbtxt into this folder (empty: the bundled model's, into a temporary folder)")
	e2eBatches = flag.String("e2e-batches", "1,32,256,2048", "TestE2EBench: the batch sizes")
	e2eIters   = flag.Int("e2e-iters", 200, "TestE2EBench: batches timed one by one per batch size (at least 200)")
	e2eModel   = flag.String("e2e-model", "E", "TestE2EBench: the model, small or a preset of frontend/gen")
	e2eDense   = flag.String("e2e-dense", "cublaslt-fp32,cublaslt-tf32,cublaslt-bf16",
		"TestE2EBench: the dense backends, DENSE-PRECISION each (cublaslt-fp32, cublaslt-tf32, cublaslt-bf16, generated-fp32); cuBLASLt's options between: cublaslt-nk-PREC stores the weights N×K, cublaslt-cat-PREC and cublaslt-split-PREC multiply a concatenation of inputs in one product or one per input")
	gpuDense = flag.String("gpu-dense", "generated-fp32,cublaslt-fp32,cublaslt-tf32,cublaslt-bf16",
		"TestGPUModels: the dense backends checked, as -e2e-dense names them")
)

// denseConfig is a dense backend and precision of the GPU tests.
type denseConfig struct {
	name      string // as the flags name it
	dense     string // DenseCublasLt or DenseGenerated
	prec      string
	weightsNK bool   // cuBLASLt's weights N×K
	inputs    string // CublasLtOptions.Inputs
}

// parseDense reads a list of DENSE[-OPTION...]-PRECISION names; cuBLASLt's
// options are nk (weights N×K), cat and split (CublasLtOptions.Inputs).
func parseDense(list string) ([]denseConfig, error) {
	var cs []denseConfig
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		c := denseConfig{name: n}
		parts := strings.Split(n, "-")
		if len(parts) < 2 || (parts[0] != DenseCublasLt && parts[0] != DenseGenerated) || (parts[0] == DenseGenerated && len(parts) > 2) {
			return nil, fmt.Errorf("%q is not DENSE[-OPTION...]-PRECISION (cublaslt-fp32, cublaslt-nk-bf16, cublaslt-split-bf16, generated-fp32, ...)", n)
		}
		c.dense, c.prec = parts[0], parts[len(parts)-1]
		for _, o := range parts[1 : len(parts)-1] {
			switch o {
			case "nk":
				c.weightsNK = true
			case "cat":
				c.inputs = InputsConcat
			case "split":
				c.inputs = InputsSplit
			default:
				return nil, fmt.Errorf("%q: unknown cuBLASLt option %q (nk, cat, split)", n, o)
			}
		}
		if _, err := cublaslt.ParsePrecision(c.prec); err != nil {
			return nil, fmt.Errorf("%q: %v", n, err)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// options sets the session options of c; the cuBLASLt library must load
// (without it the test is skipped, or fails with RECOM_GPU=1).
func (c denseConfig) options(t *testing.T, opts Options) Options {
	t.Helper()
	opts.Dense, opts.Precision = c.dense, c.prec
	if c.dense != DenseCublasLt {
		return opts
	}
	lib, err := openCublasLt()
	if errors.Is(err, cublaslt.ErrNotFound) && os.Getenv("RECOM_GPU") != "1" {
		t.Skipf("%v: the cuBLASLt backend needs the library (set RECOM_GPU=1 to make its absence a failure)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	opts.CublasLt = lib
	if c.weightsNK || c.inputs != "" {
		p, _ := cublaslt.ParsePrecision(c.prec)
		opts.DenseBackend = NewCublasLtDense(lib, CublasLtOptions{Precision: p, WeightsNK: c.weightsNK, Inputs: c.inputs})
	}
	return opts
}

// ptxHeader starts a PTX file written by TestWritePTX: the sha256 of the
// LLVM IR it was made from, so that a GPU test refuses the PTX of another
// compilation.
const ptxHeader = "// recom session test: llvm-ir sha256 "

// openGPU opens the driver and device 0, or skips the test without a
// driver (fails it with RECOM_GPU=1).
func openGPU(t *testing.T) *cuda.Context {
	t.Helper()
	d, err := cuda.Open()
	if errors.Is(err, cuda.ErrNoDriver) && os.Getenv("RECOM_GPU") != "1" {
		t.Skipf("%v: the GPU tests need the CUDA driver (set RECOM_GPU=1 to make its absence a failure)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("driver %d, %v", d.Version(), c.Device())
	return c
}

// models caches the compiled test models of the binary's run.
var models sync.Map // name → *compiled

// testModel compiles the bundled model ("small", with its tables) or a
// preset of frontend/gen (random tables from seed 7), once per run.
func testModel(t *testing.T, name string) *compiled {
	t.Helper()
	if m, ok := models.Load(name); ok {
		return m.(*compiled)
	}
	t0 := time.Now()
	var m *compiled
	switch name {
	case "small":
		m = loadSmall(t)
	case "device_steps":
		m = loadDeviceSteps(t)
	default:
		spec, err := gen.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gen.Generate(spec, gen.Options{NoTableValues: true})
		if err != nil {
			t.Fatal(err)
		}
		m = compileModel(t, name, graphdef.MarshalText(g.Graph), &exec.Options{RandomTables: true, Seed: 7}, spec)
	}
	t.Logf("%s compiled in %.1f s", name, time.Since(t0).Seconds())
	models.Store(name, m)
	return m
}

// llvmIR returns the model's NVPTX LLVM IR and its sha256.
func llvmIR(t *testing.T, m *compiled) ([]byte, string) {
	t.Helper()
	ll, err := nvptx.EmitText(m.prog.Module)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(ll))
	return []byte(ll), hex.EncodeToString(h[:])
}

// ptxFor returns the model's PTX: read from dir (its header must name
// this compilation's LLVM IR), or with no dir compiled with llc-19.
func ptxFor(t *testing.T, name string, m *compiled, dir string) []byte {
	t.Helper()
	ll, sum := llvmIR(t, m)
	if dir == "" {
		if _, err := llc.FindLLC(); err != nil {
			t.Fatalf("no PTX for %s: %v; make it where llc-19 is (TestWritePTX -ptx-out DIR) and pass -ptx-dir DIR", name, err)
		}
		ptx, err := llc.CompilePTX(context.Background(), ll, llc.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return ptx
	}
	path := filepath.Join(dir, name+".ptx")
	ptx, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no PTX for %s: %v (TestWritePTX -ptx-out %s writes it where llc-19 is)", name, err, dir)
	}
	first, _, _ := strings.Cut(string(ptx), "\n")
	if got := strings.TrimPrefix(first, ptxHeader); got == first || got != sum {
		t.Fatalf("%s was not made from this compilation of %s (its header %q; this LLVM IR's sha256 is %s): make it again with TestWritePTX", path, name, first, sum)
	}
	return ptx
}

// TestWritePTX compiles the test models' PTX with llc-19 and writes it
// with the header the GPU tests check: into -ptx-out (the bundled model,
// preset E and the device steps' model), or a temporary folder (the bundled model), read back as
// the GPU tests read it.
func TestWritePTX(t *testing.T) {
	llctest.Need(t)
	dir, names := *ptxOut, []string{"small", "E", "device_steps"}
	if dir == "" {
		dir, names = t.TempDir(), []string{"small"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		m := testModel(t, name)
		ll, sum := llvmIR(t, m)
		t0 := time.Now()
		ptx, err := llc.CompilePTX(context.Background(), ll, llc.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".ptx")
		if err := os.WriteFile(path, append([]byte(ptxHeader+sum+"\n"), ptx...), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes, llc %.1f s)", path, len(ptx), time.Since(t0).Seconds())
		back := string(ptxFor(t, name, m, dir))
		want := kernelNames(m)
		if name != "device_steps" { // a model of dense layers alone
			want = append(want, "layer")
		}
		for _, k := range want {
			if !strings.Contains(back, ".entry "+k+"(") {
				t.Errorf("%s has no kernel %s", path, k)
			}
		}
	}
}

// kernelNames lists the dense kernels the model's session launches.
func kernelNames(m *compiled) []string {
	p, err := planProgram(m.prog.Module, m.outputs)
	if err != nil {
		return []string{err.Error()}
	}
	var names []string
	for _, ds := range p.dense {
		k, _ := kernelName(ds.op, "kernel")
		names = append(names, k)
		if ds.dense.Split() {
			r, _ := kernelName(ds.op, "reduce_kernel")
			names = append(names, r)
		}
	}
	return names
}

// gpuSession makes a session of the model on the GPU.
func gpuSession(t *testing.T, c *cuda.Context, name string, m *compiled, opts Options) *Session {
	t.Helper()
	opts.CUDA = c
	if opts.Outputs == nil {
		opts.Outputs = m.outputs
	}
	opts.Interp = m.opts
	t0 := time.Now()
	s, err := New(context.Background(), m.prog, ptxFor(t, name, m, *ptxDir), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: session made in %.1f s", name, time.Since(t0).Seconds())
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// TestGPUModels runs the bundled model and preset E on the GPU against
// the interpreter with poisoned results, at B = 1, 37 and 256, one batch
// at a time, then three in flight at once, with each dense backend and
// precision of -gpu-dense: the generated kernels at rtol 1e-5 (they
// accumulate in float64), cuBLASLt fp32 at rtol 1e-4, tf32 and bf16 at
// rtol 3e-2, atol 3e-3 (bench/peers.py's bar for PyTorch). Every check
// prints one line, "ERR model=M dense=D precision=P B=b max_abs=...
// max_rel=...", the largest differences measured.
func TestGPUModels(t *testing.T) {
	c := openGPU(t)
	configs, err := parseDense(*gpuDense)
	if err != nil {
		t.Fatalf("-gpu-dense: %v", err)
	}
	for _, name := range []string{"small", "E"} {
		t.Run(name, func(t *testing.T) {
			m := testModel(t, name)
			// The feeds and the interpreter's outputs, shared by the
			// backends.
			type set struct {
				b    int
				f    map[string]*interp.Tensor
				want map[string]*interp.Tensor
			}
			var sets, inflight []set
			seed := uint64(1000)
			t0 := time.Now()
			for _, b := range []int{1, 37, 256} {
				seed++
				f := m.feeds(t, b, seed)
				sets = append(sets, set{b, f, m.reference(t, f)})
			}
			for range 3 {
				seed++
				f := m.feeds(t, 37, seed)
				inflight = append(inflight, set{37, f, m.reference(t, f)})
			}
			t.Logf("%s: the interpreter's outputs in %.1f s", name, time.Since(t0).Seconds())
			for _, dc := range configs {
				t.Run(dc.name, func(t *testing.T) {
					s := gpuSession(t, c, name, m, dc.options(t, Options{Slots: 3, Poison: true}))
					for _, st := range sets {
						t0 := time.Now()
						got, err := s.Run(st.f)
						if err != nil {
							t.Fatalf("B=%d: %v", st.b, err)
						}
						e := checkPrec(t, fmt.Sprintf("%s %s B=%d", name, dc.name, st.b), dc.dense, dc.prec, got, st.want)
						fmt.Printf("ERR model=%s dense=%s precision=%s B=%d %v\n", name, dc.dense, dc.prec, st.b, e)
						t.Logf("B=%d: session %.2f ms (first batch of this size: capture included); %v", st.b, float64(time.Since(t0).Microseconds())/1e3, e)
					}
					var ps []*Pending
					for _, st := range inflight {
						p, err := s.RunAsync(st.f)
						if err != nil {
							t.Fatal(err)
						}
						ps = append(ps, p)
					}
					for i, p := range ps {
						got, err := p.Wait()
						if err != nil {
							t.Fatal(err)
						}
						checkPrec(t, fmt.Sprintf("%s %s in flight %d", name, dc.name, i), dc.dense, dc.prec, got, inflight[i].want)
					}
					t.Logf("\n%s", s.Summary())
				})
			}
		})
	}
}

// TestE2EBench measures a model end to end on the GPU with each dense
// backend and precision of -e2e-dense (Bench: latency of 200 batches one
// by one, throughput with 1, 2 and 4 in flight, 4 feed sets rotated) at
// each of -e2e-batches, and prints one line per measurement ("model=E
// dense=cublaslt precision=bf16 E2E batch=... median_us=... p99_us=...",
// "... E2E batch=... in_flight=K ... samples_per_s=..."), one of the dense
// part alone ("... DENSE batch=... graph_us=... steps_us=...":
// ProfileDense, its steps as one CUDA graph and the sum of its launches
// one by one), and the step costs. The outputs are checked against the
// interpreter first at B <= 256 (the interpreter's dense part is slow).
func TestE2EBench(t *testing.T) {
	c := openGPU(t)
	configs, err := parseDense(*e2eDense)
	if err != nil {
		t.Fatalf("-e2e-dense: %v", err)
	}
	var batches []int
	for _, f := range strings.Split(*e2eBatches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 1 {
			t.Fatalf("-e2e-batches: %q is not a batch size", f)
		}
		batches = append(batches, b)
	}
	m := testModel(t, *e2eModel)
	sets := map[int][]map[string]*interp.Tensor{}
	wants := map[int]map[string]*interp.Tensor{}
	for _, b := range batches {
		for i := range 4 {
			sets[b] = append(sets[b], m.feeds(t, b, 5000+uint64(100*b+i)))
		}
		if b <= 256 {
			wants[b] = m.reference(t, sets[b][0])
		}
	}
	for _, dc := range configs {
		t.Run(dc.name, func(t *testing.T) {
			s := gpuSession(t, c, *e2eModel, m, dc.options(t, Options{Slots: 4}))
			prefix := fmt.Sprintf("model=%s dense=%s precision=%s", *e2eModel, dc.name[:strings.LastIndexByte(dc.name, '-')], dc.prec)
			for _, b := range batches {
				if want := wants[b]; want != nil {
					got, err := s.Run(sets[b][0])
					if err != nil {
						t.Fatal(err)
					}
					e := checkPrec(t, fmt.Sprintf("%s B=%d", prefix, b), dc.dense, dc.prec, got, want)
					fmt.Printf("%s ERR batch=%d %v\n", prefix, b, e)
				}
				r, err := Bench(s, sets[b], BenchOptions{Iters: *e2eIters})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("%s %s", prefix, strings.ReplaceAll(r.String(), "\nE2E", "\n"+prefix+" E2E"))
				dp, err := s.ProfileDense(sets[b][0], 20)
				if err != nil {
					t.Fatal(err)
				}
				var steps time.Duration
				for _, st := range dp.Steps {
					steps += st.Mean()
				}
				fmt.Printf("%s DENSE batch=%d graph_us=%.1f steps_us=%.1f\n", prefix, b, us(dp.Graph), us(steps))
				if err := s.Profile(sets[b][0], 20); err != nil {
					t.Fatal(err)
				}
				var alone []string
				for _, c := range s.Summary().Steps {
					if c.Where == WhereAlone {
						alone = append(alone, fmt.Sprintf("  %8.1f us  %s", float64(c.Mean().Nanoseconds())/1e3, c.Step))
					}
				}
				t.Logf("%s B=%d step costs over the latency runs:\n%s\nthe graph's steps launched alone (Profile, 20 runs):\n%s\nthe dense part alone (ProfileDense, 20 runs):\n%v",
					prefix, b, r.Summary, strings.Join(alone, "\n"), dp)
			}
		})
	}
}

// TestGPUDeviceSteps runs testdata/device_steps.pbtxt (a head of every
// form of device step) on the GPU against the interpreter with poisoned
// results, at B = 1, 5 and 300, on random feeds and on feeds with NaN,
// infinities and signed zeros, with the generated kernels and cuBLASLt
// fp32 (rtol 1e-5 and 1e-4; NaN and infinities where the interpreter has
// them): densekern's head kernels as the GPU runs them.
func TestGPUDeviceSteps(t *testing.T) {
	c := openGPU(t)
	m := testModel(t, "device_steps")
	configs, err := parseDense("generated-fp32,cublaslt-fp32")
	if err != nil {
		t.Fatal(err)
	}
	for _, dc := range configs {
		t.Run(dc.name, func(t *testing.T) {
			s := gpuSession(t, c, "device_steps", m, dc.options(t, Options{Slots: 1, Poison: true}))
			for i, b := range []int64{1, 5, 300} {
				for _, sp := range []bool{false, true} {
					f := deviceFeeds(b, uint64(60+i), sp)
					got, err := s.Run(f)
					if err != nil {
						t.Fatalf("B=%d: %v", b, err)
					}
					want := m.reference(t, f)
					what := fmt.Sprintf("%s B=%d specials=%v", dc.name, b, sp)
					checkNaN(t, what, got, want, dc.dense == DenseCublasLt)
				}
			}
			t.Logf("\n%s", s.Summary())
		})
	}
}
