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
	"github.com/recom-compiler/recom/lowering/foldbn"
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

// Decl declares the --fuse-dense pass. Its option values fill the typed
// Options (optionsFrom); DefaultOptions are its defaults.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "FuseDense",
	Summary: "Fuse each dense layer (MatMul, bias, activation; a ConcatV2 before it) into one GPU kernel",
	Anchor:  "builtin.module",
	Options: []pass.OptDecl{
		{Name: "accumulate", Kind: pass.StringOption, Default: abi.AccF64,
			Help: "Accumulator precision: f64 (exact, the interpreter's sums) or f32"},
		{Name: "block-m", Kind: pass.IntOption, Help: "Rows of a block's output tile (0: chosen per layer)"},
		{Name: "block-n", Kind: pass.IntOption, Help: "Columns of a block's output tile (0: chosen per layer)"},
		{Name: "block-k", Kind: pass.IntOption, Help: "K step staged in shared memory (0: 16)"},
		{Name: "thread-m", Kind: pass.IntOption, Help: "Rows of outputs per thread (0: chosen per layer)"},
		{Name: "thread-n", Kind: pass.IntOption, Help: "Columns of outputs per thread (0: chosen per layer)"},
		{Name: "split-k", Kind: pass.StringOption, Default: "auto",
			Help: "K slices: auto (chosen per launch from the batch) or a number (1: never split)"},
		{Name: "no-fold-bn", Kind: pass.BoolOption,
			Help: "Do not fold inference batch normalization into the next dense layer first (--fold-bn)"},
		{Name: "no-concat", Kind: pass.BoolOption,
			Help: "Do not fuse a ConcatV2 before the product (it stays in the interpreter)"},
	},
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Dense layers fused into one kernel"},
		{Name: "concats", Help: "ConcatV2 ops fused into a product"},
		{Name: "batch-norms-folded", Help: "Batch normalizations folded into the next dense layer (--fold-bn)"},
	},
	New: func(o *pass.Options) pass.Runner { return &Pass{opts: optionsFrom(o)} },
}

// Options are the pass's options; zero tile sizes are chosen per layer.
type Options struct {
	Accumulate                               string
	BlockM, BlockN, BlockK, ThreadM, ThreadN int64
	NoConcat                                 bool
	// NoFoldBN leaves batch normalization before a product unfolded.
	NoFoldBN bool
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

// Pass is the --fuse-dense pass; its options are declared in Decl.
//
// Split-K: a block walks K in order, so a small batch (few block rows)
// leaves most of the GPU idle. With split-k=auto (the default) a layer of
// at least MinAutoSteps steps of block_k gets a kernel that may cut K
// into up to min(MaxAutoSplit, steps/MinSliceSteps) slices, and each launch
// takes the fewest that give abi.TargetBlocks blocks (abi.Dense.Splits:
// one slice, no second kernel, once the batch fills the GPU); split-k=N
// always cuts N slices. Each block sums its slice in k order; the reduce
// kernel adds the slices' partial sums in slice order (deterministic),
// then the bias and the activation.
type Pass struct {
	opts Options
}

// optionsFrom returns the typed options given by the pass's option values
// (accumulate and split-k are case-insensitive).
func optionsFrom(o *pass.Options) Options {
	return Options{Accumulate: strings.ToLower(o.String("accumulate")),
		BlockM: int64(o.Int("block-m")), BlockN: int64(o.Int("block-n")), BlockK: int64(o.Int("block-k")),
		ThreadM: int64(o.Int("thread-m")), ThreadN: int64(o.Int("thread-n")), NoConcat: o.Bool("no-concat"), NoFoldBN: o.Bool("no-fold-bn"),
		SplitK: strings.ToLower(o.String("split-k"))}
}

// DefaultOptions returns the defaults of the options declared in Decl.
func DefaultOptions() Options { return optionsFrom(Decl.Defaults()) }

func (p *Pass) options() Options { return p.opts }

func pow2ceil(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}

// Check checks the options on their own, before any layer is planned (an
// option no layer could take is an error even in a module without dense
// layers): accumulate f64 or f32; tile sizes 0 (chosen per layer) or
// powers of two, at most abi.MaxBlockTile for a block and 8 for a thread;
// split-k auto or a number in [1, abi.MaxSplitK].
func (o Options) Check() error {
	if o.Accumulate != abi.AccF64 && o.Accumulate != abi.AccF32 {
		return fmt.Errorf("accumulate must be f64 or f32, got %q", o.Accumulate)
	}
	for _, t := range []struct {
		name string
		v    int64
		max  int64
	}{{"block-m", o.BlockM, abi.MaxBlockTile}, {"block-n", o.BlockN, abi.MaxBlockTile}, {"block-k", o.BlockK, abi.MaxBlockTile},
		{"thread-m", o.ThreadM, 8}, {"thread-n", o.ThreadN, 8}} {
		if t.v != 0 && (t.v < 0 || t.v&(t.v-1) != 0 || t.v > t.max) {
			return fmt.Errorf("%s must be 0 (chosen per layer) or a power of two up to %d, got %d", t.name, t.max, t.v)
		}
	}
	if o.SplitK != "" && o.SplitK != "auto" {
		if n, err := strconv.ParseInt(o.SplitK, 10, 64); err != nil || n < 1 || n > abi.MaxSplitK {
			return fmt.Errorf("split-k must be auto or a number in [1, %d], got %q", abi.MaxSplitK, o.SplitK)
		}
	}
	return nil
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
	d.SplitK, d.SplitAuto = 1, false
	if err := d.Check(); err != nil {
		return err
	}
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
	if err := o.Check(); err != nil {
		return fmt.Errorf("--%s: %v", Flag, err)
	}
	layers := st.Stat("layers", "Dense layers fused into one kernel")
	concats := st.Stat("concats", "ConcatV2 ops fused into a product")
	if !o.NoFoldBN {
		st.Stat("batch-norms-folded", "Batch normalizations folded into the next dense layer (--fold-bn)").Add(foldbn.Fold(root, st.Context()))
	}
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
