package gpu

// The simulator: a kernel (a gpu.func with 'kernel') is compiled once into
// a flat register program (structured control flow becomes jumps, device
// function calls are inlined, every SSA value gets a register; values of
// sibling regions share registers), and a launch runs it over the grid on
// the CPU.
//
// Threads of a block run one after another, each until it reaches a
// barrier, a shuffle or its return: a deterministic lockstep schedule.
// When every lane of a warp waits at a shuffle, the warp exchanges values
// and goes on; when every thread of the block waits at a barrier, the block
// goes on. A barrier that some threads of the block do not reach (they wait
// at another barrier or returned) and a shuffle that some lanes of the warp
// do not reach are errors naming the op, as they are undefined on the GPU.
// Blocks run in parallel on several goroutines (their order is the GPU's
// business too); atomics are serialised.
//
// Memory: a buffer is a byte slice; a global pointer is (buffer, byte
// offset), a shared pointer (the block's shared_alloc, byte offset). Every
// access is checked: out of bounds, misaligned (a width-w access of e-byte
// elements must be w·e-byte aligned; buffers start 256-byte aligned, views
// at their byte offset) and division by zero are errors naming the op, the
// thread and the block. Shared memory starts filled with 0xff bytes (NaN
// for floats, -1 for integers) in every block, as gpu.alloc's buffers do,
// so that reading what no thread wrote shows.

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/textir"
)

type opcode uint8

const (
	opConst opcode = iota
	opMov
	opMovN
	opIntBin
	opFloatBin
	opCmpI
	opCmpF
	opSelect
	opSExt  // normalise a signed value to width w (extsi, trunci, index_cast)
	opZExt  // zero-extend from width w (extui)
	opSIToF // w: 32 or 64 (result float width)
	opUIToF // b: source width
	opFToSI // w: result width
	opNegF
	opMath // k: math kind
	opFma
	opTid
	opBid
	opBdim
	opGdim
	opLane
	opBarrier
	opShuffle
	opLoad
	opStore
	opAtomicAdd
	opPtrOffset
	opShared
	opJump
	opBrFalse
	opForCheck
	opForIncr
	opStepCheck
	opReturn
)

// Integer binary kinds.
const (
	kAdd uint8 = iota
	kSub
	kMul
	kDivS
	kRemS
	kDivU
	kRemU
	kAnd
	kOr
	kXor
	kShl
	kShrS
	kShrU
	kMaxS
	kMinS
)

// Float binary kinds.
const (
	kAddF uint8 = iota
	kSubF
	kMulF
	kDivF
	kMaximumF
	kMinimumF
	kFMin
	kFMax
)

// Math kinds.
const (
	kSqrt uint8 = iota
	kRsqrt
	kFabs
	kRound // no math: only the rounding to the result width (arith.truncf)
)

// Memory element kinds.
const (
	eI8 uint8 = iota
	eI16
	eI32
	eI64
	eF16
	eBF16
	eF32
	eF64
)

var intBinKinds = map[string]uint8{
	arith.AddIOp: kAdd, arith.SubIOp: kSub, arith.MulIOp: kMul, arith.DivSIOp: kDivS, arith.RemSIOp: kRemS,
	arith.DivUIOp: kDivU, arith.RemUIOp: kRemU, arith.AndIOp: kAnd, arith.OrIOp: kOr, arith.XOrIOp: kXor,
	arith.ShLIOp: kShl, arith.ShRSIOp: kShrS, arith.ShRUIOp: kShrU, arith.MaxSIOp: kMaxS, arith.MinSIOp: kMinS,
}

var floatBinKinds = map[string]uint8{
	arith.AddFOp: kAddF, arith.SubFOp: kSubF, arith.MulFOp: kMulF, arith.DivFOp: kDivF,
	arith.MaximumFOp: kMaximumF, arith.MinimumFOp: kMinimumF, MinOp: kFMin, MaxOp: kFMax,
}

type instr struct {
	code    opcode
	k       uint8 // sub-kind (binary op, predicate, shuffle mode, element kind)
	w       uint8 // bit width of the result (ints), 32/64 (floats)
	esize   uint8 // element bytes of memory ops
	dst     int32
	a, b, c int32
	imm     int64 // constant bits, jump target, shared slot
	regs    []int32
	regs2   []int32
	op      *textir.Operation
}

// Kernel is a kernel compiled for the simulator. It is immutable and may
// be launched concurrently.
type Kernel struct {
	fn      *textir.Operation
	code    []instr
	nregs   int
	args    []int32
	argKind []textir.Type
	shared  []int64 // bytes of each shared_alloc
}

// MaxCode bounds the size of a compiled kernel (after inlining).
const MaxCode = 1 << 24

type compiler struct {
	code      []instr
	regOf     map[*textir.Value]int32
	next, max int32
	shared    []int64
	sharedOf  map[*textir.Operation]int64
	calls     []*textir.Operation
	retPatch  *[]int // jumps to patch at the end of the inlined callee
	retRegs   []int32
}

// Compile compiles a kernel for the simulator.
func Compile(fn *textir.Operation) (*Kernel, error) {
	if fn == nil || fn.Name() != FuncOp {
		return nil, fmt.Errorf("gpu: Compile needs a gpu.func")
	}
	if !IsKernel(fn) {
		return nil, fn.Errorf("is not a kernel")
	}
	c := &compiler{regOf: map[*textir.Value]int32{}, sharedOf: map[*textir.Operation]int64{}}
	k := &Kernel{fn: fn}
	body := fn.Region(0).Front()
	if body == nil || len(fn.Region(0).Blocks()) != 1 {
		return nil, fn.Errorf("the simulator needs a body of exactly one block")
	}
	for _, a := range body.Args() {
		k.args = append(k.args, c.def(a))
		k.argKind = append(k.argKind, a.Type())
	}
	c.calls = []*textir.Operation{fn}
	if err := c.block(body); err != nil {
		return nil, err
	}
	k.code, k.nregs, k.shared = c.code, int(c.max), c.shared
	return k, nil
}

