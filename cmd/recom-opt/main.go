// Command recom-opt is recom's mlir-opt: it reads textual IR, verifies it,
// runs passes in command-line order (or a --pass-pipeline), and prints the
// result.
//
//	recom-opt [flags] [FILE|-]
//	recom-opt --cse --canonicalize --cse in.mlir -o out.mlir
//	recom-opt --split-input-file --verify-diagnostics invalid.mlir
//
// Diagnostics go to stderr as file:line:col: error: message. The exit status
// is 0 on success, 1 when the input, a pass or --verify-diagnostics failed,
// and 2 on an internal error.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
