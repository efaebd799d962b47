package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

func init() { subcommands = append(subcommands, newGenCmd) }

func newGenCmd(_ io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var (
		preset, specFile, out, tables string
		lookupsFile                   string
		columns, batch                int
		seed                          uint64
		feeds, noTables               bool
		tfExample                     string
		maxTable, maxConst            string
		ff                            feedsFlags
		progress                      string
	)
	cmd := &cobra.Command{
		Use: "gen (--preset NAME | --spec FILE | --lookups FILE) [flags] -o MODEL.pbtxt\n" +
			"  recom gen --feeds [--batch B] [--seed S] [--inputs T,...] [--outputs T,...] [--feed-spec FILE] MODEL -o FEEDS.npz",
		Short: "generate TensorFlow feature-column models and random feeds",
		Long: `gen writes a GraphDef that TensorFlow 2.x graph-mode feature columns
(tf.compat.v1.feature_column.input_layer over embedding columns) would write,
node for node, from a column specification (JSON; see frontend/gen.Spec) or a
bundled preset (` + strings.Join(gen.Presets(), ", ") + `). Variable and resource
tables are written to MODEL.tables.npz beside the graph (array name = variable
node name); const tables are stored in the graph. The spec is recorded in the
graph as the string Const "recom/spec". With --lookups, the model is built from
tf.nn.embedding_lookup, embedding_lookup_sparse and safe_embedding_lookup_sparse
on variables, resource variables or constants, whole or partitioned, without
feature columns (JSON; see frontend/gen.LookupSpec); it records no spec.

With --feeds, gen draws random inputs for every placeholder of MODEL and
writes them as NumPy .npz (atomically), one array per placeholder. MODEL is
a binary or text GraphDef, a saved_model.pb or a SavedModel directory,
loaded and cut as recom compile and recom interp do it (--inputs, --outputs,
--tags, --signature, --dynamic-batch; a SavedModel is cut at its signature),
so the feeds fit what those commands run. The values are what the graph accepts, as its ops
say: the keys of vocabulary tables (constants in the graph, or a
SavedModel's vocabulary files) and some out-of-vocabulary words, floats
around Bucketize boundaries, ids within the tables they index (with some
negative or out-of-range ids where a range check or a pruning handles them),
bags of ids followed by padding, random short strings where they are hashed,
separator-joined tokens where they are split, the three parts of a sparse
tensor together (rows of 1 to 4 values, some empty), serialized tf.Example
records where a ParseExample reads them (some dense features missing where
they have a default), N(0, 1) for dense floats. An unknown batch dimension
is --batch (default: the batch the graph's other inputs have, else 256);
--feed-spec FILE (JSON; see frontend/gen.FeedSpec) sets rows, shapes, bag
lengths, value ranges, vocabularies and fractions of empty and invalid
values per input. How each input was drawn is printed on stderr. A model
that recom gen generated (it records its spec) is fed from that spec, as
with --spec, unless a cut or --feed-spec is given.

With --tf-example the model is served from serialized tf.Example records,
as a TensorFlow Estimator export's serving signature is: one string
placeholder "input_example_tensor" parsed by ParseExampleV2 (--tf-example=v1:
TF1's ParseExample) into the columns' features; --feeds then draws records.

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
				if preset != "" || columns != 0 || tables != "" || noTables || maxTable != "" || maxConst != "" || tfExample != "" {
					return errors.New("--feeds takes no --preset, --columns, --tables, --no-tables, --max-table-bytes, --max-const-bytes or --tf-example")
				}
				// The batch is checked before the model is read: the feeds
				// take memory in proportion to it.
				if err := gen.CheckRows(int64(batch)); err != nil {
					return fmt.Errorf("--batch %d: %w", batch, err)
				}
				ff.spec, ff.batch, ff.seed, ff.out = specFile, batch, seed, out
				ff.batchSet = cmd.Flags().Changed("batch")
				return runFeeds(cmd.Context(), args[0], &ff, stdout, stderr)
			}
			if ff.graphFlags() {
				return errors.New("--inputs, --outputs, --tags, --signature, --dynamic-batch and --feed-spec go with --feeds")
			}
			if len(args) != 0 {
				return fmt.Errorf("unexpected argument %q (a model is generated from --preset or --spec)", args[0])
			}
			if cmd.Flags().Changed("batch") {
				return errors.New("--batch goes with --feeds")
			}
			if lookupsFile != "" {
				if preset != "" || specFile != "" || cmd.Flags().Changed("columns") {
					return errors.New("--lookups takes no --preset, --spec or --columns")
				}
				return genLookups(lookupsFile, out, gen.Options{Seed: seed, Tables: gen.TableStyle(tables), NoTableValues: noTables}, maxTable, maxConst, stdout, stderr)
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
			if tfExample != "" {
				if s.Serving = servingOf(tfExample); s.Serving == "" {
					return fmt.Errorf("--tf-example=%s: want v2 (ParseExampleV2, a bare --tf-example) or v1 (ParseExample)", tfExample)
				}
			}
			if cmd.Flags().Changed("columns") {
				// Scale says what is wrong with a count that is not
				// positive; one above the limit is named as the flag.
				if err := gen.CheckColumns(int64(columns)); err != nil && columns > 0 {
					return fmt.Errorf("--columns %d: %w", columns, err)
				}
				if s, err = s.Scale(columns); err != nil {
					return err
				}
			} else if err := s.CheckSize(); err != nil {
				source := specFile
				if preset != "" {
					source = "preset " + preset
				}
				return fmt.Errorf("%s: %w (or scale it down with --columns)", source, err)
			}
			opt := gen.Options{Seed: seed, Tables: gen.TableStyle(tables), NoTableValues: noTables}
			if opt.TableLimit, err = parseBytes("--max-table-bytes", maxTable); err != nil {
				return err
			}
			if opt.ConstLimit, err = parseBytes("--max-const-bytes", maxConst); err != nil {
				return err
			}
			show, err := progressOn(progress, stderr)
			if err != nil {
				return err
			}
			step := genSteps(show, stderr)
			done := step(fmt.Sprintf("building the graph of %d columns", s.NumColumns()))
			m, err := gen.Generate(s, opt)
			if err != nil {
				return err
			}
			done(fmt.Sprintf("%d nodes", len(m.Graph.Node)))
			// The model and its side file are both written before either
			// is committed, so a failure leaves neither.
			done = step("writing " + out)
			gf, err := genPrepareGraph(out, m, stdout)
			if err != nil {
				return err
			}
			defer gf.Abort()
			done("")
			side := ""
			if len(m.Tables) > 0 && out != "-" {
				side = tablesPath(out)
				done = step(fmt.Sprintf("writing %d tables to %s", len(m.Tables), side))
				tf, err := genPrepareNPZ(side, m.Tables, stdout)
				if err != nil {
					return err
				}
				defer tf.Abort()
				if err := tf.Commit(); err != nil {
					return err
				}
				done("")
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
	f.StringVar(&lookupsFile, "lookups", "", "JSON plain-lookup specification (tf.nn.embedding_lookup and friends on variables, no feature columns; see frontend/gen.LookupSpec)")
	f.IntVar(&columns, "columns", 0, "scale the spec to exactly N columns (proportionally across groups)")
	f.Uint64Var(&seed, "seed", 1, "random seed of table values, or of feeds")
	f.StringVar(&tables, "tables", "", "override every table's style: variable, resource or const")
	f.BoolVar(&noTables, "no-tables", false, "write the graph only, without the variables' side file")
	f.StringVar(&maxTable, "max-table-bytes", "", "largest total size of the side file's tables, e.g. 512MiB, 8GiB (default "+humanBytes(gen.DefaultTableLimit)+")")
	f.StringVar(&maxConst, "max-const-bytes", "", "largest total size of const tables stored in the graph (default "+humanBytes(gen.DefaultConstLimit)+")")
	f.StringVar(&tfExample, "tf-example", "", "serve the model from serialized tf.Example records: one string placeholder \""+gen.ExampleInput+"\" parsed by ParseExampleV2 (v2, a bare --tf-example) or TF1's ParseExample (v1), as an Estimator export's parsing serving input does; --feeds then draws the records")
	f.Lookup("tf-example").NoOptDefVal = "v2"
	f.BoolVar(&feeds, "feeds", false, "write random feeds for MODEL instead of a model")
	f.IntVar(&batch, "batch", 256, "batch size of the feeds (of a graph that recom gen did not make: its inputs' unknown first dimension, when set; else the batch its other inputs have, or 256)")
	f.StringSliceVar(&ff.inputs, "inputs", nil, "--feeds: cut the graph at these tensors (`node:idx,...`), fed as placeholders, as recom compile does")
	f.StringSliceVar(&ff.outputs, "outputs", nil, "--feeds: the tensors computed (`node:idx,...`); inputs the cut prunes get no feed")
	f.StringSliceVar(&ff.tags, "tags", nil, "--feeds: SavedModel: the MetaGraph's `tags` (default serve)")
	f.StringVar(&ff.signature, "signature", "", "--feeds: SavedModel: the SignatureDef to use (default serving_default if present)")
	f.StringVar(&ff.dynBatch, "dynamic-batch", "auto", "--feeds: the cut's placeholders with an unknown batch, as recom compile's --dynamic-batch (auto, true or false)")
	f.Lookup("dynamic-batch").NoOptDefVal = "true"
	f.StringVar(&ff.feedSpec, "feed-spec", "", "--feeds: a JSON `FILE` of per-input rows, shapes, bag lengths, value ranges, vocabularies (see frontend/gen.FeedSpec)")
	f.StringVarP(&out, "output", "o", "", "output file (- for stdout)")
	f.StringVar(&progress, "progress", "auto", "show each step (building the graph, writing each file) as it starts and ends, with its time, on stderr: auto (when stderr is a terminal), always (a bare --progress), never")
	f.Lookup("progress").NoOptDefVal = "always"
	return cmd
}

// servingOf returns the spec's serving input of a --tf-example value, or
// "" for a value it does not know.
func servingOf(flag string) string {
	switch flag {
	case "v2":
		return gen.ServingTFExample
	case "v1":
		return gen.ServingTFExampleV1
	}
	return ""
}

// progressOn reads a --progress flag: whether to show progress on stderr.
func progressOn(flag string, stderr io.Writer) (bool, error) {
	switch flag {
	case "always":
		return true, nil
	case "auto":
		return isTerminal(stderr), nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("--progress=%s: want auto, always or never", flag)
}

// genSteps returns the function that starts a step of recom gen: with
// show, it prints a line as the step starts and one, with its time, as the
// returned function ends it (a large model takes tens of seconds).
func genSteps(show bool, w io.Writer) func(what string) (done func(result string)) {
	return func(what string) func(string) {
		if !show {
			return func(string) {}
		}
		fmt.Fprintf(w, "recom gen: %s ...\n", what)
		start := time.Now()
		return func(result string) {
			if result != "" {
				result = ", " + result
			}
			fmt.Fprintf(w, "recom gen: %s: %.3f s%s\n", what, time.Since(start).Seconds(), result)
		}
	}
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

// feedsFlags are the flags of recom gen --feeds.
type feedsFlags struct {
	spec, feedSpec, signature, out string
	dynBatch                       string
	inputs, outputs, tags          []string
	batch                          int
	batchSet                       bool
	seed                           uint64
}

// graphFlags reports whether a flag that draws from the graph (a cut, a
// feed spec) was given.
func (f *feedsFlags) graphFlags() bool {
	return len(f.inputs) > 0 || len(f.outputs) > 0 || len(f.tags) > 0 || f.signature != "" || f.feedSpec != "" ||
		(f.dynBatch != "" && f.dynBatch != "auto")
}

// runFeeds draws the feeds of model: from the generated model's spec (--spec,
// or the one it records, when no cut or feed spec is asked for), else from
// what the graph does with each placeholder.
func runFeeds(ctx context.Context, model string, f *feedsFlags, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.spec != "" && f.graphFlags() {
		return errors.New("--spec draws a generated model's feeds from its spec; --inputs, --outputs, --tags, --signature, --dynamic-batch and --feed-spec draw from the graph: not both")
	}
	batchMode, err := graphdef.ParseBatchMode(f.dynBatch)
	if err != nil {
		return fmt.Errorf("--dynamic-batch=%v", err)
	}
	// A SavedModel directory is read by the compiler, which binds its
	// vocabulary files; the variables' values play no part in the feeds.
	res, err := compiler.Compile(ctx, model, compiler.Options{StopAfter: compiler.StageImport, NoWeights: true,
		Inputs: f.inputs, Outputs: f.outputs, Tags: f.tags, Signature: f.signature, DynamicBatch: batchMode})
	for _, d := range res.Diagnostics {
		fmt.Fprintln(stderr, d.Error())
	}
	if err != nil {
		return err
	}
	var assets map[string]string
	if res.Weights != nil {
		assets = res.Weights.Assets
	}
	var s *gen.Spec
	switch {
	case f.spec != "":
		if s, err = gen.LoadSpec(f.spec); err != nil {
			return err
		}
	case !f.graphFlags():
		if s, err = recordedSpec(res.Module); err != nil {
			return fmt.Errorf("%s: %w", model, err)
		}
	}
	if s != nil {
		return specFeeds(model, res.Module, s, f, stdout)
	}
	var spec gen.FeedSpec
	if f.feedSpec != "" {
		if spec, err = gen.LoadFeedSpec(f.feedSpec); err != nil {
			return err
		}
	}
	aliases := map[string]string{}
	for tensor, ph := range res.Placeholders {
		aliases[tensor] = ph
		if node, ok := strings.CutSuffix(tensor, ":0"); ok {
			aliases[node] = ph
		}
	}
	opts := gen.GraphFeedOptions{Seed: f.seed, Spec: spec, Aliases: aliases, Assets: assets}
	if f.batchSet {
		opts.Batch = f.batch
	}
	arrays, fed, err := gen.GraphFeeds(ctx, res.Module, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", model, err)
	}
	if len(arrays) == 0 {
		return fmt.Errorf("%s: the graph has no placeholder to feed (cut it at its inputs with --inputs and --outputs)", model)
	}
	if err := genWriteNPZ(f.out, arrays, stdout); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recom gen: %s: %d inputs of %s\n", f.out, len(fed), model)
	for _, in := range fed {
		fmt.Fprintf(&b, "  %s %s%s: %s\n", in.Name, in.DType, interp.ShapeString(in.Shape), in.How)
	}
	_, err = io.WriteString(stderr, b.String())
	return err
}

// recordedSpec returns the spec a generated model records (the string
// Const gen.SpecNode), or nil when it has none.
func recordedSpec(m *textir.Operation) (*gen.Spec, error) {
	var text string
	found := false
	m.Walk(func(op *textir.Operation) bool {
		if found || op.Name() != "tfg.Const" || tfg.NodeName(op) != gen.SpecNode {
			return !found
		}
		if a, ok := op.Attr("value").(*textir.DenseElementsAttr); ok {
			if t, err := tfg.TensorFromAttr(a); err == nil && t.DType() == interp.String && t.Len() == 1 {
				text, found = t.Strings()[0], true
			}
		}
		return false
	})
	if !found {
		return nil, nil
	}
	return gen.ParseSpec([]byte(text), gen.SpecNode)
}

// specFeeds draws a generated model's feeds from its spec.
func specFeeds(model string, m *textir.Operation, s *gen.Spec, f *feedsFlags, stdout io.Writer) error {
	arrays, err := gen.Feeds(s, f.batch, f.seed)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, a := range arrays {
		have[a.Name] = true
	}
	var missing error
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.Placeholder" && !have[tfg.NodeName(op)] && missing == nil {
			missing = fmt.Errorf("%s: placeholder %q has no feed in the spec (does the spec match the model?)", model, tfg.NodeName(op))
		}
		return true
	})
	if missing != nil {
		return missing
	}
	return genWriteNPZ(f.out, arrays, stdout)
}