func (c *compiler) def(v *textir.Value) int32 {
	r := c.next
	c.next++
	if c.next > c.max {
		c.max = c.next
	}
	c.regOf[v] = r
	return r
}

func (c *compiler) defs(vs []*textir.Value) []int32 {
	rs := make([]int32, len(vs))
	for i, v := range vs {
		rs[i] = c.def(v)
	}
	return rs
}

func (c *compiler) reg(op *textir.Operation, v *textir.Value) (int32, error) {
	r, ok := c.regOf[v]
	if !ok {
		return 0, op.Errorf("uses a value defined outside the kernel")
	}
	return r, nil
}

func (c *compiler) regsOf(op *textir.Operation, vs []*textir.Value) ([]int32, error) {
	rs := make([]int32, len(vs))
	for i, v := range vs {
		r, err := c.reg(op, v)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	return rs, nil
}

func (c *compiler) emit(in instr) int {
	c.code = append(c.code, in)
	return len(c.code) - 1
}

func (c *compiler) block(b *textir.Block) error {
	for op := range b.Ops() {
		if len(c.code) > MaxCode {
			return op.Errorf("the kernel is too large for the simulator (more than %d instructions after inlining)", MaxCode)
		}
		if err := c.op(op); err != nil {
			return err
		}
	}
	return nil
}

// region compiles the single block of r with its own register scope,
// handling its terminator with term.
func (c *compiler) region(op *textir.Operation, r *textir.Region, args []*textir.Value, pre func([]int32), term func(*textir.Operation) error) error {
	save := c.next
	defer func() { c.next = save }()
	b := r.Front()
	if b == nil || len(r.Blocks()) != 1 {
		return op.Errorf("the simulator needs regions of exactly one block")
	}
	rs := c.defs(args)
	if pre != nil {
		pre(rs)
	}
	for o := range b.Ops() {
		if o == b.Last() && o.HasTrait(textir.Terminator) {
			return term(o)
		}
		if err := c.op(o); err != nil {
			return err
		}
	}
	return op.Errorf("region does not end with a terminator")
}

func intWidth(t textir.Type) uint8 {
	w := textir.BitWidth(t)
	if w <= 0 || w > 64 {
		return 64
	}
	return uint8(w)
}

func elemKind(t textir.Type) (uint8, bool) {
	switch t {
	case textir.I8():
		return eI8, true
	case textir.I16():
		return eI16, true
	case textir.I32():
		return eI32, true
	case textir.I64():
		return eI64, true
	case textir.F16():
		return eF16, true
	case textir.BF16():
		return eBF16, true
	case textir.F32():
		return eF32, true
	case textir.F64():
		return eF64, true
	}
	return 0, false
}

func (c *compiler) op(op *textir.Operation) error {
	name := op.Name()
	in, err := c.regsOf(op, op.Operands())
	if err != nil {
		return err
	}
	if k, ok := intBinKinds[name]; ok {
		c.emit(instr{code: opIntBin, k: k, w: intWidth(op.Result(0).Type()), dst: c.def(op.Result(0)), a: in[0], b: in[1], op: op})
		return nil
	}
	if k, ok := floatBinKinds[name]; ok {
		c.emit(instr{code: opFloatBin, k: k, w: intWidth(op.Result(0).Type()), dst: c.def(op.Result(0)), a: in[0], b: in[1], op: op})
		return nil
	}
	for _, r := range op.Results() {
		switch t := r.Type(); {
		case isScalar(t), IsPtr(t), t == textir.Index():
		default:
			return op.Errorf("result type '%s' is not supported by the simulator", t)
		}
	}
	one := func(code opcode, w uint8) {
		in0 := int32(0)
		if len(in) > 0 {
			in0 = in[0]
		}
		c.emit(instr{code: code, w: w, dst: c.def(op.Result(0)), a: in0, op: op})
	}
	switch name {
	case arith.ConstantOp:
		var bits uint64
		switch a := op.LookupAttr("value").(type) {
		case textir.IntegerAttr:
			bits = uint64(arith.Normalize(a.Value, a.Type))
		case textir.FloatAttr:
			bits = math.Float64bits(arith.RoundFloat(a.Value, a.Type))
		default:
			return op.Errorf("only scalar constants are supported in kernels")
		}
		c.emit(instr{code: opConst, dst: c.def(op.Result(0)), imm: int64(bits), op: op})
	case arith.CmpIOp:
		p, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
		c.emit(instr{code: opCmpI, k: uint8(p.Value), w: intWidth(op.Operand(0).Type()), dst: c.def(op.Result(0)), a: in[0], b: in[1], op: op})
	case arith.CmpFOp:
		p, _ := op.LookupAttr("predicate").(textir.IntegerAttr)
		c.emit(instr{code: opCmpF, k: uint8(p.Value), dst: c.def(op.Result(0)), a: in[0], b: in[1], op: op})
	case arith.SelectOp:
		c.emit(instr{code: opSelect, dst: c.def(op.Result(0)), a: in[0], b: in[1], c: in[2], op: op})
	case arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp:
		one(opSExt, intWidth(op.Result(0).Type()))
	case arith.ExtUIOp:
		one(opZExt, intWidth(op.Operand(0).Type()))
	case arith.SIToFPOp:
		one(opSIToF, intWidth(op.Result(0).Type()))
	case arith.UIToFPOp:
		one(opUIToF, intWidth(op.Result(0).Type()))
		c.code[len(c.code)-1].b = int32(intWidth(op.Operand(0).Type()))
	case arith.FPToSIOp:
		one(opFToSI, intWidth(op.Result(0).Type()))
	case arith.NegFOp:
		one(opNegF, 0)
	case arith.ExtFOp: // registers hold float64 bits: widening is a move
		one(opMov, 0)
	case arith.TruncFOp:
		one(opMath, intWidth(op.Result(0).Type()))
		c.code[len(c.code)-1].k = kRound
	case SqrtOp, RsqrtOp, FabsOp:
		one(opMath, intWidth(op.Result(0).Type()))
		c.code[len(c.code)-1].k = map[string]uint8{SqrtOp: kSqrt, RsqrtOp: kRsqrt, FabsOp: kFabs}[name]
	case FmaOp:
		c.emit(instr{code: opFma, w: intWidth(op.Result(0).Type()), dst: c.def(op.Result(0)), a: in[0], b: in[1], c: in[2], op: op})
	case ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp:
		if Dimension(op) != "x" { // 1-D launches: y and z indices 0, sizes 1
			v := int64(0)
			if name == BlockDimOp || name == GridDimOp {
				v = 1
			}
			c.emit(instr{code: opConst, dst: c.def(op.Result(0)), imm: v, op: op})
			return nil
		}
		code := map[string]opcode{ThreadIdOp: opTid, BlockIdOp: opBid, BlockDimOp: opBdim, GridDimOp: opGdim}[name]
		c.emit(instr{code: code, dst: c.def(op.Result(0)), op: op})
	case LaneIdOp:
		c.emit(instr{code: opLane, dst: c.def(op.Result(0)), op: op})
	case BarrierOp:
		c.emit(instr{code: opBarrier, op: op})
	case WarpSyncOp:
		// A shuffle that exchanges nothing: every lane of the warp
		// must reach it (k = 4).
		c.emit(instr{code: opShuffle, k: 4, op: op})
	case ShuffleOp:
		k := map[string]uint8{"xor": 0, "down": 1, "up": 2, "idx": 3}[ShuffleMode(op)]
		c.emit(instr{code: opShuffle, k: k, w: intWidth(op.Result(0).Type()), dst: c.def(op.Result(0)), a: in[0], b: in[1], c: in[2], op: op})
	case LoadOp, StoreOp, AtomicAddOp:
		elem := PtrElem(MemPtr(op).Type())
		ek, ok := elemKind(elem)
		if !ok {
			return op.Errorf("element type '%s' is not supported by the simulator", elem)
		}
		i := instr{k: ek, esize: uint8(ElemBytes(elem)), w: uint8(Width(op)), op: op}
		switch name {
		case LoadOp:
			i.code, i.a, i.b, i.regs = opLoad, in[0], in[1], c.defs(op.Results())
		case StoreOp:
			n := len(in)
			i.code, i.a, i.b, i.regs = opStore, in[n-2], in[n-1], in[:n-2]
		default:
			i.code, i.a, i.b, i.c, i.dst = opAtomicAdd, in[0], in[1], in[2], c.def(op.Result(0))
		}
		c.emit(i)
	case PtrOffsetOp:
		c.emit(instr{code: opPtrOffset, esize: uint8(ElemBytes(PtrElem(op.Operand(0).Type()))), dst: c.def(op.Result(0)), a: in[0], b: in[1], op: op})
	case PtrCastOp:
		one(opMov, 0)
	case SharedAllocOp:
		slot, ok := c.sharedOf[op]
		if !ok {
			slot = int64(len(c.shared))
			c.sharedOf[op] = slot
			c.shared = append(c.shared, SharedCount(op)*int64(ElemBytes(PtrElem(op.Result(0).Type()))))
		}
		c.emit(instr{code: opShared, dst: c.def(op.Result(0)), imm: slot, op: op})
	case ForOp:
		return c.forOp(op, in)
	case IfOp:
		return c.ifOp(op, in)
	case CallOp:
		return c.call(op, in)
	case ReturnOp:
		if len(c.calls) == 1 {
			c.emit(instr{code: opReturn, op: op})
			return nil
		}
		c.emit(instr{code: opMovN, regs: in, regs2: c.retRegs, op: op})
		*c.retPatch = append(*c.retPatch, c.emit(instr{code: opJump, op: op}))
	default:
		return op.Errorf("has no semantics in the gpu simulator")
	}
	return nil
}

func (c *compiler) forOp(op *textir.Operation, in []int32) error {
	res := c.defs(op.Results())
	lb, ub, step, inits := in[0], in[1], in[2], in[3:]
	w := intWidth(op.Operand(0).Type())
	var iters []int32
	var iv int32
	var check int
	header := 0
	err := c.region(op, op.Region(0), ForBody(op).Args(), func(rs []int32) {
		iv, iters = rs[0], rs[1:]
		c.emit(instr{code: opStepCheck, a: step, op: op})
		c.emit(instr{code: opMov, dst: iv, a: lb, op: op})
		c.emit(instr{code: opMovN, regs: inits, regs2: iters, op: op})
		header = len(c.code)
		check = c.emit(instr{code: opForCheck, a: iv, b: ub, op: op})
	}, func(y *textir.Operation) error {
		ys, err := c.regsOf(y, y.Operands())
		if err != nil {
			return err
		}
		c.emit(instr{code: opMovN, regs: ys, regs2: iters, op: y})
		c.emit(instr{code: opForIncr, w: w, dst: iv, a: step, op: op})
		c.emit(instr{code: opJump, imm: int64(header), op: op})
		c.code[check].imm = int64(len(c.code))
		c.emit(instr{code: opMovN, regs: iters, regs2: res, op: op})
		return nil
	})
	return err
}

func (c *compiler) ifOp(op *textir.Operation, in []int32) error {
	res := c.defs(op.Results())
	br := c.emit(instr{code: opBrFalse, a: in[0], op: op})
	term := func(y *textir.Operation) error {
		ys, err := c.regsOf(y, y.Operands())
		if err != nil {
			return err
		}
		c.emit(instr{code: opMovN, regs: ys, regs2: res, op: y})
		return nil
	}
	if err := c.region(op, op.Region(0), nil, nil, term); err != nil {
		return err
	}
	if op.Region(1).Empty() {
		c.code[br].imm = int64(len(c.code))
		return nil
	}
	jmp := c.emit(instr{code: opJump, op: op})
	c.code[br].imm = int64(len(c.code))
	if err := c.region(op, op.Region(1), nil, nil, term); err != nil {
		return err
	}
	c.code[jmp].imm = int64(len(c.code))
	return nil
}

func (c *compiler) call(op *textir.Operation, in []int32) error {
	callee := Callee(op)
	if callee == nil || callee.Name() != FuncOp {
		return op.Errorf("callee not found")
	}
	for _, f := range c.calls {
		if f == callee {
			return op.Errorf("recursive calls are not supported by the simulator")
		}
	}
	body := callee.Region(0).Front()
	if body == nil || len(callee.Region(0).Blocks()) != 1 {
		return callee.Errorf("the simulator needs a body of exactly one block")
	}
	res := c.defs(op.Results())
	save := c.next
	savedPatch, savedRegs := c.retPatch, c.retRegs
	var patch []int
	c.retPatch, c.retRegs = &patch, res
	c.calls = append(c.calls, callee)
	for i, a := range body.Args() {
		c.regOf[a] = in[i]
	}
	err := c.block(body)
	c.calls = c.calls[:len(c.calls)-1]
	c.retPatch, c.retRegs = savedPatch, savedRegs
	c.next = save
	if err != nil {
		return err
	}
	for _, j := range patch {
		c.code[j].imm = int64(len(c.code))
	}
	return nil
}

// Memory.

// Buf is device memory handed to a launch: a byte slice and the offset of
// its first byte from a 256-byte aligned base (a view's byte offset).
type Buf struct {
	Data  []byte
	Align int64
}

type memory struct {
	data   []byte
	align  int64
	shared bool
	what   string
}

const offBits = 48

func packPtr(mem int, off int64) uint64 { return uint64(mem)<<offBits | uint64(off)&(1<<offBits-1) }

func unpackPtr(p uint64) (int, int64) {
	off := int64(p<<(64-offBits)) >> (64 - offBits)
	return int(p >> offBits), off
}

// MaxSteps bounds the work of one simulated launch: the loop iterations
// (gpu.for) its threads run, all together. A launch that goes beyond it (a
// loop whose bound is never reached, or one of 2^62 trips) fails with an
// error naming the loop, instead of running for ever. 0 (the default)
// derives the bound from the launch (DerivedMaxSteps); the environment
// variable RECOM_MAX_SIM_STEPS sets it (see docs/LIMITS.md), as does
// LaunchOptions.MaxSteps for one launch. A program may set it before
// launching (not concurrently).
var MaxSteps = envLimit(EnvMaxSteps, 0)

// The environment variable that sets MaxSteps, and the range of the bound
// derived from a launch when it is not set.
const (
	EnvMaxSteps     = "RECOM_MAX_SIM_STEPS"
	MinDerivedSteps = int64(1) << 24
	DefaultMaxSteps = int64(1) << 32
)

// DerivedMaxSteps is the loop-iteration budget of a launch of threads
// threads over buffers of bytes bytes in all when MaxSteps is not set:
// threads*(bytes+256) (every thread may walk every input byte; the kernels
// recom emits loop far less), clamped to [2^24, 2^32]. A loop that never
// ends over a small launch is reported in a fraction of a second instead
// of a minute.
func DerivedMaxSteps(threads, bytes int64) int64 {
	per := bytes + 256
	if threads <= 0 || per <= 0 || threads > DefaultMaxSteps/per {
		if threads <= 0 {
			return MinDerivedSteps
		}
		return DefaultMaxSteps
	}
	return max(MinDerivedSteps, min(DefaultMaxSteps, threads*per))
}

// envLimit returns the positive integer in the environment variable name,
// or def when it is unset or not a positive integer.
func envLimit(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// stepChunk is the number of loop iterations a worker takes from the
// launch's budget at a time (so that the shared counter is touched rarely).
const stepChunk = 1 << 14

// LaunchOptions tunes a simulated launch.
type LaunchOptions struct {
	// MaxSteps overrides the package's MaxSteps for this launch (0: MaxSteps).
	MaxSteps int64
	// Workers is the number of goroutines running blocks (0: GOMAXPROCS).
	Workers int
}

// Launch runs the kernel over grid blocks of block threads. args are, in
// order of the kernel's arguments, a Buf for a global pointer, or an
// int64 / float64 for a scalar (converted to the argument's type).
func (k *Kernel) Launch(grid, block int64, args []any, opts *LaunchOptions) error {
	fn := k.fn
	if block < 1 || block > MaxThreadsPerBlock {
		return fn.Errorf("block size %d is not in [1, %d]", block, MaxThreadsPerBlock)
	}
	if mt, ok := MaxThreads(fn); ok && block > mt {
		return fn.Errorf("block size %d exceeds the kernel's max_threads %d", block, mt)
	}
	if grid < 0 || grid > 1<<31-1 {
		return fn.Errorf("grid size %d is not in [0, 2^31)", grid)
	}
	if len(args) != len(k.args) {
		return fn.Errorf("launched with %d arguments, but takes %d", len(args), len(k.args))
	}
	var mems []*memory
	argVals := make([]uint64, len(args))
	for i, a := range args {
		t := k.argKind[i]
		switch v := a.(type) {
		case Buf:
			if PtrSpace(t) != Global {
				return fn.Errorf("argument #%d of type '%s' cannot take a buffer", i, t)
			}
			mems = append(mems, &memory{data: v.Data, align: v.Align, what: fmt.Sprintf("argument #%d (a %d-byte buffer)", i, len(v.Data))})
			argVals[i] = packPtr(len(mems)-1, 0)
		case int64:
			if !textir.IsIntOrIndex(t) {
				return fn.Errorf("argument #%d of type '%s' cannot take an integer", i, t)
			}
			argVals[i] = uint64(arith.Normalize(v, t))
		case float64:
			if !textir.IsFloat(t) {
				return fn.Errorf("argument #%d of type '%s' cannot take a float", i, t)
			}
			argVals[i] = math.Float64bits(arith.RoundFloat(v, t))
		default:
			return fn.Errorf("argument #%d: unsupported Go value %T", i, a)
		}
	}
	if len(mems)+len(k.shared) >= 1<<(64-offBits) {
		return fn.Errorf("too many memories for the simulator")
	}
	workers := runtime.GOMAXPROCS(0)
	if opts != nil && opts.Workers > 0 {
		workers = opts.Workers
	}
	workers = int(min(int64(workers), grid))
	l := &launch{k: k, grid: grid, block: block, args: argVals, mems: mems, parallel: workers > 1, maxSteps: MaxSteps}
	if opts != nil && opts.MaxSteps > 0 {
		l.maxSteps = opts.MaxSteps
	}
	if l.maxSteps <= 0 {
		var bytes int64
		for _, m := range mems {
			bytes += int64(len(m.data))
		}
		l.maxSteps = DerivedMaxSteps(grid*block, bytes)
	}
	l.steps = l.maxSteps
	if workers <= 1 {
		w := l.newWorker()
		for b := int64(0); b < grid; b++ {
			if err := w.runBlock(b); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, workers)
	errBlock := make([]int64, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := l.newWorker()
			for !stop.Load() {
				b := next.Add(1) - 1
				if b >= grid {
					return
				}
				if err := w.runBlock(b); err != nil {
					errs[i], errBlock[i] = err, b
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	var first error
	fb := int64(math.MaxInt64)
	for i, e := range errs {
		if e != nil && errBlock[i] < fb {
			first, fb = e, errBlock[i]
		}
	}
	return first
}

type launch struct {
	k           *Kernel
	grid, block int64
	args        []uint64
	mems        []*memory
	parallel    bool
	atomicMu    sync.Mutex
	maxSteps    int64
	stepsMu     sync.Mutex
	steps       int64 // what is left of the budget of loop iterations, not granted to a worker
	holders     int   // workers holding a grant of steps they have not run
}

type worker struct {
	l       *launch
	left    int64     // loop iterations taken from the launch's budget, not yet run
	holding bool      // counted in the launch's holders
	mems    []*memory // the launch's, then this worker's shared memories
	regs    []uint64
	threads []thread
	bid     int64
}

type thread struct {
	pc    int
	regs  []uint64
	state uint8
}

const (
	running uint8 = iota
	atBarrier
	atShuffle
	done
)

func (l *launch) newWorker() *worker {
	w := &worker{l: l, mems: append([]*memory(nil), l.mems...)}
	for i, n := range l.k.shared {
		w.mems = append(w.mems, &memory{data: make([]byte, n), shared: true, what: fmt.Sprintf("shared memory #%d (%d bytes)", i, n)})
	}
	nregs := max(l.k.nregs, 1)
	w.regs = make([]uint64, int(l.block)*nregs)
	w.threads = make([]thread, l.block)
	for i := range w.threads {
		w.threads[i].regs = w.regs[i*nregs : (i+1)*nregs : (i+1)*nregs]
	}
	return w
}

func (w *worker) runBlock(b int64) error {
	defer w.releaseSteps()
	w.bid = b
	for _, m := range w.mems[len(w.l.mems):] {
		for i := range m.data {
			m.data[i] = 0xff
		}
	}
	for i := range w.threads {
		t := &w.threads[i]
		t.pc, t.state = 0, running
		for j, r := range w.l.k.args {
			t.regs[r] = w.l.args[j]
		}
	}
	n := len(w.threads)
	for {
		// Run every warp until all its lanes wait at a barrier or returned.
		for w0 := 0; w0 < n; w0 += WarpSize {
			if err := w.runWarp(w0, min(w0+WarpSize, n)); err != nil {
				return err
			}
		}
		// Every thread waits at the same barrier, or all returned.
		allDone := true
		for i := range w.threads {
			t := &w.threads[i]
			if t.state != done {
				allDone = false
			}
		}
		if allDone {
			return nil
		}
		var bar *thread
		for i := range w.threads {
			if w.threads[i].state == atBarrier {
				bar = &w.threads[i]
				break
			}
		}
		for i := range w.threads {
			t := &w.threads[i]
			if t.state != atBarrier || t.pc != bar.pc {
				op := w.l.k.code[bar.pc].op
				other := "returned"
				if t.state == atBarrier {
					other = fmt.Sprintf("waits at another barrier (%s)", locString(w.l.k.code[t.pc].op))
				}
				return op.Errorf("barrier divergence in block %d: thread %d waits here, but thread %d %s", b, indexOf(w.threads, bar), i, other)
			}
		}
		for i := range w.threads {
			w.threads[i].pc++
			w.threads[i].state = running
		}
	}
}

func indexOf(ts []thread, t *thread) int {
	for i := range ts {
		if &ts[i] == t {
			return i
		}
	}
	return -1
}

func locString(op *textir.Operation) string {
	if l, ok := textir.FileLineCol(op.DiagLoc()); ok {
		return fmt.Sprint(l)
	}
	return op.Name()
}

// runWarp runs lanes [lo, hi) until each waits at a barrier or returned,
// performing the warp's shuffles.
func (w *worker) runWarp(lo, hi int) error {
	for {
		for i := lo; i < hi; i++ {
			t := &w.threads[i]
			if t.state != running {
				continue
			}
			if err := w.run(t, i); err != nil {
				return err
			}
		}
		// A shuffle needs every lane of the warp.
		var sh *thread
		for i := lo; i < hi; i++ {
			if w.threads[i].state == atShuffle {
				sh = &w.threads[i]
				break
			}
		}
		if sh == nil {
			return nil
		}
		in := &w.l.k.code[sh.pc]
		for i := lo; i < hi; i++ {
			t := &w.threads[i]
			if t.state != atShuffle || t.pc != sh.pc {
				what := "returned"
				switch t.state {
				case atBarrier:
					what = "waits at a barrier"
				case atShuffle:
					what = fmt.Sprintf("waits at another shuffle (%s)", locString(w.l.k.code[t.pc].op))
				}
				return in.op.Errorf("shuffle divergence in block %d, warp %d: lane %d waits here, but lane %d %s",
					w.bid, lo/WarpSize, indexOf(w.threads, sh)-lo, i-lo, what)
			}
		}
		if err := w.shuffle(in, lo, hi); err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			w.threads[i].pc++
			w.threads[i].state = running
		}
	}
}

// shuffle exchanges in.a among lanes [lo, hi) as shfl.sync does with a
// full mask: width segments of the warp; a source lane outside the segment
// (or missing from a partial warp) reads the lane's own value.
func (w *worker) shuffle(in *instr, lo, hi int) error {
	if in.k == 4 { // gpu.warp_sync
		return nil
	}
	var vals [WarpSize]uint64
	n := hi - lo
	for i := 0; i < n; i++ {
		vals[i] = w.threads[lo+i].regs[in.a]
	}
	for i := 0; i < n; i++ {
		r := w.threads[lo+i].regs
		off := int64(int32(r[in.b]))
		width := int64(int32(r[in.c]))
		if width < 1 || width > WarpSize || width&(width-1) != 0 {
			return in.op.Errorf("width %d is not a power of two in [1, 32] (lane %d of block %d)", width, i, w.bid)
		}
		lane := int64(i)
		segStart := lane &^ (width - 1)
		segEnd := segStart + width - 1
		var j int64
		valid := true
		switch in.k {
		case 0: // xor
			j = lane ^ (off & 31)
			valid = j <= segEnd
		case 1: // down
			j = lane + (off & 31)
			valid = j <= segEnd
		case 2: // up
			j = lane - (off & 31)
			valid = j >= segStart
		case 3: // idx
			j = segStart | (off & (width - 1))
			valid = j <= segEnd
		}
		if !valid || j < 0 || j >= int64(n) {
			j = lane
		}
		r[in.dst] = vals[j]
	}
	return nil
}

func norm(v int64, w uint8) int64 {
	switch {
	case w >= 64:
		return v
	case w == 1:
		return v & 1
	}
	sh := 64 - w
	return v << sh >> sh
}

func rnd(v float64, w uint8) uint64 {
	if w == 32 {
		v = float64(float32(v))
	}
	return math.Float64bits(v)
}

func f(v uint64) float64 { return math.Float64frombits(v) }

// takeSteps takes loop iterations from the launch's budget for the worker
// (one of them for the iteration that asked), or fails when it is spent.
// The budget is exact with any number of workers: a worker never takes more
// than is left, gives back what it did not run at the end of each block
// (releaseSteps), and finding nothing left fails only once no other worker
// holds steps it may still give back.
func (w *worker) takeSteps(in *instr, tid int) error {
	l := w.l
	for {
		l.stepsMu.Lock()
		if w.holding {
			w.holding = false
			l.holders--
		}
		if l.steps > 0 {
			c := min(l.steps, stepChunk)
			l.steps -= c
			w.left = c - 1
			if w.left > 0 {
				w.holding = true
				l.holders++
			}
			l.stepsMu.Unlock()
			return nil
		}
		others := l.holders
		l.stepsMu.Unlock()
		if others == 0 {
			w.left = 0
			return w.errorf(in, tid, "the launch ran more than %d loop iterations (set %s to raise the limit; see docs/LIMITS.md)", l.maxSteps, EnvMaxSteps)
		}
		runtime.Gosched()
	}
}

// releaseSteps gives the steps the worker took and did not run back to the
// launch's budget.
func (w *worker) releaseSteps() {
	if !w.holding {
		return
	}
	l := w.l
	l.stepsMu.Lock()
	l.steps += w.left
	l.holders--
	l.stepsMu.Unlock()
	w.left, w.holding = 0, false
}

func (w *worker) errorf(in *instr, tid int, format string, args ...any) error {
	return in.op.Errorf("%s (thread %d of block %d)", fmt.Sprintf(format, args...), tid, w.bid)
}

// access checks a memory access of n bytes at pointer p and returns the
// memory and the byte offset.
func (w *worker) access(in *instr, tid int, p uint64, idx int64, n int64) ([]byte, int64, error) {
	mi, off := unpackPtr(p)
	if mi >= len(w.mems) {
		return nil, 0, w.errorf(in, tid, "access through an invalid pointer")
	}
	m := w.mems[mi]
	es := int64(in.esize)
	if idx > math.MaxInt64/16 || idx < math.MinInt64/16 {
		return nil, 0, w.errorf(in, tid, "index %d is out of bounds of %s", idx, m.what)
	}
	off += idx * es
	if off < 0 || off+n > int64(len(m.data)) {
		return nil, 0, w.errorf(in, tid, "out-of-bounds access: bytes [%d, %d) of %s", off, off+n, m.what)
	}
	if (m.align+off)%n != 0 {
		return nil, 0, w.errorf(in, tid, "misaligned %d-byte access at byte offset %d of %s", n, off, m.what)
	}
	return m.data[off : off+n], off, nil
}

func loadElem(b []byte, k uint8) uint64 {
	switch k {
	case eI8:
		return uint64(int64(int8(b[0])))
	case eI16:
		return uint64(int64(int16(binary.LittleEndian.Uint16(b))))
	case eI32:
		return uint64(int64(int32(binary.LittleEndian.Uint32(b))))
	case eI64:
		return binary.LittleEndian.Uint64(b)
	case eF16:
		return math.Float64bits(float64(textir.HalfToFloat32(binary.LittleEndian.Uint16(b))))
	case eBF16:
		return math.Float64bits(float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16)))
	case eF32:
		return math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	}
	return binary.LittleEndian.Uint64(b)
}

func storeElem(b []byte, k uint8, v uint64) {
	switch k {
	case eI8:
		b[0] = byte(v)
	case eI16:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case eI32:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case eI64, eF64:
		binary.LittleEndian.PutUint64(b, v)
	case eF16:
		binary.LittleEndian.PutUint16(b, textir.Float32ToHalf(float32(f(v))))
	case eBF16:
		bits := math.Float32bits(float32(f(v)))
		if bits&0x7fffffff > 0x7f800000 { // NaN stays a quiet NaN
			binary.LittleEndian.PutUint16(b, uint16(bits>>16)|0x40)
			return
		}
		bits += 0x7fff + (bits >> 16 & 1)
		binary.LittleEndian.PutUint16(b, uint16(bits>>16))
	case eF32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f(v))))
	}
}

