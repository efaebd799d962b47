// Package densetogpu is the --fuse-dense pass: the dense part of a model
// (the multilayer perceptrons of DLRM-style models) on the GPU.
//
// It finds each dense chain of tfg ops — a MatMul of a constant or
// variable weight (transpose_a / transpose_b honoured), then optionally a
// BiasAdd (or Add) of a bias vector, then optionally Relu, Sigmoid or
// Tanh — and replaces it with one fused.dense op (see dialects/fused and its abi package) whose
// kernel, a gpu.func in gpu.module @dense, computes Y = act(X·W + b) with
// the bias and the activation in the product's epilogue. When the MatMul's
// input is a ConcatV2 on axis 1 used by nothing else (the join of the
// embedding layer's output with the bottom MLP), the concatenation is
// fused into the product as well: each part covers its own range of K, so
// no concatenated tensor is ever made.
//
// It is a dialect conversion (lowering/conversion).
// PopulateFuseDensePatterns gives the pattern, rooted at the MatMul, that
// matches the chain and rewrites it; the pass's target makes every MatMul
// the pattern can fuse illegal, the fused and gpu dialects legal and the
// rest of the program legal as it is, and the pass runs
// ApplyPartialConversion with them. gpu.module @dense is made by the first
// layer that needs it. The remarks on MatMuls left for their weight come
// from a walk before the conversion, which visits only what it converts.
//
// The kernel is a classic tiled product: a block computes a
// block_m×block_n tile of Y, stepping through K by block_k with both tiles
// staged in shared memory (16-byte global loads where the widths allow,
// zeros outside the matrices), every thread keeping thread_m×thread_n
// accumulators in registers. By default the products are accumulated in
// float64 in the order k = 0..K-1, which is what the interpreter's MatMul
// does: the GPU's result is the interpreter's bit for bit before the
// activation (accumulate=f32 is faster and only close).
//
// The fused op keeps the name (and location) of the chain's last node, so
// that a fetch of "prediction" still finds the model's output.
package densetogpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "fuse-dense"

// ModuleName is the gpu.module the kernels go into.
const ModuleName = "dense"

func init() {
	pass.Register(pass.PassInfo{
		Flag:    Flag,
		Summary: "Fuse each dense layer (MatMul, bias, activation; a ConcatV2 before it) into one GPU kernel",
		New:     func() pass.Pass { return New() },
	})
}

// Options are the pass's options; zero tile sizes are chosen per layer.
type Options struct {
	Accumulate                               string
	BlockM, BlockN, BlockK, ThreadM, ThreadN int64
	NoConcat                                 bool
	// SplitK is "auto" (or ""), or the number of K slices of every launch.
	SplitK string
}

// Split-K planning of split-k=auto.
const (
	// MinSliceSteps is the fewest block_k steps of a slice.
	MinSliceSteps = 4
	// MinAutoSteps is the fewest block_k steps of a layer that
	// split-k=auto splits (a shorter K is not worth a second launch).
	MinAutoSteps = 16
	// MaxAutoSplit is the most slices split-k=auto plans for.
	MaxAutoSplit = 64
)

// Pass is the --fuse-dense pass. Options:
//
//	accumulate=f64|f32   accumulator precision (f64: the interpreter's bits)
//	block-m, block-n, block-k, thread-m, thread-n   tile sizes (0: per layer)
//	no-concat            leave a ConcatV2 before the product to the interpreter
//	split-k=auto|N       split K into slices summed by a second kernel (see
//	                     below); N: always N slices (1: never split)
//
// Split-K: a block walks K in order, so a small batch (few block rows)
// leaves most of the GPU idle. With split-k=auto (the default) a layer of
// at least MinAutoSteps steps of block_k gets a kernel that may cut K
// into up to min(MaxAutoSplit, steps/MinSliceSteps) slices, and each launch
// takes the fewest that give abi.TargetBlocks blocks (abi.Dense.Splits:
// one slice, no second kernel, once the batch fills the GPU). Each block
// sums its slice in k order; the reduce kernel adds the slices' partial
// sums in slice order (deterministic), then the bias and the activation.
type Pass struct {
	opts                                     pass.Options
	acc                                      *string
	blockM, blockN, blockK, threadM, threadN *int
	noConcat                                 *bool
	splitK                                   *string
}

