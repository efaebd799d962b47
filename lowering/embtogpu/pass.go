// Package embtogpu is the --fuse pass (version 1): every embedding lookup
// of a layer in ONE GPU kernel.
//
// It finds each input_layer concatenation (tfg.ConcatV2 on axis 1, or
// emb.concat) whose inputs are all pooled lookups (emb.lookup,
// emb.gather_scatter, emb.gather, seen through the input_layer's
// row-preserving tfg.Reshape and tfg.Identity), plans a schedule for every
// column (Plan), builds one kernel for the whole layer (BuildKernel) into
// gpu.module @emb at the top of the module, and replaces the lookups and
// the concatenation with one fused.embedding_layer op that calls the
// kernel. The lookups, the pooling, the combiner scaling (mean, sqrtn,
// weights), empty bags (zeros) and the write of each pooled row into its
// column's slice of the [B, ΣD] output happen in the kernel.
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
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/tfg"
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
			Help: "Id transforms left before the layer (ablations): any of hash, as_string, bucketize, vocab_lookup, check_range, cast, add_offset"},
		{Name: "min-blocks", Kind: pass.IntOption, Default: 3,
			Help: "Blocks per SM the tuned kernel must fit (caps its registers at 64K / (max-threads x min-blocks))"},
		{Name: "id-pass", Kind: pass.StringOption, Default: "all",
			Help: "Columns whose ids the tuned kernel computes in a pass of their own: all, auto (all but gather columns of cheap transforms), hashes (string and integer hashes only) or none"},
		{Name: "ids-in-kernel", Kind: pass.BoolOption, Default: true,
			Help: "Compute the id transforms (hash, vocabulary, bucketize, range checks, casts) in the kernel"},
	},
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Embedding layers fused into one kernel"},
		{Name: "columns", Help: "Columns fused"},
		{Name: "classes", Help: "Schedule classes (code paths) in the kernels"},
		{Name: "id-chains", Help: "Columns whose id transforms run in the kernel"},
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

// layer is one concatenation to fuse.
type layer struct {
	concat  *textir.Operation
	lookups []*textir.Operation // in output order
}

func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	opts := p.planOptions()
	if err := opts.check(); err != nil {
		return err
	}
	layers := st.Stat("layers", "Embedding layers fused into one kernel")
	columns := st.Stat("columns", "Columns fused")
	classes := st.Stat("classes", "Schedule classes (code paths) in the kernels")
	var found []layer
	root.Walk(func(op *textir.Operation) bool {
		if l, ok := matchLayer(op, st); ok {
			found = append(found, l)
		}
		return true
	})
	if len(found) == 0 {
		st.MarkUnchanged()
		return nil
	}
	ctx := st.Context()
	body := root.Region(0).Front()
	if body == nil {
		return root.Errorf("expects a module with a body")
	}
	mod := textir.LookupSymbolIn(root, ModuleName)
	if mod != nil && mod.Name() != gpu.ModuleOp {
		return mod.Errorf("symbol @%s is taken, --fuse needs it for its gpu.module", ModuleName)
	}
	if mod == nil {
		mod = gpu.NewModule(ctx, textir.NameLoc{Name: "embedding_layer"}, ModuleName)
		body.Append(mod)
	}
	inKernel := st.Stat("id-chains", "Columns whose id transforms run in the kernel")
	for _, l := range found {
		infos := make([]ColumnInfo, len(l.lookups))
		chains := make([]*idChain, len(l.lookups))
		bb := textir.NewBuilder(ctx)
		for i, lk := range l.lookups {
			infos[i] = columnInfo(lk)
			if opts.InKernelIDs {
				chains[i] = absorbIDs(lk, bb, opts.HostIDs)
			}
			if c := chains[i]; c != nil {
				infos[i].Source, infos[i].Transforms, infos[i].IDBytes, infos[i].Sep = c.source, c.transforms, c.idBytes, c.sep
				inKernel.Inc()
			}
		}
		plan, order, err := Plan(infos, opts)
		if err != nil {
			return l.concat.Errorf("%v", err)
		}
		name := "layer"
		for i := 1; textir.LookupSymbolIn(mod, name) != nil; i++ {
			name = fmt.Sprintf("layer_%d", i)
		}
		// The op keeps the concatenation's name: its output is the
		// same tensor.
		loc := l.concat.Loc()
		if n := tfg.NodeName(l.concat); n != "" {
			if ln, ok := textir.LocName(loc); !ok || ln != n {
				loc = textir.NameLoc{Name: n}
			}
		}
		fn := BuildKernel(ctx, loc, name, plan)
		if opts.Schedule == abi.ScheduleTuned {
			// The occupancy the register allocator must keep
			// (maxntid x minctasm): the id code (hashes) must not
			// take the registers the lookups need to hide latency.
			fn.SetAttr("min_blocks", textir.I64Attr(opts.MinBlocks))
		}
		mod.Region(0).Front().Append(fn)
		var operands []*textir.Value
		seen := map[int64]bool{}
		for k, c := range plan.Columns {
			lk := l.lookups[order[k]]
			ids := lk.Operand(1)
			if ch := chains[order[k]]; ch != nil {
				ids = ch.values
			}
			operands = append(operands, lk.Operand(0), ids)
			if c.HasSplits() {
				operands = append(operands, lk.Operand(2))
			}
			if c.Weighted {
				operands = append(operands, lk.Operand(3))
			}
			if !seen[c.Class] {
				seen[c.Class] = true
				classes.Inc()
			}
		}
		b := textir.NewBuilder(ctx)
		b.SetInsertionPoint(l.concat)
		ref := textir.SymbolRefAttr{Root: ModuleName, Nested: []string{name}}
		op := b.Create(&textir.OperationState{Name: fused.EmbeddingLayerOp, Loc: loc, Operands: operands,
			ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, plan.Width}, textir.F32())},
			Attrs:       plan.Attrs(ref)})
		if n := tfg.NodeName(l.concat); n != "" {
			op.SetAttr("_mlir_name", textir.Str(n))
		}
		l.concat.Result(0).ReplaceAllUsesWith(op.Result(0))
		// The absorbed transforms go with the lookups (removable).
		eraseDead(l.concat)
		layers.Inc()
		columns.Add(int64(len(plan.Columns)))
	}
	return nil
}

