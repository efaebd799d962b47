package nvptx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// fnEmitter emits the body of one gpu.func.
type fnEmitter struct {
	e      *emitter
	fi     *funcInfo
	cur    *ir.Block // where instructions go
	vals   map[*textir.Value]value.Value
	labels map[string]int // per-prefix block counters
	nsmem  int
}

func (e *emitter) defineFunc(op *textir.Operation) error {
	name, _ := stringAttr(op, "sym_name")
	fi := e.funcs[name]
	if op.NumRegions() == 0 || op.Region(0).Empty() {
		if fi.kernel {
			return op.Errorf("a kernel needs a body")
		}
		fi.f.Linkage = enum.LinkageNone // an external declaration
		return nil
	}
	r := op.Region(0)
	if n := len(r.Blocks()); n > 1 {
		return op.Errorf("has %d blocks; only single-block bodies with structured control flow (gpu.for, gpu.if) can be emitted", n)
	}
	fe := &fnEmitter{e: e, fi: fi, vals: map[*textir.Value]value.Value{}, labels: map[string]int{}}
	fe.cur = fi.f.NewBlock("entry")
	entry := r.Front()
	for i, a := range entry.Args() {
		fe.vals[a] = fi.f.Params[i]
	}
	yielded, term, err := fe.emitBlock(entry)
	if err != nil {
		return err
	}
	if term == nil || term.Name() != gpu.ReturnOp {
		at := op
		if term != nil {
			at = term
		}
		_ = yielded
		return at.Errorf("a gpu.func body must end with gpu.return")
	}
	return nil
}

// newBlock returns a detached block named prefix<N>.suffix; place appends
// it to the function when its instructions start.
func (fe *fnEmitter) label(prefix string) string {
	n := fe.labels[prefix]
	fe.labels[prefix] = n + 1
	return prefix + strconv.Itoa(n)
}

func (fe *fnEmitter) newBlock(name string) *ir.Block {
	b := ir.NewBlock(name)
	b.Parent = fe.fi.f
	return b
}

func (fe *fnEmitter) place(b *ir.Block) {
	fe.fi.f.Blocks = append(fe.fi.f.Blocks, b)
	fe.cur = b
}

