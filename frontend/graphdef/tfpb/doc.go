// Package tfpb holds the Go types generated from frontend/graphdef/proto: our
// own declarations of TensorFlow's GraphDef, NodeDef, AttrValue, TensorProto,
// TensorShapeProto, DataType, FullTypeDef, VersionDef, FunctionDefLibrary
// (FunctionDef, OpDef, GradientDef), GraphDebugInfo, MetaGraphDef (MetaInfoDef,
// SaverDef, CollectionDef, SignatureDef, TensorInfo, AssetFileDef),
// SavedModel, ResourceHandleProto and VariantTensorDataProto, and of the
// checkpoint format (BundleHeaderProto, BundleEntryProto, TensorSliceProto,
// TrackableObjectGraph) that frontend/checkpoint reads, with
// TensorFlow's message names (package tensorflow) and field numbers, so that
// both the binary and the text format read files TensorFlow wrote.
//
// Everything that occurs in the real graphs under shared/testdata/graphdefs is
// modelled. Two parts are deliberately not: MetaGraphDef.object_graph_def
// (the TF2 SavedObjectGraph) and TensorInfo.CompositeTensor.type_spec. The
// binary decoder keeps them as unknown fields (proto.Unmarshal preserves
// unknown bytes and proto.Marshal writes them back), so binary round trips
// are lossless; the text format cannot carry them.
//
// Regenerate with frontend/graphdef/gen.sh; the generated files are committed.
package tfpb
