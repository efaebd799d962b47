package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

func init() { subcommands = append(subcommands, newInterpCmd, newCompareCmd) }

const interpHelp = `Runs MODEL on the CPU reference interpreter and writes the outputs to an
.npz file.

MODEL is a GraphDef (.pb, .pbtxt, saved_model.pb) or a SavedModel
directory, imported into the tfg dialect by the compiler's import stage (as
recom compile does), or a textual IR file (.mlir) of any stage. With --inputs, a GraphDef is first cut
to the inference subgraph computing --outputs from the --inputs (as
recom-translate and recom compile do; a SavedModel is cut at its serving
signature without them); the contents of the vocabulary tables whose
initializers the cut removes are taken from the whole graph, and feeds may
name the cut tensors ("IteratorGetNext:3") or their placeholders
("IteratorGetNext/out3").

Tensor names are "node" (output 0) or "node:idx". Array names in .npz files
may use "node__idx" instead of "node:idx" (both are accepted on reading;
np.savez(**{"a:1": x}) works too). The feeds' array names are tensor names;
the output file's array names are the --outputs as given.

--outputs may be left out for a SavedModel cut at its signature (its
outputs are the signature's), or when the program has exactly one sink: one
op that has data results, none of them used by any op (NoOp, Assign, table
initializers and the spec recom gen records, "recom/spec", are not counted;
control results are not data). Its first data result is then the output.

Variables are the model's trained weights when it has them: a SavedModel
directory's checkpoint (variables/), or --checkpoint PREFIX with a GraphDef
(read through the graph's saver; every variable the cut graph holds must
be in it), and the vocabulary files of its assets/. --tables (an .npz whose
arrays are named by variable node; hash tables as "<table node>:keys" and
"<table node>:values") gives variables too, replacing the checkpoint's
values of those it names; without either, variables are deterministic
random values from --seed, and with --tables alone a variable missing from
it is an error. --write-tables FILE writes the variables the run used (the
checkpoint's and --tables') in --tables' format, for runs of the compiled
stages' .mlir files, which carry no checkpoint.`

type interpFlags struct {
	feeds, tables, out string
	writeTables        string
	outputs, inputs    []string
	seed               uint64
	model              modelFlags
}

func newInterpCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f interpFlags
	cmd := &cobra.Command{
		Use:   "interp MODEL --feeds feeds.npz -o out.npz",
		Short: "run a model or IR program on the CPU reference interpreter",
		Long:  interpHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInterp(cmd.Context(), args[0], &f, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.feeds, "feeds", "", "feeds, an .npz of arrays named by tensor")
	fl.StringSliceVar(&f.outputs, "outputs", nil, "output tensors, comma separated (node or node:idx)")
	fl.StringSliceVar(&f.inputs, "inputs", nil, "cut a GraphDef at these tensors (fed as placeholders)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the random values of variables absent from --tables")
	fl.StringVar(&f.tables, "tables", "", "variable values and hash-table contents, an .npz")
	fl.StringVarP(&f.out, "output", "o", "", "output .npz file (written atomically)")
	fl.StringVar(&f.writeTables, "write-tables", "", "also write the variables the run used (the checkpoint's, --tables') to `FILE`, an .npz in --tables' format")
	f.model.add(fl)
	return cmd
}

func runInterp(ctx context.Context, model string, f *interpFlags, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" {
		return errors.New("interp: -o is required")
	}
	// The output is staged first: a bad -o fails before the run.
	out, err := outfile.Create(f.out, nil)
	if err != nil {
		return err
	}
	defer out.Abort()
	opts := &exec.Options{RandomTables: true, Seed: f.seed, Tables: map[string]exec.TableData{}, Variables: map[string]*interp.Tensor{}}
	copts := compiler.Options{StopAfter: compiler.StageImport, ReadWeights: true}
	f.model.apply(&copts)
	if len(f.inputs) > 0 {
		if strings.HasSuffix(model, ".mlir") {
			return errors.New("interp: --inputs applies to GraphDefs only")
		}
		if len(f.outputs) == 0 {
			return errors.New("interp: --inputs needs --outputs")
		}
		copts.Inputs, copts.Outputs = f.inputs, f.outputs
	}
	res, err := compiler.Compile(ctx, model, copts)
	if err != nil {
		return err
	}
	root := res.Module
	rename := res.Placeholders // fed tensor -> the placeholder that replaces it
	if err := cutTables(ctx, model, f.model.tags, res, opts); err != nil {
		return err
	}
	if f.tables != "" {
		if err := readTables(f.tables, opts); err != nil {
			return err
		}
		// Given tables must be complete: a variable missing from them is
		// an error, never silently random.
		opts.RandomTables = false
	}
	useWeights(opts, res.Weights)
	feeds := map[string]*interp.Tensor{}
	if f.feeds != "" {
		arrays, err := npz.ReadFile(f.feeds)
		if err != nil {
			return err
		}
		for _, a := range arrays {
			name := tensorName(a.Name)
			if r, ok := rename[name]; ok {
				name = r
			} else if r, ok := rename[name+":0"]; ok {
				name = r
			}
			feeds[name] = a.Tensor
		}
	}
	outputs := f.outputs
	if len(outputs) == 0 && len(res.Outputs) > 0 {
		// A SavedModel cut at its signature: the signature's outputs.
		outputs = res.Outputs
	}
	if len(outputs) == 0 {
		sink, err := soleSink(root)
		if err != nil {
			return err
		}
		outputs = []string{sink}
	}
	got, err := exec.Run(ctx, root, feeds, outputs, opts)
	if err != nil {
		return nameInputFiles(err, f.feeds, f.tables)
	}
	if f.writeTables != "" {
		if err := writeWeights(f.writeTables, opts); err != nil {
			return err
		}
	}
	var arrays []npz.Array
	for _, o := range outputs {
		if t, ok := got[o]; ok {
			arrays = append(arrays, npz.Array{Name: o, Tensor: t})
		}
	}
	return commitNPZ(out, arrays)
}