// run executes thread t (index tid) from its pc until it waits at a
// barrier or a shuffle, or returns.
func (w *worker) run(t *thread, tid int) error {
	code := w.l.k.code
	r := t.regs
	pc := t.pc
	for {
		in := &code[pc]
		pc++
		switch in.code {
		case opConst:
			r[in.dst] = uint64(in.imm)
		case opMov:
			r[in.dst] = r[in.a]
		case opMovN:
			if len(in.regs) == 1 {
				r[in.regs2[0]] = r[in.regs[0]]
				continue
			}
			var tmp [16]uint64
			buf := tmp[:0]
			for _, s := range in.regs {
				buf = append(buf, r[s])
			}
			for i, d := range in.regs2 {
				r[d] = buf[i]
			}
		case opIntBin:
			a, b := int64(r[in.a]), int64(r[in.b])
			mask := uint64(math.MaxUint64)
			if in.w < 64 {
				mask = 1<<in.w - 1
			}
			ua, ub := uint64(a)&mask, uint64(b)&mask
			var v int64
			switch in.k {
			case kAdd:
				v = a + b
			case kSub:
				v = a - b
			case kMul:
				v = a * b
			case kDivS, kRemS:
				sa, sb := a, b
				if in.w == 1 {
					sa, sb = -a, -b
				}
				if sb == 0 {
					return w.errorf(in, tid, "division by zero")
				}
				if sb == -1 {
					if in.k == kDivS {
						v = -sa
					}
				} else if in.k == kDivS {
					v = sa / sb
				} else {
					v = sa % sb
				}
			case kDivU, kRemU:
				if ub == 0 {
					return w.errorf(in, tid, "division by zero")
				}
				if in.k == kDivU {
					v = int64(ua / ub)
				} else {
					v = int64(ua % ub)
				}
			case kAnd:
				v = a & b
			case kOr:
				v = a | b
			case kXor:
				v = a ^ b
			case kShl, kShrS, kShrU:
				if ub >= uint64(in.w) {
					return w.errorf(in, tid, "shift amount %d is not below the width %d", ub, in.w)
				}
				switch in.k {
				case kShl:
					v = a << ub
				case kShrS:
					v = a >> ub
				default:
					v = int64(ua >> ub)
				}
			case kMaxS:
				v = max(a, b)
			case kMinS:
				v = min(a, b)
			}
			r[in.dst] = uint64(norm(v, in.w))
		case opFloatBin:
			a, b := f(r[in.a]), f(r[in.b])
			var v float64
			switch in.k {
			case kAddF:
				v = a + b
			case kSubF:
				v = a - b
			case kMulF:
				v = a * b
			case kDivF:
				v = a / b
			case kMaximumF:
				v = max(a, b)
				if math.IsNaN(a) || math.IsNaN(b) {
					v = math.NaN()
				}
			case kMinimumF:
				v = min(a, b)
				if math.IsNaN(a) || math.IsNaN(b) {
					v = math.NaN()
				}
			case kFMin:
				v = fmin(a, b)
			case kFMax:
				v = fmax(a, b)
			}
			r[in.dst] = rnd(v, in.w)
		case opCmpI:
			r[in.dst] = b2u(evalCmpI(arith.Predicate(in.k), int64(r[in.a]), int64(r[in.b]), in.w))
		case opCmpF:
			r[in.dst] = b2u(arith.EvalFPredicate(arith.FPredicate(in.k), f(r[in.a]), f(r[in.b])))
		case opSelect:
			if r[in.a]&1 != 0 {
				r[in.dst] = r[in.b]
			} else {
				r[in.dst] = r[in.c]
			}
		case opSExt:
			r[in.dst] = uint64(norm(int64(r[in.a]), in.w))
		case opZExt:
			v := r[in.a]
			if in.w < 64 {
				v &= 1<<in.w - 1
			}
			r[in.dst] = v
		case opSIToF:
			r[in.dst] = rnd(float64(int64(r[in.a])), in.w)
			if in.w == 32 { // one rounding, as cvt.rn.f32.s64 (not via f64)
				r[in.dst] = math.Float64bits(float64(float32(int64(r[in.a]))))
			}
		case opUIToF:
			v := r[in.a]
			if in.b < 64 {
				v &= 1<<uint(in.b) - 1
			}
			r[in.dst] = rnd(float64(v), in.w)
			if in.w == 32 {
				r[in.dst] = math.Float64bits(float64(float32(v)))
			}
		case opFToSI:
			r[in.dst] = uint64(fToSI(f(r[in.a]), in.w))
		case opNegF:
			r[in.dst] = r[in.a] ^ 1<<63
		case opMath:
			v := f(r[in.a])
			switch in.k {
			case kSqrt:
				v = math.Sqrt(v)
			case kRsqrt:
				v = 1 / math.Sqrt(v)
			case kRound:
			default:
				v = math.Abs(v)
			}
			r[in.dst] = rnd(v, in.w)
		case opFma:
			r[in.dst] = rnd(math.FMA(f(r[in.a]), f(r[in.b]), f(r[in.c])), in.w)
		case opTid:
			r[in.dst] = uint64(tid)
		case opBid:
			r[in.dst] = uint64(w.bid)
		case opBdim:
			r[in.dst] = uint64(w.l.block)
		case opGdim:
			r[in.dst] = uint64(w.l.grid)
		case opLane:
			r[in.dst] = uint64(tid % WarpSize)
		case opBarrier:
			t.pc, t.state = pc-1, atBarrier
			return nil
		case opShuffle:
			t.pc, t.state = pc-1, atShuffle
			return nil
		case opLoad:
			es := int(in.esize)
			b, _, err := w.access(in, tid, r[in.a], int64(r[in.b]), int64(es*int(in.w)))
			if err != nil {
				return err
			}
			for i, d := range in.regs {
				r[d] = loadElem(b[i*es:], in.k)
			}
		case opStore:
			es := int(in.esize)
			b, _, err := w.access(in, tid, r[in.a], int64(r[in.b]), int64(es*int(in.w)))
			if err != nil {
				return err
			}
			for i, s := range in.regs {
				storeElem(b[i*es:], in.k, r[s])
			}
		case opAtomicAdd:
			b, _, err := w.access(in, tid, r[in.a], int64(r[in.b]), int64(in.esize))
			if err != nil {
				return err
			}
			if w.l.parallel {
				w.l.atomicMu.Lock()
			}
			old := loadElem(b, in.k)
			var nv uint64
			switch in.k {
			case eF32:
				nv = rnd(f(old)+f(r[in.c]), 32)
			case eF64:
				nv = rnd(f(old)+f(r[in.c]), 64)
			default:
				nv = old + r[in.c]
			}
			storeElem(b, in.k, nv)
			if w.l.parallel {
				w.l.atomicMu.Unlock()
			}
			r[in.dst] = old
		case opPtrOffset:
			mi, off := unpackPtr(r[in.a])
			idx := int64(r[in.b])
			n := off + idx*int64(in.esize)
			if idx > 1<<(offBits-5) || idx < -(1<<(offBits-5)) || n >= 1<<(offBits-1) || n < -(1<<(offBits-1)) {
				return w.errorf(in, tid, "pointer offset %d is out of range", idx)
			}
			r[in.dst] = packPtr(mi, n)
		case opShared:
			r[in.dst] = packPtr(len(w.l.mems)+int(in.imm), 0)
		case opJump:
			pc = int(in.imm)
		case opBrFalse:
			if r[in.a]&1 == 0 {
				pc = int(in.imm)
			}
		case opForCheck:
			if int64(r[in.a]) >= int64(r[in.b]) {
				pc = int(in.imm)
			}
		case opForIncr:
			if w.left--; w.left < 0 {
				if err := w.takeSteps(in, tid); err != nil {
					return err
				}
			}
			r[in.dst] = uint64(norm(int64(r[in.dst])+int64(r[in.a]), in.w))
		case opStepCheck:
			if int64(r[in.a]) <= 0 {
				return w.errorf(in, tid, "step %d is not positive", int64(r[in.a]))
			}
		case opReturn:
			t.pc, t.state = pc-1, done
			return nil
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func evalCmpI(p arith.Predicate, a, b int64, w uint8) bool {
	mask := uint64(math.MaxUint64)
	if w < 64 {
		mask = 1<<w - 1
	}
	ua, ub := uint64(a)&mask, uint64(b)&mask
	if w == 1 { // i1: true is -1 when signed
		a, b = -a, -b
	}
	switch p {
	case arith.EQ:
		return ua == ub
	case arith.NE:
		return ua != ub
	case arith.SLT:
		return a < b
	case arith.SLE:
		return a <= b
	case arith.SGT:
		return a > b
	case arith.SGE:
		return a >= b
	case arith.ULT:
		return ua < ub
	case arith.ULE:
		return ua <= ub
	case arith.UGT:
		return ua > ub
	}
	return ua >= ub
}

// fToSI converts as cvt.rzi.sN.fM does: toward zero, saturating, NaN to 0.
func fToSI(v float64, w uint8) int64 {
	if math.IsNaN(v) {
		return 0
	}
	lo, hi := -math.Ldexp(1, int(w)-1), math.Ldexp(1, int(w)-1)
	if w == 1 {
		lo, hi = 0, 2
	}
	v = math.Trunc(v)
	switch {
	case v < lo:
		return norm(int64(lo), w)
	case v >= hi:
		if w >= 64 {
			return math.MaxInt64
		}
		return norm(int64(hi)-1, w)
	}
	return norm(int64(v), w)
}
