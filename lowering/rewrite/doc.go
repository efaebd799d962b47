// Package rewrite provides pattern rewriting in MLIR's style: a frozen
// PatternSet, a Rewriter through which patterns change IR (every change is
// reported to a Listener), and ApplyPatternsGreedily, the greedy driver that
// folds, removes dead code and applies patterns until a fixed point.
//
// The greedy driver mirrors MLIR's GreedyPatternRewriteDriver:
//
//   - The worklist is seeded with every op nested in the root (not the root
//     itself). By default it is seeded in post-order and processed as a stack
//     (last in, first out), so the last op of a block is visited first and
//     users are visited before their producers ("bottom-up"); with
//     UseTopDownTraversal the ops are visited in pre-order ("top-down").
//   - For each op: erase it if trivially dead; if it is a constant, hoist it
//     to the start of its insertion region's entry block and unique it; else
//     try its folder; then try the patterns rooted at its name by benefit.
//   - Ops created by a rewrite, ops modified in place and the users of
//     replaced values are (re)added to the worklist; erased ops are removed
//     from it and are never visited again; when an op is erased the producers
//     of its operands are added, so dead chains disappear in one sweep.
//   - Sweeps repeat while something changed, up to MaxIterations.
package rewrite