// commitNPZ writes arrays into the staged output f and commits it.
func commitNPZ(f *outfile.File, arrays []npz.Array) error {
	if err := npz.WriteNPZ(f, arrays); err != nil {
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	return f.Commit()
}

// missingVariable finds the variable of the interpreter's error for a
// variable without a value.
var missingVariable = regexp.MustCompile(`no value for variable "((?:[^"\\]|\\.)*)"`)

// nameInputFiles names the input file an interpreter error is about: a
// feed's error comes from the --feeds file, a variable without a value is
// one the --tables file lacks.
func nameInputFiles(err error, feeds, tables string) error {
	var d *textir.Diagnostic
	isDiag := errors.As(err, &d)
	switch {
	case feeds != "" && strings.HasPrefix(err.Error(), "feed "):
		if isDiag {
			d.AttachNote(nil, "the feed is an array of --feeds %s", feeds)
			return err
		}
		return fmt.Errorf("--feeds %s: %w", feeds, err)
	case feeds != "" && tfg.NotFed(err):
		if node, ok := textir.LocName(d.Loc); ok {
			d.AttachNote(nil, "--feeds %s has no array named %s", feeds, strconv.Quote(node))
		}
	case tables != "" && isDiag:
		if m := missingVariable.FindStringSubmatch(d.Message); m != nil {
			d.AttachNote(nil, "--tables %s has no array named %s", tables, strconv.Quote(m[1]))
		}
	}
	return err
}

// tensorName turns an .npz array name "node__idx" into "node:idx".
func tensorName(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	if i := strings.LastIndex(s, "__"); i > 0 {
		if k := s[i+2:]; k != "" && strings.Trim(k, "0123456789") == "" {
			return s[:i] + ":" + k
		}
	}
	return s
}

// readTables reads variables ("node") and hash tables ("node:keys",
// "node:values") from an .npz.
func readTables(path string, opts *exec.Options) error {
	arrays, err := npz.ReadFile(path)
	if err != nil {
		return err
	}
	keys := map[string]*interp.Tensor{}
	values := map[string]*interp.Tensor{}
	for _, a := range arrays {
		switch {
		case strings.HasSuffix(a.Name, ":keys"):
			keys[strings.TrimSuffix(a.Name, ":keys")] = a.Tensor
		case strings.HasSuffix(a.Name, ":values"):
			values[strings.TrimSuffix(a.Name, ":values")] = a.Tensor
		default:
			opts.Variables[a.Name] = a.Tensor
		}
	}
	for k, kt := range keys {
		vt, ok := values[k]
		if !ok {
			return fmt.Errorf("%s: table %q has keys but no values", path, k)
		}
		opts.Tables[k] = exec.TableData{Keys: kt, Values: vt}
	}
	for k := range values {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("%s: table %q has values but no keys", path, k)
		}
	}
	return nil
}

// soleSink finds the single op with an unused data result (see interpHelp).
func soleSink(root *textir.Operation) (string, error) {
	var sinks []string
	root.Walk(func(op *textir.Operation) bool {
		if _, ok := exec.Lookup(op.Name()); !ok {
			return true // a container
		}
		switch op.Name() {
		case "tfg.NoOp", "tfg.Assign", "tfg.AssignVariableOp", "tfg.InitializeTableV2", "tfg.LookupTableImportV2":
			return false
		}
		data, used := 0, false
		for i := range op.NumResults() {
			r := op.Result(i)
			if exec.IsUnitType(r.Type()) {
				continue
			}
			data++
			used = used || r.HasUses()
		}
		if name := exec.OpName(op); data > 0 && !used && !(op.Name() == "tfg.Const" && name == gen.SpecNode) {
			// recom gen's record of the spec (a string Const used by
			// nothing) is not an output.
			sinks = append(sinks, name)
		}
		return false
	})
	sort.Strings(sinks)
	switch {
	case len(sinks) == 1 && sinks[0] != "":
		return sinks[0], nil
	case len(sinks) == 0:
		return "", errors.New("interp: the program has no sink; give --outputs")
	}
	if len(sinks) > 5 {
		sinks = append(sinks[:5], "...")
	}
	return "", fmt.Errorf("interp: the program has several sinks (%s); give --outputs", strings.Join(sinks, ", "))
}

// cutTables adds to opts the contents of the hash tables of model when res
// is a cut of it (--inputs/--outputs): the cut leaves out the tables'
// initializers, so their contents come from the whole graph.
func cutTables(ctx context.Context, model string, tags []string, res *compiler.Result, opts *exec.Options) error {
	if len(res.Outputs) == 0 {
		return nil
	}
	whole, err := compiler.Compile(ctx, model, compiler.Options{StopAfter: compiler.StageImport, WholeGraph: true, NoWeights: true, Tags: tags})
	if err != nil {
		return err
	}
	tables, err := tfg.TableInitData(ctx, whole.Module, nil)
	if err != nil {
		return fmt.Errorf("reading the graph's tables: %w", err)
	}
	for k, v := range tables {
		opts.Tables[k] = v
	}
	return nil
}
