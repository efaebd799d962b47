// Package oippb holds the Go types and the gRPC service generated from
// oip.proto: our declaration of the Open Inference Protocol's gRPC API
// (KServe's V2 protocol; package inference, service GRPCInferenceService,
// the protocol's field numbers), which recom serve implements (package
// serve).
//
// Regenerate with gen.sh; the generated files are committed.
package oippb

//go:generate sh gen.sh
