package gpu

import (
	"math"

	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/textir"
)

// EnclosingFunc returns the gpu.func that holds op (at any depth), or nil.
func EnclosingFunc(op *textir.Operation) *textir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name() == FuncOp {
			return p
		}
	}
	return nil
}

func verifyInKernel(op *textir.Operation) error {
	if EnclosingFunc(op) == nil {
		return op.Errorf("must be inside a gpu.func")
	}
	return nil
}

func verifyOnHost(op *textir.Operation) error {
	if EnclosingFunc(op) != nil {
		return op.Errorf("runs on the host and cannot be inside a gpu.func")
	}
	return nil
}

func verifyModule(op *textir.Operation) error {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name() == ModuleOp || p.Name() == FuncOp {
			return op.Errorf("cannot be nested in a %s", p.Name())
		}
	}
	if b := op.Region(0).Front(); b != nil {
		for o := range b.Ops() {
			if o.Name() != FuncOp {
				return o.Errorf("cannot be in a gpu.module, which holds gpu.func ops only")
			}
		}
	}
	return nil
}

func verifyFunc(op *textir.Operation) error {
	ft := FuncType(op)
	if ft == nil {
		return op.Errorf("attribute 'function_type' failed to satisfy constraint: type attribute of function type")
	}
	if p := op.ParentOp(); p == nil || p.Name() != ModuleOp {
		return op.Errorf("expects parent op '%s'", ModuleOp)
	}
	for i, t := range ft.Inputs {
		if !isScalar(t) && !IsPtr(t) {
			return op.Errorf("argument #%d must be an integer, a float or a !gpu.ptr, but got '%s'", i, t)
		}
	}
	for i, t := range ft.Results {
		if !isScalar(t) && !IsPtr(t) {
			return op.Errorf("result #%d must be an integer, a float or a !gpu.ptr, but got '%s'", i, t)
		}
	}
	kernel := IsKernel(op)
	if kernel && len(ft.Results) > 0 {
		return op.Errorf("a kernel cannot return values, but the signature has %d results", len(ft.Results))
	}
	if v, ok := MaxThreads(op); ok {
		if !kernel {
			return op.Errorf("'max_threads' is only allowed on a kernel")
		}
		if v < 1 || v > MaxThreadsPerBlock {
			return op.Errorf("'max_threads' must be in [1, %d], but is %d", MaxThreadsPerBlock, v)
		}
	}
	if v, ok := MinBlocks(op); ok {
		if !kernel {
			return op.Errorf("'min_blocks' is only allowed on a kernel")
		}
		if v < 1 || v > math.MaxInt32 {
			// The backend writes it as a 32-bit launch bound (minctasm).
			return op.Errorf("'min_blocks' must be in [1, %d], but is %d", math.MaxInt32, v)
		}
	}
	if a, ok := op.LookupAttr("arg_attrs").(textir.ArrayAttr); ok {
		if len(a.Elems) != len(ft.Inputs) {
			return op.Errorf("expects argument attribute array to have the same number of elements as the number of function arguments, got %d, but expected %d",
				len(a.Elems), len(ft.Inputs))
		}
		for i, e := range a.Elems {
			if _, ok := e.(textir.DictAttr); !ok {
				return op.Errorf("expects argument attribute dictionary #%d to be a dictionary attribute", i)
			}
		}
	}
	entry := op.Region(0).Front()
	if entry == nil {
		return op.Errorf("requires a body")
	}
	return funcd.VerifyEntryBlock(op, ft)
}

// SharedBytes returns the bytes of static shared memory the shared_alloc
// ops of fn (at any depth) take.
func SharedBytes(fn *textir.Operation) int64 {
	var n int64
	fn.Walk(func(o *textir.Operation) bool {
		if o.Name() == SharedAllocOp && o.NumResults() == 1 {
			n += SharedCount(o) * int64(ElemBytes(PtrElem(o.Result(0).Type())))
		}
		return true
	})
	return n
}

