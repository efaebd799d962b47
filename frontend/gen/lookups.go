package gen

import (
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// The tf.nn lookups, node for node as embedding_ops.py writes them:
// embedding_lookup (one table, or a table in shards split by a partition
// strategy) and embedding_lookup_sparse (with or without weights), in
// the graphs of three TensorFlow versions. safeLookup (graph.go) and the
// plain-lookup models (plain.go) build on them.

// tfStyle is the TensorFlow version whose embedding_ops.py is written.
type tfStyle string

const (
	// tf26 is TensorFlow 2.6 (RECom's artifact, and the feature-column
	// graphs): Unique before every lookup, RealDiv for weighted means,
	// AddV2.
	tf26 tfStyle = ""
	// tf115 is TensorFlow 1.15: as 2.6, but Add.
	tf115 tfStyle = "1.15"
	// tf216 is TensorFlow 2.16: embedding_lookup_sparse without weights
	// over one table pools the table itself (no Unique, int64 segment
	// ids, sparse_gradient), and weighted means divide with DivNoNan.
	tf216 tfStyle = "2.16"
)

// lookupParams is embedding_lookup's params: one table, or the shards of
// a partitioned variable (rows: each shard's rows) and the strategy.
type lookupParams struct {
	shards   []tableRef
	rows     []int64
	strategy string
	dim      int64
	style    tfStyle
}

func (p lookupParams) total() int64 {
	n := int64(0)
	for _, r := range p.rows {
		n += r
	}
	return n
}

// addOp is the op of Python's + on tensors.
func (s tfStyle) addOp() string {
	if s == tf115 {
		return "Add"
	}
	return "AddV2"
}

// aStrs is a list(string) attribute.
func aStrs(v ...string) *tfpb.AttrValue {
	l := &tfpb.AttrValue_ListValue{}
	for _, s := range v {
		l.S = append(l.S, []byte(s))
	}
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: l}}
}

// constOf is a scalar integer Python constant converted to dt.
func (b *builder) constOf(name string, dt tfpb.DataType, v int64) tensor {
	if dt == dtInt64 {
		return b.scalarI64(name, v)
	}
	return b.scalarI32(name, int32(v))
}

// node is the node name of a table's variable (the read's input).
func (t tableRef) node() string {
	if t.resource {
		return t.read.ref
	}
	if n := len(t.read.ref) - len("/read"); n > 0 && t.read.ref[n:] == "/read" {
		return t.read.ref[:n]
	}
	return t.read.ref
}

// gatherRows is array_ops.gather(params, ids, name=name) on one table: a
// ResourceGather through the variable's sparse_read, else a GatherV2.
// full is the op's full name.
func (g *gen) gatherRows(full string, t tableRef, ids tensor) tensor {
	b := g.b
	var r tensor
	if t.resource {
		r = b.emit(full, "ResourceGather", []tensor{t.read, ids}, attrs("Tindices", aType(ids.dt),
			"batch_dims", aInt(0), "dtype", aType(dtFloat), "validate_indices", aBool(true)))
	} else {
		s := b.enterAbs(full)
		ax := b.scalarI32("axis", 0)
		b.exit(s)
		r = b.gatherV2Named(full, t.read, ids, ax)
	}
	r.dt = dtFloat
	return r
}

