package main

import (
	"fmt"
	"io"
	"os"

	"github.com/recom-compiler/recom/frontend/gen"
)

// genLookups is recom gen --lookups: a plain-lookup model from its spec,
// written as recom gen writes a feature-column model (the graph, and the
// variables' side file beside it).
func genLookups(specFile, out string, opt gen.Options, maxTable, maxConst string, stdout, stderr io.Writer) error {
	s, err := gen.LoadLookupSpec(specFile)
	if err != nil {
		return err
	}
	if opt.TableLimit, err = parseBytes("--max-table-bytes", maxTable); err != nil {
		return err
	}
	if opt.ConstLimit, err = parseBytes("--max-const-bytes", maxConst); err != nil {
		return err
	}
	m, err := gen.GenerateLookups(s, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", specFile, err)
	}
	gf, err := genPrepareGraph(out, m, stdout)
	if err != nil {
		return err
	}
	defer gf.Abort()
	side := ""
	if len(m.Tables) > 0 && out != "-" {
		side = tablesPath(out)
		tf, err := genPrepareNPZ(side, m.Tables, stdout)
		if err != nil {
			return err
		}
		defer tf.Abort()
		if err := tf.Commit(); err != nil {
			return err
		}
	}
	if err := gf.Commit(); err != nil {
		if side != "" {
			os.Remove(side)
		}
		return err
	}
	fmt.Fprintf(stderr, "recom gen: %s: %d nodes, output %q", out, len(m.Graph.Node), m.Output)
	if side != "" {
		fmt.Fprintf(stderr, "; %d variables in %s", len(m.Tables), side)
	}
	fmt.Fprintln(stderr)
	return nil
}
