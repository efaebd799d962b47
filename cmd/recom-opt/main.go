// Command recom-opt is recom's mlir-opt: it reads textual IR, verifies it,
// runs passes in command-line order (or a --pass-pipeline), and prints the
// result.
//
//	recom-opt [flags] [FILE|-]
//	recom-opt --cse --canonicalize --cse in.mlir -o out.mlir
//	recom-opt --split-input-file --verify-diagnostics invalid.mlir
//
// Diagnostics go to stderr as file:line:col: error: message, followed by
// the source line and a caret under the column. The exit status is 0 on
// success, 1 when the input, a pass or --verify-diagnostics failed, 2 on an
// internal error, and 130 or 143 when SIGINT or SIGTERM ended it (the
// output is then left as it was).
package main

import (
	"context"
	"github.com/recom-compiler/recom/cmd/internal/memlimit"
	"os"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
)

func main() {
	memlimit.Init() // a soft heap limit under `ulimit -v`
	_, stop := outfile.HandleSignals(context.Background(), "recom-opt", os.Stderr)
	status := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}
