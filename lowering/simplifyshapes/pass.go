// Package simplifyshapes is the --simplify-shapes pass: RECom's shape
// computation simplification. TensorFlow graphs compute shapes at run time
// with chains of Shape, StridedSlice, Pack, Prod, Slice, Cast, GatherV2 and
// ConcatV2; after --lower-emb, what is left of each embedding column is
// mostly such chains feeding the input_layer's Reshapes.
//
// The pass runs on each tfg.graph. Infer computes, for every tensor, its
// dims as canonical symbolic expressions (package dialects/shape/expr),
// and for small integer tensors (rank ≤ 1, at most MaxContent elements)
// their content. Each tfg op's results follow from its shape function in
// the TensorFlow op table (dialects/tfg/optab), which the analysis runs
// as an optab.ShapeContext; each emb op's from embShapes. Symbols are
// created for unknown placeholder dims (the first placeholder's dim 0 is
// "batch") and for data-dependent counts (the values of each emb source
// and filter, Unique, Where, StringSplit); ops that require equal dims
// (ConcatV2, broadcasting elementwise ops, MatMul, BiasAdd, Select, Pack)
// merge their symbols' equality classes, so every column ends up with the
// one batch symbol.
//
// The rewrite is patterns rooted at the ops they change, applied by
// lowering/rewrite's greedy driver (see rewrite.go):
//   - a Reshape whose input already has the target dims symbolically is
//     removed (the input_layer's reshape of a [batch, D] lookup result);
//   - every small integer operand computed by a TensorFlow chain (a Reshape
//     shape, Fill dims, Tile multiples, Slice sizes, ...) whose content is
//     known is rebuilt from the symbols with shape ops: shape.dim or
//     shape.count binds each symbol once, shape.apply computes each
//     element, shape.from_extents (or shape.index_cast for a scalar) makes
//     the tensor;
//   - the chains that became dead are erased;
//   - the layer output (the ConcatV2 or emb.concat of the columns), each
//     column's slice and each lookup's ids get a shape.assert_shape whose
//     map gives their dims in the batch symbol and the per-column counts:
//     what --fuse reads to plan one buffer.
//
// The graph is a graph region, so the new ops need no particular order
// (they are put after the op defining what they read, or before their
// user). The analysis assumes the program runs without error: dims that
// an op requires to be equal are equal, and a symbolic dim that is
// broadcast against another is not 1.
//
// The pass's flag, options (each turns one step off, for ablations) and
// statistics are declared in Decl.
package simplifyshapes

import (
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// Flag is the pass's command-line name.
const Flag = "simplify-shapes"

// Decl declares the --simplify-shapes pass.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "SimplifyShapes",
	Summary: "Infer symbolic shapes; rebuild shape operands from symbols with shape ops, removing TensorFlow shape chains and no-op reshapes",
	Options: []pass.OptDecl{
		{Name: "disable", Kind: pass.BoolOption, Help: "Leave the IR as it is (ablation)"},
		{Name: "no-reshape-removal", Kind: pass.BoolOption, Help: "Keep Reshapes whose input already has the target shape"},
		{Name: "no-operand-rebuild", Kind: pass.BoolOption, Help: "Keep the TensorFlow shape chains that compute shape operands"},
		{Name: "no-assertions", Kind: pass.BoolOption, Help: "Attach no shape.assert_shape to the layer output, the columns and the lookups"},
	},
	Statistics: []pass.StatDecl{
		{Name: "symbols-created", Help: "Symbols created (input dims and data-dependent counts)"},
		{Name: "classes-merged", Help: "Equalities that merged two symbol classes"},
		{Name: "reshapes-removed", Help: "Reshapes removed: the input already had the target shape"},
		{Name: "shape-ops-removed", Help: "tfg ops of dead shape chains removed"},
		{Name: "operands-rebuilt", Help: "Shape operands rebuilt from symbols with shape ops"},
		{Name: "assertions", Help: "shape.assert_shape ops giving output sizes"},
		{Name: "shape-chain-ops-left", Help: "tfg Shape, StridedSlice, Pack, Prod and Slice ops left"},
	},
	New: func(o *pass.Options) pass.Runner { return newPass(o) },
}

// Pass is the --simplify-shapes pass; its options are declared in Decl.
type Pass struct {
	disable      *bool
	noReshape    *bool
	noRebuild    *bool
	noAssertions *bool
}

func newPass(o *pass.Options) *Pass {
	flag := func(name string) *bool { v := o.Bool(name); return &v }
	return &Pass{
		disable:      flag("disable"),
		noReshape:    flag("no-reshape-removal"),
		noRebuild:    flag("no-operand-rebuild"),
		noAssertions: flag("no-assertions"),
	}
}

// stats are the pass's statistics.
type stats struct {
	symbols, merged, reshapes, removed, rebuilt, asserts, left *pass.Statistic
}

func newStats(st *pass.State) *stats {
	return &stats{
		symbols:  st.Stat("symbols-created", "Symbols created (input dims and data-dependent counts)"),
		merged:   st.Stat("classes-merged", "Equalities that merged two symbol classes"),
		reshapes: st.Stat("reshapes-removed", "Reshapes removed: the input already had the target shape"),
		removed:  st.Stat("shape-ops-removed", "tfg ops of dead shape chains removed"),
		rebuilt:  st.Stat("operands-rebuilt", "Shape operands rebuilt from symbols with shape ops"),
		asserts:  st.Stat("assertions", "shape.assert_shape ops giving output sizes"),
		left:     st.Stat("shape-chain-ops-left", "tfg Shape, StridedSlice, Pack, Prod and Slice ops left"),
	}
}

// Run simplifies the shape computations of every tfg.graph under root.
func (p *Pass) Run(root *textir.Operation, st *pass.State) error {
	s := newStats(st)
	if *p.disable {
		st.MarkUnchanged()
		return nil
	}
	type graphBlock struct {
		g *textir.Operation
		b *textir.Block
	}
	var blocks []graphBlock
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.graph" {
			for _, r := range op.Regions() {
				for _, b := range r.Blocks() {
					blocks = append(blocks, graphBlock{op, b})
				}
			}
			return false
		}
		return true
	})
	changed := false
	for _, gb := range blocks {
		c, err := p.runBlock(st, gb.g, gb.b, s)
		if err != nil {
			return err
		}
		changed = changed || c
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
}