func verifyFuncRegions(op *textir.Operation) error {
	if n := SharedBytes(op); n > MaxSharedBytes {
		return op.Errorf("uses %d bytes of static shared memory, more than the %d a block may have", n, MaxSharedBytes)
	}
	return nil
}

func verifyReturn(op *textir.Operation) error {
	fn := op.ParentOp()
	if fn == nil || fn.Name() != FuncOp {
		return op.Errorf("expects parent op '%s'", FuncOp)
	}
	ft := FuncType(fn)
	if ft == nil {
		return nil
	}
	if op.NumOperands() != len(ft.Results) {
		return op.Errorf("has %d operands, but enclosing function returns %d", op.NumOperands(), len(ft.Results))
	}
	for i, v := range op.Operands() {
		if v.Type() != ft.Results[i] {
			return op.Errorf("type of return operand %d ('%s') doesn't match function result type ('%s')", i, v.Type(), ft.Results[i])
		}
	}
	return nil
}

func verifyCall(op *textir.Operation) error {
	caller := EnclosingFunc(op)
	if caller == nil {
		return op.Errorf("must be inside a gpu.func")
	}
	ref, ok := op.LookupAttr("callee").(textir.SymbolRefAttr)
	if !ok || len(ref.Nested) != 0 {
		return op.Errorf("requires a 'callee' flat symbol reference attribute")
	}
	fn := textir.LookupSymbolIn(caller.ParentOp(), ref.Root)
	if fn == nil || fn.Name() != FuncOp {
		return op.Errorf("'@%s' does not reference a gpu.func of the same gpu.module", ref.Root)
	}
	if IsKernel(fn) {
		return op.Errorf("'@%s' is a kernel, which can only be launched", ref.Root)
	}
	ft := FuncType(fn)
	if ft == nil {
		return nil
	}
	return funcd.VerifyCallTypes(op, ft)
}

func verifyDimOp(op *textir.Operation) error {
	switch Dimension(op) {
	case "x", "y", "z":
	default:
		return op.Errorf("attribute 'dimension' must be \"x\", \"y\" or \"z\"")
	}
	return verifyInKernel(op)
}

func verifyShuffle(op *textir.Operation) error {
	switch ShuffleMode(op) {
	case "xor", "down", "up", "idx":
	default:
		return op.Errorf("attribute 'mode' must be \"xor\", \"down\", \"up\" or \"idx\"")
	}
	t := op.Operand(0).Type()
	if w := textir.BitWidth(t); w != 32 && w != 64 {
		return op.Errorf("shuffles 32- or 64-bit values, but got '%s'", t)
	}
	if op.Result(0).Type() != t {
		return op.Errorf("result type '%s' must be the type of the shuffled value '%s'", op.Result(0).Type(), t)
	}
	return verifyInKernel(op)
}

// verifyWidth checks a load's or store's width against the pointer.
func verifyWidth(op *textir.Operation, ptr textir.Type) error {
	w := 1
	if a := op.LookupAttr("width"); a != nil {
		ia, ok := a.(textir.IntegerAttr)
		if !ok {
			return op.Errorf("attribute 'width' must be an integer")
		}
		w = int(ia.Value)
		if ia.Value != 1 && ia.Value != 2 && ia.Value != 4 {
			return op.Errorf("attribute 'width' must be 1, 2 or 4, but is %d", ia.Value)
		}
	}
	if b := w * ElemBytes(PtrElem(ptr)); b > 16 {
		return op.Errorf("accesses %d bytes at once, but one access moves at most 16 (width %d of %s)", b, w, PtrElem(ptr))
	}
	return nil
}

