// Package all registers every pass of recom: the single place the tools
// (recom-opt, recom), the compile pipeline and the tests get their passes
// from, as dialects/all is for dialects and MLIR's registerAllPasses is for
// its passes. Each pass is declared once, as a pass.Decl in its own
// package; this package lists them.
//
// The README's pass table and docs/PASSES.md are generated from the same
// list: run `go generate ./lowering/all` after changing a declaration (a
// test fails while they are out of date).
package all

//go:generate go run ./gen -root ../..

import (
	"sync"

	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/lowering/foldbn"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/lowering/shard"
	"github.com/recom-compiler/recom/lowering/simplifyshapes"
	"github.com/recom-compiler/recom/lowering/tfgtoemb"
	"github.com/recom-compiler/recom/lowering/transforms"
)

// Decls returns the declaration of every pass of the project: the generic
// transforms, then the lowerings in pipeline order.
func Decls() []*pass.Decl {
	return []*pass.Decl{
		&transforms.CanonicalizeDecl,
		&transforms.CSEDecl,
		&transforms.SymbolDCEDecl,
		&tfgtoemb.Decl,
		&simplifyshapes.Decl,
		&embtogpu.Decl,
		&foldbn.Decl,
		&densetogpu.Decl,
		&shard.PlanDecl,
		&shard.Decl,
	}
}

var once sync.Once

// Register adds every pass of Decls to the pass registry (pass.Register),
// so that pass.NewPass, pass.FromSpecs, pass.ParsePipeline and the pass
// flags of the tools find them by flag. It may be called any number of
// times, from any goroutine: the first call registers, the others wait
// for it and do nothing.
func Register() {
	once.Do(func() {
		for _, d := range Decls() {
			pass.Register(d)
		}
	})
}
