// Package embtogpu is the --fuse pass (version 1): every embedding lookup
// of a layer in ONE GPU kernel.
//
// It is a dialect conversion (lowering/conversion). PopulateFusePatterns
// gives the pattern, rooted at an input_layer concatenation (tfg.ConcatV2
// on axis 1, or emb.concat), that matches the pooled lookups it joins
// (emb.lookup, emb.gather_scatter, emb.gather, seen through the
// input_layer's row-preserving tfg.Reshape and tfg.Identity), plans a
// schedule for every column (Plan), builds one kernel for the whole layer
// (BuildKernel) into gpu.module @emb at the end of the enclosing module
// (made by the first layer that needs it, found by the next), and replaces
// the lookups and the concatenation with one fused.embedding_layer op that
// calls the kernel. The lookups, the pooling, the combiner scaling (mean,
// sqrtn, weights), empty bags (zeros) and the write of each pooled row into
// its column's slice of the [B, ΣD] output happen in the kernel. A pooled
// lookup that reaches no concatenation (a two-tower model's tower of one
// column, whose TF1 input_layer ends in an Identity; a lookup a MatMul
// reads directly) is a layer of its own: a second pattern, rooted at the
// lookup (column.go), makes it a one-column fused.embedding_layer whose
// output replaces the end of its Identity and Reshape chain. A model of
// several such layers (the towers) gets a kernel per layer (@layer,
// @layer_1, ...).
//
// The pass's target: the fused and gpu dialects are legal; a concatenation
// the pattern fuses, the lookups it takes and a lookup that is a layer of
// its own are illegal; every other op is legal as it is, among them the
// lookups and concatenations of a layer that cannot be fused (a tensor
// that is no pooled lookup, a table that is not f32). The pass runs
// ApplyPartialConversion with them. One part stays a walk before the
// conversion: the remarks. The conversion only visits what it must
// convert, so the pass first reports every lookup it will leave (naming
// its node and why) and every concatenation that looks like an input layer
// but is not fused.
//
// The id computations before the lookups (emb.hash, emb.bucketize,
// emb.vocab_lookup, emb.check_range, emb.cast, emb.add_offset, and the
// filters on the ids: a range filter becomes the kernel's "drop", a
// positive_weights filter is rebuilt on the raw values) move into the
// kernel when their ids are proved inside the table (absorb.go); the
// kernel then takes the raw values. What stays before the layer (the
// ragged sources, ids computed by tfg ops, ids not proved in range) gets
// a remark (RemarkHostIDs) and is packed into one buffer by the runtime
// with the rest (see package fused).
//
// The tuned schedule (default): a task is one warp and handles a chunk of
// bags of one column; all tasks of all columns form one flat grid of
// max-threads blocks, and a warp finds its column by a binary search of the
// per-column task starts. Per column: a vector width of 4 floats (16-byte
// loads) when D % 4 == 0 (else 2 or 1), D/vector lanes per bag rounded up
// to a power of two (sub-warp groups for narrow rows: D = 8 gives 2 lanes,
// 16 bags per warp pass; a whole warp looping over the row for D >= 128),
// rows-in-flight independent accumulators (the id loop unrolled; twice as
// many for long bags, one for gathers), readonly (ld.global.nc) row loads,
// and bags per task chosen so that every task moves about task-bytes bytes
// (cost per bag = expected pooling x (row bytes + id bytes) + output bytes;
// rows of tables of at most l2-bytes are counted at a quarter, they stay in
// L2). Columns with the same schedule share one code path (a class).
//
// schedule=recom builds RECom's design for comparison (RECOM-NOTES.md):
// one 64-thread block per column, a thread per bag, the row accumulated 8
// floats per pass over the bag with vector loads, one id at a time, no
// load balancing across columns.
package embtogpu

