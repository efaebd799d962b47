// Package gen generates synthetic recommendation models as TensorFlow
// GraphDefs, node for node what TensorFlow 2.x (the 2.6 line that RECom's
// artifact used) writes in graph mode for
// tf.compat.v1.feature_column.input_layer over embedding_column and
// shared_embedding_columns, with safe_embedding_lookup_sparse inside, and
// draws random feeds for them.
//
// A model is described by a Spec (JSON, read with unknown fields refused):
// groups of columns of one Kind (hashed string, hashed int via AsString,
// StringSplitV2-split strings, identity with or without a default,
// vocabulary list with OOV buckets, bucketized numeric, weighted
// categorical, shared embeddings), their table size, width, combiner and
// table style (VariableV2 + Identity, VarHandleOp + ResourceGather, or a
// frozen Const + Identity), the distributions of their feeds, and an
// optional DLRM dense part, or instead two towers (towers.go: a two-tower
// retrieval model, each tower an input_layer of its own groups under its
// scope and an MLP, the output the sigmoid of their dot product; or, with
// Tower.ColumnLayers and Tower.BatchNorm, as a TF1 Estimator DSSM writes
// them: an input_layer per column, the tower a ConcatV2 of them or an
// Identity, batch normalization between the dense layers). The
// bundled presets are spec files (examples/specs, embedded).
//
// Names follow TensorFlow's Python graph builder: name scopes, the
// "name_1" rule for repeats, constants named after the argument they feed
// ("Reshape/shape", "GatherV2/axis", "Cast/x", "stack/0"), columns sorted by
// name under "input_layer/<column>/", the lookup under
// "input_layer/<column>/<column>_weights/", and the table at
// "input_layer/<column>/embedding_weights". What an inference graph would
// have pruned is left out: variable initializers and Assign ops, savers,
// the `_output_shapes` attrs. Vocabulary tables are filled by
// LookupTableImportV2 ops gathered under the NoOp "init_all_tables".
//
// With Spec.Serving ("tf_example", "tf_example_v1") the features arrive
// as an Estimator export's serving signature receives them: serialized
// tf.Example records in one string Placeholder, parsed by ParseExampleV2
// (or TF1's ParseExample) with make_parse_example_spec's features
// (serving.go); Feeds then draws the records (feedserving.go).
//
// A LookupSpec (plain.go, recom gen --lookups) describes a model built
// without feature columns: tf.nn.embedding_lookup, embedding_lookup_sparse
// and safe_embedding_lookup_sparse on variables, resource variables or
// constants, whole or partitioned, as TensorFlow 1.15, 2.6 or 2.16's
// embedding_ops.py writes them (lookups.go, which safe_embedding_lookup_sparse
// of the feature columns shares).
//
// The spec that produced a graph is stored in it as the string Const
// "recom/spec" (connected to nothing), so Feeds can be drawn from a graph
// alone. GraphFeeds draws feeds for any graph instead, generated or not,
// from its tfg module: it follows each Placeholder's values to the ops
// that give them a meaning (inputs.go) and draws values those ops accept
// (graphfeeds.go; vocabularies from the graph's tables or files,
// feedtables.go), with a FeedSpec (JSON, feedspec.go) to set what the
// graph does not say; a string that a ParseExample reads is fed
// serialized tf.Example records (feedexamples.go, with interp/tfexample). Table values are drawn per table from the seed and the table's
// name (truncated normal, σ = 1/√D, as embedding_column's initializer).
package gen
