package embtogpu

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/textir"
)

// Named operands and results of the emb ops this lowering reads (their
// order is the emb dialect's op table, dialects/emb/ops.go). They are local
// helpers until the emb dialect declares accessors of its own.

// isLookup reports whether op is a pooled lookup the fused kernel does:
// emb.lookup, emb.gather or emb.gather_scatter.
func isLookup(op *textir.Operation) bool {
	switch op.Name() {
	case emb.LookupOp, emb.GatherOp, emb.GatherScatterOp:
		return true
	}
	return false
}

// lookupTable is a pooled lookup's table.
func lookupTable(lk *textir.Operation) *textir.Value { return lk.Operand(0) }

// lookupIDs is a pooled lookup's ids.
func lookupIDs(lk *textir.Operation) *textir.Value { return lk.Operand(1) }

// lookupSplits is the row splits of an emb.lookup or emb.gather_scatter
// (nil for emb.gather, one id per row).
func lookupSplits(lk *textir.Operation) *textir.Value {
	if lk.Name() == emb.GatherOp || lk.NumOperands() < 3 {
		return nil
	}
	return lk.Operand(2)
}

// lookupWeights is the per-id weights of a weighted emb.lookup or
// emb.gather_scatter, or nil.
func lookupWeights(lk *textir.Operation) *textir.Value {
	if lk.Name() == emb.GatherOp || lk.NumOperands() < 4 {
		return nil
	}
	return lk.Operand(3)
}

// filterValues is the values an emb.filter filters.
func filterValues(f *textir.Operation) *textir.Value { return f.Operand(0) }

// filterSplits is the row splits of an emb.filter's input.
func filterSplits(f *textir.Operation) *textir.Value { return f.Operand(1) }

// filterWeights is the weights of a weighted emb.filter's input, or nil.
func filterWeights(f *textir.Operation) *textir.Value {
	if f.NumOperands() < 3 {
		return nil
	}
	return f.Operand(2)
}

// filterKept is the values an emb.filter keeps.
func filterKept(f *textir.Operation) *textir.Value { return f.Result(0) }

// filterKeptSplits is the row splits of what an emb.filter keeps.
func filterKeptSplits(f *textir.Operation) *textir.Value { return f.Result(1) }

// filterKeptWeights is the weights of what a weighted emb.filter keeps, or
// nil.
func filterKeptWeights(f *textir.Operation) *textir.Value {
	if f.NumResults() < 3 {
		return nil
	}
	return f.Result(2)
}

// transformInput is the values an elementwise id transform reads
// (emb.hash, emb.as_string, emb.bucketize, emb.vocab_lookup,
// emb.check_range, emb.cast, emb.add_offset).
func transformInput(t *textir.Operation) *textir.Value { return t.Operand(0) }

// addOffsetSplits is the row splits whose positions emb.add_offset adds.
func addOffsetSplits(t *textir.Operation) *textir.Value { return t.Operand(1) }

// splitStringsInput is the [B] strings emb.split_strings splits.
func splitStringsInput(s *textir.Operation) *textir.Value { return s.Operand(0) }

// splitStringsSplits is the row splits of emb.split_strings' tokens.
func splitStringsSplits(s *textir.Operation) *textir.Value { return s.Result(1) }