// embeddingLookup is embedding_lookup(params, ids) (its scope
// "embedding_lookup"): a gather and an Identity for one table, else the
// ids split by shard (DynamicPartition), a gather per shard and
// ParallelDynamicStitch, reshaped to ids' shape + [dim].
func (g *gen) embeddingLookup(p lookupParams, ids tensor) tensor {
	b := g.b
	name, saved := b.enter("embedding_lookup")
	defer b.exit(saved)
	np := int64(len(p.shards))
	if np == 1 {
		return b.identity("Identity", g.gatherRows(name, p.shards[0], ids))
	}
	flat := b.reshapeConst(ids, -1)
	size := b.op("Size", "Size", []tensor{flat}, attrs("T", aType(flat.dt), "out_type", aType(dtInt32)))
	size.dt = dtInt32
	pos := g.rangeOp(&size, 0)
	dt := flat.dt
	npConst := func(b *builder, n string) tensor { return b.constOf(n, dt, np) }
	one := func(b *builder, n string) tensor { return b.constOf(n, dt, 1) }
	var assign, newIDs tensor
	if p.strategy == "mod" {
		assign = b.binaryConstY("FloorMod", "mod", flat, npConst, 0)
		newIDs = b.binaryConstY("FloorDiv", "floordiv", flat, npConst, 0)
	} else {
		total := b.constOf("Const", dt, p.total())
		ipp := b.binaryConstY("FloorDiv", "floordiv", total, npConst, 0)
		extras := b.binaryConstY("FloorMod", "mod", total, npConst, 0)
		add := b.binaryConstY(p.style.addOp(), "add", ipp, one, 0)
		a1 := b.binary("FloorDiv", "floordiv", flat, add, 0)
		sub := b.binary("Sub", "sub", flat, extras, 0)
		a2 := b.binary("FloorDiv", "floordiv", sub, ipp, 0)
		assign = b.binary("Maximum", "Maximum", a1, a2, 0)
		less := b.binary("Less", "Less", assign, extras, dtBool)
		add1 := b.binaryConstY(p.style.addOp(), "add", ipp, one, 0)
		m1 := b.binary("FloorMod", "mod", flat, add1, 0)
		sub1 := b.binary("Sub", "sub", flat, extras, 0)
		m2 := b.binary("FloorMod", "mod", sub1, ipp, 0)
		newIDs = b.op("Select", "Select", []tensor{less, m1, m2}, b.tAttr(dt))
		newIDs.dt = dt
	}
	assign = b.cast("Cast", assign, dtInt32)
	gather := b.op("DynamicPartition", "DynamicPartition", []tensor{newIDs, assign}, attrs("T", aType(dt), "num_partitions", aInt(np)))
	pidx := b.op("DynamicPartition", "DynamicPartition", []tensor{pos, assign}, attrs("T", aType(dtInt32), "num_partitions", aInt(np)))
	var indices, rows []tensor
	for i, t := range p.shards {
		pids := gather.out(i, dt)
		var r tensor
		if t.resource {
			// sparse_read(pids): name_scope("Gather").
			r = g.gatherRows(b.unique(b.scope+"Gather"), t, pids)
		} else {
			r = g.gatherRows(b.unique(b.scope+"GatherV2"), t, pids)
		}
		// ops.colocate_with(params[p]).
		n := b.nodes[len(b.nodes)-1]
		n.Attr = copyAttrs(n.Attr)
		n.Attr["_class"] = aStrs("loc:@" + t.node())
		indices = append(indices, pidx.out(i, dtInt32))
		rows = append(rows, r)
	}
	st := b.emit(name, "ParallelDynamicStitch", append(indices, rows...), attrs("N", aInt(np), "T", aType(dtFloat)))
	st.dt = dtFloat
	// Reshape to ids' shape + the (static) element shape.
	sh := b.shape("Shape", ids, dtInt32)
	full, s := b.enter("concat")
	el := b.vecI32("values_1", int32(p.dim))
	ax := b.scalarI32("axis", 0)
	b.exit(s)
	cc := b.emit(full, "ConcatV2", []tensor{sh, el, ax}, attrs("N", aInt(2), "T", aType(dtInt32), "Tidx", aType(dtInt32)))
	cc.dt = dtInt32
	return b.reshape(st, cc)
}