// emitBlock emits the ops of a structured region's only block. It returns
// the values of its terminator (gpu.yield or gpu.return) and the
// terminator itself (nil when the block has none).
func (fe *fnEmitter) emitBlock(b *textir.Block) ([]value.Value, *textir.Operation, error) {
	for op := range b.Ops() {
		switch op.Name() {
		case gpu.YieldOp, gpu.ReturnOp:
			if op.Next() != nil {
				return nil, nil, op.Errorf("must be the last op of its block")
			}
			var ins []*textir.Value
			if y, ok := gpu.AsYield(op); ok {
				ins = y.Results()
			} else if r, ok := gpu.AsReturn(op); ok {
				ins = r.Operands()
			}
			vs, err := fe.values(op, ins)
			if err != nil {
				return nil, nil, err
			}
			if op.Name() == gpu.ReturnOp {
				if err := fe.emitReturn(op, vs); err != nil {
					return nil, nil, err
				}
			}
			return vs, op, nil
		}
		if err := fe.emitOp(op); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, nil
}

// value returns the LLVM value of v, an operand of op.
func (fe *fnEmitter) value(op *textir.Operation, v *textir.Value) (value.Value, error) {
	if lv, ok := fe.vals[v]; ok && v != nil {
		return lv, nil
	}
	return nil, op.Errorf("operand #%d is not defined inside the gpu.func", operandIndex(op, v))
}

// values returns the LLVM values of vs, operands of op.
func (fe *fnEmitter) values(op *textir.Operation, vs []*textir.Value) ([]value.Value, error) {
	lvs := make([]value.Value, len(vs))
	for i, v := range vs {
		lv, err := fe.value(op, v)
		if err != nil {
			return nil, err
		}
		lvs[i] = lv
	}
	return lvs, nil
}

// resultType returns the LLVM type of r, a result of op.
func (fe *fnEmitter) resultType(op *textir.Operation, r *textir.Value) (types.Type, error) {
	t, err := llvmType(r.Type())
	if err != nil {
		return nil, op.Errorf("result #%d: %v", r.Index(), err)
	}
	return t, nil
}

func (fe *fnEmitter) expect(op *textir.Operation, operands, results int) error {
	if op.NumOperands() != operands {
		return op.Errorf("expected %d operands, got %d", operands, op.NumOperands())
	}
	if op.NumResults() != results {
		return op.Errorf("expected %d results, got %d", results, op.NumResults())
	}
	return nil
}

func (fe *fnEmitter) emitReturn(op *textir.Operation, vs []value.Value) error {
	if op.ParentOp() != fe.fi.op {
		return op.Errorf("must be in the gpu.func's body, not nested in structured control flow")
	}
	want := fe.fi.results
	if len(vs) != len(want) {
		return op.Errorf("returns %d values but the function has %d results", len(vs), len(want))
	}
	for i, v := range vs {
		if !v.Type().Equal(want[i]) {
			return op.Errorf("returned value #%d has type %s, the function's result is %s", i, v.Type(), want[i])
		}
	}
	switch len(vs) {
	case 0:
		fe.cur.NewRet(nil)
	case 1:
		fe.cur.NewRet(vs[0])
	default:
		var agg value.Value = constant.NewUndef(fe.fi.f.Sig.RetType)
		for i, v := range vs {
			agg = fe.cur.NewInsertValue(agg, v, uint64(i))
		}
		fe.cur.NewRet(agg)
	}
	return nil
}

// emitOp emits one non-terminator op.
func (fe *fnEmitter) emitOp(op *textir.Operation) error {
	if emit, ok := arithOps[op.Name()]; ok {
		return emit(fe, op)
	}
	if emit, ok := gpuOps[op.Name()]; ok {
		return emit(fe, op)
	}
	return op.Errorf("cannot be emitted as NVPTX LLVM IR")
}

// gpuOps maps gpu op names to their emitters (the structured ones, memory,
// threads, math); arithOps is in arith.go.
var gpuOps map[string]func(*fnEmitter, *textir.Operation) error

func init() {
	unaryMath := func(as func(*textir.Operation) unaryView) func(*textir.Operation) ([]*textir.Value, *textir.Value) {
		return func(op *textir.Operation) ([]*textir.Value, *textir.Value) {
			u := as(op)
			return []*textir.Value{u.Operand()}, u.Result()
		}
	}
	gpuOps = map[string]func(*fnEmitter, *textir.Operation) error{
		gpu.ThreadIdOp:    sreg("tid", result(gpu.AsThreadId)),
		gpu.BlockIdOp:     sreg("ctaid", result(gpu.AsBlockId)),
		gpu.BlockDimOp:    sreg("ntid", result(gpu.AsBlockDim)),
		gpu.GridDimOp:     sreg("nctaid", result(gpu.AsGridDim)),
		gpu.LaneIdOp:      (*fnEmitter).emitLaneID,
		gpu.BarrierOp:     (*fnEmitter).emitBarrier,
		gpu.WarpSyncOp:    (*fnEmitter).emitWarpSync,
		gpu.ShuffleOp:     (*fnEmitter).emitShuffle,
		gpu.LoadOp:        (*fnEmitter).emitLoad,
		gpu.StoreOp:       (*fnEmitter).emitStore,
		gpu.PtrOffsetOp:   (*fnEmitter).emitPtrOffset,
		gpu.PtrCastOp:     (*fnEmitter).emitPtrCast,
		gpu.SharedAllocOp: (*fnEmitter).emitSharedAlloc,
		gpu.AtomicAddOp:   (*fnEmitter).emitAtomicAdd,
		gpu.ForOp:         (*fnEmitter).emitFor,
		gpu.IfOp:          (*fnEmitter).emitIf,
		gpu.CallOp:        (*fnEmitter).emitCall,
		gpu.SqrtOp:        mathOp("llvm.sqrt", "llvm.sqrt", 1, unaryMath(unary(gpu.AsSqrt))),
		gpu.RsqrtOp:       mathOp("llvm.nvvm.rsqrt.approx.f", "llvm.nvvm.rsqrt.approx.d", 1, unaryMath(unary(gpu.AsRsqrt))),
		gpu.FabsOp:        mathOp("llvm.fabs", "llvm.fabs", 1, unaryMath(unary(gpu.AsFabs))),
		gpu.FmaOp: mathOp("llvm.fma", "llvm.fma", 3, func(op *textir.Operation) ([]*textir.Value, *textir.Value) {
			f, _ := gpu.AsFma(op)
			return []*textir.Value{f.A(), f.B(), f.C()}, f.Result()
		}),
		gpu.MinOp: minMax("llvm.minnum", "llvm.smin", binary(gpu.AsMin)),
		gpu.MaxOp: minMax("llvm.maxnum", "llvm.smax", binary(gpu.AsMax)),
	}
}

// dimOf reads the x/y/z dimension of a thread-hierarchy op.
func dimOf(op *textir.Operation) (string, error) {
	for _, name := range []string{"dim", "dimension"} {
		if a := op.LookupAttr(name); a != nil {
			if s, ok := stringAttr(op, name); ok {
				switch s {
				case "x", "y", "z":
					return s, nil
				}
			}
			if n, ok := intAttr(op, name); ok && n >= 0 && n < 3 {
				return string(rune('x' + n)), nil
			}
			return "", op.Errorf("'%s' must be x, y or z", name)
		}
	}
	return "", op.Errorf("needs a 'dim' attribute (x, y or z)")
}

// setIntResult maps result r of op to v, extending or truncating an i32
// special register to the result's integer type.
func (fe *fnEmitter) setIntResult(op *textir.Operation, r *textir.Value, v value.Value) error {
	rt, err := fe.resultType(op, r)
	if err != nil {
		return err
	}
	it, ok := rt.(*types.IntType)
	if !ok {
		return op.Errorf("result must be an integer, got %s", r.Type())
	}
	switch {
	case it.BitSize > 32:
		v = fe.cur.NewZExt(v, it)
	case it.BitSize < 32:
		v = fe.cur.NewTrunc(v, it)
	}
	fe.vals[r] = v
	return nil
}

func sreg(reg string, as func(*textir.Operation) resultView) func(*fnEmitter, *textir.Operation) error {
	return func(fe *fnEmitter, op *textir.Operation) error {
		if err := fe.expect(op, 0, 1); err != nil {
			return err
		}
		dim, err := dimOf(op)
		if err != nil {
			return err
		}
		f := fe.e.intrinsic("llvm.nvvm.read.ptx.sreg."+reg+"."+dim, types.I32)
		return fe.setIntResult(op, as(op).Result(), fe.cur.NewCall(f))
	}
}

func (fe *fnEmitter) emitLaneID(op *textir.Operation) error {
	if err := fe.expect(op, 0, 1); err != nil {
		return err
	}
	l, _ := gpu.AsLaneId(op)
	f := fe.e.intrinsic("llvm.nvvm.read.ptx.sreg.laneid", types.I32)
	return fe.setIntResult(op, l.Result(), fe.cur.NewCall(f))
}

func (fe *fnEmitter) emitBarrier(op *textir.Operation) error {
	if err := fe.expect(op, 0, 0); err != nil {
		return err
	}
	fe.cur.NewCall(fe.e.intrinsic("llvm.nvvm.barrier0", types.Void))
	return nil
}

func (fe *fnEmitter) emitWarpSync(op *textir.Operation) error {
	if err := fe.expect(op, 0, 0); err != nil {
		return err
	}
	fe.cur.NewCall(fe.e.intrinsic("llvm.nvvm.bar.warp.sync", types.Void, types.I32), constant.NewInt(types.I32, -1))
	return nil
}

// shuffleModes maps gpu.shuffle's mode to the NVVM intrinsic's.
var shuffleModes = map[string]string{"xor": "bfly", "down": "down", "up": "up", "idx": "idx"}

func (fe *fnEmitter) emitShuffle(op *textir.Operation) error {
	if err := fe.expect(op, 3, 1); err != nil {
		return err
	}
	mode, ok := stringAttr(op, "mode")
	if !ok {
		return op.Errorf("needs a 'mode' attribute (xor, down, up or idx)")
	}
	nv, ok := shuffleModes[mode]
	if !ok {
		return op.Errorf("unknown shuffle mode %q (xor, down, up or idx)", mode)
	}
	s, _ := gpu.AsShuffle(op)
	vs, err := fe.values(op, []*textir.Value{s.Value(), s.Offset(), s.Width()})
	if err != nil {
		return err
	}
	val, offset, width := vs[0], vs[1], vs[2]
	for _, v := range []*textir.Value{s.Offset(), s.Width()} {
		if !fe.vals[v].Type().Equal(types.I32) {
			return op.Errorf("operand #%d must be i32, got %s", operandIndex(op, v), v.Type())
		}
	}
	// The clamp operand: (32 - width) << 8 is the segment mask; the low bits
	// are the lane bound (31, or 0 for up).
	var clamp value.Value
	lo := int64(31)
	if nv == "up" {
		lo = 0
	}
	if c, ok := width.(*constant.Int); ok {
		w := c.X.Int64()
		if w <= 0 || w > 32 || w&(w-1) != 0 {
			return op.Errorf("width must be a power of two in [1, 32], got %d", w)
		}
		clamp = constant.NewInt(types.I32, (32-w)<<8|lo)
	} else {
		seg := fe.cur.NewShl(fe.cur.NewSub(constant.NewInt(types.I32, 32), width), constant.NewInt(types.I32, 8))
		clamp = seg
		if lo != 0 {
			clamp = fe.cur.NewOr(seg, constant.NewInt(types.I32, lo))
		}
	}
	mask := constant.NewInt(types.I32, -1)
	shfl32 := func(v value.Value) value.Value {
		suffix, t := ".i32", types.Type(types.I32)
		if v.Type().Equal(types.Float) {
			suffix, t = ".f32", types.Float
		}
		f := fe.e.intrinsic("llvm.nvvm.shfl.sync."+nv+suffix, t, types.I32, t, types.I32, types.I32)
		return fe.cur.NewCall(f, mask, v, offset, clamp)
	}
	var r value.Value
	switch t := val.Type().(type) {
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindFloat:
			r = shfl32(val)
		case types.FloatKindDouble:
			r = fe.cur.NewBitCast(fe.shuffle64(fe.cur.NewBitCast(val, types.I64), shfl32), types.Double)
		default:
			return op.Errorf("cannot shuffle %s", s.Value().Type())
		}
	case *types.IntType:
		switch {
		case t.BitSize == 32:
			r = shfl32(val)
		case t.BitSize < 32:
			r = fe.cur.NewTrunc(shfl32(fe.cur.NewZExt(val, types.I32)), t)
		case t.BitSize == 64:
			r = fe.shuffle64(val, shfl32)
		default:
			return op.Errorf("cannot shuffle %s", s.Value().Type())
		}
	default:
		return op.Errorf("cannot shuffle %s", s.Value().Type())
	}
	fe.vals[s.Result()] = r
	return nil
}

