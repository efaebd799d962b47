package gpu

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/textir"
)

//go:generate go run ../internal/opviewgen -dialect gpu

// Name is the dialect namespace.
const Name = "gpu"

// Op names.
const (
	ModuleOp      = "gpu.module"
	FuncOp        = "gpu.func"
	ReturnOp      = "gpu.return"
	CallOp        = "gpu.call"
	ThreadIdOp    = "gpu.thread_id"
	BlockIdOp     = "gpu.block_id"
	BlockDimOp    = "gpu.block_dim"
	GridDimOp     = "gpu.grid_dim"
	LaneIdOp      = "gpu.lane_id"
	BarrierOp     = "gpu.barrier"
	ShuffleOp     = "gpu.shuffle"
	WarpSyncOp    = "gpu.warp_sync"
	LoadOp        = "gpu.load"
	StoreOp       = "gpu.store"
	PtrOffsetOp   = "gpu.ptr_offset"
	PtrCastOp     = "gpu.ptr_cast"
	SharedAllocOp = "gpu.shared_alloc"
	AtomicAddOp   = "gpu.atomic_add"
	ForOp         = "gpu.for"
	IfOp          = "gpu.if"
	YieldOp       = "gpu.yield"
	SqrtOp        = "gpu.sqrt"
	RsqrtOp       = "gpu.rsqrt"
	FabsOp        = "gpu.fabs"
	MinOp         = "gpu.min"
	MaxOp         = "gpu.max"
	FmaOp         = "gpu.fma"
	LaunchOp      = "gpu.launch"
	BufferViewOp  = "gpu.buffer_view"
	AllocOp       = "gpu.alloc"
)

// WarpSize is the number of lanes of a warp.
const WarpSize = 32

// MaxThreadsPerBlock bounds block sizes (and max_threads).
const MaxThreadsPerBlock = 1024

// MaxSharedBytes bounds the static shared memory of a kernel (48 KiB, the
// limit of statically sized __shared__ memory).
const MaxSharedBytes = 48 << 10

// Type constraints.
var (
	i32Type    = textir.TypeConstraint{Desc: "32-bit signless integer", Pred: func(t textir.Type) bool { return t == textir.I32() }}
	i64Type    = textir.TypeConstraint{Desc: "64-bit signless integer", Pred: func(t textir.Type) bool { return t == textir.I64() }}
	i1Type     = textir.TypeConstraint{Desc: "1-bit signless integer", Pred: func(t textir.Type) bool { return t == textir.I1() }}
	ptrType    = textir.TypeConstraint{Desc: "gpu pointer", Pred: IsPtr}
	bufferType = textir.TypeConstraint{Desc: "gpu buffer", Pred: IsBuffer}
	f32or64    = textir.TypeConstraint{Desc: "32- or 64-bit float", Pred: func(t textir.Type) bool { return t == textir.F32() || t == textir.F64() }}
	anyScalar  = textir.TypeConstraint{Desc: "integer or float scalar", Pred: isScalar}
	loopBound  = textir.TypeConstraint{Desc: "i32 or i64", Pred: func(t textir.Type) bool { return t == textir.I32() || t == textir.I64() }}
)

func isScalar(t textir.Type) bool {
	switch t := t.(type) {
	case *textir.IntType:
		return t.Signedness == textir.Signless && t.Width <= 64
	case *textir.FloatType:
		return true
	}
	return false
}

