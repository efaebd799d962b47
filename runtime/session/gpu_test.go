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
	"github.com/recom-compiler/recom/runtime/cuda"
)

var (
	ptxDir = flag.String("ptx-dir", os.Getenv("RECOM_PTX_DIR"),
		"folder of the models' PTX for the GPU tests (MODEL.ptx, written by TestWritePTX -ptx-out); empty: compile with llc-19 now")
	ptxOut = flag.String("ptx-out", "",
		"TestWritePTX: write the PTX of the bundled model and of preset E into this folder (empty: the bundled model's, into a temporary folder)")
	e2eBatches = flag.String("e2e-batches", "1,32,256,2048", "TestE2EBench: the batch sizes")
	e2eIters   = flag.Int("e2e-iters", 200, "TestE2EBench: batches timed one by one per batch size (at least 200)")
	e2eModel   = flag.String("e2e-model", "E", "TestE2EBench: the model, small or a preset of frontend/gen")
)

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
	if name == "small" {
		m = loadSmall(t)
	} else {
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
// with the header the GPU tests check: into -ptx-out (the bundled model
// and preset E), or a temporary folder (the bundled model), read back as
// the GPU tests read it.
func TestWritePTX(t *testing.T) {
	llctest.Need(t)
	dir, names := *ptxOut, []string{"small", "E"}
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
		for _, k := range append(kernelNames(m), "layer") {
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
// the interpreter (rtol 1e-5: the dense kernels accumulate in float64)
// with poisoned results, at B = 1, 37 and 256: one batch at a time, then
// three in flight at once.
func TestGPUModels(t *testing.T) {
	c := openGPU(t)
	for _, name := range []string{"small", "E"} {
		t.Run(name, func(t *testing.T) {
			m := testModel(t, name)
			s := gpuSession(t, c, name, m, Options{Slots: 3, Poison: true})
			seed := uint64(1000)
			for _, b := range []int{1, 37, 256} {
				seed++
				f := m.feeds(t, b, seed)
				t0 := time.Now()
				got, err := s.Run(f)
				if err != nil {
					t.Fatalf("B=%d: %v", b, err)
				}
				dt := time.Since(t0)
				t0 = time.Now()
				want := m.reference(t, f)
				t.Logf("B=%d: session %.2f ms (first batch of this size: capture included), interpreter %.2f s", b, float64(dt.Microseconds())/1e3, time.Since(t0).Seconds())
				check(t, fmt.Sprintf("%s B=%d", name, b), got, want)
			}
			// Three batches in flight, each checked.
			var fs []map[string]*interp.Tensor
			var ps []*Pending
			for i := range 3 {
				seed++
				fs = append(fs, m.feeds(t, 37, seed))
				p, err := s.RunAsync(fs[i])
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
				check(t, fmt.Sprintf("%s in flight %d", name, i), got, m.reference(t, fs[i]))
			}
			t.Logf("\n%s", s.Summary())
		})
	}
}

// TestE2EBench measures a model end to end on the GPU (Bench: latency of
// 200 batches one by one, throughput with 1, 2 and 4 in flight, 4 feed
// sets rotated) at each of -e2e-batches, and prints one line per
// measurement ("E2E batch=... median_us=... p99_us=...", "E2E batch=...
// in_flight=K ... samples_per_s=...") and the step costs.
func TestE2EBench(t *testing.T) {
	c := openGPU(t)
	m := testModel(t, *e2eModel)
	s := gpuSession(t, c, *e2eModel, m, Options{Slots: 4, NoTiming: false})
	for _, f := range strings.Split(*e2eBatches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 1 {
			t.Fatalf("-e2e-batches: %q is not a batch size", f)
		}
		var sets []map[string]*interp.Tensor
		for i := range 4 {
			sets = append(sets, m.feeds(t, b, 5000+uint64(100*b+i)))
		}
		// The first set checked against the interpreter first (at the
		// smaller sizes: the interpreter's dense part is slow).
		if b <= 256 {
			got, err := s.Run(sets[0])
			if err != nil {
				t.Fatal(err)
			}
			check(t, fmt.Sprintf("%s B=%d", *e2eModel, b), got, m.reference(t, sets[0]))
		}
		r, err := Bench(s, sets, BenchOptions{Iters: *e2eIters})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("model=%s %s", *e2eModel, strings.ReplaceAll(r.String(), "\nE2E", "\nmodel="+*e2eModel+" E2E"))
		if err := s.Profile(sets[0], 20); err != nil {
			t.Fatal(err)
		}
		prof := s.Summary()
		var alone []string
		for _, c := range prof.Steps {
			if c.Where == WhereAlone {
				alone = append(alone, fmt.Sprintf("  %8.1f us  %s", float64(c.Mean().Nanoseconds())/1e3, c.Step))
			}
		}
		t.Logf("B=%d step costs over the latency runs:\n%s\nthe graph's steps launched alone (Profile, 20 runs):\n%s", b, r.Summary, strings.Join(alone, "\n"))
	}
}