// shuffle64 shuffles an i64 as two i32 halves.
func (fe *fnEmitter) shuffle64(v value.Value, shfl32 func(value.Value) value.Value) value.Value {
	b := fe.cur
	lo := shfl32(b.NewTrunc(v, types.I32))
	hi := shfl32(b.NewTrunc(b.NewLShr(v, constant.NewInt(types.I64, 32)), types.I32))
	return b.NewOr(b.NewShl(b.NewZExt(hi, types.I64), constant.NewInt(types.I64, 32)), b.NewZExt(lo, types.I64))
}

// ptrValue returns operand ptr of op as a pointer with its !gpu.ptr
// description.
func (fe *fnEmitter) ptrValue(op *textir.Operation, ptr *textir.Value) (value.Value, ptrInfo, error) {
	v, err := fe.value(op, ptr)
	if err != nil {
		return nil, ptrInfo{}, err
	}
	p, isPtr, err := parsePtr(ptr.Type())
	if err != nil {
		return nil, ptrInfo{}, op.Errorf("operand #%d: %v", operandIndex(op, ptr), err)
	}
	if !isPtr {
		return nil, ptrInfo{}, op.Errorf("operand #%d must be a !gpu.ptr, got %s", operandIndex(op, ptr), ptr.Type())
	}
	return v, p, nil
}

