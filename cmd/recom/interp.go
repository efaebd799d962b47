package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

func init() { subcommands = append(subcommands, newInterpCmd, newCompareCmd) }

const interpHelp = `Runs MODEL on the CPU reference interpreter and writes the outputs to an
.npz file.

MODEL is a GraphDef (.pb, .pbtxt, saved_model.pb), imported into the tfg
dialect, or a textual IR file (.mlir). With --inputs, a GraphDef is first cut
to the inference subgraph computing --outputs from the --inputs (as
recom-translate does); the contents of the vocabulary tables whose
initializers the cut removes are taken from the whole graph, and feeds may
name the cut tensors ("IteratorGetNext:3") or their placeholders
("IteratorGetNext/out3").

Tensor names are "node" (output 0) or "node:idx". Array names in .npz files
may use "node__idx" instead of "node:idx" (both are accepted on reading;
np.savez(**{"a:1": x}) works too). The feeds' array names are tensor names;
the output file's array names are the --outputs as given.

--outputs may be left out only when the program has exactly one sink: one
op that has data results, none of them used by any op (NoOp, Assign and
table initializers are not counted; control results are not data). Its
first data result is then the output.

Variables come from --tables (an .npz whose arrays are named by variable
node; hash tables as "<table node>:keys" and "<table node>:values"; a
variable missing from it is an error), or, without --tables, are
deterministic random values from --seed.`

type interpFlags struct {
	feeds, tables, out string
	outputs, inputs    []string
	seed               uint64
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
	return cmd
}

func runInterp(ctx context.Context, model string, f *interpFlags, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" {
		return errors.New("interp: -o is required")
	}
	tctx := all.NewContext()
	opts := &exec.Options{RandomTables: true, Seed: f.seed, Tables: map[string]exec.TableData{}, Variables: map[string]*interp.Tensor{}}
	var root *textir.Operation
	var rename map[string]string // fed tensor -> the placeholder that replaces it
	if strings.HasSuffix(model, ".mlir") {
		if len(f.inputs) > 0 {
			return errors.New("interp: --inputs applies to GraphDefs only")
		}
		src, err := os.ReadFile(model)
		if err != nil {
			return err
		}
		if root, err = textir.Parse(tctx, model, src); err != nil {
			return err
		}
	} else {
		gf, err := graphdef.Load(model)
		if err != nil {
			return err
		}
		g := gf.Graph
		if len(f.inputs) > 0 {
			if len(f.outputs) == 0 {
				return errors.New("interp: --inputs needs --outputs")
			}
			full, err := importer.Import(tctx, g)
			if err != nil {
				return err
			}
			tables, err := tfg.TableInitData(ctx, full, nil)
			if err != nil {
				return fmt.Errorf("reading the graph's tables: %w", err)
			}
			for k, v := range tables {
				opts.Tables[k] = v
			}
			if rename, err = placeholderNames(g, f.inputs); err != nil {
				return err
			}
			if g, err = graphdef.Extract(g, f.inputs, f.outputs); err != nil {
				return err
			}
		}
		if root, err = importer.Import(tctx, g); err != nil {
			return err
		}
	}
	if f.tables != "" {
		if err := readTables(f.tables, opts); err != nil {
			return err
		}
		// Given tables must be complete: a variable missing from them is
		// an error, never silently random.
		opts.RandomTables = false
	}
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
	if len(outputs) == 0 {
		sink, err := soleSink(root)
		if err != nil {
			return err
		}
		outputs = []string{sink}
	}
	got, err := exec.Run(ctx, root, feeds, outputs, opts)
	if err != nil {
		return err
	}
	var arrays []npz.Array
	for _, o := range outputs {
		if t, ok := got[o]; ok {
			arrays = append(arrays, npz.Array{Name: o, Tensor: t})
		}
	}
	return npz.WriteFile(f.out, arrays)
}

// placeholderNames maps each input tensor ("node:idx") to the name of the
// Placeholder graphdef.Extract puts in its place.
func placeholderNames(g *tfpb.GraphDef, inputs []string) (map[string]string, error) {
	byName := map[string]*tfpb.NodeDef{}
	for _, n := range g.GetNode() {
		byName[n.GetName()] = n
	}
	m := map[string]string{}
	for _, in := range inputs {
		r, err := graphdef.ParseInput(in)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in, err)
		}
		n, ok := byName[r.Node]
		if !ok {
			return nil, fmt.Errorf("input %q: no node %q", in, r.Node)
		}
		k, err := graphdef.NumOutputs(n)
		if err != nil {
			k = 1
		}
		m[fmt.Sprintf("%s:%d", r.Node, r.Index)] = graphdef.PlaceholderName(r.Node, r.Index, k)
	}
	return m, nil
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
		if data > 0 && !used {
			sinks = append(sinks, exec.OpName(op))
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
