package gen

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// TestMarshalGraph checks the fast encoder against the protobuf library's
// deterministic marshaling, on every preset (scaled down) in every table
// style (const tables for the small preset only), and on nodes it hands to the library (an experimental type).
func TestMarshalGraph(t *testing.T) {
	for _, name := range Presets() {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.NumColumns() > 60 {
			if s, err = s.Scale(60); err != nil {
				t.Fatal(err)
			}
		}
		for _, style := range []TableStyle{"", Variable, Resource, Const} {
			if style == Const && name != "small" {
				continue // big tables in the graph: slow, and nothing new
			}
			m, err := Generate(s, Options{Seed: 3, Tables: style, NoTableValues: true, ConstLimit: 1 << 40})
			if err != nil {
				t.Fatalf("%s/%s: %v", name, style, err)
			}
			if name == "small" && style == Const {
				m.Graph.Node[0].ExperimentalType = &tfpb.FullTypeDef{TypeId: tfpb.FullTypeId_TFT_TENSOR}
				m.Graph.Library = &tfpb.FunctionDefLibrary{}
			}
			want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalGraph(m.Graph)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s: MarshalGraph differs from proto.Marshal (%d vs %d bytes)", name, style, len(got), len(want))
			}
		}
	}
}