// indexValue returns operand index of op, an integer.
func (fe *fnEmitter) indexValue(op *textir.Operation, index *textir.Value) (value.Value, error) {
	v, err := fe.value(op, index)
	if err != nil {
		return nil, err
	}
	if _, ok := v.Type().(*types.IntType); !ok {
		return nil, op.Errorf("operand #%d (the index) must be an integer, got %s", operandIndex(op, index), index.Type())
	}
	return v, nil
}

// address returns &ptr[index] for operands ptr and index of op.
func (fe *fnEmitter) address(op *textir.Operation, ptr, index *textir.Value) (value.Value, ptrInfo, error) {
	p, info, err := fe.ptrValue(op, ptr)
	if err != nil {
		return nil, info, err
	}
	idx, err := fe.indexValue(op, index)
	if err != nil {
		return nil, info, err
	}
	if c, ok := idx.(*constant.Int); ok && c.X.Sign() == 0 {
		return p, info, nil
	}
	gep := fe.cur.NewGetElementPtr(info.elem, p, idx)
	gep.InBounds = true
	return gep, info, nil
}

func sizeOf(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		return int64((t.BitSize + 7) / 8)
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return 2
		case types.FloatKindFloat:
			return 4
		case types.FloatKindDouble:
			return 8
		}
	case *types.PointerType:
		return 8
	}
	return 1
}

// width reads the optional width attribute (1, 2 or 4).
func width(op *textir.Operation) (int64, error) {
	w, ok := intAttr(op, "width")
	if !ok {
		if op.LookupAttr("width") != nil {
			return 0, op.Errorf("'width' must be an integer")
		}
		return 1, nil
	}
	switch w {
	case 1, 2, 4:
		return w, nil
	}
	return 0, op.Errorf("width must be 1, 2 or 4, got %d", w)
}

// vectorPtr bitcasts an element pointer to a pointer to <w x elem>.
func (fe *fnEmitter) vectorPtr(addr value.Value, info ptrInfo, w int64) (value.Value, *types.VectorType) {
	vt := types.NewVector(uint64(w), info.elem)
	pt := types.NewPointer(vt)
	pt.AddrSpace = info.space
	return fe.cur.NewBitCast(addr, pt), vt
}

