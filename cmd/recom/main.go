// Command recom is the end-to-end tool: generate models and feeds (gen),
// interpret programs on the CPU (interp), compare outputs (compare), and
// later compile, run and benchmark them on the GPU.
//
// Each subcommand lives in its own file and adds itself to the root command
// from an init function.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/recom-compiler/recom/cmd/internal/memlimit"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/cmd/internal/toolflag"
	"github.com/recom-compiler/recom/dialects/tfg"
	allpasses "github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/textir"
)

// exitError ends a run with a status after its message was printed.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// subcommands holds the constructors registered by init functions; each
// builds its command for one run with the run's streams.
var subcommands []func(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command

func main() {
	memlimit.Init() // a soft heap limit under `ulimit -v`
	// SIGINT and SIGTERM remove the unfinished outputs and end the tool
	// with 130 and 143.
	ctx, stop := outfile.HandleSignals(context.Background(), "recom", os.Stderr)
	status := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

// run is the whole tool, callable in-process by tests; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run with a context that the subcommands get as their
// command's context.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "recom: error: internal error: %v\n%s", r, debug.Stack())
			status = 2
		}
	}()
	allpasses.Register()
	root := &cobra.Command{
		Use:           "recom",
		Short:         "recom compiles the embedding layers of recommendation models into one GPU kernel",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       toolflag.Version("recom"),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, mk := range subcommands {
		root.AddCommand(mk(stdin, stdout, stderr))
	}
	err := root.ExecuteContext(ctx)
	var code exitError
	var diag *textir.Diagnostic
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &diag):
		// A diagnostic carries its own location and severity; the source
		// line of a .mlir input is shown under it.
		if tfg.NotFed(err) && len(diag.Notes) == 0 {
			diag.AttachNote(nil, "--feeds gives the program's inputs: an .npz with an array per placeholder, named by its node (recom gen --feeds draws them for a model recom gen made)")
		}
		fmt.Fprintln(stderr, mlirSources().FormatError(err))
		return 1
	}
	fmt.Fprintf(stderr, "recom: error: %v\n", err)
	return 1
}

// mlirSources shows the source lines of diagnostics in the .mlir files they
// name (read when first needed; a file over 64 MiB is not shown).
func mlirSources() *textir.SourceMgr {
	return &textir.SourceMgr{Load: loadMLIR}
}

func loadMLIR(name string) (string, bool) {
	if !strings.HasSuffix(name, ".mlir") {
		return "", false
	}
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 64<<20 {
		return "", false
	}
	b, err := os.ReadFile(name)
	return string(b), err == nil
}
