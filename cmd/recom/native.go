package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/session"
)

// The native runtime (runtime/session) behind recom run (--runtime=native,
// the default) and recom bench --e2e: the compiled program planned once,
// then every batch from feeds in host memory to outputs in host memory as
// one CUDA graph, with no interpreter on the path. What the session
// cannot plan natively is named, and recom run falls back to the
// interpreter path (--runtime=interp forces it).

// Runtimes of recom run.
const (
	runtimeNative = "native"
	runtimeInterp = "interp"
)

// sessionOptions are the session's options for a compiled model.
func (f *runFlags) sessionOptions(m *model, opts *exec.Options, c *cuda.Context, slots int) session.Options {
	return session.Options{
		Outputs:   m.outputs,
		Interp:    opts,
		CUDA:      c,
		Ordinal:   f.device,
		Slots:     slots,
		Dense:     f.cliDense(),
		Precision: f.precision,
	}
}

// cliDense is the session's dense backend for the flags: --dense-backend
// when given; else cuBLASLt for --precision tf32 or bf16 (only cuBLASLt
// computes them; an error when it cannot be loaded) and, for fp32, ""
// (the session's choice: cuBLASLt when the library loads, the generated
// kernels otherwise, with a note saying why). The session's cuBLASLt
// backend passed its GPU check in fp32, tf32 and bf16 on the H200
// (bench/RESULTS.md, 2026-12-03 17:25).
func (f *runFlags) cliDense() string {
	if f.denseBackend != "" {
		return f.denseBackend
	}
	if f.precision == "tf32" || f.precision == "bf16" {
		return session.DenseCublasLt
	}
	return ""
}

// newSession plans the compiled model m in the native runtime on the
// context c (nil: its own), or says why it cannot.
func (f *runFlags) newSession(ctx context.Context, m *model, ptx []byte, opts *exec.Options, c *cuda.Context, slots int) (*session.Session, time.Duration, error) {
	t0 := time.Now()
	s, err := session.New(ctx, session.Program{Context: m.res.Context, Module: m.res.Module}, ptx, f.sessionOptions(m, opts, c, slots))
	return s, time.Since(t0), err
}

// runNative runs one batch of feeds through the native runtime and
// returns the outputs; fallback reports an error that the interpreter
// path may not have (the session's plan refused the program).
func (f *runFlags) runNative(ctx context.Context, m *model, ptx []byte, feeds map[string]*interp.Tensor, opts *exec.Options, stderr io.Writer) (got map[string]*interp.Tensor, fallback, err error) {
	s, tNew, err := f.newSession(ctx, m, ptx, opts, nil, 1)
	var pe *session.PlanError
	if errors.As(err, &pe) {
		return nil, err, nil
	}
	if errors.Is(err, cuda.ErrNoDriver) {
		return nil, nil, fmt.Errorf("recom run and recom bench need an NVIDIA GPU and its driver: %w", err)
	}
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	t0 := time.Now()
	got, err = s.Run(feeds)
	if err != nil {
		return nil, nil, err
	}
	tRun := time.Since(t0)
	fmt.Fprintf(stderr, "recom run: %s: native runtime: planned and uploaded in %.2f s; one batch in %.3f ms (first batch: includes the CUDA graph's capture)\n",
		m.path, tNew.Seconds(), float64(tRun.Microseconds())/1e3)
	fmt.Fprint(stderr, s.Summary())
	return got, nil, nil
}

// benchE2E times the whole model end to end in the native runtime (host
// feeds to host outputs: latency of single batches, throughput with
// several in flight) over max(f.sets, 4) feed sets drawn by feedSet, and prints
// session.BenchResult's lines and the session's step costs.
func (f *benchFlags) benchE2E(ctx context.Context, m *model, ptx []byte, feedSet func(seed uint64) (map[string]*interp.Tensor, error), opts *exec.Options, c *cuda.Context, stdout io.Writer) error {
	sets := max(f.sets, 4)
	feeds := make([]map[string]*interp.Tensor, sets)
	for i := range feeds {
		var err error
		if feeds[i], err = feedSet(f.feedSeed + uint64(i)); err != nil {
			return err
		}
	}
	em := *m
	em.outputs = e2eOutputs(m.outputs, f.outputs)
	s, tNew, err := f.newSession(ctx, &em, ptx, opts, c, 4)
	if err != nil {
		return fmt.Errorf("bench --e2e: %w", err)
	}
	fmt.Fprintf(stdout, "e2e: outputs %v\n", em.outputs)
	defer s.Close()
	fmt.Fprintf(stdout, "e2e: native runtime planned and uploaded in %.2f s\n", tNew.Seconds())
	if f.dump != "" {
		eval := func(fd map[string]*interp.Tensor, nodes []string) (map[string]*interp.Tensor, error) {
			return exec.Run(ctx, m.res.Module, fd, nodes, opts)
		}
		if err := dumpDense(f.dump, s, feeds, f.sets, eval); err != nil {
			return fmt.Errorf("bench --e2e --dump-inputs: %w", err)
		}
		fmt.Fprintf(stdout, "e2e: wrote the dense part (dense.json) to %s\n", f.dump)
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("bench --cpuprofile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("bench --cpuprofile %s: %w", f.cpuProfile, err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := session.Bench(s, feeds, session.BenchOptions{Iters: max(f.iters, 200), InFlight: []int{1, 2, 4}})
	if err != nil {
		return fmt.Errorf("bench --e2e: %w", err)
	}
	fmt.Fprint(stdout, res)
	if res.Summary != nil {
		fmt.Fprint(stdout, res.Summary)
	}
	return nil
}

// e2eOutputs are the outputs the end-to-end benchmark fetches: those given
// with --outputs, else the model's without the embedding layer's own
// output, which the default adds for checks only (recom gen's models:
// prediction and input_layer/concat): a served model returns its
// predictions, and the peers fetch only those too.
func e2eOutputs(outputs, given []string) []string {
	if len(given) > 0 {
		return given
	}
	var out []string
	for _, o := range outputs {
		if o != genLayerOutput {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return outputs
	}
	return out
}

// checkTolerance is the relative tolerance of --check for the dense
// arithmetic asked for: the generated kernels accumulate in float64 as the
// interpreter does (1e-5); cuBLASLt's fp32 sums in another order (1e-4,
// issue #17's bar); tf32 and bf16 round the products' inputs (3e-2, with
// atol 3e-3, the bar bench/peers.py holds the peers to).
func (f *runFlags) checkTolerance() (rtol, atol float64) {
	switch {
	case f.runtime == runtimeInterp || f.cliDense() == session.DenseGenerated || f.dense == "cpu":
		return 1e-5, 1e-6
	case f.precision == "" || f.precision == "fp32":
		return 1e-4, 1e-6
	}
	return 3e-2, 3e-3
}
