package main

import (
	"io"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/textir"

	// The generic passes register their flags.
	_ "github.com/recom-compiler/recom/lowering/densetogpu"
	_ "github.com/recom-compiler/recom/lowering/embtogpu"
	_ "github.com/recom-compiler/recom/lowering/simplifyshapes"
	_ "github.com/recom-compiler/recom/lowering/tfgtoemb"
	_ "github.com/recom-compiler/recom/lowering/transforms"
)

// newContext returns a context with every dialect of the project.
func newContext() *textir.Context { return all.NewContext() }

// parseSource parses one chunk of input (a variable so that a test can make
// it panic).
var parseSource = func(ctx *textir.Context, file, src string) (*textir.Operation, error) {
	return textir.Parse(ctx, file, []byte(src))
}

func printOp(w io.Writer, op *textir.Operation, generic, debugInfo bool) error {
	return textir.Print(w, op, textir.PrintOptions{Generic: generic, DebugInfo: debugInfo})
}
