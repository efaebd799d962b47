// Package graphdef reads, writes, checks and prunes TensorFlow graphs: the
// GraphDef layer of recom's frontend, before any IR is built.
//
//   - Load and Parse read a binary or text GraphDef, or a binary or text
//     SavedModel (saved_model.pb), telling the format from the content; for a
//     SavedModel they pick a MetaGraph by tags and a SignatureDef by name.
//   - Write writes a GraphDef as binary or deterministic text, atomically.
//   - Validate checks names, inputs, output indices, arities and cycles.
//   - Signature, OutputTypes, InputTypes, NumOutputs and NumInputs answer
//     questions about ops from the built-in TensorFlow op signatures, those
//     of the op table (dialects/tfg/optab) as protobuf types; Ops adds the
//     functions of a graph's library.
//   - Extract cuts a graph at feed tensors (which become Placeholders; a
//     node stands for all its outputs, see ExpandInputs) and prunes it to
//     what the requested outputs need, refusing graphs that still need
//     iterators, unresolved control flow or training ops; the placeholders
//     of a queue's or an iterator's batches get an unknown batch dimension
//     (BatchMode).
//   - AnalyzeTraining finds what a training graph holds (gradients,
//     optimizers, savers, iterators, queues, summaries), its losses, and
//     the candidate inputs and outputs of its inference graph.
//
// The protobuf types live in the tfpb subpackage, generated from our own
// .proto declarations in proto/ by gen.sh.
package graphdef
