package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp/npz"
)

func init() { subcommands = append(subcommands, newGenCmd) }

func newGenCmd(_ io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var (
		preset, specFile, out, tables string
		columns, batch                int
		seed                          uint64
		feeds, noTables               bool
		maxTable, maxConst            string
	)
	cmd := &cobra.Command{
		Use:   "gen (--preset NAME | --spec FILE) [flags] -o MODEL.pbtxt\n  recom gen --feeds --batch B [--seed S] [--spec FILE] MODEL.pbtxt -o FEEDS.npz",
		Short: "generate TensorFlow feature-column models and random feeds",
		Long: `gen writes a GraphDef that TensorFlow 2.x graph-mode feature columns
(tf.compat.v1.feature_column.input_layer over embedding columns) would write,
node for node, from a column specification (JSON; see frontend/gen.Spec) or a
bundled preset (` + strings.Join(gen.Presets(), ", ") + `). Variable and resource
tables are written to MODEL.tables.npz beside the graph (array name = variable
node name); const tables are stored in the graph. The spec is recorded in the
graph as the string Const "recom/spec".

With --feeds, gen draws random inputs for every placeholder of a generated
model (the spec comes from the graph unless --spec is given) and writes them
as NumPy .npz.

An output name ending in .pb is written as binary protobuf, others as text.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("no output file (-o)")
			}
			if feeds {
				if len(args) != 1 {
					return errors.New("--feeds takes one model file")
				}
				if preset != "" || columns != 0 || tables != "" || noTables || maxTable != "" || maxConst != "" {
					return errors.New("--feeds takes no --preset, --columns, --tables, --no-tables, --max-table-bytes or --max-const-bytes")
				}
				return runFeeds(args[0], specFile, batch, seed, out, stdout)
			}
			if len(args) != 0 {
				return fmt.Errorf("unexpected argument %q (a model is generated from --preset or --spec)", args[0])
			}
			if cmd.Flags().Changed("batch") {
				return errors.New("--batch goes with --feeds")
			}
			var s *gen.Spec
			var err error
			switch {
			case preset != "" && specFile != "":
				return errors.New("--preset and --spec exclude each other")
			case preset != "":
				s, err = gen.Preset(preset)
			case specFile != "":
				s, err = gen.LoadSpec(specFile)
			default:
				return errors.New("no model: pass --preset NAME or --spec FILE")
			}
			if err != nil {
				return err
			}
			if columns != 0 {
				if s, err = s.Scale(columns); err != nil {
					return err
				}
			}
			opt := gen.Options{Seed: seed, Tables: gen.TableStyle(tables), NoTableValues: noTables}
			if opt.TableLimit, err = parseBytes("--max-table-bytes", maxTable); err != nil {
				return err
			}
			if opt.ConstLimit, err = parseBytes("--max-const-bytes", maxConst); err != nil {
				return err
			}
			m, err := gen.Generate(s, opt)
			if err != nil {
				return err
			}
			// The model and its side file are both written before either
			// is committed, so a failure leaves neither.
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
			fmt.Fprintf(stderr, "recom gen: %s: %d columns, %d nodes, output %q", out, s.NumColumns(), len(m.Graph.Node), m.Output)
			if side != "" {
				fmt.Fprintf(stderr, "; %d variables in %s", len(m.Tables), side)
			}
			fmt.Fprintln(stderr)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&preset, "preset", "", "bundled spec: "+strings.Join(gen.Presets(), ", "))
	f.StringVar(&specFile, "spec", "", "JSON column specification")
	f.IntVar(&columns, "columns", 0, "scale the spec to exactly N columns (proportionally across groups)")
	f.Uint64Var(&seed, "seed", 1, "random seed of table values, or of feeds")
	f.StringVar(&tables, "tables", "", "override every table's style: variable, resource or const")
	f.BoolVar(&noTables, "no-tables", false, "write the graph only, without the variables' side file")
	f.StringVar(&maxTable, "max-table-bytes", "", "largest total size of the side file's tables, e.g. 512MiB, 8GiB (default "+humanBytes(gen.DefaultTableLimit)+")")
	f.StringVar(&maxConst, "max-const-bytes", "", "largest total size of const tables stored in the graph (default "+humanBytes(gen.DefaultConstLimit)+")")
	f.BoolVar(&feeds, "feeds", false, "write random feeds for MODEL instead of a model")
	f.IntVar(&batch, "batch", 256, "batch size of the feeds")
	f.StringVarP(&out, "output", "o", "", "output file (- for stdout)")
	return cmd
}

// tablesPath is MODEL.tables.npz for MODEL.pbtxt or MODEL.pb.
func tablesPath(out string) string {
	for _, ext := range []string{".pbtxt", ".pb", ".txt"} {
		if base, ok := strings.CutSuffix(out, ext); ok {
			return base + ".tables.npz"
		}
	}
	return out + ".tables.npz"
}

// genPrepareGraph writes the model to a temporary file beside path and
// returns it uncommitted.
func genPrepareGraph(path string, m *gen.Model, stdout io.Writer) (*outfile.File, error) {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".pb") {
		_, err = f.Write(graphdef.MarshalText(m.Graph))
	} else {
		w := bufio.NewWriterSize(f, 1<<20)
		if err = gen.WriteGraph(w, m.Graph); err == nil {
			err = w.Flush()
		}
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return f, nil
}

// genPrepareNPZ streams arrays into a temporary file beside path and
// returns it uncommitted.
func genPrepareNPZ(path string, arrays []npz.Array, stdout io.Writer) (*outfile.File, error) {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := npz.WriteNPZ(w, arrays); err != nil {
		f.Abort()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return nil, err
	}
	return f, nil
}

// genWriteNPZ streams arrays into path (written atomically).
func genWriteNPZ(path string, arrays []npz.Array, stdout io.Writer) error {
	f, err := genPrepareNPZ(path, arrays, stdout)
	if err != nil {
		return err
	}
	defer f.Abort()
	return f.Commit()
}

// parseBytes reads a size: a number of bytes with an optional suffix (k,
// M, G, T: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024; B allowed).
// "" is 0 (the default limit).
func parseBytes(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.TrimSpace(s)
	num := strings.TrimRight(t, "kKMGTiBb")
	unit := strings.TrimPrefix(t, num)
	mult := map[string]int64{
		"": 1, "B": 1, "k": 1e3, "K": 1e3, "kB": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9, "T": 1e12, "TB": 1e12,
		"Ki": 1 << 10, "KiB": 1 << 10, "Mi": 1 << 20, "MiB": 1 << 20, "Gi": 1 << 30, "GiB": 1 << 30, "Ti": 1 << 40, "TiB": 1 << 40,
	}[unit]
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil || mult == 0:
		return 0, fmt.Errorf("%s: %q is not a size (examples: 1000000, 512MiB, 8GiB, 2G)", flag, s)
	case !(v > 0) || v*float64(mult) >= 1<<62:
		return 0, fmt.Errorf("%s: %q: the limit must be positive and below 4 EiB", flag, s)
	}
	return int64(v * float64(mult)), nil
}

// humanBytes prints a size in the units parseBytes reads.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return strconv.FormatInt(n, 10)
}

func runFeeds(model, specFile string, batch int, seed uint64, out string, stdout io.Writer) error {
	file, err := graphdef.Load(model)
	if err != nil {
		return err
	}
	var s *gen.Spec
	if specFile != "" {
		s, err = gen.LoadSpec(specFile)
	} else {
		s, err = gen.SpecFromGraph(file.Graph)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", model, err)
	}
	arrays, err := gen.Feeds(s, batch, seed)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, a := range arrays {
		have[a.Name] = true
	}
	for _, n := range file.Graph.GetNode() {
		if n.GetOp() == "Placeholder" && !have[n.GetName()] {
			return fmt.Errorf("%s: placeholder %q has no feed in the spec (does the spec match the model?)", model, n.GetName())
		}
	}
	return genWriteNPZ(out, arrays, stdout)
}