// columnInfo describes a lookup for the planner.
func columnInfo(lk *textir.Operation) ColumnInfo {
	tt := lk.Operand(0).Type().(*textir.TensorType)
	ci := ColumnInfo{Name: columnName(lk), Kind: abi.KindLookup, Combiner: emb.Combiner(lk),
		Rows: tt.Shape[0], Width: tt.Shape[1], MaxBag: -1, Table: lk.Operand(0)}
	switch lk.Name() {
	case emb.GatherOp:
		ci.Kind, ci.Combiner, ci.MaxBag = abi.KindGather, emb.CombinerSum, 1
	case emb.GatherScatterOp:
		ci.MaxBag = 1
	}
	if lk.NumOperands() > 3 {
		ci.Weighted = true
	}
	if ci.Kind == abi.KindLookup && ci.MaxBag < 0 {
		if _, hi, ok := emb.BagSize(lk.Operand(2)); ok {
			ci.MaxBag = max(hi, 1)
		}
	}
	return ci
}

// columnName names a column by its lookup's location, else its table's
// name.
func columnName(lk *textir.Operation) string {
	if n, ok := textir.LocName(lk.Loc()); ok && n != "" {
		return n
	}
	if t := lk.Operand(0).DefiningOp(); t != nil {
		if s, ok := t.Attr(emb.AttrName).(textir.StringAttr); ok {
			return s.Value
		}
	}
	return ""
}

// matchLayer recognises an input_layer concatenation of lookups.
func matchLayer(op *textir.Operation, st *pass.State) (layer, bool) {
	var ins []*textir.Value
	switch op.Name() {
	case emb.ConcatOp:
		ins = op.Operands()
	case "tfg.ConcatV2":
		n := op.NumOperands()
		for n > 0 && tfg.IsControl(op.Operand(n-1).Type()) {
			n--
		}
		if n < 2 {
			return layer{}, false
		}
		if ax, ok := tfg.ConstInt(op.Operand(n - 1)); !ok || (ax != 1 && ax != -1) {
			return layer{}, false
		}
		ins = op.Operands()[:n-1]
		for _, r := range op.Results()[1:] {
			if r.HasUses() {
				return layer{}, false
			}
		}
	default:
		return layer{}, false
	}
	l := layer{concat: op}
	any := false
	for i, v := range ins {
		lk := traceLookup(v)
		if lk == nil {
			if any || i > 0 {
				st.Emit(op.Remarkf("not fused: input #%d is not a pooled embedding lookup", i))
			}
			return layer{}, false
		}
		tt, ok := lk.Operand(0).Type().(*textir.TensorType)
		if !ok || tt.Elem != textir.F32() {
			st.Emit(op.Remarkf("not fused: input #%d looks up a table of %s (version 1 fuses f32 tables)", i, lk.Operand(0).Type()))
			return layer{}, false
		}
		any = true
		l.lookups = append(l.lookups, lk)
	}
	return l, len(l.lookups) > 0
}