func (fe *fnEmitter) emitLoad(op *textir.Operation) error {
	w, err := width(op)
	if err != nil {
		return err
	}
	if err := fe.expect(op, 2, int(w)); err != nil {
		return err
	}
	l, _ := gpu.AsLoad(op)
	addr, info, err := fe.address(op, l.Ptr(), l.Index())
	if err != nil {
		return err
	}
	results := l.Values()
	for i, r := range results {
		rt, err := fe.resultType(op, r)
		if err != nil {
			return err
		}
		if !rt.Equal(info.elem) {
			return op.Errorf("result #%d has type %s, the pointer's elements are %s", i, r.Type(), info.elem)
		}
	}
	var ld *ir.InstLoad
	if w == 1 {
		ld = fe.cur.NewLoad(info.elem, addr)
	} else {
		vp, vt := fe.vectorPtr(addr, info, w)
		ld = fe.cur.NewLoad(vt, vp)
	}
	ld.Align = ir.Align(w * sizeOf(info.elem))
	if hasUnit(op, "readonly") {
		ld.Metadata = append(ld.Metadata, &metadata.Attachment{Name: "invariant.load", Node: fe.e.invariantLoadMD()})
	}
	if hasUnit(op, "nontemporal") {
		ld.Metadata = append(ld.Metadata, &metadata.Attachment{Name: "nontemporal", Node: fe.e.nontemporalMD()})
	}
	if w == 1 {
		fe.vals[results[0]] = ld
		return nil
	}
	for i, r := range results {
		fe.vals[r] = fe.cur.NewExtractElement(ld, constant.NewInt(types.I32, int64(i)))
	}
	return nil
}

func (fe *fnEmitter) emitStore(op *textir.Operation) error {
	w, err := width(op)
	if err != nil {
		return err
	}
	if err := fe.expect(op, int(w)+2, 0); err != nil {
		return err
	}
	st, _ := gpu.AsStore(op)
	addr, info, err := fe.address(op, st.Ptr(), st.Index())
	if err != nil {
		return err
	}
	stored := st.Values()
	vals := make([]value.Value, len(stored))
	for i, v := range stored {
		if vals[i], err = fe.value(op, v); err != nil {
			return err
		}
		if !vals[i].Type().Equal(info.elem) {
			return op.Errorf("stored value #%d has type %s, the pointer's elements are %s", i, v.Type(), info.elem)
		}
	}
	var inst *ir.InstStore
	if w == 1 {
		inst = fe.cur.NewStore(vals[0], addr)
	} else {
		vp, vt := fe.vectorPtr(addr, info, w)
		var vec value.Value = constant.NewUndef(vt)
		for i, v := range vals {
			vec = fe.cur.NewInsertElement(vec, v, constant.NewInt(types.I32, int64(i)))
		}
		inst = fe.cur.NewStore(vec, vp)
	}
	inst.Align = ir.Align(w * sizeOf(info.elem))
	if hasUnit(op, "nontemporal") {
		inst.Metadata = append(inst.Metadata, &metadata.Attachment{Name: "nontemporal", Node: fe.e.nontemporalMD()})
	}
	return nil
}

func (fe *fnEmitter) emitPtrOffset(op *textir.Operation) error {
	if err := fe.expect(op, 2, 1); err != nil {
		return err
	}
	po, _ := gpu.AsPtrOffset(op)
	addr, _, err := fe.address(op, po.Ptr(), po.Index())
	if err != nil {
		return err
	}
	fe.vals[po.Result()] = addr
	return nil
}

func (fe *fnEmitter) emitPtrCast(op *textir.Operation) error {
	if err := fe.expect(op, 1, 1); err != nil {
		return err
	}
	pc, _ := gpu.AsPtrCast(op)
	p, from, err := fe.ptrValue(op, pc.Source())
	if err != nil {
		return err
	}
	res := pc.Result()
	rt, err := fe.resultType(op, res)
	if err != nil {
		return err
	}
	to, ok := rt.(*types.PointerType)
	if !ok {
		return op.Errorf("result must be a !gpu.ptr, got %s", res.Type())
	}
	switch {
	case p.Type().Equal(to):
		fe.vals[res] = p
	case from.space == to.AddrSpace:
		fe.vals[res] = fe.cur.NewBitCast(p, to)
	default:
		fe.vals[res] = fe.cur.NewAddrSpaceCast(p, to)
	}
	return nil
}