// Dialect returns the gpu dialect.
func Dialect() *textir.Dialect {
	d := &textir.Dialect{
		Name:      Name,
		Summary:   "device modules, kernels, threads, memory, structured control flow and launches",
		ParseType: parseType,
		// Folders of math ops make float constants: arith.constant.
		MaterializeConstant: func(b *textir.Builder, a textir.Attribute, t textir.Type, loc textir.Location) *textir.Operation {
			switch a := a.(type) {
			case textir.FloatAttr:
				if a.Type == t {
					return arith.Constant(b, loc, a)
				}
			case textir.IntegerAttr:
				if a.Type == t {
					return arith.Constant(b, loc, a)
				}
			}
			return nil
		},
	}
	d.Ops = []*textir.OpDef{
		{
			Name: ModuleOp, Summary: "a device module: a symbol table of gpu.func",
			Regions: textir.Exactly(1),
			Traits:  textir.SymbolTable | textir.Symbol | textir.IsolatedFromAbove | textir.NoTerminator | textir.SingleBlock,
			Attrs:   []textir.AttrSpec{{Name: "sym_name", Kind: textir.StringAttrKind}},
			Verify:  verifyModule,
			Print:   printModule, Parse: parseModule,
		},
		{
			Name: FuncOp, Summary: "a kernel (with 'kernel') or a device function",
			Regions: textir.Exactly(1),
			Traits:  textir.Symbol | textir.IsolatedFromAbove,
			Attrs: []textir.AttrSpec{
				{Name: "sym_name", Kind: textir.StringAttrKind},
				{Name: "function_type", Kind: textir.TypeAttrKind},
				{Name: "kernel", Kind: textir.UnitAttrKind, Optional: true},
				{Name: "max_threads", Kind: textir.IntegerAttrKind, Optional: true},
				{Name: "min_blocks", Kind: textir.IntegerAttrKind, Optional: true},
				{Name: "arg_attrs", Kind: textir.ArrayAttrKind, Optional: true},
			},
			Verify: verifyFunc, VerifyRegions: verifyFuncRegions,
			Print: printFunc, Parse: parseFunc,
		},
		{
			Name: ReturnOp, Summary: "returns from a gpu.func",
			Operands:      textir.AtLeast(0),
			NamedOperands: []string{"operands..."},
			Traits:        textir.Terminator | textir.ReturnLike | textir.Pure,
			Verify:        verifyReturn,
			Print:         printTerminator, Parse: parseTerminator,
		},
		{
			Name: CallOp, Summary: "calls a device function of the same gpu.module",
			Operands: textir.AtLeast(0), Results: textir.AtLeast(0),
			NamedOperands: []string{"operands..."}, NamedResults: []string{"results..."},
			Attrs:  []textir.AttrSpec{{Name: "callee", Kind: textir.SymbolRefAttrKind}},
			Verify: verifyCall,
			Print:  printCall, Parse: parseCall,
		},
	}
	for _, n := range []struct{ name, summary string }{
		{ThreadIdOp, "the thread index in its block (threadIdx)"},
		{BlockIdOp, "the block index in the grid (blockIdx)"},
		{BlockDimOp, "the block size (blockDim)"},
		{GridDimOp, "the grid size (gridDim)"},
	} {
		d.Ops = append(d.Ops, &textir.OpDef{
			Name: n.name, Summary: n.summary,
			Results: textir.Exactly(1), ResultTypes: []textir.TypeConstraint{i32Type},
			NamedResults: []string{"result"},
			Attrs:        []textir.AttrSpec{{Name: "dimension", Kind: textir.StringAttrKind}},
			Traits:       textir.Pure,
			Verify:       verifyDimOp,
			Print:        printDimOp, Parse: parseDimOp,
		})
	}
	d.Ops = append(d.Ops,
		&textir.OpDef{
			Name: LaneIdOp, Summary: "the lane index in the warp",
			Results: textir.Exactly(1), ResultTypes: []textir.TypeConstraint{i32Type},
			NamedResults: []string{"result"},
			Traits:       textir.Pure,
			Verify:       verifyInKernel,
			Print:        printNullary, Parse: parseNullary(textir.I32()),
		},
		&textir.OpDef{
			Name: BarrierOp, Summary: "waits for every thread of the block (__syncthreads)",
			Verify: verifyInKernel,
			Print:  printNullary, Parse: parseNullary(nil),
		},
		&textir.OpDef{
			Name: WarpSyncOp, Summary: "waits for every lane of the warp and orders their memory accesses (__syncwarp)",
			Verify: verifyInKernel,
			Print:  printNullary, Parse: parseNullary(nil),
		},
		&textir.OpDef{
			Name: ShuffleOp, Summary: "exchanges a value between the lanes of a warp",
			Operands: textir.Exactly(3), Results: textir.Exactly(1),
			NamedOperands: []string{"value", "offset", "width"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{anyScalar, i32Type, i32Type},
			Attrs:        []textir.AttrSpec{{Name: "mode", Kind: textir.StringAttrKind}},
			Verify:       verifyShuffle,
			Print:        printShuffle, Parse: parseShuffle,
		},
		&textir.OpDef{
			Name: LoadOp, Summary: "loads 1, 2 or 4 consecutive elements",
			Operands: textir.Exactly(2), Results: textir.Between(1, 4),
			NamedOperands: []string{"ptr", "index"}, NamedResults: []string{"values..."},
			OperandTypes: []textir.TypeConstraint{ptrType, i64Type},
			Attrs: []textir.AttrSpec{{Name: "width", Kind: textir.IntegerAttrKind, Optional: true},
				{Name: "readonly", Kind: textir.UnitAttrKind, Optional: true},
				{Name: "nontemporal", Kind: textir.UnitAttrKind, Optional: true}},
			Verify: verifyLoad,
			Print:  printLoad, Parse: parseLoad,
		},
		&textir.OpDef{
			Name: StoreOp, Summary: "stores 1, 2 or 4 consecutive elements",
			Operands:      textir.Between(3, 6),
			NamedOperands: []string{"values...", "ptr", "index"},
			Attrs: []textir.AttrSpec{{Name: "width", Kind: textir.IntegerAttrKind, Optional: true},
				{Name: "nontemporal", Kind: textir.UnitAttrKind, Optional: true}},
			Verify: verifyStore,
			Print:  printStore, Parse: parseStore,
		},
		&textir.OpDef{
			Name: PtrOffsetOp, Summary: "the address of element %i (&p[i])",
			Operands: textir.Exactly(2), Results: textir.Exactly(1),
			NamedOperands: []string{"ptr", "index"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{ptrType, i64Type},
			Traits:       textir.Pure,
			Verify:       verifyPtrOffset,
			Fold:         foldPtrOffset,
			Print:        printPtrOffset, Parse: parsePtrOffset,
		},
		&textir.OpDef{
			Name: PtrCastOp, Summary: "reinterprets a pointer's element type",
			Operands: textir.Exactly(1), Results: textir.Exactly(1),
			NamedOperands: []string{"source"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{ptrType}, ResultTypes: []textir.TypeConstraint{ptrType},
			Traits: textir.Pure,
			Verify: verifyPtrCast,
			Fold:   foldPtrCast,
			Print:  printPtrCast, Parse: parsePtrCast,
		},
		&textir.OpDef{
			Name: SharedAllocOp, Summary: "static shared memory of the block",
			Results: textir.Exactly(1), ResultTypes: []textir.TypeConstraint{ptrType},
			NamedResults: []string{"result"},
			Attrs:        []textir.AttrSpec{{Name: "count", Kind: textir.IntegerAttrKind}},
			Verify:       verifySharedAlloc,
			Print:        printSharedAlloc, Parse: parseSharedAlloc,
		},
		&textir.OpDef{
			Name: AtomicAddOp, Summary: "atomically adds to p[i] and returns the old value",
			Operands: textir.Exactly(3), Results: textir.Exactly(1),
			NamedOperands: []string{"ptr", "index", "value"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{ptrType, i64Type, anyScalar},
			Verify:       verifyAtomicAdd,
			Print:        printAtomicAdd, Parse: parseAtomicAdd,
		},
		&textir.OpDef{
			Name: ForOp, Summary: "a counted loop with loop-carried values",
			Operands: textir.AtLeast(3), Results: textir.AtLeast(0), Regions: textir.Exactly(1),
			NamedOperands: []string{"lower_bound", "upper_bound", "step", "init_args..."}, NamedResults: []string{"results..."},
			OperandTypes: []textir.TypeConstraint{loopBound, loopBound, loopBound, textir.AnyType},
			Traits:       textir.SingleBlock,
			Verify:       verifyFor, VerifyRegions: verifyForRegions,
			Fold:  foldFor,
			Print: printFor, Parse: parseFor,
		},
		&textir.OpDef{
			Name: IfOp, Summary: "a conditional with an optional else branch",
			Operands: textir.Exactly(1), Results: textir.AtLeast(0), Regions: textir.Exactly(2),
			NamedOperands: []string{"condition"}, NamedResults: []string{"results..."},
			OperandTypes: []textir.TypeConstraint{i1Type},
			Traits:       textir.SingleBlock,
			Verify:       verifyIf, VerifyRegions: verifyIfRegions,
			Canonicalize: []textir.RewritePattern{constantIfPattern()},
			Print:        printIf, Parse: parseIf,
		},
		&textir.OpDef{
			Name: YieldOp, Summary: "ends a gpu.for or gpu.if region with its values",
			Operands:      textir.AtLeast(0),
			NamedOperands: []string{"results..."},
			Traits:        textir.Terminator | textir.ReturnLike | textir.Pure,
			Verify:        verifyYield,
			Print:         printTerminator, Parse: parseTerminator,
		},
	)
	mathOp := func(name, summary string, operands []string, tr textir.Trait) {
		d.Ops = append(d.Ops, &textir.OpDef{
			Name: name, Summary: summary,
			Operands: textir.Exactly(len(operands)), Results: textir.Exactly(1),
			NamedOperands: operands, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{f32or64}, ResultTypes: []textir.TypeConstraint{f32or64},
			Traits: textir.Pure | tr,
			Verify: verifySameTypes,
			Fold:   foldMath,
			Print:  printMath, Parse: parseMath,
		})
	}
	unary, binary := []string{"operand"}, []string{"lhs", "rhs"}
	mathOp(SqrtOp, "square root", unary, 0)
	mathOp(RsqrtOp, "reciprocal square root", unary, 0)
	mathOp(FabsOp, "absolute value", unary, 0)
	mathOp(MinOp, "minimum, ignoring a NaN operand (fminf)", binary, textir.Commutative)
	mathOp(MaxOp, "maximum, ignoring a NaN operand (fmaxf)", binary, textir.Commutative)
	mathOp(FmaOp, "fused multiply-add a * b + c", []string{"a", "b", "c"}, 0)
	d.Ops = append(d.Ops,
		&textir.OpDef{
			Name: LaunchOp, Summary: "launches a kernel over a grid of blocks",
			Operands:      textir.AtLeast(2),
			NamedOperands: []string{"grid_size", "block_size", "args..."},
			OperandTypes:  []textir.TypeConstraint{i64Type, i64Type, textir.AnyType},
			Attrs:         []textir.AttrSpec{{Name: "kernel", Kind: textir.SymbolRefAttrKind}},
			Verify:        verifyLaunch,
			Print:         printLaunch, Parse: parseLaunch,
		},
		&textir.OpDef{
			Name: BufferViewOp, Summary: "a slice of a buffer from a byte offset",
			Operands: textir.Exactly(2), Results: textir.Exactly(1),
			NamedOperands: []string{"source", "byte_shift"}, NamedResults: []string{"result"},
			OperandTypes: []textir.TypeConstraint{bufferType, i64Type}, ResultTypes: []textir.TypeConstraint{bufferType},
			Traits: textir.Pure,
			Verify: verifyOnHost,
			Fold:   foldBufferView,
			Print:  printBufferView, Parse: parseBufferView,
		},
		&textir.OpDef{
			Name: AllocOp, Summary: "allocates a device buffer of a number of bytes",
			Operands: textir.Exactly(1), Results: textir.Exactly(1),
			NamedOperands: []string{"bytes"}, NamedResults: []string{"buffer"},
			OperandTypes: []textir.TypeConstraint{i64Type}, ResultTypes: []textir.TypeConstraint{bufferType},
			Verify: verifyOnHost,
			Print:  printAlloc, Parse: parseAlloc,
		},
	)
	return d
}

// Accessors for passes and the emitter.

// FuncType returns the signature of a gpu.func (nil when missing).
func FuncType(fn *textir.Operation) *textir.FunctionType {
	ta, _ := fn.LookupAttr("function_type").(textir.TypeAttr)
	ft, _ := ta.Type.(*textir.FunctionType)
	return ft
}

// IsKernel reports whether a gpu.func is a kernel (an entry point).
func IsKernel(fn *textir.Operation) bool {
	_, ok := fn.LookupAttr("kernel").(textir.UnitAttr)
	return ok
}

func intAttr(op *textir.Operation, name string) (int64, bool) {
	a, ok := op.LookupAttr(name).(textir.IntegerAttr)
	return a.Value, ok
}

// MaxThreads returns a kernel's max_threads launch bound, if set.
func MaxThreads(fn *textir.Operation) (int64, bool) { return intAttr(fn, "max_threads") }

// MinBlocks returns a kernel's min_blocks (per SM) hint, if set.
func MinBlocks(fn *textir.Operation) (int64, bool) { return intAttr(fn, "min_blocks") }

// Dimension returns "x", "y" or "z" of thread_id, block_id, block_dim and
// grid_dim ("" when missing).
func Dimension(op *textir.Operation) string {
	s, _ := op.LookupAttr("dimension").(textir.StringAttr)
	return s.Value
}

// ShuffleMode returns "xor", "down", "up" or "idx".
func ShuffleMode(op *textir.Operation) string {
	s, _ := op.LookupAttr("mode").(textir.StringAttr)
	return s.Value
}

// Width returns the vector width of a load or store (1 when absent).
func Width(op *textir.Operation) int {
	if w, ok := intAttr(op, "width"); ok {
		return int(w)
	}
	return 1
}

// IsReadOnly reports a load's readonly attribute (ld.global.nc).
func IsReadOnly(op *textir.Operation) bool {
	_, ok := op.LookupAttr("readonly").(textir.UnitAttr)
	return ok
}

// IsNonTemporal reports a load's or store's nontemporal attribute.
func IsNonTemporal(op *textir.Operation) bool {
	_, ok := op.LookupAttr("nontemporal").(textir.UnitAttr)
	return ok
}

// SharedCount returns the element count of a shared_alloc.
func SharedCount(op *textir.Operation) int64 {
	v, _ := intAttr(op, "count")
	return v
}

// MemPtr returns the pointer operand of a load, store or atomic_add.
func MemPtr(op *textir.Operation) *textir.Value {
	if op.Name() == StoreOp {
		return op.Operand(op.NumOperands() - 2)
	}
	return op.Operand(0)
}

// MemIndex returns the element index operand of a load, store or atomic_add.
func MemIndex(op *textir.Operation) *textir.Value {
	if op.Name() == StoreOp {
		return op.Operand(op.NumOperands() - 1)
	}
	return op.Operand(1)
}

// StoredValues returns the values a gpu.store writes.
func StoredValues(op *textir.Operation) []*textir.Value {
	return op.Operands()[:op.NumOperands()-2]
}

// Callee returns the gpu.func a gpu.call names, or nil.
func Callee(call *textir.Operation) *textir.Operation {
	ref, ok := call.LookupAttr("callee").(textir.SymbolRefAttr)
	if !ok {
		return nil
	}
	return textir.LookupSymbol(call, ref)
}

// LaunchKernel returns the gpu.func a gpu.launch names, or nil.
func LaunchKernel(launch *textir.Operation) *textir.Operation {
	ref, ok := launch.LookupAttr("kernel").(textir.SymbolRefAttr)
	if !ok {
		return nil
	}
	return textir.LookupSymbol(launch, ref)
}

// LaunchArgs returns the kernel arguments of a gpu.launch (after the grid
// and block sizes, operands 0 and 1).
func LaunchArgs(launch *textir.Operation) []*textir.Value { return launch.Operands()[2:] }

// ForBody returns the body block of a gpu.for: argument 0 is the induction
// variable, the others the iteration arguments.
func ForBody(op *textir.Operation) *textir.Block { return op.Region(0).Front() }

// ForInits returns the initial values of a gpu.for's iteration arguments.
func ForInits(op *textir.Operation) []*textir.Value { return op.Operands()[3:] }

// NewFunc returns a detached gpu.func @name of type ft with an entry block
// whose arguments match ft's inputs; the caller fills the block.
func NewFunc(ctx *textir.Context, loc textir.Location, name string, ft *textir.FunctionType, kernel bool) *textir.Operation {
	attrs := []textir.NamedAttribute{
		{Name: "sym_name", Value: textir.Str(name)},
		{Name: "function_type", Value: textir.TypeAttr{Type: ft}},
	}
	if kernel {
		attrs = append(attrs, textir.NamedAttribute{Name: "kernel", Value: textir.UnitAttr{}})
	}
	fn := ctx.Create(&textir.OperationState{Name: FuncOp, Loc: loc, NumRegions: 1, Attrs: attrs})
	fn.Region(0).AppendBlock(textir.NewBlock(ft.Inputs...))
	return fn
}

// NewModule returns a detached gpu.module @name with an empty body.
func NewModule(ctx *textir.Context, loc textir.Location, name string) *textir.Operation {
	m := ctx.Create(&textir.OperationState{Name: ModuleOp, Loc: loc, NumRegions: 1,
		Attrs: []textir.NamedAttribute{{Name: "sym_name", Value: textir.Str(name)}}})
	m.Region(0).AppendBlock(textir.NewBlock())
	return m
}