func verifyLoad(op *textir.Operation) error {
	pt := op.Operand(0).Type()
	if err := verifyWidth(op, pt); err != nil {
		return err
	}
	if w := Width(op); op.NumResults() != w {
		return op.Errorf("loads %d elements (width %d), but has %d results", w, w, op.NumResults())
	}
	elem := PtrElem(pt)
	for i, t := range op.ResultTypes() {
		if t != elem {
			return op.Errorf("result #%d has type '%s', but the pointer's element type is '%s'", i, t, elem)
		}
	}
	if IsReadOnly(op) && PtrSpace(pt) != Global {
		return op.Errorf("'readonly' needs a global pointer, but got '%s'", pt)
	}
	return verifyInKernel(op)
}

func verifyStore(op *textir.Operation) error {
	n := op.NumOperands()
	pt := op.Operand(n - 2).Type()
	if !IsPtr(pt) {
		return op.Errorf("operand #%d must be a gpu pointer, but got '%s'", n-2, pt)
	}
	if it := op.Operand(n - 1).Type(); it != textir.I64() {
		return op.Errorf("operand #%d (the index) must be i64, but got '%s'", n-1, it)
	}
	if err := verifyWidth(op, pt); err != nil {
		return err
	}
	if w := Width(op); n-2 != w {
		return op.Errorf("stores %d elements (width %d), but has %d values", w, w, n-2)
	}
	elem := PtrElem(pt)
	for i, v := range StoredValues(op) {
		if v.Type() != elem {
			return op.Errorf("value #%d has type '%s', but the pointer's element type is '%s'", i, v.Type(), elem)
		}
	}
	return verifyInKernel(op)
}

func verifyPtrOffset(op *textir.Operation) error {
	if op.Result(0).Type() != op.Operand(0).Type() {
		return op.Errorf("result type '%s' must be the pointer type '%s'", op.Result(0).Type(), op.Operand(0).Type())
	}
	return nil
}

func verifyPtrCast(op *textir.Operation) error {
	in, out := op.Operand(0).Type(), op.Result(0).Type()
	if PtrSpace(in) != PtrSpace(out) {
		return op.Errorf("cannot change the address space ('%s' to '%s')", in, out)
	}
	return nil
}

func verifySharedAlloc(op *textir.Operation) error {
	t := op.Result(0).Type()
	if PtrSpace(t) != Shared {
		return op.Errorf("result must be a shared pointer, but got '%s'", t)
	}
	n := SharedCount(op)
	if n <= 0 {
		return op.Errorf("'count' must be positive, but is %d", n)
	}
	if eb := int64(ElemBytes(PtrElem(t))); n > MaxSharedBytes/eb {
		return op.Errorf("allocates %d elements of %s, more than the %d bytes of shared memory a block may have", n, PtrElem(t), MaxSharedBytes)
	}
	return verifyInKernel(op)
}

func verifyAtomicAdd(op *textir.Operation) error {
	pt := op.Operand(0).Type()
	elem := PtrElem(pt)
	switch elem {
	case textir.I32(), textir.I64(), textir.F32(), textir.F64():
	default:
		return op.Errorf("atomic add on '%s' is not supported (i32, i64, f32 or f64)", elem)
	}
	if op.Operand(2).Type() != elem || op.Result(0).Type() != elem {
		return op.Errorf("value and result must have the pointer's element type '%s'", elem)
	}
	return verifyInKernel(op)
}

func verifyFor(op *textir.Operation) error {
	t := op.Operand(0).Type()
	if op.Operand(1).Type() != t || op.Operand(2).Type() != t {
		return op.Errorf("lower bound, upper bound and step must have the same type")
	}
	inits := ForInits(op)
	if len(inits) != op.NumResults() {
		return op.Errorf("has %d iter_args, but %d results", len(inits), op.NumResults())
	}
	for i, v := range inits {
		if v.Type() != op.Result(i).Type() {
			return op.Errorf("iter_arg #%d has type '%s', but result #%d has type '%s'", i, v.Type(), i, op.Result(i).Type())
		}
	}
	body := ForBody(op)
	if body == nil {
		return op.Errorf("expects a non-empty region")
	}
	if body.NumArgs() != 1+len(inits) {
		return op.Errorf("region must have %d arguments (the induction variable and the iter_args), but has %d", 1+len(inits), body.NumArgs())
	}
	if body.Arg(0).Type() != t {
		return op.Errorf("induction variable has type '%s', but the bounds have type '%s'", body.Arg(0).Type(), t)
	}
	for i, v := range inits {
		if at := body.Arg(i + 1).Type(); at != v.Type() {
			return op.Errorf("region argument #%d has type '%s', but iter_arg #%d has type '%s'", i+1, at, i, v.Type())
		}
	}
	return nil
}

