package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/runtime/cuda"
)

func TestWriteNPY(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		shape []int64
		data  any
	}{
		{"ids", []int64{5}, []int64{0, -1, 7, 1 << 40, 3}},
		{"splits", []int64{2, 3}, []int64{0, 1, 2, 2, 3, 5}},
		{"out", []int64{2, 2}, []float32{1.5, -2, 0, 3.25}},
		{"empty", []int64{0}, []float32{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".npy")
			if err := writeNPYAny(p, c.shape, c.data); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if (bytes.IndexByte(b, '\n')+1)%64 != 0 {
				t.Errorf("header not padded to 64 bytes")
			}
			got, err := npz.DecodeNPY(b)
			if err != nil {
				t.Fatal(err)
			}
			var want *interp.Tensor
			switch d := c.data.(type) {
			case []int64:
				want, err = interp.New(c.shape, d)
			case []float32:
				want, err = interp.New(c.shape, d)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Equal(want); err != nil {
				t.Error(err)
			}
		})
	}
}

// Without a CUDA driver, run says so and exits 1; --emit-ptx needs none.
func TestRunWithoutGPU(t *testing.T) {
	if drv, err := cuda.Open(); err == nil {
		_ = drv
		t.Skip("a CUDA driver is present")
	} else if !errors.Is(err, cuda.ErrNoDriver) {
		t.Skipf("driver: %v", err)
	}
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	tables := filepath.Join("..", "..", "examples", "small.tables.npz")
	feeds := filepath.Join(dir, "f.npz")
	var out, errb bytes.Buffer
	if rc := run([]string{"gen", "--feeds", "--batch", "4", model, "-o", feeds}, nil, &out, &errb); rc != 0 {
		t.Fatalf("gen: %d: %s", rc, errb.String())
	}
	out.Reset()
	errb.Reset()
	ptx := filepath.Join(dir, "m.ptx")
	args := []string{"run", model, "--tables", tables, "--feeds", feeds, "-o", filepath.Join(dir, "o.npz"), "--check"}
	if _, err := os.Stat("/usr/bin/llc-19"); err == nil {
		if rc := run([]string{"run", model, "--emit-ptx", ptx}, nil, &out, &errb); rc != 0 {
			t.Fatalf("--emit-ptx: %d: %s", rc, errb.String())
		}
		args = append(args, "--ptx", ptx)
	}
	errb.Reset()
	rc := run(args, nil, &out, &errb)
	if rc != 1 || !strings.Contains(errb.String(), "need an NVIDIA GPU and its driver") {
		t.Errorf("run without a driver: status %d, stderr %q", rc, errb.String())
	}
}

// recom run takes a stage's IR with --outputs (what to fetch; the IR is
// past any cut), as bench/real-graphs.sh and run-example.sh run a cut
// graph's 0-tfg.mlir.
func TestRunIRWithOutputs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	if st, _, se := runTool("compile", model, "-o", filepath.Join(dir, "c"), "-q", "--stop-after=import"); st != 0 {
		t.Fatalf("compile: %s", se)
	}
	ptx := filepath.Join(dir, "m.ptx")
	st, _, se := runTool("run", filepath.Join(dir, "c", "0-tfg.mlir"), "--outputs", "prediction", "--emit-ptx", ptx)
	if strings.Contains(se, "apply to graph files") {
		t.Fatalf("--outputs refused on IR: %s", se)
	}
	if _, err := os.Stat("/usr/bin/llc-19"); err == nil {
		if _, err := os.Stat(ptx); st != 0 || err != nil {
			t.Fatalf("--emit-ptx from IR: status %d: %s", st, se)
		}
	} else if st == 0 || !strings.Contains(se, "llc") {
		t.Fatalf("without llc-19: status %d: %s", st, se)
	}
}

// recom run refuses an unknown --runtime before it compiles anything.
func TestRunBadRuntime(t *testing.T) {
	var out, errb bytes.Buffer
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	rc := run([]string{"run", model, "--runtime", "cpu", "-o", filepath.Join(t.TempDir(), "o.npz")}, nil, &out, &errb)
	if rc != 1 || !strings.Contains(errb.String(), `--runtime must be native or interp, got "cpu"`) {
		t.Errorf("status %d, stderr %q", rc, errb.String())
	}
}

func TestE2EOutputs(t *testing.T) {
	for _, tc := range []struct{ outputs, given, want []string }{
		{[]string{"prediction", "input_layer/concat"}, nil, []string{"prediction"}},
		{[]string{"input_layer/concat"}, nil, []string{"input_layer/concat"}},
		{[]string{"prediction", "input_layer/concat"}, []string{"input_layer/concat"}, []string{"input_layer/concat"}},
		{[]string{"head/probabilities"}, nil, []string{"head/probabilities"}},
	} {
		if got := e2eOutputs(tc.outputs, tc.given); !slices.Equal(got, tc.want) {
			t.Errorf("e2eOutputs(%v, %v) = %v, want %v", tc.outputs, tc.given, got, tc.want)
		}
	}
}

// bench --emit-ptx, as run's, compiles and writes the PTX without a GPU or
// a CUDA driver (it used to open the driver first and fail).
func TestBenchEmitPTXWithoutGPU(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	ptx := filepath.Join(dir, "m.ptx")
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	status, stdout, stderr := runTool("bench", model, "--emit-ptx", ptx, "--dense=cpu")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	b, err := os.ReadFile(ptx)
	if err != nil || !bytes.Contains(b, []byte(".entry")) {
		t.Fatalf("PTX: %.80q, %v", b, err)
	}
	if !strings.Contains(stdout, "wrote "+ptx) {
		t.Errorf("stdout %q", stdout)
	}
}

func TestBenchCPUProfileNeedsE2E(t *testing.T) {
	var out, errw bytes.Buffer
	f := &benchFlags{batch: 1, sets: 1, iters: 1, cpuProfile: filepath.Join(t.TempDir(), "cpu.pprof")}
	err := runBench(context.Background(), "model.pb", f, &out, &errw)
	if err == nil || !strings.Contains(err.Error(), "--cpuprofile profiles the --e2e timing") {
		t.Fatalf("err = %v", err)
	}
}