// New returns a --fuse-dense pass with default options.
func New() *Pass {
	p := &Pass{}
	p.acc = p.opts.String("accumulate", "Accumulator precision: f64 (exact, the interpreter's sums) or f32", abi.AccF64)
	p.blockM = p.opts.Int("block-m", "Rows of a block's output tile (0: chosen per layer)", 0)
	p.blockN = p.opts.Int("block-n", "Columns of a block's output tile (0: chosen per layer)", 0)
	p.blockK = p.opts.Int("block-k", "K step staged in shared memory (0: 16)", 0)
	p.threadM = p.opts.Int("thread-m", "Rows of outputs per thread (0: chosen per layer)", 0)
	p.threadN = p.opts.Int("thread-n", "Columns of outputs per thread (0: chosen per layer)", 0)
	p.splitK = p.opts.String("split-k", "K slices: auto (chosen per launch from the batch) or a number (1: never split)", "auto")
	p.noConcat = p.opts.Bool("no-concat", "Do not fuse a ConcatV2 before the product (it stays in the interpreter)", false)
	return p
}

func (*Pass) Flag() string { return Flag }
func (*Pass) Name() string { return "FuseDense" }
func (*Pass) Summary() string {
	return "Fuse each dense layer (MatMul, bias, activation; a ConcatV2 before it) into one GPU kernel"
}
func (*Pass) Anchor() string           { return "builtin.module" }
func (p *Pass) Options() *pass.Options { return &p.opts }

func (p *Pass) options() Options {
	return Options{Accumulate: strings.ToLower(*p.acc), BlockM: int64(*p.blockM), BlockN: int64(*p.blockN), BlockK: int64(*p.blockK),
		ThreadM: int64(*p.threadM), ThreadN: int64(*p.threadN), NoConcat: *p.noConcat,
		SplitK: strings.ToLower(*p.splitK)}
}

func pow2ceil(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}

// Plan fills the tiling of d (Ks, N and the flags set) from the options.
func Plan(d *abi.Dense, o Options) error {
	d.Accumulate = o.Accumulate
	if d.Accumulate == "" {
		d.Accumulate = abi.AccF64
	}
	d.BlockN = o.BlockN
	if d.BlockN == 0 {
		d.BlockN = min(64, pow2ceil(d.N))
	}
	d.ThreadN = o.ThreadN
	if d.ThreadN == 0 {
		d.ThreadN = min(4, d.BlockN)
	}
	d.ThreadM = o.ThreadM
	if d.ThreadM == 0 {
		d.ThreadM = 4
	}
	d.BlockM = o.BlockM
	if d.BlockM == 0 {
		d.BlockM = 64
		for d.Threads() < 64 && d.BlockM < 256 { // narrow outputs: more rows per block
			d.BlockM *= 2
		}
	}
	d.BlockK = o.BlockK
	if d.BlockK == 0 {
		d.BlockK = 16
	}
	if err := d.Check(); err != nil {
		return err
	}
	d.SplitK, d.SplitAuto = 1, false
	switch o.SplitK {
	case "", "auto":
		if s := min(MaxAutoSplit, d.Steps()/MinSliceSteps); s >= 2 && d.Steps() >= MinAutoSteps {
			d.SplitK, d.SplitAuto = s, true
		}
	default:
		n, err := strconv.ParseInt(o.SplitK, 10, 64)
		if err != nil || n < 1 || n > abi.MaxSplitK {
			return fmt.Errorf("split-k must be auto or a number in [1, %d], got %q", abi.MaxSplitK, o.SplitK)
		}
		d.SplitK = min(n, d.Steps())
	}
	return d.Check()
}

// Run fuses every dense layer of the module: it reports the MatMuls it
// will leave for their weight (remarks), then converts the module with the
// fuse-dense pattern against the pass's target.
func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	o := p.options()
	if o.Accumulate != abi.AccF64 && o.Accumulate != abi.AccF32 {
		return fmt.Errorf("--%s: accumulate must be f64 or f32, got %q", Flag, o.Accumulate)
	}
	layers := st.Stat("layers", "Dense layers fused into one kernel")
	concats := st.Stat("concats", "ConcatV2 ops fused into a product")
	remarkUnfused(root, o, st.Emit)
	var patterns conversion.PatternList
	var n Counts
	PopulateFuseDensePatterns(&patterns, o, &n)
	err := conversion.ApplyPartialConversion(root, target(st.Context(), o), patterns, nil)
	layers.Add(n.Layers)
	concats.Add(n.Concats)
	if err != nil {
		return err
	}
	if n.Layers == 0 {
		st.MarkUnchanged()
	}
	return nil
}