// emitSharedAlloc makes a static shared-memory array: an internal
// addrspace(3) global of count elements, 16-byte aligned.
func (fe *fnEmitter) emitSharedAlloc(op *textir.Operation) error {
	if err := fe.expect(op, 0, 1); err != nil {
		return err
	}
	count, ok := intAttr(op, "count")
	if !ok || count <= 0 {
		return op.Errorf("needs a positive integer 'count' attribute")
	}
	sa, _ := gpu.AsSharedAlloc(op)
	info, isPtr, err := parsePtr(sa.Result().Type())
	if err != nil {
		return op.Errorf("%v", err)
	}
	if !isPtr || info.space != addrShared {
		return op.Errorf("result must be a !gpu.ptr in the shared address space, got %s", sa.Result().Type())
	}
	if count*sizeOf(info.elem) > 228*1024 {
		return op.Errorf("%d bytes of shared memory exceed the 228 KiB of an SM", count*sizeOf(info.elem))
	}
	arr := types.NewArray(uint64(count), info.elem)
	name := fe.e.uniqueSymbol(fmt.Sprintf("%s_smem%d", fe.fi.name, fe.nsmem))
	fe.nsmem++
	g := fe.e.m.NewGlobalDef(name, constant.NewUndef(arr))
	g.AddrSpace = addrShared
	g.Typ = nil // recompute the cached pointer type in the new address space
	g.Linkage = enum.LinkageInternal
	g.Align = 16
	zero := constant.NewInt(types.I64, 0)
	gep := constant.NewGetElementPtr(arr, g, zero, zero)
	gep.InBounds = true
	fe.vals[sa.Result()] = gep
	return nil
}

func (fe *fnEmitter) emitAtomicAdd(op *textir.Operation) error {
	if err := fe.expect(op, 3, 1); err != nil {
		return err
	}
	aa, _ := gpu.AsAtomicAdd(op)
	addr, info, err := fe.address(op, aa.Ptr(), aa.Index())
	if err != nil {
		return err
	}
	v, err := fe.value(op, aa.Value())
	if err != nil {
		return err
	}
	if !v.Type().Equal(info.elem) {
		return op.Errorf("added value has type %s, the pointer's elements are %s", aa.Value().Type(), info.elem)
	}
	kind := enum.AtomicOpAdd
	if _, isFloat := info.elem.(*types.FloatType); isFloat {
		kind = enum.AtomicOpFAdd
	}
	rmw := fe.cur.NewAtomicRMW(kind, addr, v, enum.AtomicOrderingMonotonic)
	fe.vals[aa.Result()] = rmw
	return nil
}

// emitFor lowers gpu.for to header/body/latch/exit blocks:
//
//	pre:    br header
//	header: iv = phi [lb, pre], [iv.next, latch]; x = phi [x0, pre], [x.next, latch]
//	        br (iv < ub), body, exit
//	body:   ... br latch
//	latch:  iv.next = iv + step; br header
//	exit:   the results are header's phis
func (fe *fnEmitter) emitFor(op *textir.Operation) error {
	if op.NumOperands() < 3 {
		return op.Errorf("expected lower bound, upper bound and step operands, got %d operands", op.NumOperands())
	}
	loop, _ := gpu.AsFor(op)
	vs, err := fe.values(op, append([]*textir.Value{loop.LowerBound(), loop.UpperBound(), loop.Step()}, loop.InitArgs()...))
	if err != nil {
		return err
	}
	lb, ub, step, inits := vs[0], vs[1], vs[2], vs[3:]
	it, ok := lb.Type().(*types.IntType)
	if !ok || !ub.Type().Equal(it) || !step.Type().Equal(it) {
		return op.Errorf("bounds and step must be integers of one type, got %s, %s, %s",
			loop.LowerBound().Type(), loop.UpperBound().Type(), loop.Step().Type())
	}
	if c, ok := step.(*constant.Int); ok && c.X.Sign() <= 0 {
		return op.Errorf("step must be positive, got %s", c.X)
	}
	results := loop.Results()
	if len(results) != len(inits) {
		return op.Errorf("has %d iter_args but %d results", len(inits), len(results))
	}
	if op.NumRegions() != 1 || len(op.Region(0).Blocks()) != 1 {
		return op.Errorf("expected one region with one block")
	}
	body := op.Region(0).Front()
	if body.NumArgs() != 1+len(inits) {
		return op.Errorf("body has %d arguments, expected the induction variable and %d iter_args", body.NumArgs(), len(inits))
	}
	name := fe.label("for")
	pre := fe.cur
	header := fe.newBlock(name + ".header")
	bodyB := fe.newBlock(name + ".body")
	latch := fe.newBlock(name + ".latch")
	exit := fe.newBlock(name + ".exit")
	pre.NewBr(header)
	fe.place(header)
	iv := header.NewPhi(ir.NewIncoming(lb, pre))
	phis := make([]*ir.InstPhi, len(inits))
	for i, x := range inits {
		phis[i] = header.NewPhi(ir.NewIncoming(x, pre))
	}
	cond := header.NewICmp(enum.IPredSLT, iv, ub)
	header.NewCondBr(cond, bodyB, exit)
	fe.place(bodyB)
	fe.vals[body.Arg(0)] = iv
	for i, p := range phis {
		if t, err := llvmType(body.Arg(i + 1).Type()); err != nil || !t.Equal(p.Type()) {
			return op.Errorf("iter_arg #%d has type %s but its initial value is %s", i, body.Arg(i+1).Type(), loop.InitArgs()[i].Type())
		}
		fe.vals[body.Arg(i+1)] = p
	}
	yielded, term, err := fe.emitBlock(body)
	if err != nil {
		return err
	}
	if term != nil && term.Name() != gpu.YieldOp {
		return term.Errorf("cannot end a gpu.for body (gpu.yield does)")
	}
	if len(yielded) != len(phis) {
		return op.Errorf("body yields %d values, expected %d", len(yielded), len(phis))
	}
	fe.cur.NewBr(latch)
	fe.place(latch)
	next := latch.NewAdd(iv, step)
	latch.NewBr(header)
	iv.Incs = append(iv.Incs, ir.NewIncoming(next, latch))
	for i, p := range phis {
		if !yielded[i].Type().Equal(p.Type()) {
			return op.Errorf("yielded value #%d has type %s, the iter_arg is %s", i, yielded[i].Type(), p.Type())
		}
		p.Incs = append(p.Incs, ir.NewIncoming(yielded[i], latch))
		fe.vals[results[i]] = p
	}
	fe.place(exit)
	return nil
}

