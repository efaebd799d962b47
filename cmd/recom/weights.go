package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
)

// A model's trained weights reach the tools through the compiler: a
// SavedModel directory brings its checkpoint (variables/variables.*) and
// assets, a GraphDef takes --checkpoint PREFIX; compiler.Compile binds the
// graph's variables to the checkpoint through its saver before the cut and
// reads those the compiled graph holds (compiler.Weights). The values go
// into exec.Options.Variables, the path every tool already takes for
// --tables: the interpreter reads them there, and the native runtime
// (runtime/session) uploads the tables into its arena and the MLP weights
// into the dense steps from the same options. --tables, when also given,
// replaces the checkpoint's value of each variable it names.

// modelFlags are the flags that say which graph of a model file to compile
// and where its weights are: a SavedModel's MetaGraph tags and signature,
// and a GraphDef's checkpoint.
type modelFlags struct {
	tags       []string
	signature  string
	checkpoint string
}

// add registers the flags.
func (m *modelFlags) add(fl *pflag.FlagSet) {
	fl.StringSliceVar(&m.tags, "tags", nil, "SavedModel: the MetaGraph's `tags` (default serve)")
	fl.StringVar(&m.signature, "signature", "", "SavedModel: the SignatureDef to cut the graph at (default serving_default, else the only one)")
	fl.StringVar(&m.checkpoint, "checkpoint", "", "a GraphDef's trained variables: the checkpoint `PREFIX` (model.ckpt-1000; its .index, or a directory with a checkpoint file, names it too); a SavedModel directory brings its own")
}

// apply sets the compiler options of the flags.
func (m *modelFlags) apply(o *compiler.Options) {
	o.Tags, o.Signature, o.Checkpoint = m.tags, m.signature, m.checkpoint
}

// useWeights gives opts the trained values of w (nil: none), under the
// values opts already has (from --tables). With weights the variables are
// never random: one the checkpoint and --tables both lack is an error.
func useWeights(opts *exec.Options, w *compiler.Weights) {
	if w == nil || w.Prefix == "" {
		return
	}
	for k, v := range w.Variables {
		if _, given := opts.Variables[k]; !given {
			opts.Variables[k] = v
		}
	}
	opts.RandomTables = false
}

// writeWeights writes the variables of opts (the checkpoint's and
// --tables') to an .npz in --tables' format, for the tools that run the
// compiled stages (.mlir files, which carry no checkpoint). A run whose
// variables are random has none to write: an error. (A cut graph without
// variables writes an empty file.)
func writeWeights(path string, opts *exec.Options) error {
	if opts.RandomTables {
		return errors.New("--write-tables: the run has no weights to write (no checkpoint, no --tables: its variables are random, drawn from --seed)")
	}
	var arrays []npz.Array
	for _, k := range slices.Sorted(maps.Keys(opts.Variables)) {
		arrays = append(arrays, npz.Array{Name: k, Tensor: opts.Variables[k]})
	}
	return writeNPZFile(path, arrays)
}

// weightsNote says where a run's variables came from, for its stderr.
func weightsNote(w *compiler.Weights, tables string) string {
	switch {
	case w != nil && w.Prefix != "" && tables != "":
		return fmt.Sprintf("weights: %s; --tables %s replaces those it names", w, tables)
	case w != nil && w.Prefix != "":
		return "weights: " + w.String()
	case tables != "":
		return "weights: --tables " + tables
	}
	return "weights: random (no checkpoint: give a SavedModel directory, or --checkpoint with a GraphDef)"
}