// checkYield checks the terminator of a region of a for or if.
func checkYield(op *textir.Operation, r *textir.Region, what string) error {
	b := r.Front()
	if b == nil {
		return nil
	}
	y := b.Last()
	if y == nil || y.Name() != YieldOp {
		return op.Errorf("%s must end with gpu.yield", what)
	}
	return nil
}

func verifyForRegions(op *textir.Operation) error { return checkYield(op, op.Region(0), "the body") }

func verifyIf(op *textir.Operation) error {
	if op.Region(0).Empty() {
		return op.Errorf("requires a 'then' region")
	}
	if op.NumResults() > 0 && op.Region(1).Empty() {
		return op.Errorf("must have an else block if defining values")
	}
	for i, r := range op.Regions() {
		if b := r.Front(); b != nil && b.NumArgs() != 0 {
			return op.Errorf("region #%d must have no arguments", i)
		}
	}
	return nil
}

func verifyIfRegions(op *textir.Operation) error {
	if err := checkYield(op, op.Region(0), "the 'then' region"); err != nil {
		return err
	}
	return checkYield(op, op.Region(1), "the 'else' region")
}

func verifyYield(op *textir.Operation) error {
	p := op.ParentOp()
	if p == nil || (p.Name() != ForOp && p.Name() != IfOp) {
		return op.Errorf("expects parent op to be one of '%s, %s'", ForOp, IfOp)
	}
	if op.NumOperands() != p.NumResults() {
		return op.Errorf("yields %d values, but the parent %s has %d results", op.NumOperands(), p.Name(), p.NumResults())
	}
	for i, v := range op.Operands() {
		if v.Type() != p.Result(i).Type() {
			return op.Errorf("type of yield operand %d ('%s') doesn't match the parent's result type ('%s')", i, v.Type(), p.Result(i).Type())
		}
	}
	return nil
}

func verifySameTypes(op *textir.Operation) error {
	t := op.Result(0).Type()
	for _, v := range op.Operands() {
		if v.Type() != t {
			return op.Errorf("requires the same type for all operands and results")
		}
	}
	return nil
}

func verifyLaunch(op *textir.Operation) error {
	if err := verifyOnHost(op); err != nil {
		return err
	}
	ref, _ := op.LookupAttr("kernel").(textir.SymbolRefAttr)
	fn := LaunchKernel(op)
	if fn == nil || fn.Name() != FuncOp {
		return op.Errorf("'%s' does not reference a gpu.func", symRefString(ref))
	}
	if !IsKernel(fn) {
		return op.Errorf("'%s' is not a kernel (it lacks the 'kernel' attribute)", symRefString(ref))
	}
	ft := FuncType(fn)
	if ft == nil {
		return nil
	}
	args := LaunchArgs(op)
	if len(args) != len(ft.Inputs) {
		return op.Errorf("passes %d arguments, but the kernel takes %d", len(args), len(ft.Inputs))
	}
	for i, v := range args {
		want := ft.Inputs[i]
		if v.Type() == want || (IsBuffer(v.Type()) && PtrSpace(want) == Global) {
			continue
		}
		return op.Errorf("argument #%d has type '%s', but the kernel takes '%s'", i, v.Type(), want)
	}
	return nil
}

func symRefString(r textir.SymbolRefAttr) string {
	s := "@" + r.Root
	for _, n := range r.Nested {
		s += "::@" + n
	}
	return s
}