// emitIf lowers gpu.if to then/else/merge blocks with phis for its results.
func (fe *fnEmitter) emitIf(op *textir.Operation) error {
	if op.NumOperands() != 1 {
		return op.Errorf("expected one condition operand, got %d", op.NumOperands())
	}
	ifOp, _ := gpu.AsIf(op)
	results := ifOp.Results()
	cond, err := fe.value(op, ifOp.Condition())
	if err != nil {
		return err
	}
	if !cond.Type().Equal(types.I1) {
		return op.Errorf("condition must be i1, got %s", ifOp.Condition().Type())
	}
	if op.NumRegions() < 1 || op.NumRegions() > 2 {
		return op.Errorf("expected a then region and an optional else region")
	}
	thenR := op.Region(0)
	var elseR *textir.Region
	if op.NumRegions() == 2 && !op.Region(1).Empty() {
		elseR = op.Region(1)
	}
	if elseR == nil && len(results) > 0 {
		return op.Errorf("has results but no else region")
	}
	for _, r := range []*textir.Region{thenR, elseR} {
		if r != nil && len(r.Blocks()) != 1 {
			return op.Errorf("each region must have exactly one block")
		}
	}
	name := fe.label("if")
	thenB := fe.newBlock(name + ".then")
	merge := fe.newBlock(name + ".end")
	elseB := merge
	if elseR != nil {
		elseB = fe.newBlock(name + ".else")
	}
	fe.cur.NewCondBr(cond, thenB, elseB)
	type arm struct {
		vals []value.Value
		end  *ir.Block
	}
	emitArm := func(r *textir.Region, b *ir.Block) (arm, error) {
		fe.place(b)
		vals, term, err := fe.emitBlock(r.Front())
		if err != nil {
			return arm{}, err
		}
		if term != nil && term.Name() != gpu.YieldOp {
			return arm{}, term.Errorf("cannot end a gpu.if region (gpu.yield does)")
		}
		if len(vals) != len(results) {
			return arm{}, op.Errorf("a region yields %d values, expected %d", len(vals), len(results))
		}
		end := fe.cur
		end.NewBr(merge)
		return arm{vals, end}, nil
	}
	thenArm, err := emitArm(thenR, thenB)
	if err != nil {
		return err
	}
	var elseArm arm
	if elseR != nil {
		if elseArm, err = emitArm(elseR, elseB); err != nil {
			return err
		}
	}
	fe.place(merge)
	for i, r := range results {
		rt, err := fe.resultType(op, r)
		if err != nil {
			return err
		}
		a, b := thenArm.vals[i], elseArm.vals[i]
		if !a.Type().Equal(rt) || !b.Type().Equal(rt) {
			return op.Errorf("result #%d is %s but the regions yield %s and %s", i, r.Type(), a.Type(), b.Type())
		}
		fe.vals[r] = merge.NewPhi(ir.NewIncoming(a, thenArm.end), ir.NewIncoming(b, elseArm.end))
	}
	return nil
}

