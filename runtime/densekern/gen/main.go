// Command gen writes the layout kernels' PTX (runtime/densekern.PTX):
// the gpu.module of densekern.Module, verified, emitted as NVPTX LLVM IR
// and compiled by llc-19 with the backend's default options. Run by
// go generate in runtime/densekern.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/recom-compiler/recom/runtime/densekern"
)

func main() {
	out := flag.String("o", "densekern.ptx", "the PTX file to write")
	flag.Parse()
	ptx, err := densekern.Compile(context.Background())
	if err == nil {
		err = os.WriteFile(*out, ptx, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
