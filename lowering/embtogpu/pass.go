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
// its column's slice of the [B, ΣD] output happen in the kernel.
//
// The pass's target: the fused and gpu dialects are legal; a concatenation
// the pattern fuses and the lookups it takes are illegal; every other op
// is legal as it is, among them the lookups and concatenations of a layer
// that cannot be fused (a tensor that is no pooled lookup, a table that is
// not f32) and lookups that reach no concatenation. The pass runs
// ApplyPartialConversion with them. One part stays a walk before the
// conversion: the remarks. The conversion only visits what it must
// convert, so the pass first reports every lookup it will leave (naming
// its node and why) and every concatenation that looks like an input layer
// but is not fused.
//
// Version 1 leaves the id computations before the lookups (emb.hash,
// emb.bucketize, emb.vocab_lookup, emb.check_range, the ragged sources,
// ...) where they are: their results (ids, row splits, weights) become the
// kernel's inputs, packed into one buffer by the runtime (see package
// fused). Moving the id transforms into the kernel is version 2.
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

	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "fuse"

// ModuleName is the gpu.module the kernels go into.
const ModuleName = "emb"

func init() {
	pass.Register(pass.PassInfo{
		Flag:    Flag,
		Summary: "Fuse every embedding lookup of a layer into one GPU kernel (gpu dialect)",
		New:     func() pass.Pass { return New() },
	})
}

// Pass is the --fuse pass. Options:
//
//	schedule=tuned|recom   the kernel design (default tuned; case-insensitive)
//	max-threads=256        threads per block (tuned)
//	rows-in-flight=4       independent rows per thread (tuned)
//	default-pooling=8      expected ids per bag when no bound is known
//	task-bytes=4096        bytes a task (a warp) should move
//	l2-bytes=1048576       tables up to this size are taken to stay in L2
//	ids-in-kernel=true     the id transforms run in the kernel (false: before it, on the host)
//	min-blocks=3           blocks per SM the tuned kernel must fit (a register cap: 85 at 256 threads)
//	id-pass=all            columns whose ids get a pass of their own per task: all, auto, hashes, none
//	host-ids=hash,...      id transforms (emb op names without "emb.") left before the layer
//	min-tasks=6336         small batches get smaller tasks, down to one warp pass, until a launch has this many (0: off)
type Pass struct {
	opts                                 pass.Options
	schedule                             *string
	maxThreads, rif, pooling, task, l2sz *int
	ids                                  *bool
	minTasks                             *int
	hostIDs                              *[]string
	minBlocks                            *int
	idPass                               *string
}

// New returns a --fuse pass with default options.
func New() *Pass {
	p := &Pass{}
	d := DefaultOptions()
	p.schedule = p.opts.String("schedule", "Kernel design: tuned, or recom (one 64-thread block per column, for comparison)", d.Schedule)
	p.maxThreads = p.opts.Int("max-threads", "Threads per block of the tuned schedule", int(d.MaxThreads))
	p.rif = p.opts.Int("rows-in-flight", "Rows in flight per thread (the id loop's unroll)", int(d.RowsInFlight))
	p.pooling = p.opts.Int("default-pooling", "Expected ids per bag when no bound is known", int(d.DefaultPooling))
	p.task = p.opts.Int("task-bytes", "Bytes one task (a warp) should move", int(d.TaskBytes))
	p.l2sz = p.opts.Int("l2-bytes", "Tables up to this many bytes are taken to stay in L2", int(d.L2Bytes))
	p.minTasks = p.opts.Int("min-tasks", "Tasks a launch should have at least: small batches get smaller tasks (0: off)", int(d.MinTasks))
	p.hostIDs = p.opts.StringList("host-ids", "Id transforms left before the layer (ablations): any of hash, as_string, bucketize, vocab_lookup, check_range, cast, add_offset", nil)
	p.minBlocks = p.opts.Int("min-blocks", "Blocks per SM the tuned kernel must fit (caps its registers at 64K / (max-threads x min-blocks))", int(d.MinBlocks))
	p.idPass = p.opts.String("id-pass", "Columns whose ids the tuned kernel computes in a pass of their own: all, auto (all but gather columns of cheap transforms), hashes (string and integer hashes only) or none", d.IDPass)
	p.ids = p.opts.Bool("ids-in-kernel", "Compute the id transforms (hash, vocabulary, bucketize, range checks, casts) in the kernel", d.InKernelIDs)
	return p
}

func (*Pass) Flag() string { return Flag }
func (*Pass) Name() string { return "Fuse" }
func (*Pass) Summary() string {
	return "Fuse every embedding lookup of a layer into one GPU kernel (gpu dialect)"
}
func (*Pass) Anchor() string           { return "builtin.module" }
func (p *Pass) Options() *pass.Options { return &p.opts }

func (p *Pass) planOptions() Options {
	// The schedule's name is case-insensitive ("RECom" reads as "recom").
	return Options{Schedule: strings.ToLower(*p.schedule), MaxThreads: int64(*p.maxThreads), RowsInFlight: int64(*p.rif),
		DefaultPooling: int64(*p.pooling), TaskBytes: int64(*p.task), L2Bytes: int64(*p.l2sz), InKernelIDs: *p.ids, MinTasks: int64(*p.minTasks), HostIDs: *p.hostIDs, MinBlocks: int64(*p.minBlocks), IDPass: *p.idPass}
}

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
	remarkUnfused(root, a, st.Emit)
	var patterns conversion.PatternList
	var n Counts
	PopulateFusePatterns(&patterns, opts, &n)
	err := conversion.ApplyPartialConversion(root, target(st.Context(), a), patterns, nil)
	layers.Add(n.Layers)
	columns.Add(n.Columns)
	classes.Add(n.Classes)
	if n.Layers > 0 {
		st.Stat("id-chains", "Columns whose id transforms run in the kernel").Add(n.IDChains)
	}
	if err != nil {
		return err
	}
	if n.Layers == 0 {
		st.MarkUnchanged()
	}
	return nil
}
