package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/simplifyshapes"
	"github.com/recom-compiler/recom/lowering/tfgtoemb"
	"github.com/recom-compiler/recom/textir"
)

// The stages' names. A pass stage is named by its pass's flag.
const (
	StageImport         = "import"            // GraphDef → tfg
	StageLowerEmb       = tfgtoemb.Flag       // tfg → emb ("lower-emb")
	StageSimplifyShapes = simplifyshapes.Flag // emb → symbolic shapes ("simplify-shapes")
	StageFuse           = embtogpu.Flag       // emb → one gpu kernel ("fuse")
	StageFuseDense      = densetogpu.Flag     // dense layers → gpu kernels ("fuse-dense")
	StageLLVM           = "llvm"              // gpu → NVPTX LLVM IR
	StagePTX            = "ptx"               // LLVM IR → PTX (llc-19)
	StageCubin          = "cubin"             // PTX → cubin (ptxas)
)

// Kind says what runs a stage.
type Kind uint8

const (
	// KindImport reads the model file and imports it into the tfg dialect
	// (frontend/graphdef, frontend/importer).
	KindImport Kind = iota
	// KindPass runs the pass whose flag is the stage's name through the
	// pass manager (lowering/pass).
	KindPass
	// KindLLVM emits the module's gpu.modules as NVPTX LLVM IR
	// (backend/nvptx).
	KindLLVM
	// KindPTX compiles the LLVM IR to PTX with llc-19 (backend/llc).
	KindPTX
	// KindCubin assembles the PTX with ptxas, where it is installed.
	KindCubin
)

