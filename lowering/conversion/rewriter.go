package conversion

import (
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// ConversionPattern rewrites one illegal op. operands are op's operands as
// converted so far: the replacement values of converted producers, or
// target materializations to the converted type. MatchAndRewrite returns
// false only when it changed nothing (there is no rollback).
type ConversionPattern interface {
	// Root is the op name the pattern converts, or "" for any op.
	Root() string
	// Benefit orders patterns: higher is tried first.
	Benefit() int
	// Name identifies the pattern in statistics and diagnostics.
	Name() string
	MatchAndRewrite(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool
}

// Pattern is a ConversionPattern made from a function.
type Pattern struct {
	RootName    string
	PatternName string
	Weight      int
	Fn          func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool
}

func (p *Pattern) Root() string { return p.RootName }
func (p *Pattern) Benefit() int { return p.Weight }
func (p *Pattern) Name() string { return p.PatternName }
func (p *Pattern) MatchAndRewrite(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool {
	return p.Fn(op, operands, rw)
}

// PatternList collects the patterns of a conversion, in the manner of
// MLIR's RewritePatternSet: populate functions (PopulateXPatterns(&list,
// ...)) add to it, and the pass hands it to ApplyPartialConversion or
// ApplyFullConversion. The order of addition breaks ties of benefit.
type PatternList []ConversionPattern

// Add appends patterns to the list.
func (l *PatternList) Add(patterns ...ConversionPattern) { *l = append(*l, patterns...) }

// FromRewritePattern uses an ordinary rewrite pattern as a conversion
// pattern (it sees op's operands as they are in the IR).
func FromRewritePattern(p textir.RewritePattern) ConversionPattern { return rewritePattern{p} }

type rewritePattern struct{ textir.RewritePattern }

func (p rewritePattern) MatchAndRewrite(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
	return p.RewritePattern.MatchAndRewrite(op, rw)
}

// ConversionRewriter is the rewriter conversion patterns use. It reports
// every change to the driver like rewrite.Rewriter, and its replacements
// accept values of converted types: the old users keep working through a
// source materialization, and converted users get the new value.
type ConversionRewriter struct {
	*rewrite.Rewriter
	c *converter
}

var _ textir.PatternRewriter = (*ConversionRewriter)(nil)

// TypeConverter returns the conversion's type converter (possibly nil).
func (rw *ConversionRewriter) TypeConverter() *TypeConverter { return rw.c.tc }

// RemappedValue returns the value v was replaced with (following
// replacements of converted type), or v.
func (rw *ConversionRewriter) RemappedValue(v *textir.Value) *textir.Value { return rw.c.lookup(v) }

// ReplaceOp replaces op's results with vals, which may have converted
// types, and erases op.
func (rw *ConversionRewriter) ReplaceOp(op *textir.Operation, vals []*textir.Value) {
	if len(vals) != op.NumResults() {
		rw.Rewriter.ReplaceOp(op, vals) // records the misuse
		return
	}
	adjusted := make([]*textir.Value, len(vals))
	for i, v := range vals {
		adjusted[i] = v
		if r := op.Result(i); v != nil && r.Type() != v.Type() && r.HasUses() {
			b := rw.Builder()
			saveBlock, savePos := b.Block, b.Pos
			b.SetInsertionPoint(op)
			adjusted[i] = rw.c.sourceMaterialize(v, r.Type(), op.Loc())
			b.Block, b.Pos = saveBlock, savePos
			if adjusted[i] == nil {
				return
			}
		}
	}
	rw.Rewriter.ReplaceOp(op, adjusted)
}

// ReplaceAllUsesWith replaces the uses of from with to, which may have a
// converted type.
func (rw *ConversionRewriter) ReplaceAllUsesWith(from, to *textir.Value) {
	if from == to || !from.HasUses() {
		return
	}
	if from.Type() != to.Type() {
		b := rw.Builder()
		saveBlock, savePos := b.Block, b.Pos
		setInsertionAfterDef(b, to)
		m := rw.c.sourceMaterialize(to, from.Type(), locOf(to))
		b.Block, b.Pos = saveBlock, savePos
		if m == nil {
			return
		}
		to = m
	}
	rw.Rewriter.ReplaceAllUsesWith(from, to)
}

// InlineBlockBefore moves src's ops before pos, replacing its arguments
// with args (which may have converted types); src is removed.
func (rw *ConversionRewriter) InlineBlockBefore(src *textir.Block, pos *textir.Operation, args []*textir.Value) {
	if len(args) == src.NumArgs() {
		for i, a := range src.Args() {
			rw.ReplaceAllUsesWith(a, args[i])
		}
		args = src.Args()
	}
	rw.Rewriter.InlineBlockBefore(src, pos, args)
}

// ConvertRegionTypes converts the argument types of every block of r with
// tc (the conversion's converter when nil). It changes nothing and returns
// false when some argument type does not convert. Users of a converted
// argument that are not converted yet use a source materialization.
func (rw *ConversionRewriter) ConvertRegionTypes(r *textir.Region, tc *TypeConverter) bool {
	if tc == nil {
		tc = rw.c.tc
	}
	if tc == nil {
		return r.Empty()
	}
	for _, b := range r.Blocks() {
		for _, a := range b.Args() {
			if _, ok := tc.ConvertType(a.Type()); !ok {
				return false
			}
		}
	}
	parent := r.ParentOp()
	for _, blk := range r.Blocks() {
		for _, a := range blk.Args() {
			nt, _ := tc.ConvertType(a.Type())
			old := a.Type()
			if nt == old {
				continue
			}
			if parent != nil {
				rw.ModifyOpInPlace(parent, func() { a.SetType(nt) })
			} else {
				a.SetType(nt)
			}
			if !a.HasUses() {
				continue
			}
			b := rw.Builder()
			saveBlock, savePos := b.Block, b.Pos
			b.SetInsertionPointToStart(blk)
			m := rw.c.sourceMaterialize(a, old, locOf(a))
			b.Block, b.Pos = saveBlock, savePos
			if m == nil {
				return false
			}
			cast := m.DefiningOp()
			rw.ReplaceUsesWithIf(a, m, func(u *textir.OpOperand) bool { return u.Owner() != cast })
		}
	}
	return true
}

func setInsertionAfterDef(b *textir.Builder, v *textir.Value) {
	if d := v.DefiningOp(); d != nil && d.Block() != nil {
		b.SetInsertionPointAfter(d)
		return
	}
	if blk := v.OwnerBlock(); blk != nil {
		b.SetInsertionPointToStart(blk)
	}
}

func locOf(v *textir.Value) textir.Location {
	if d := v.DefiningOp(); d != nil {
		return d.Loc()
	}
	if p := v.OwnerBlock().ParentOp(); p != nil {
		return p.Loc()
	}
	return textir.UnknownLoc{}
}

// InlineBlockAtEnd moves src's ops to the end of dest, replacing its
// arguments with args (which may have converted types); src is removed.
func (rw *ConversionRewriter) InlineBlockAtEnd(src, dest *textir.Block, args []*textir.Value) {
	if len(args) == src.NumArgs() {
		for i, a := range src.Args() {
			rw.ReplaceAllUsesWith(a, args[i])
		}
		args = src.Args()
	}
	rw.Rewriter.InlineBlockAtEnd(src, dest, args)
}
