package session

import (
	"fmt"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/textir"
)

// Format is how a device value's elements are stored: F32, or BF16
// between the layers of a bf16 dense backend.
type Format = densekern.Elem

// The formats.
const (
	F32  = densekern.F32
	BF16 = densekern.BF16
)

// Buffer is a range of device memory: Bytes bytes at Off in Ptr. It is
// what the dense steps read and write (it satisfies runtime/cublaslt's
// Buffer): a row-major matrix of Format elements whose rows are Ld
// elements apart (the matrix's width, unless it is columns of a wider
// one).
type Buffer struct {
	Ptr        *cuda.DevicePtr
	Off, Bytes int64
	Format     Format
	Ld         int64
}

// Addr is the range's device address.
func (b Buffer) Addr() uint64 { return b.Ptr.Addr() + uint64(b.Off) }

// Size is the range's size in bytes.
func (b Buffer) Size() int64 { return b.Bytes }

// Device is what a DenseBackend runs on: the session's context and the
// module loaded from the program's PTX.
type Device struct {
	Context *cuda.Context
	Module  *cuda.Module
}

// A DenseBackend computes a program's fused.dense ops on the device, in
// the session's CUDA graph.
type DenseBackend interface {
	// Name says what computes the products, for the Summary.
	Name() string
	// Prepare readies op (d is its description, w its weight as given
	// to the op, bias nil without one) for runs on dev: it uploads the
	// constants once. New calls it once per op, in dependence order.
	Prepare(dev *Device, op *textir.Operation, d *abi.Dense, w, bias *interp.Tensor) (DenseStep, error)
}

// Layout is what a dense step asks of the storage of its operands (see
// LaidOutStep).
type Layout struct {
	// In is the format the step reads its inputs in.
	In Format
	// Concat asks for the inputs in one buffer, b rows of K (the sum of
	// the inputs' columns) in format In: Enqueue then gets one input.
	Concat bool
	// OutBF16 says that the step can write its output in BF16 (the
	// session asks for it when every reader of the output reads BF16).
	OutBF16 bool
	// OutPitched says that the step can write its output as columns of
	// a wider matrix (its part of a reader's concatenated input), when
	// the columns' byte offset and the row pitch in bytes are multiples
	// of PitchAlign (0: of the element size).
	OutPitched bool
	PitchAlign int64
	// Warm asks for one run of the step before the first capture of each
	// batch size, outside the capture: a library that loads its kernels
	// on first use (cuBLASLt) must not do so in a capture. It runs on the
	// slot's stream over the frame's buffers, whatever they hold.
	Warm bool
}

// A LaidOutStep is a DenseStep that says how its operands are stored.
// The session then gives it its inputs in Layout's format, moved there
// (converted, copied into a concatenated input) by kernels of
// runtime/densekern when they are not, and chooses where its output
// lives: SetOutput says it, once, after New has prepared every step and
// before any Workspace. A DenseStep that is not a LaidOutStep reads
// float32 inputs, each contiguous in a buffer of its own, and writes a
// contiguous float32 output.
type LaidOutStep interface {
	DenseStep
	Layout() Layout
	// SetOutput says how the step's output is stored in every batch: in
	// format f, rows ld elements apart, at addresses aligned to align
	// bytes (256 for a buffer of its own; less at a column offset of a
	// reader's concatenated input).
	SetOutput(f Format, ld, align int64) error
}

// A DenseStep enqueues one fused.dense.
type DenseStep interface {
	// Workspace is the device memory a run over b rows needs besides its
	// inputs and output (0: none). It is called once per batch size and
	// slot, before any Enqueue of that size and outside any capture: a
	// backend may prepare per-size state there (a GEMM plan), and fail.
	// The steps of a batch run one after the other and share one
	// workspace, 256-byte aligned.
	Workspace(b int64) (int64, error)
	// Enqueue enqueues y = act(concat(xs)·W + bias) over b rows on s: xs
	// are the inputs, b×ks[i] elements each (one b×K buffer for a
	// LaidOutStep that asked for Concat), y b×N elements, row-major in
	// the Buffers' formats and pitches; ws is Workspace(b) bytes (zero
	// Buffer when 0). It is called while s is captured into the batch's
	// graph, and may use only asynchronous calls on s.
	Enqueue(s *cuda.Stream, b int64, xs []Buffer, y, ws Buffer) error
	// Describe says what a run over b rows launches (for the Summary).
	Describe(b int64) string
	// Close frees what Prepare uploaded.
	Close() error
}

// GeneratedDense is the DenseBackend of the program's own kernels
// (--fuse-dense: one tiled kernel per layer with the bias and the
// activation in its epilogue, and a reduce kernel after it when a launch
// splits K), launched as abi.Dense's contract says.
type GeneratedDense struct{}

// Name implements DenseBackend.
func (GeneratedDense) Name() string { return "generated kernels (--fuse-dense)" }