// copyAttrs copies an attr map (generated maps may be shared).
func copyAttrs(m map[string]*tfpb.AttrValue) map[string]*tfpb.AttrValue {
	out := make(map[string]*tfpb.AttrValue, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// lookupSparse is embedding_lookup_sparse(params, sp_ids, sp_weights,
// combiner) under scope name (sp_ids.dense_shape is not read): segment
// ids from the ids' rows, the rows of the ids (Unique, then
// embedding_lookup; or, in TensorFlow 2.16 without weights and over one
// table, the table itself), pooled by SparseSegment{Sum,Mean,SqrtN}, or
// with weights multiplied and summed by SegmentSum (divided by the
// weights' sum, or the root of their squares' sum).
func (g *gen) lookupSparse(name, combiner string, p lookupParams, sp sparseT, w *tensor) tensor {
	b := g.b
	elsName, s := b.enter(name)
	defer b.exit(s)
	seg := b.stridedSlice(sp.indices, []int32{0, 0}, []int32{0, 1}, []int32{1, 1}, 1, 1, 2)
	fast := p.style == tf216 && w == nil && len(p.shards) == 1
	if p.style != tf216 || w != nil {
		// TensorFlow 2.16 pools int64 segment ids without weights.
		seg = b.cast("Cast", seg, dtInt32)
	}
	var rows, idx tensor
	if fast {
		t := p.shards[0]
		rows = t.read
		if t.resource {
			// read_value_no_copy(): name_scope("Read"), then identity.
			_, s := b.enter("Read")
			rows = b.op("ReadVariableOp", "ReadVariableOp", []tensor{t.read}, attrs("dtype", aType(dtFloat)))
			rows.dt = dtFloat
			b.exit(s)
			rows = b.identity("Identity", rows)
		}
		idx = sp.values
	} else {
		uq := b.op("Unique", "Unique", []tensor{sp.values}, attrs("T", aType(sp.values.dt), "out_idx", aType(dtInt32)))
		uq.dt = sp.values.dt
		rows = g.embeddingLookup(p, uq)
		idx = uq.out(1, dtInt32)
	}
	var result tensor
	if w == nil {
		op := map[string]string{"sum": "SparseSegmentSum", "mean": "SparseSegmentMean", "sqrtn": "SparseSegmentSqrtN"}[combiner]
		a := []any{"T", aType(dtFloat), "Tidx", aType(idx.dt), "Tsegmentids", aType(seg.dt)}
		if p.style == tf216 {
			a = append(a, "sparse_gradient", aBool(fast))
		}
		result = b.emit(elsName, op, []tensor{rows, idx, seg}, attrs(a...))
		result.dt = dtFloat
		return result
	}
	wv := *w
	emb := b.gatherV2("GatherV2", rows, idx)
	rank := b.scalarI32("Rank", 2)
	sub := b.binaryConstY("Sub", "sub", rank, func(b *builder, n string) tensor { return b.scalarI32(n, 1) }, 0)
	ed := b.expandDims(sub, 0)
	var ones tensor
	if p.style == tf216 {
		// array_ops.ones(shape, dtype=int32).
		full, s3 := b.enter("ones")
		one := b.scalarI32("Const", 1)
		b.exit(s3)
		ones = b.emit(full, "Fill", []tensor{ed, one}, attrs("T", aType(dtInt32), "index_type", aType(dtInt32)))
	} else {
		full, s3 := b.enter("Fill")
		one := b.scalarI32("value", 1)
		b.exit(s3)
		ones = b.emit(full, "Fill", []tensor{ed, one}, attrs("T", aType(dtInt32), "index_type", aType(dtInt32)))
	}
	ones.dt = dtInt32
	wsh := b.shape("Shape", wv, dtInt32)
	bshape := b.concatV2("concat", []tensor{wsh, ones}, 0)
	wr := b.reshape(wv, bshape)
	mul := b.binary("Mul", "mul", emb, wr, 0)
	segSum := func(name string, x tensor) tensor {
		t := b.emit(name, "SegmentSum", []tensor{x, seg}, attrs("T", aType(dtFloat), "Tindices", aType(dtInt32)))
		t.dt = dtFloat
		return t
	}
	div := "RealDiv"
	if p.style == tf216 {
		div = "DivNoNan"
	}
	switch combiner {
	case "sum":
		result = segSum(elsName, mul)
	case "mean":
		num := segSum(b.unique(b.scope+"SegmentSum"), mul)
		den := segSum(b.unique(b.scope+"SegmentSum"), wr)
		result = b.emit(elsName, div, []tensor{num, den}, b.tAttr(dtFloat))
	default:
		num := segSum(b.unique(b.scope+"SegmentSum"), mul)
		pw := b.binaryConstY("Pow", "Pow", wr, func(b *builder, n string) tensor { return b.scalarF32(n, 2) }, 0)
		den := segSum(b.unique(b.scope+"SegmentSum"), pw)
		sq := b.op("Sqrt", "Sqrt", []tensor{den}, b.tAttr(dtFloat))
		sq.dt = dtFloat
		result = b.emit(elsName, div, []tensor{num, sq}, b.tAttr(dtFloat))
	}
	result.dt = dtFloat
	return result
}