func (fe *fnEmitter) emitCall(op *textir.Operation) error {
	callee, ok := stringAttr(op, "callee")
	if !ok {
		return op.Errorf("needs a 'callee' symbol reference")
	}
	target, ok := fe.e.funcs[callee]
	if !ok {
		return op.Errorf("calls @%s, which is not a gpu.func of the gpu.module", callee)
	}
	if target.kernel {
		return op.Errorf("calls kernel @%s; only device functions can be called", callee)
	}
	call, _ := gpu.AsCall(op)
	args, err := fe.values(op, call.Operands())
	if err != nil {
		return err
	}
	params := target.f.Params
	if len(args) != len(params) {
		return op.Errorf("passes %d arguments, @%s takes %d", len(args), callee, len(params))
	}
	for i, a := range args {
		if !a.Type().Equal(params[i].Typ) {
			return op.Errorf("argument #%d has type %s, @%s takes %s", i, a.Type(), callee, params[i].Typ)
		}
	}
	results := call.Results()
	if len(results) != len(target.results) {
		return op.Errorf("has %d results, @%s returns %d", len(results), callee, len(target.results))
	}
	inst := fe.cur.NewCall(target.f, args...)
	switch len(results) {
	case 0:
	case 1:
		fe.vals[results[0]] = inst
	default:
		for i, r := range results {
			fe.vals[r] = fe.cur.NewExtractValue(inst, uint64(i))
		}
	}
	return nil
}

// mathOp emits a float intrinsic named f32Name.f32 / f64Name.f64 (or the
// NVVM names, which carry their type in the name already) for an op of
// arity operands; valuesOf names them, in the intrinsic's order, and the
// result.
func mathOp(f32Name, f64Name string, arity int, valuesOf func(*textir.Operation) ([]*textir.Value, *textir.Value)) func(*fnEmitter, *textir.Operation) error {
	return func(fe *fnEmitter, op *textir.Operation) error {
		if err := fe.expect(op, arity, 1); err != nil {
			return err
		}
		ins, res := valuesOf(op)
		args, err := fe.values(op, ins)
		if err != nil {
			return err
		}
		ft, ok := args[0].Type().(*types.FloatType)
		if !ok || (ft.Kind != types.FloatKindFloat && ft.Kind != types.FloatKindDouble) {
			return op.Errorf("operands must be f32 or f64, got %s", ins[0].Type())
		}
		for i, a := range args {
			if !a.Type().Equal(ft) {
				return op.Errorf("operand #%d has type %s, expected %s", i, ins[i].Type(), ins[0].Type())
			}
		}
		name := f32Name
		if ft.Kind == types.FloatKindDouble {
			name = f64Name
		}
		if !strings.HasPrefix(name, "llvm.nvvm.") { // llvm.sqrt → llvm.sqrt.f32
			name += "." + typeSuffix(ft)
		}
		ps := make([]types.Type, arity)
		for i := range ps {
			ps[i] = ft
		}
		fe.vals[res] = fe.cur.NewCall(fe.e.intrinsic(name, ft, ps...), args...)
		return nil
	}
}

// sameTypeOperands checks a binary op b (two operands of one type, one
// result) and returns its operands and their type.
func (fe *fnEmitter) sameTypeOperands(op *textir.Operation, b binaryView) (x, y value.Value, t types.Type, err error) {
	if err := fe.expect(op, 2, 1); err != nil {
		return nil, nil, nil, err
	}
	if x, err = fe.value(op, b.Lhs()); err != nil {
		return nil, nil, nil, err
	}
	if y, err = fe.value(op, b.Rhs()); err != nil {
		return nil, nil, nil, err
	}
	t = x.Type()
	if !y.Type().Equal(t) {
		return nil, nil, nil, op.Errorf("operands have different types %s and %s", b.Lhs().Type(), b.Rhs().Type())
	}
	return x, y, t, nil
}

// minMax emits llvm.minnum/maxnum for floats (fminf/fmaxf) and
// llvm.smin/smax for integers.
func minMax(floatName, intName string, as func(*textir.Operation) binaryView) func(*fnEmitter, *textir.Operation) error {
	return func(fe *fnEmitter, op *textir.Operation) error {
		b := as(op)
		x, y, t, err := fe.sameTypeOperands(op, b)
		if err != nil {
			return err
		}
		var name string
		switch t.(type) {
		case *types.FloatType:
			name = floatName + "." + typeSuffix(t)
		case *types.IntType:
			name = intName + "." + typeSuffix(t)
		default:
			return op.Errorf("operands must be integers or floats, got %s", b.Lhs().Type())
		}
		fe.vals[b.Result()] = fe.cur.NewCall(fe.e.intrinsic(name, t, t, t), x, y)
		return nil
	}
}

// typeSuffix is LLVM's overloaded-intrinsic suffix of a scalar type.
func typeSuffix(t types.Type) string {
	switch t := t.(type) {
	case *types.IntType:
		return "i" + strconv.FormatUint(t.BitSize, 10)
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return "f16"
		case types.FloatKindFloat:
			return "f32"
		case types.FloatKindDouble:
			return "f64"
		}
	}
	return t.String()
}
