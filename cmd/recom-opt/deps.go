package main

import (
	"io"

	"github.com/recom-compiler/recom/dialects/all"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// newContext returns a context with every dialect of the project.
func newContext() *textir.Context { return all.NewContext() }

// passes registers every pass of the project and returns them, sorted by
// flag: each is a flag of its own.
func passes() []*pass.Decl {
	allpasses.Register()
	return pass.Registered()
}

// parseSource parses one chunk of input, src from line firstLine of file on
// (a variable so that a test can make it panic).
var parseSource = func(ctx *textir.Context, file, src string, firstLine int) (*textir.Operation, error) {
	return textir.ParseAtLine(ctx, file, src, firstLine)
}

func printOp(w io.Writer, op *textir.Operation, opts textir.PrintOptions) error {
	return textir.Print(w, op, opts)
}
