package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/frontend/checkpoint"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// Weights are a model's trained values: the variables of its checkpoint (a
// SavedModel's variables/variables.*, or the checkpoint given with a
// GraphDef) and a SavedModel's assets. They are read from the graph file's
// whole graph, before the cut prunes its saver: the saver's RestoreV2
// nodes say which checkpoint key (and which slice, for a partition) each
// variable has. Only the variables the compiled graph holds are read.
type Weights struct {
	// Dir is the SavedModel directory ("" for a GraphDef).
	Dir string
	// Prefix is the checkpoint prefix (DIR/variables/variables, or the
	// resolved Options.Checkpoint); "" for a SavedModel without variables.
	Prefix string
	// Variables are the values by variable node name, as
	// exec.Options.Variables takes them; empty unless
	// Options.ReadWeights (the index was only checked).
	Variables map[string]*interp.Tensor
	// Bindings say where each variable came from.
	Bindings []checkpoint.Binding
	// Bytes is the size of the stored tensors the variables take.
	Bytes int64
	// Assets maps a SavedModel's asset tensors ("node:0") to their files;
	// the compiled graph's asset constants hold these absolute paths.
	Assets map[string]string
}

// Index is the checkpoint's index file, or "" without one.
func (w *Weights) Index() string {
	if w == nil || w.Prefix == "" {
		return ""
	}
	return checkpoint.IndexPath(w.Prefix)
}

// String says in a line what the weights are: "12 variables (1.3 MB) from
// DIR/variables/variables, 2 asset files".
func (w *Weights) String() string {
	if w == nil {
		return "none"
	}
	var parts []string
	if w.Prefix != "" {
		verb := "checked against the index of"
		if len(w.Variables) > 0 {
			verb = "read from"
		}
		parts = append(parts, fmt.Sprintf("%s (%s) %s %s", count(len(w.Bindings), "variable"), megabytes(w.Bytes), verb, w.Prefix))
	} else {
		parts = append(parts, "no variables")
	}
	if len(w.Assets) > 0 {
		parts = append(parts, fmt.Sprintf("%s in %s", count(len(w.Assets), "asset file"), filepath.Join(w.Dir, "assets")))
	}
	return strings.Join(parts, ", ")
}

func megabytes(n int64) string {
	switch {
	case n < 1e4:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// count is "1 file" or "n files".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// modelPath resolves what Compile was given as a model: a SavedModel
// directory stands for its graph file, whose variables and assets come
// with it (dir is then the directory).
func modelPath(path string) (graph, dir string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if !st.IsDir() {
		return path, "", nil
	}
	graph, err = checkpoint.GraphFile(path)
	if err != nil {
		return "", "", err
	}
	return graph, path, nil
}

// bindAssets points the asset constants of file's graph at the files of
// the SavedModel directory, as TensorFlow's loader does, so that the
// vocabulary files the graph's table initializers name are found (by the
// interpreter, by --lower-emb): before the cut, which keeps the
// initializers of the tables it keeps and shares their constants.
func (d *driver) bindAssets(file *graphdef.File) error {
	if d.savedModelDir == "" {
		return nil
	}
	if file.MetaGraph == nil {
		return fmt.Errorf("%s: the SavedModel directory's graph file holds a GraphDef, not a SavedModel", d.path)
	}
	assets, err := checkpoint.Assets(d.savedModelDir, file.MetaGraph)
	if err != nil {
		return err
	}
	d.res.Weights = &Weights{Dir: d.savedModelDir, Assets: assets}
	return checkpoint.BindAssets(file.Graph, assets)
}

// restoreWeights reads (or with ReadWeights unset, checks) the variables
// of the compiled graph g from the checkpoint, binding them through the
// savers of file's whole graph. A variable of g that the checkpoint has no
// value for is an error.
func (d *driver) restoreWeights(name string, file *graphdef.File, g *tfpb.GraphDef) error {
	o := d.opts
	if o.NoWeights {
		return nil
	}
	var prefix, restoreOp string
	switch {
	case d.savedModelDir != "":
		p := filepath.Join(d.savedModelDir, "variables", "variables")
		switch _, err := os.Stat(checkpoint.IndexPath(p)); {
		case err == nil:
			prefix = p
		case errors.Is(err, fs.ErrNotExist):
			// TensorFlow writes no variables directory for a model
			// without variables.
		default:
			return err
		}
		restoreOp = file.MetaGraph.GetSaverDef().GetRestoreOpName()
		if o.Checkpoint != "" {
			return fmt.Errorf("%s: a SavedModel directory brings its checkpoint (variables/); --checkpoint is for a GraphDef", name)
		}
	case o.Checkpoint != "":
		p, err := checkpoint.ResolvePrefix(o.Checkpoint)
		if err != nil {
			return err
		}
		prefix = p
		d.res.Weights = &Weights{}
		if file.MetaGraph != nil {
			restoreOp = file.MetaGraph.GetSaverDef().GetRestoreOpName()
		}
	default:
		if file.SavedModel != nil {
			d.res.Notes = append(d.res.Notes, fmt.Sprintf("%s was read alone: the variables and assets beside it are not (give the SavedModel directory to compile and run with its trained weights)", name))
		}
		return nil
	}
	w := d.res.Weights
	w.Prefix = prefix
	inGraph := map[string]bool{}
	var vars []string
	for _, n := range g.GetNode() {
		switch n.GetOp() {
		case "VariableV2", "Variable", "VarHandleOp":
			inGraph[n.GetName()] = true
			vars = append(vars, n.GetName())
		}
	}
	if prefix == "" {
		if len(vars) > 0 {
			return fmt.Errorf("%s: the graph has %s (%s) but the SavedModel directory has no variables/variables.index", name, count(len(vars), "variable"), listNames(vars))
		}
		return nil
	}
	r, err := checkpoint.Restore(file.Graph, prefix, restoreOp, &checkpoint.Options{
		Only:      func(v string) bool { return inGraph[v] },
		IndexOnly: !o.ReadWeights,
	})
	if err != nil {
		return err
	}
	if len(r.Missing) > 0 {
		sort.Strings(r.Missing)
		return fmt.Errorf("%s: the checkpoint %s has no value for %s of the graph: %s (neither its saver's RestoreV2 nor the variable's name nor the checkpoint's object graph names a tensor for them)",
			name, checkpoint.IndexPath(prefix), count(len(r.Missing), "variable"), listNames(r.Missing))
	}
	w.Variables, w.Bindings, w.Bytes = r.Variables, r.Bindings, r.Bytes
	return nil
}

// listNames quotes the first names of a list, and says how many more.
func listNames(names []string) string {
	const show = 8
	q := make([]string, 0, show)
	for i, n := range names {
		if i == show {
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, ", ")
	if len(names) > show {
		s += fmt.Sprintf(" and %d more", len(names)-show)
	}
	return s
}
