// Package session runs a compiled program natively, batch after batch:
// the model after --fuse and --fuse-dense is planned once (New), and each
// batch then goes from feeds in host memory to outputs in host memory
// (Run) without the interpreter: a few host steps, one copy to the
// device, the program's kernels, one copy back, all of the GPU part as
// one CUDA graph.
//
// # The plan
//
// New walks the ops the requested outputs need (data edges; control
// dependencies are not run) and gives each a place:
//
//   - constants (variables, tables, tfg.Const and whatever is computed
//     from them alone) are evaluated once, by the interpreter
//     (exec.Program.Evaluate), from Options.Interp's values;
//   - each fused.embedding_layer gets its tables arena (abi.Layer's
//     layout: every table and the id transforms' parameter blocks),
//     uploaded once, its kernel, and a Packer, which packs the layer's
//     inputs (abi's packed layout) from the feeds into pinned memory: the
//     ops between the placeholders and the layer (emb.from_dense,
//     emb.filter, casts, ...) are the packer's business, not steps of the
//     plan;
//   - each fused.dense gets a DenseStep from the DenseBackend, which
//     uploads its weight and bias once (see "Dense layers");
//   - a parse of serialized tf.Example records (ParseExample,
//     ParseExampleV2) is the packers' (they parse the records
//     themselves); only its results something else reads (the MLP's
//     dense features) are computed by a host step, which parses just
//     those (hostpack.ExampleParser; example.go);
//   - a reshape of a device value (Identity, Reshape, ExpandDims,
//     Squeeze to [?, static dims]; a Cast from float32 to float32, an
//     AddN of one value) is an alias of its memory;
//   - an op that reads only device values and constants, is one of
//     DeviceOps and row-local in the forms devstep.go lists (a
//     classifier head: elementwise math with broadcasts of a column, a
//     constant row or a scalar, BiasAdd, AddN, Sum/Mean/Max/Min/Prod and
//     (Log)Softmax over the last axis, ZerosLike/OnesLike, ConcatV2 on the
//     last axis) is a device step: a launch or a few of
//     runtime/densekern's head kernels in the batch's graph, its result
//     a device value (B rows, float32) copied back only when the host
//     reads it, computed as interp/tfops computes it;
//   - every other op must be one of HostOps (casts, reshapes,
//     elementwise math, BiasAdd, MatMul, ConcatV2: interp/tfops'
//     semantics with the attributes decoded once), and runs on the host:
//     before the graph when it reads only feeds and constants (its result
//     may then be uploaded, as a dense layer's input), after it when it
//     reads device results (which are then copied back; an op that could
//     be a device step but for its shapes, such as a Sum over the batch,
//     is one), but never between two GPU steps.
//
// Anything else (an op outside HostOps and DeviceOps, a host step between
// GPU steps, a layer input that is not computed from the feeds) makes New
// fail with an error naming the op and its TensorFlow node: the caller
// then runs the program in the interpreter.
//
// # A batch
//
// A batch runs in a slot (Options.Slots of them): the feeds the session
// reads itself (host steps, uploads, outputs) are looked up and checked
// against their placeholders' types (read once, by New), the host steps
// before the graph run, each layer's packer looks up, checks and packs
// its own feeds into the slot's pinned input buffer (after the values
// uploaded for the dense layers, in the first layer's region), and the
// batch's graph is launched on the slot's stream. A slot's batch state
// (host values, regions, the graph's key) is reused from batch to batch. The graph, captured once per batch size
// and per size class of the packed inputs (rounded up to a sixteenth of
// their power of two, which is what the graph copies), holds one
// host-to-device copy per layer (one for the usual single layer), the
// layers' kernels, the dense steps (the generated kernels with their
// split-K reductions, or cuBLASLt's products and the moves of their
// inputs) and the device steps among them in dependence order, and one
// device-to-host copy of every device result the host reads, laid out in
// one output arena. Run then waits for the batch's event, makes
// the outputs from the pinned output buffer and runs the host steps
// after the graph.
//
// RunAsync returns once the graph is launched, so that the host packs
// the next batch while the GPU works; a Pipeline keeps a given number of
// batches in flight: slots given in submission order, packers that take
// the next batch as soon as they have launched one (packing batch i+1
// while the GPU runs batch i), one finisher that waits for the GPU in
// order, and the outputs returned in order. Device buffers, pinned buffers and graphs belong to a
// slot, so batches in different slots never share memory; a slot keeps
// the buffers and graphs of its last Options.BatchSizes batch sizes.
//
// # Dense layers
//
// Options.Dense chooses the backend: cuBLASLt (NewCublasLtDense: one
// product per layer, or per input of a layer over a concatenation, with
// the bias and ReLU in its epilogue, sigmoid and tanh by a kernel after
// it; plans made per batch size outside the captures), the default when
// the library loads, in Options.Precision fp32, tf32 or bf16; or the
// program's own kernels (GeneratedDense, float32 with float64
// accumulation). A step says how it wants its
// operands stored (LaidOutStep, Layout): New then gives every device
// value a format, F32 or BF16 (BF16 when every reader reads it so and it
// stays on the device; a device step reads F32), places a value in the columns of its reader's
// concatenated input when its producer can write there, and otherwise
// moves inputs into the layout their reader wants with the kernels of
// runtime/densekern (float32 to bfloat16, strided copies), in the graph
// just before the step. An upload read only in BF16 is rounded on the
// host. Steps that load their kernels lazily (cuBLASLt) run once outside
// the capture before the first graph of each batch size. A device
// step's result that only a device step's concatenation reads is written
// by its step straight into the concatenation's columns. ProfileDense
// times the dense part alone (the device steps included).
//
// # Plug-ins
//
// Packer (made per layer by Options.Packer) and DenseBackend
// (Options.DenseBackend, or the one Options.Dense names) are where the
// other runtimes plug in: NativePacker (runtime/hostpack) is the default
// packer, InterpPacker the fallback for a layer it cannot plan.
//
// # Cost
//
// Summary lists the plan's steps, where each runs (host, fallback, the
// GPU graph; the device steps by op and node, with their kernels) and
// their measured cost: host steps by wall time, the graph
// by device events (two per batch; Options.NoTiming drops them). Bench
// measures end-to-end latency and throughput.
package session