// traceLookup follows v back through row-preserving reshapes and
// identities to a pooled lookup, or returns nil.
func traceLookup(v *textir.Value) *textir.Operation {
	for depth := 0; depth < 8; depth++ {
		def := v.DefiningOp()
		if def == nil || v.Index() != 0 {
			return nil
		}
		switch def.Name() {
		case emb.LookupOp, emb.GatherOp, emb.GatherScatterOp:
			return def
		case "tfg.Identity":
			v = def.Operand(0)
		case "tfg.Reshape":
			src := def.Operand(0)
			d, ok := lastDim(src)
			if !ok || !reshapeKeepsWidth(def.Operand(1), d) {
				return nil
			}
			v = src
		default:
			return nil
		}
	}
	return nil
}

// lastDim returns the static width of a [?, D] value, looking through
// earlier reshapes of the chain.
func lastDim(v *textir.Value) (int64, bool) {
	for range 8 {
		if tt, ok := v.Type().(*textir.TensorType); ok && len(tt.Shape) == 2 && tt.Shape[1] >= 0 {
			return tt.Shape[1], true
		}
		def := v.DefiningOp()
		if def == nil || (def.Name() != "tfg.Reshape" && def.Name() != "tfg.Identity") {
			return 0, false
		}
		v = def.Operand(0)
	}
	return 0, false
}

// reshapeKeepsWidth reports whether the shape operand of a Reshape of a
// [B, d] tensor is [x, d] (so x is B): the input_layer's
// Pack(StridedSlice(Shape(t))[0], d), or safe_embedding_lookup_sparse's
// ConcatV2(Slice(dense_shape, [0], [1]), Slice(Shape(result), [1], [-1])).
func reshapeKeepsWidth(shape *textir.Value, d int64) bool {
	def := shape.DefiningOp()
	if def == nil {
		return false
	}
	data := func(op *textir.Operation) []*textir.Value {
		var vs []*textir.Value
		for _, x := range op.Operands() {
			if !tfg.IsControl(x.Type()) {
				vs = append(vs, x)
			}
		}
		return vs
	}
	switch def.Name() {
	case "tfg.Pack":
		in := data(def)
		if len(in) != 2 {
			return false
		}
		w, ok := tfg.ConstInt(in[1])
		return ok && w == d
	case "tfg.ConcatV2":
		in := data(def)
		if len(in) != 3 {
			return false
		}
		if ax, ok := tfg.ConstInt(in[2]); !ok || ax != 0 {
			return false
		}
		head := in[0].DefiningOp()
		if head == nil || head.Name() != "tfg.Slice" {
			return false
		}
		if sz, ok := tfg.ConstInt(data(head)[2]); !ok || sz != 1 {
			return false
		}
		tail := in[1].DefiningOp()
		if tail == nil || tail.Name() != "tfg.Slice" {
			return false
		}
		ti := data(tail)
		sh := ti[0].DefiningOp()
		if sh == nil || sh.Name() != "tfg.Shape" {
			return false
		}
		begin, ok1 := tfg.ConstInt(ti[1])
		size, ok2 := tfg.ConstInt(ti[2])
		if !ok1 || !ok2 || begin != 1 || size != -1 {
			return false
		}
		w, ok := lastDim(sh.Operand(0))
		return ok && w == d
	}
	return false
}

// removable lists the stateless ops the lookup chains are made of.
var removable = map[string]bool{
	"tfg.Reshape": true, "tfg.Shape": true, "tfg.Slice": true, "tfg.StridedSlice": true, "tfg.Pack": true,
	"tfg.Const": true, "tfg.ConcatV2": true, "tfg.Cast": true, "tfg.Identity": true,
	emb.LookupOp: true, emb.GatherOp: true, emb.GatherScatterOp: true, emb.ConcatOp: true,
	// The id transforms the kernel now computes, and the filters rebuilt
	// on raw values (absorb.go).
	emb.FilterOp: true, emb.HashOp: true, emb.AsStringOp: true, emb.BucketizeOp: true, emb.VocabLookupOp: true,
	emb.CheckRangeOp: true, emb.CastOp: true, emb.AddOffsetOp: true, emb.SplitStringsOp: true,
}

// eraseDead erases op and then every removable op left without uses.
func eraseDead(op *textir.Operation) {
	work := []*textir.Operation{op}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.Block() == nil || !removable[o.Name()] {
			continue
		}
		dropAsserts(o)
		if o.HasResultUses() {
			continue
		}
		for _, v := range o.Operands() {
			if d := v.DefiningOp(); d != nil {
				work = append(work, d)
			}
		}
		o.Erase()
	}
}

// dropAsserts erases the shape assertions on o's results when they are
// their only users: they checked tensors the fused kernel no longer makes
// (simplify-shapes has already used what they said).
func dropAsserts(o *textir.Operation) {
	var asserts []*textir.Operation
	for _, r := range o.Results() {
		for u := range r.Users() {
			if u.Name() != shape.AssertShapeOp {
				return
			}
			asserts = append(asserts, u)
		}
	}
	for _, a := range asserts {
		if a.Block() != nil {
			a.Erase()
		}
	}
}