import (
	"strings"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "fuse"

// ModuleName is the gpu.module the kernels go into.
const ModuleName = "emb"

// Decl declares the --fuse pass. The planner's typed Options are filled
// from its option values (optionsFrom); DefaultOptions are its defaults.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "Fuse",
	Summary: "Fuse every embedding lookup of a layer into one GPU kernel (gpu dialect)",
	Anchor:  "builtin.module",
	Options: []pass.OptDecl{
		{Name: "schedule", Kind: pass.StringOption, Default: abi.ScheduleTuned,
			Help: "Kernel design: tuned, or recom (one 64-thread block per column, for comparison)"},
		{Name: "max-threads", Kind: pass.IntOption, Default: 256,
			Help: "Threads per block of the tuned schedule"},
		{Name: "rows-in-flight", Kind: pass.IntOption, Default: 4,
			Help: "Rows in flight per thread (the id loop's unroll)"},
		{Name: "default-pooling", Kind: pass.IntOption, Default: 8,
			Help: "Expected ids per bag when no bound is known"},
		{Name: "task-bytes", Kind: pass.IntOption, Default: 4096,
			Help: "Bytes one task (a warp) should move"},
		{Name: "l2-bytes", Kind: pass.IntOption, Default: 1 << 20,
			Help: "Tables up to this many bytes are taken to stay in L2"},
		{Name: "min-tasks", Kind: pass.IntOption, Default: DefaultMinTasks,
			Help: "Tasks a launch should have at least: small batches get smaller tasks (0: off)"},
		{Name: "host-ids", Kind: pass.StringListOption,
			Help: "Id transforms left before the layer (ablations): any of hash, as_string, bucketize, vocab_lookup, check_range, cast, add_offset, filter, split_strings"},
		{Name: "min-blocks", Kind: pass.IntOption, Default: 3,
			Help: "Blocks per SM the tuned kernel must fit (caps its registers at 64K / (max-threads x min-blocks))"},
		{Name: "id-pass", Kind: pass.StringOption, Default: "all",
			Help: "Columns whose ids the tuned kernel computes in a pass of their own: all, auto (all but gather columns of cheap transforms), hashes (string and integer hashes only) or none"},
		{Name: "ids-in-kernel", Kind: pass.BoolOption, Default: true,
			Help: "Compute the id transforms (hash, vocabulary, bucketize, range checks, casts, id filters) in the kernel"},
	},
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Embedding layers fused into one kernel"},
		{Name: "columns", Help: "Columns fused"},
		{Name: "classes", Help: "Schedule classes (code paths) in the kernels"},
		{Name: "id-chains", Help: "Columns whose id transforms run in the kernel"},
		{Name: "host-id-chains", Help: "Columns fused whose ids are computed, in part or in whole, before the layer (see the remarks)"},
	},
	New: func(o *pass.Options) pass.Runner { return &Pass{opts: optionsFrom(o)} },
}

// Pass is the --fuse pass; its options are declared in Decl.
type Pass struct {
	opts Options
}

// optionsFrom returns the planner's options given by the pass's option
// values. The schedule's name is case-insensitive ("RECom" reads as
// "recom").
func optionsFrom(o *pass.Options) Options {
	return Options{Schedule: strings.ToLower(o.String("schedule")), MaxThreads: int64(o.Int("max-threads")),
		RowsInFlight: int64(o.Int("rows-in-flight")), DefaultPooling: int64(o.Int("default-pooling")),
		TaskBytes: int64(o.Int("task-bytes")), L2Bytes: int64(o.Int("l2-bytes")), InKernelIDs: o.Bool("ids-in-kernel"),
		MinTasks: int64(o.Int("min-tasks")), HostIDs: o.StringList("host-ids"), MinBlocks: int64(o.Int("min-blocks")),
		IDPass: o.String("id-pass")}
}

func (p *Pass) planOptions() Options { return p.opts }

// Run fuses every embedding layer of the module: it reports the lookups
// and concatenations it will leave (remarks), then converts the module
// with the fuse patterns against the pass's target.
func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	opts := p.planOptions()
	if err := opts.check(); err != nil {
		return err
	}
	layers := st.Stat("layers", "Embedding layers fused into one kernel")
	columns := st.Stat("columns", "Columns fused")
	classes := st.Stat("classes", "Schedule classes (code paths) in the kernels")
	a := newLayers()
	host := remarkUnfused(root, a, opts, st.Emit)
	var patterns conversion.PatternList
	var n Counts
	PopulateFusePatterns(&patterns, opts, &n)
	err := conversion.ApplyPartialConversion(root, target(st.Context(), a), patterns, nil)
	layers.Add(n.Layers)
	columns.Add(n.Columns)
	classes.Add(n.Classes)
	if n.Layers > 0 {
		st.Stat("id-chains", "Columns whose id transforms run in the kernel").Add(n.IDChains)
		st.Stat("host-id-chains", "Columns fused whose ids are computed, in part or in whole, before the layer (see the remarks)").Add(host)
	}
	if err != nil {
		return err
	}
	if n.Layers == 0 {
		st.MarkUnchanged()
	}
	return nil
}
