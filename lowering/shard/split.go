package shard

import (
	"fmt"
	"sort"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/textir"
)

// entry is one column of a device's layer: a column of the unsharded
// layer (table-wise) or a row range of one (row-wise).
type entry struct {
	col      abi.Column
	operands []*textir.Value
	table    *textir.Value // the table operand: columns that share it share its copy
	src      int           // the column of the unsharded layer
	offset   int64         // its floats in the device's partial output
}

// Counts is what Split did.
type Counts struct {
	Layers    int64 // device layers made
	TableWise int64 // columns placed whole
	RowWise   int64 // columns cut into row ranges
	Pieces    int64 // row ranges
}

// Split rewrites op, a fused.embedding_layer (l, its layer), by the plan p:
// a fused.table_slice per row range, a fused.route per row-wise column, a
// fused.embedding_layer per device that holds a table or a row range (its
// kernel built into the gpu.module of op's kernel, named after it with
// _d<device>), and the fused.exchange that assembles the layer's output on
// the dense device with the combine kernel (made once per gpu.module).
// op's result is replaced by the exchange's; op, and its kernel when
// nothing else calls it, are erased. Nothing is changed when an error is
// returned.
func Split(ctx *textir.Context, op *textir.Operation, l *abi.Layer, p *abi.ShardPlan, counts *Counts) (*textir.Operation, error) {
	if counts == nil {
		counts = &Counts{}
	}
	if err := p.CheckLayer(l); err != nil {
		return nil, op.Errorf("%v", err)
	}
	ref, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr)
	if !ok || len(ref.Nested) != 1 {
		return nil, op.Errorf("expects attribute 'kernel' to name a kernel of a gpu.module (@module::@kernel)")
	}
	kfn := textir.LookupSymbol(op, ref)
	if kfn == nil || kfn.Name() != gpu.FuncOp {
		return nil, op.Errorf("kernel %s not found", ref)
	}
	mod := kfn.ParentOp()
	// The columns in output order; they must tile the output row.
	outOrder := make([]int, len(l.Columns))
	for i := range outOrder {
		outOrder[i] = i
	}
	sort.SliceStable(outOrder, func(a, b int) bool { return l.Columns[outOrder[a]].OutOffset < l.Columns[outOrder[b]].OutOffset })
	var at int64
	for _, i := range outOrder {
		c := &l.Columns[i]
		if c.OutOffset != at {
			return nil, op.Errorf("cannot shard a layer whose columns do not tile its output row: column #%d (%q) is at %d, not %d", i, c.Name, c.OutOffset, at)
		}
		at += c.Width
	}
	if at != l.Width {
		return nil, op.Errorf("cannot shard a layer whose columns do not tile its output row: they end at %d of %d", at, l.Width)
	}
	starts := make([]int, len(l.Columns)+1)
	for i := range l.Columns {
		starts[i+1] = starts[i] + l.Columns[i].NumOperands()
	}
	if starts[len(l.Columns)] != op.NumOperands() {
		return nil, op.Errorf("columns take %d operands, but the op has %d", starts[len(l.Columns)], op.NumOperands())
	}
	// Every name the new kernels take must be free.
	base := ref.Nested[0]
	names := make([]string, p.Devices)
	for d := range p.Devices {
		names[d] = fmt.Sprintf("%s_d%d", base, d)
		if textir.LookupSymbolIn(mod, names[d]) != nil {
			return nil, op.Errorf("symbol @%s is taken in @%s, --shard needs it for device %d's kernel", names[d], ref.Root, d)
		}
	}
	combine := textir.LookupSymbolIn(mod, CombineKernelName)
	if combine != nil {
		if combine.Name() != gpu.FuncOp || gpu.FuncType(combine) == nil || gpu.FuncType(combine).String() != CombineKernelType().String() {
			return nil, op.Errorf("symbol @%s is taken in @%s by something other than the combine kernel", CombineKernelName, ref.Root)
		}
	}

	b := textir.NewBuilder(ctx)
	b.SetInsertionPoint(op)
	name := tfg.NodeName(op)
	if name == "" {
		name, _ = textir.LocName(op.Loc())
	}
	at0 := func(suffix string) textir.Location {
		if name == "" {
			return op.Loc()
		}
		return textir.NameLoc{Name: name + suffix}
	}
	devs := make([][]entry, p.Devices)
	type sliceKey struct {
		t      *textir.Value
		lo, hi int64
	}
	slices := map[sliceKey]*textir.Value{}
	var dens []*textir.Value
	rowDen := map[int]int64{}
	for _, i := range outOrder {
		c := l.Columns[i]
		ops := op.Operands()[starts[i]:starts[i+1]]
		pl := &p.Columns[i]
		if !pl.RowWise() {
			devs[pl.Device] = append(devs[pl.Device], entry{col: c, operands: ops, table: ops[0], src: i})
			counts.TableWise++
			continue
		}
		counts.RowWise++
		bounds := []int64{0}
		for _, pc := range pl.Pieces {
			bounds = append(bounds, pc.Hi)
		}
		r := abi.NewRoute(&c, bounds)
		rop := b.Create(&textir.OperationState{Name: fused.RouteOp, Loc: textir.NameLoc{Name: c.Name}, Operands: ops[1:],
			ResultTypes: r.ResultTypes(), Attrs: r.Attrs()})
		rowDen[i] = -1
		if r.Scaled() {
			rowDen[i] = int64(len(dens))
			dens = append(dens, rop.Result(rop.NumResults()-1))
		}
		for k, pc := range pl.Pieces {
			key := sliceKey{ops[0], pc.Lo, pc.Hi}
			t := slices[key]
			if t == nil {
				st := &textir.OperationState{Name: fused.TableSliceOp, Loc: textir.NameLoc{Name: c.Name}, Operands: []*textir.Value{ops[0]},
					ResultTypes: []textir.Type{textir.TensorOf([]int64{pc.Hi - pc.Lo, c.Width}, textir.F32())}}
				st.AddAttr("lo", textir.I64Attr(pc.Lo))
				st.AddAttr("hi", textir.I64Attr(pc.Hi))
				t = b.Create(st).Result(0)
				slices[key] = t
			}
			pcol := c
			pcol.Name = fmt.Sprintf("%s[%d:%d]", c.Name, pc.Lo, pc.Hi)
			pcol.Kind, pcol.Combiner, pcol.Rows, pcol.DivNoNaN = abi.KindLookup, "sum", pc.Hi-pc.Lo, false
			pcol.Source, pcol.Transforms, pcol.Sep, pcol.InlineIDs = abi.SourceIDs, nil, "", false
			pops := []*textir.Value{t}
			n := r.PieceResults()
			pops = append(pops, rop.Results()[k*n:(k+1)*n]...)
			devs[pc.Device] = append(devs[pc.Device], entry{col: pcol, operands: pops, table: t, src: i})
			counts.Pieces++
		}
	}

	// The device layers.
	minBlocks := kfn.LookupAttr("min_blocks")
	var partials []*textir.Value
	var devices []int64
	input := make([]int64, p.Devices)
	var kernels []*textir.Operation
	for d := range p.Devices {
		es := devs[d]
		if len(es) == 0 {
			input[d] = -1
			continue
		}
		cols := make([]abi.Column, len(es))
		tables := make([]any, len(es))
		var off int64
		for j := range es {
			cols[j], tables[j] = es[j].col, es[j].table
			es[j].offset = off
			off += es[j].col.Width
		}
		sub, order, err := embtogpu.Relayout(l.Schedule, l.Block, l.MinTasks, cols, tables)
		if err != nil {
			return nil, op.Errorf("device %d: %v", d, err)
		}
		loc := at0(fmt.Sprintf("/device_%d", d))
		fn := embtogpu.BuildKernel(ctx, loc, names[d], sub)
		if minBlocks != nil {
			fn.SetAttr("min_blocks", minBlocks)
		}
		kernels = append(kernels, fn)
		var operands []*textir.Value
		for _, j := range order {
			operands = append(operands, es[j].operands...)
		}
		attrs := append(sub.Attrs(textir.SymbolRefAttr{Root: ref.Root, Nested: []string{names[d]}}),
			textir.NamedAttribute{Name: fused.DeviceAttr, Value: textir.I64Attr(d)})
		lop := b.Create(&textir.OperationState{Name: fused.EmbeddingLayerOp, Loc: loc, Operands: operands,
			ResultTypes: []textir.Type{textir.TensorOf([]int64{textir.Dynamic, sub.Width}, textir.F32())}, Attrs: attrs})
		input[d] = int64(len(partials))
		partials = append(partials, lop.Result(0))
		devices = append(devices, d)
		counts.Layers++
	}

	// The exchange.
	e := &abi.Exchange{Device: p.Dense, Devices: devices, Width: l.Width, Dens: len(dens)}
	where := map[[2]int64]int64{} // (column, device) -> offset in the device's partial
	for d := range devs {
		for _, en := range devs[d] {
			where[[2]int64{int64(en.src), int64(d)}] = en.offset
		}
	}
	for _, i := range outOrder {
		c := &l.Columns[i]
		pl := &p.Columns[i]
		s := abi.Segment{Out: c.OutOffset, Width: c.Width, Den: -1}
		if !pl.RowWise() {
			s.From = []abi.Piece{{Input: input[pl.Device], Offset: where[[2]int64{int64(i), pl.Device}]}}
		} else {
			s.Den = rowDen[i]
			for _, pc := range pl.Pieces {
				s.From = append(s.From, abi.Piece{Input: input[pc.Device], Offset: where[[2]int64{int64(i), pc.Device}]})
			}
		}
		e.Segments = append(e.Segments, s)
	}
	attrs := e.Attrs(textir.SymbolRefAttr{Root: ref.Root, Nested: []string{CombineKernelName}})
	if nn := tfg.NodeName(op); nn != "" {
		attrs = append(attrs, textir.NamedAttribute{Name: "_mlir_name", Value: textir.Str(nn)})
	}
	ex := b.Create(&textir.OperationState{Name: fused.ExchangeOp, Loc: op.Loc(), Operands: append(partials, dens...),
		ResultTypes: []textir.Type{op.Result(0).Type()}, Attrs: attrs})

	// The kernels, after the module's others; the unsharded layer goes.
	mb := textir.NewBuilder(ctx)
	mb.SetInsertionPointToEnd(mod.Region(0).Front())
	for _, fn := range kernels {
		mb.Insert(fn)
	}
	if combine == nil {
		mb.Insert(BuildCombineKernel(ctx, textir.NameLoc{Name: "embedding_layer/combine"}))
	}
	op.Result(0).ReplaceAllUsesWith(ex.Result(0))
	op.Erase()
	if !referenced(mod.ParentOp(), ref) {
		kfn.Erase()
	}
	return ex, nil
}

// referenced reports whether an op under root names the symbol ref in
// an attribute.
func referenced(root *textir.Operation, ref textir.SymbolRefAttr) bool {
	found := false
	root.Walk(func(o *textir.Operation) bool {
		for _, a := range textir.AllAttrs(o) {
			if r, ok := a.Value.(textir.SymbolRefAttr); ok && r.Root == ref.Root && len(r.Nested) == len(ref.Nested) {
				same := true
				for k := range r.Nested {
					same = same && r.Nested[k] == ref.Nested[k]
				}
				if same {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
