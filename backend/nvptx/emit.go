// Package nvptx emits the gpu dialect as NVPTX LLVM IR with
// github.com/llir/llvm: each gpu.module becomes the contents of one LLVM
// module (triple nvptx64-nvidia-cuda), each kernel gpu.func a function
// marked in !nvvm.annotations with its launch bounds, and the thread
// hierarchy, barriers, warp shuffles, vector memory accesses, shared memory,
// structured control flow, math and atomics become NVVM intrinsics and LLVM
// instructions. The output is what llc-19 -march=nvptx64 turns into PTX
// (backend/llc runs it).
//
// Only device code is emitted: the host-side func.func program, which the
// runtime executes, is skipped. Names are assigned deterministically, so the
// same input always prints the same module.
package nvptx

import (
	"fmt"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// Target description of the emitted modules.
const (
	Triple     = "nvptx64-nvidia-cuda"
	DataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
)

// Emit converts the gpu.module ops found in module (a builtin.module holding
// them, or a gpu.module itself) into one NVPTX LLVM module. Everything
// outside gpu.modules (the host program) is ignored. Several gpu.modules are
// emitted into the same LLVM module; their symbols must not collide.
func Emit(module *textir.Operation) (*ir.Module, error) {
	if module == nil {
		return nil, fmt.Errorf("nvptx: no module to emit")
	}
	e := newEmitter()
	var gpuModules []*textir.Operation
	if module.Name() == gpu.ModuleOp {
		gpuModules = append(gpuModules, module)
	} else {
		module.Walk(func(op *textir.Operation) bool {
			if op.Name() == gpu.ModuleOp {
				gpuModules = append(gpuModules, op)
				return false
			}
			return true
		})
	}
	// Declare every function first, so that gpu.call may refer forward.
	var bodies []*textir.Operation
	for _, gm := range gpuModules {
		for _, r := range gm.Regions() {
			for _, b := range r.Blocks() {
				for op := range b.Ops() {
					switch op.Name() {
					case gpu.FuncOp:
						if err := e.declareFunc(op); err != nil {
							return nil, err
						}
						bodies = append(bodies, op)
					case "gpu.module_end", gpu.ReturnOp: // MLIR's terminator of gpu.module, which this gpu dialect does not need
					default:
						return nil, op.Errorf("cannot be emitted in a gpu.module (only gpu.func)")
					}
				}
			}
		}
	}
	for _, fn := range bodies {
		if err := e.defineFunc(fn); err != nil {
			return nil, err
		}
	}
	e.finish()
	return e.m, nil
}

// EmitText is Emit followed by printing the LLVM module as text (.ll).
func EmitText(module *textir.Operation) (string, error) {
	m, err := Emit(module)
	if err != nil {
		return "", err
	}
	return m.String(), nil
}

// emitter holds the state of one LLVM module under construction.
type emitter struct {
	m          *ir.Module
	funcs      map[string]*funcInfo // gpu.func symbol → its LLVM function
	order      []*funcInfo
	intrinsics map[string]*ir.Func
	symbols    map[string]bool // every global name taken
	emptyMD    *metadata.Tuple // !{} for !invariant.load
	ntMD       *metadata.Tuple // !{i32 1} for !nontemporal
	annots     []metadata.Node // !nvvm.annotations entries
}

type funcInfo struct {
	op         *textir.Operation
	f          *ir.Func
	name       string
	results    []types.Type // the gpu.func's result types
	kernel     bool
	maxThreads int64 // 0: none
	minBlocks  int64 // 0: none
}

func newEmitter() *emitter {
	m := ir.NewModule()
	m.TargetTriple = Triple
	m.DataLayout = DataLayout
	return &emitter{
		m:          m,
		funcs:      map[string]*funcInfo{},
		intrinsics: map[string]*ir.Func{},
		symbols:    map[string]bool{},
	}
}

// uniqueSymbol returns base, or base with a numeric suffix, not yet taken.
func (e *emitter) uniqueSymbol(base string) string {
	name := base
	for i := 1; e.symbols[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	e.symbols[name] = true
	return name
}

// intrinsic returns the declaration of an LLVM intrinsic, adding it once.
func (e *emitter) intrinsic(name string, ret types.Type, params ...types.Type) *ir.Func {
	if f, ok := e.intrinsics[name]; ok {
		return f
	}
	ps := make([]*ir.Param, len(params))
	for i, t := range params {
		ps[i] = ir.NewParam("", t)
	}
	f := e.m.NewFunc(name, ret, ps...)
	e.intrinsics[name] = f
	return f
}

// mdTuple adds an unnamed metadata node (printed as !N) and returns it.
func (e *emitter) mdTuple(fields ...metadata.Field) *metadata.Tuple {
	t := &metadata.Tuple{MetadataID: -1, Fields: fields}
	e.m.MetadataDefs = append(e.m.MetadataDefs, t)
	return t
}

func (e *emitter) invariantLoadMD() *metadata.Tuple {
	if e.emptyMD == nil {
		e.emptyMD = e.mdTuple()
	}
	return e.emptyMD
}

func (e *emitter) nontemporalMD() *metadata.Tuple {
	if e.ntMD == nil {
		e.ntMD = e.mdTuple(constant.NewInt(types.I32, 1))
	}
	return e.ntMD
}

// declareFunc creates the LLVM function of a gpu.func (without body).
func (e *emitter) declareFunc(op *textir.Operation) error {
	name, ok := stringAttr(op, "sym_name")
	if !ok || name == "" {
		return op.Errorf("needs a 'sym_name' string attribute")
	}
	if _, dup := e.funcs[name]; dup || e.symbols[name] {
		return op.Errorf("symbol @%s is defined twice", name)
	}
	if strings.HasPrefix(name, "llvm.") {
		return op.Errorf("symbol @%s is reserved for LLVM intrinsics", name)
	}
	inputs, results, err := funcSignature(op)
	if err != nil {
		return err
	}
	fi := &funcInfo{op: op, name: name, kernel: op.LookupAttr("kernel") != nil}
	params := make([]*ir.Param, len(inputs))
	for i, t := range inputs {
		lt, err := llvmType(t)
		if err != nil {
			return op.Errorf("argument #%d: %v", i, err)
		}
		params[i] = ir.NewParam(fmt.Sprintf("arg%d", i), lt)
	}
	var ret types.Type = types.Void
	for i, t := range results {
		lt, err := llvmType(t)
		if err != nil {
			return op.Errorf("result #%d: %v", i, err)
		}
		fi.results = append(fi.results, lt)
	}
	switch {
	case len(fi.results) == 1:
		ret = fi.results[0]
	case len(fi.results) > 1:
		ret = types.NewStruct(fi.results...)
	}
	if fi.kernel && len(fi.results) > 0 {
		return op.Errorf("a kernel returns no results, got %d", len(fi.results))
	}
	if v, ok := intAttr(op, "max_threads"); ok {
		if v <= 0 || v > 1024 {
			return op.Errorf("max_threads must be in [1, 1024], got %d", v)
		}
		fi.maxThreads = v
	}
	if v, ok := intAttr(op, "min_blocks"); ok {
		if v <= 0 {
			return op.Errorf("min_blocks must be positive, got %d", v)
		}
		fi.minBlocks = v
	}
	e.symbols[name] = true
	fi.f = e.m.NewFunc(name, ret, params...)
	if !fi.kernel {
		fi.f.Linkage = linkageInternal
	}
	e.funcs[name] = fi
	e.order = append(e.order, fi)
	return nil
}

// funcSignature returns a gpu.func's argument and result types: from its
// function_type attribute when present, else from the entry block.
func funcSignature(op *textir.Operation) (inputs, results []textir.Type, err error) {
	var entry *textir.Block
	if op.NumRegions() > 0 {
		entry = op.Region(0).Front()
	}
	if ta, ok := op.LookupAttr("function_type").(textir.TypeAttr); ok {
		ft, ok := ta.Type.(*textir.FunctionType)
		if !ok {
			return nil, nil, op.Errorf("'function_type' must be a function type, got %s", ta.Type)
		}
		inputs, results = ft.Inputs, ft.Results
		if entry != nil && entry.NumArgs() != len(inputs) {
			return nil, nil, op.Errorf("entry block has %d arguments but the function type has %d inputs", entry.NumArgs(), len(inputs))
		}
		return inputs, results, nil
	}
	if entry == nil {
		return nil, nil, op.Errorf("has neither a body nor a 'function_type'")
	}
	for _, a := range entry.Args() {
		inputs = append(inputs, a.Type())
	}
	return inputs, nil, nil
}

// finish adds the module-level metadata: !nvvm.annotations.
func (e *emitter) finish() {
	for _, fi := range e.order {
		if !fi.kernel {
			continue
		}
		e.annots = append(e.annots, e.mdTuple(fi.f, &metadata.String{Value: "kernel"}, constant.NewInt(types.I32, 1)))
		if fi.maxThreads > 0 {
			e.annots = append(e.annots, e.mdTuple(fi.f, &metadata.String{Value: "maxntidx"}, constant.NewInt(types.I32, fi.maxThreads)))
		}
		if fi.minBlocks > 0 {
			e.annots = append(e.annots, e.mdTuple(fi.f, &metadata.String{Value: "minctasm"}, constant.NewInt(types.I32, fi.minBlocks)))
		}
	}
	if len(e.annots) > 0 {
		e.m.NamedMetadataDefs["nvvm.annotations"] = &metadata.NamedDef{Name: "nvvm.annotations", Nodes: e.annots}
	}
}