// Prepare implements DenseBackend.
func (GeneratedDense) Prepare(dev *Device, op *textir.Operation, d *abi.Dense, w, bias *interp.Tensor) (DenseStep, error) {
	name, err := kernelName(op, "kernel")
	if err != nil {
		return nil, err
	}
	g := &generatedStep{d: d}
	if g.fn, err = dev.Module.Function(name); err != nil {
		return nil, op.Errorf("%v (was the PTX made with --fuse-dense from this program?)", err)
	}
	want := d.NumOperands() + 2
	if d.Split() {
		want += 2 // ws, S
	}
	if n := g.fn.NumParams(); n >= 0 && n != want {
		return nil, op.Errorf("kernel %q takes %d parameters; the layer's kernel takes %d (was the PTX made from this program?)", name, n, want)
	}
	if d.Split() {
		rname, err := kernelName(op, "reduce_kernel")
		if err != nil {
			return nil, err
		}
		if g.reduce, err = dev.Module.Function(rname); err != nil {
			return nil, op.Errorf("%v (was the PTX made with --fuse-dense from this program?)", err)
		}
		if n, want := g.reduce.NumParams(), d.NumOperands()-len(d.Ks)+3; n >= 0 && n != want {
			return nil, op.Errorf("kernel %q takes %d parameters; the layer's reduce kernel takes %d (was the PTX made from this program?)", rname, n, want)
		}
	}
	wr, wc := d.K(), d.N
	if d.TransposeB {
		wr, wc = wc, wr
	}
	if w.Float32s() == nil || w.Rank() != 2 || w.Dim(0) != wr || w.Dim(1) != wc {
		return nil, op.Errorf("the weight must be a float32 %dx%d matrix, got %v of shape %s", wr, wc, w.DType(), interp.ShapeString(w.Shape()))
	}
	if d.Bias && (bias == nil || bias.Float32s() == nil || bias.Rank() != 1 || bias.Dim(0) != d.N) {
		return nil, op.Errorf("the bias must be a float32 vector of %d", d.N)
	}
	if g.w, err = upload(dev.Context, w.Float32s()); err != nil {
		return nil, op.Errorf("weight: %v", err)
	}
	if d.Bias {
		if g.bias, err = upload(dev.Context, bias.Float32s()); err != nil {
			g.w.Close()
			return nil, op.Errorf("bias: %v", err)
		}
	}
	return g, nil
}

// upload copies v to a new device allocation.
func upload(c *cuda.Context, v []float32) (*cuda.DevicePtr, error) {
	p, err := c.Alloc(max(4*int64(len(v)), 4))
	if err != nil {
		return nil, err
	}
	if err := cuda.CopyToDevice(p, v); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

type generatedStep struct {
	d          *abi.Dense
	fn, reduce *cuda.Function
	w, bias    *cuda.DevicePtr
}

func (g *generatedStep) Workspace(b int64) (int64, error) {
	if !g.d.Split() {
		return 0, nil
	}
	return max(g.d.WorkspaceBytes(b, g.d.Splits(b)), 8), nil // the kernel takes one even unsplit
}

func (g *generatedStep) Enqueue(s *cuda.Stream, b int64, xs []Buffer, y, ws Buffer) error {
	d := g.d
	if len(xs) != len(d.Ks) {
		return fmt.Errorf("%d inputs for %d", len(xs), len(d.Ks))
	}
	var args []any
	for _, x := range xs {
		args = append(args, x.Addr())
	}
	args = append(args, g.w)
	if d.Bias {
		args = append(args, g.bias)
	}
	args = append(args, y.Addr())
	splits := d.Splits(b)
	if d.Split() {
		args = append(args, ws.Addr(), b, splits)
	} else {
		args = append(args, b)
	}
	if err := g.fn.Launch(cuda.Dim(int(d.LaunchGrid(b, splits))), cuda.Dim(int(d.Threads())), 0, s, args...); err != nil {
		return err
	}
	if !d.Split() || splits <= 1 {
		return nil
	}
	rargs := []any{ws.Addr()}
	if d.Bias {
		rargs = append(rargs, g.bias)
	}
	rargs = append(rargs, y.Addr(), b, splits)
	return g.reduce.Launch(cuda.Dim(int(d.ReduceGrid(b))), cuda.Dim(abi.ReduceThreads), 0, s, rargs...)
}

func (g *generatedStep) Describe(b int64) string {
	d := g.d
	s := d.Splits(b)
	out := fmt.Sprintf("kernel %s %d blocks x %d threads", g.fn.Name(), d.LaunchGrid(b, s), d.Threads())
	if d.Split() && s > 1 {
		out += fmt.Sprintf(" (K in %d slices), then %s %d x %d", s, g.reduce.Name(), d.ReduceGrid(b), abi.ReduceThreads)
	}
	return out
}

func (g *generatedStep) Close() error {
	err := g.w.Close()
	if err2 := g.bias.Close(); err == nil {
		err = err2
	}
	return err
}
