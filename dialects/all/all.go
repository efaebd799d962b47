// Package all registers every dialect of recom in one context: the single
// place tools (recom-opt, recom-translate, recom) get their context from.
package all

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/shape"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// Dialects returns every dialect of the project, freshly built.
func Dialects() []*textir.Dialect {
	return []*textir.Dialect{
		builtin.Dialect(),
		funcd.Dialect(),
		arith.Dialect(),
		tfg.Dialect(),
		emb.Dialect(),
		shape.Dialect(),
		gpu.Dialect(),
		fused.Dialect(),
	}
}

// NewContext returns a context with every dialect registered.
func NewContext() *textir.Context {
	return textir.NewContext(Dialects()...)
}