var kindNames = [...]string{KindImport: "import", KindPass: "pass", KindLLVM: "llvm", KindPTX: "ptx", KindCubin: "cubin"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// IR reports whether a stage of this kind leaves a module of the textual
// IR (and not LLVM IR, PTX or a cubin).
func (k Kind) IR() bool { return k == KindImport || k == KindPass }

// Stage is one step of the pipeline.
type Stage struct {
	// Name is the stage's name; a pass stage's is its pass flag.
	Name string
	// File is the name under which `recom compile` writes the stage's
	// output (0-tfg.mlir ... model.cubin).
	File string
	// Kind says what runs the stage.
	Kind Kind
	// Doc says in a few words what the stage makes.
	Doc string
	// Marks are the dialects ("emb") and ops ("fused.dense") whose presence
	// in a module shows that the stage ran on it (IR stages only): the
	// last stage whose marks a module holds is the stage it is at
	// (DetectStage).
	Marks []string
	// keep reports whether a compilation with the options runs the stage
	// (nil: always).
	keep func(o *Options) bool
}

// stages is the pipeline: every stage, in the order it runs. Its order
// obeys stageOrder, which init checks.
var stages = []Stage{
	{Name: StageImport, File: "0-tfg.mlir", Kind: KindImport, Doc: "GraphDef -> tfg", Marks: []string{"tfg"}},
	{Name: StageLowerEmb, File: "1-emb.mlir", Kind: KindPass, Doc: "tfg -> emb: the columns", Marks: []string{"emb"}},
	{Name: StageSimplifyShapes, File: "2-shape.mlir", Kind: KindPass, Doc: "symbolic shapes", Marks: []string{"shape"}},
	{Name: StageFuse, File: "3-gpu.mlir", Kind: KindPass, Doc: "every column in one gpu kernel", Marks: []string{fused.EmbeddingLayerOp, "gpu"}},
	{Name: StageFuseDense, File: "4-dense.mlir", Kind: KindPass, Doc: "a gpu kernel per dense layer", Marks: []string{fused.DenseOp},
		keep: func(o *Options) bool { return o.Dense }},
	{Name: StageLLVM, File: "model.ll", Kind: KindLLVM, Doc: "NVPTX LLVM IR"},
	{Name: StagePTX, File: "model.ptx", Kind: KindPTX, Doc: "llc-19 -march=nvptx64"},
	{Name: StageCubin, File: "model.cubin", Kind: KindCubin, Doc: "ptxas -v, where installed",
		keep: func(o *Options) bool { return !o.NoCubin }},
}

// everyIRStage, as the first stage of an orderRule, stands for every stage
// whose output is IR (Kind.IR).
const everyIRStage = "every IR stage"

// An orderRule says that stage a runs before stage b, and why, in the
// manner of the passOrder table of Go's SSA back end.
type orderRule struct {
	a, b, why string
}

// stageOrder are the rules the order of stages must obey.
var stageOrder = []orderRule{
	{StageImport, StageLowerEmb, "lower-emb matches the imported graph's tfg ops"},
	{StageLowerEmb, StageSimplifyShapes, "simplify-shapes rebuilds the shape arithmetic around the emb ops"},
	{StageSimplifyShapes, StageFuse, "fuse plans each column from its symbolic shapes"},
	{StageFuse, StageFuseDense, "fuse-dense folds a ConcatV2 that feeds a product into the product, and fuse finds the embedding layer at the input layer's ConcatV2"},
	{everyIRStage, StageLLVM, "llvm emits the module as the last IR stage leaves it"},
	{StageLLVM, StagePTX, "llc compiles the LLVM IR"},
	{StagePTX, StageCubin, "ptxas assembles the PTX"},
}

func init() {
	allpasses.Register() // the pass stages' passes are found by flag
	mustCheckStages(stages, stageOrder)
}

// mustCheckStages panics with a message naming the broken rule when the
// table is not well formed or its order breaks a rule: a programming
// error, found when the program starts.
func mustCheckStages(table []Stage, rules []orderRule) {
	if err := checkStages(table, rules); err != nil {
		panic("compiler: stage table: " + err.Error())
	}
}

// checkStages checks the stage table: names and files unique, every pass
// stage a registered pass, marks only on IR stages, and the order rules.
func checkStages(table []Stage, rules []orderRule) error {
	index := map[string]int{}
	files := map[string]string{}
	for i, s := range table {
		if s.Name == "" || s.File == "" {
			return fmt.Errorf("stage %d has no name or no file", i)
		}
		if _, dup := index[s.Name]; dup {
			return fmt.Errorf("stage %s appears twice", s.Name)
		}
		if other, dup := files[s.File]; dup {
			return fmt.Errorf("stages %s and %s both write %s", other, s.Name, s.File)
		}
		if s.Kind == KindPass {
			if _, ok := pass.Lookup(s.Name); !ok {
				return fmt.Errorf("stage %s: no pass --%s is registered", s.Name, s.Name)
			}
		}
		if len(s.Marks) > 0 && !s.Kind.IR() {
			return fmt.Errorf("stage %s has marks but leaves no IR", s.Name)
		}
		index[s.Name], files[s.File] = i, s.Name
	}
	for _, r := range rules {
		j, ok := index[r.b]
		if !ok {
			return fmt.Errorf("order rule %q before %q: no stage %s", r.a, r.b, r.b)
		}
		var before []int
		if r.a == everyIRStage {
			for i, s := range table {
				if s.Kind.IR() {
					before = append(before, i)
				}
			}
		} else if i, ok := index[r.a]; ok {
			before = []int{i}
		} else {
			return fmt.Errorf("order rule %q before %q: no stage %s", r.a, r.b, r.a)
		}
		for _, i := range before {
			if i >= j {
				return fmt.Errorf("%s must run after %s (%s), but the table has it before", r.b, table[i].Name, r.why)
			}
		}
	}
	return nil
}

// Stages lists every stage's name, in pipeline order.
var Stages = func() []string {
	names := make([]string, len(stages))
	for i, s := range stages {
		names[i] = s.Name
	}
	return names
}()

// passStages are the names of the stages that are one pass of the pass
// manager, in order.
var passStages = func() []string {
	var names []string
	for _, s := range stages {
		if s.Kind == KindPass {
			names = append(names, s.Name)
		}
	}
	return names
}()

// LookupStage returns the stage of the given name.
func LookupStage(name string) (Stage, bool) {
	i := slices.IndexFunc(stages, func(s Stage) bool { return s.Name == name })
	if i < 0 {
		return Stage{}, false
	}
	return stages[i], true
}

// stageIndex is the position of the named stage in the pipeline, or -1.
func stageIndex(name string) int {
	return slices.IndexFunc(stages, func(s Stage) bool { return s.Name == name })
}

// FileName returns the name under which `recom compile` writes the output
// of stage: 0-tfg.mlir, 1-emb.mlir, 2-shape.mlir, 3-gpu.mlir,
// 4-dense.mlir, model.ll, model.ptx, model.cubin ("" for no stage).
func FileName(stage string) string {
	s, _ := LookupStage(stage)
	return s.File
}

// Pipeline returns the stages a compilation with o runs, in order: every
// stage but those o leaves out (fuse-dense without Dense, cubin with
// NoCubin), up to o.StopAfter. The cubin stage is listed even where
// ptxas is missing (the compilation then notes that it was skipped).
func Pipeline(o Options) []Stage {
	var out []Stage
	for _, s := range stages {
		if s.keep != nil && !s.keep(&o) {
			continue
		}
		out = append(out, s)
		if s.Name == o.StopAfter {
			break
		}
	}
	return out
}

// DetectStage returns the stage a module is at: the last IR stage whose
// marks (dialects or ops) it holds. A module holding none of them (no tfg,
// emb, shape, gpu or fused ops) is an error.
func DetectStage(m *textir.Operation) (string, error) {
	seen := map[string]bool{}
	m.Walk(func(op *textir.Operation) bool {
		seen[op.Dialect()] = true
		seen[op.Name()] = true
		return true
	})
	var all []string
	for i := len(stages) - 1; i >= 0; i-- {
		for _, mark := range stages[i].Marks {
			if seen[mark] {
				return stages[i].Name, nil
			}
		}
	}
	for _, s := range stages {
		all = append(all, s.Marks...)
	}
	return "", textir.Errorf(m.DiagLoc(), "cannot tell which stage this IR is at: it holds none of %s", strings.Join(all, ", "))
}
