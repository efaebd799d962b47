// Package checkpoint reads TensorFlow checkpoints and SavedModel directories,
// so that a model's variables (embedding tables, MLP weights) and assets
// (vocabulary files) come from the files TensorFlow wrote instead of from
// random values or a hand-made .npz.
//
//   - Open and Read read a tensor bundle, TensorFlow's V2 checkpoint format:
//     PREFIX.index, a LevelDB-style table (table.go) whose values are
//     BundleHeaderProto (key "") and one BundleEntryProto per tensor, and
//     the data shards PREFIX.data-NNNNN-of-MMMMM holding the raw
//     little-endian tensor bytes (bundle.go). Every CRC-32C is checked,
//     partitioned tensors are reassembled from their slices, and every size
//     the files declare is checked against a limit (limits.go,
//     docs/LIMITS.md) before memory is taken; a corrupt or truncated file
//     is an error naming the file and what is wrong.
//   - Restore maps a graph's variables to checkpoint keys the way the
//     graph's own saver does (its RestoreV2 nodes, in the graph or in the
//     restore function of a TF2 export), falling back to the variable's
//     name and to the checkpoint's object graph (graph.go).
//   - OpenSavedModel reads a SavedModel directory: the graph file, the
//     variables of variables/variables.* by variable node name, and the
//     asset files by the graph tensor that names them (savedmodel.go).
//
// Values are *interp.Tensor, keyed as interp/exec.Options.Variables expects.
package checkpoint
