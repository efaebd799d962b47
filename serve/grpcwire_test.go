package serve

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/serve/oippb"
)

// sameInferRequest checks readInferRequest against protobuf on b: when it
// reads b, protobuf reads it too, to an equal message; and the codec
// gives protobuf's message (or error) either way.
func sameInferRequest(t *testing.T, b []byte) (fast bool) {
	t.Helper()
	var want oippb.ModelInferRequest
	werr := proto.Unmarshal(b, &want)
	var got oippb.ModelInferRequest
	if readInferRequest(b, &got) {
		if werr != nil {
			t.Fatalf("%x: read, protobuf says %v", b, werr)
		}
		if !proto.Equal(&got, &want) {
			t.Fatalf("%x: read %v, protobuf %v", b, &got, &want)
		}
		fast = true
	}
	var viaCodec oippb.ModelInferRequest
	cerr := newInferCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &viaCodec)
	if (cerr == nil) != (werr == nil) || (cerr == nil && !proto.Equal(&viaCodec, &want)) {
		t.Fatalf("%x: the codec gives %v (%v), protobuf %v (%v)", b, &viaCodec, cerr, &want, werr)
	}
	return fast
}

func inferRequestSeeds() [][]byte {
	v := "2"
	reqs := []*oippb.ModelInferRequest{
		{ModelName: "E", Id: "req-1", Inputs: []*oippb.ModelInferRequest_InferInputTensor{
			{Name: "a", Datatype: "FP32", Shape: []int64{2, 1}}, {Name: "b", Datatype: "BYTES", Shape: []int64{2}}},
			Outputs:          []*oippb.ModelInferRequest_InferRequestedOutputTensor{{Name: "prediction"}},
			RawInputContents: [][]byte{{0, 0, 128, 63, 0, 0, 0, 64}, {1, 0, 0, 0, 'x', 0, 0, 0, 0}}},
		{ModelName: "E", ModelVersion: &v, Inputs: []*oippb.ModelInferRequest_InferInputTensor{{Name: "s", Datatype: "INT64"}}},
		{ModelName: "E", Inputs: []*oippb.ModelInferRequest_InferInputTensor{{Name: "a", Datatype: "FP32", Shape: []int64{1},
			Contents: &oippb.InferTensorContents{Fp32Contents: []float32{1}}}}},
		{ModelName: "E", Parameters: map[string]*oippb.InferParameter{"p": {}}},
		{},
	}
	var seeds [][]byte
	for _, r := range reqs {
		b, err := proto.Marshal(r)
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, b)
	}
	// An unpacked shape, a name given twice, a string that is not UTF-8,
	// an unknown field, a truncated message.
	in := protowire.AppendTag(nil, 1, protowire.BytesType)
	in = protowire.AppendString(in, "a")
	in = protowire.AppendTag(in, 1, protowire.BytesType)
	in = protowire.AppendString(in, "b")
	for _, d := range []uint64{3, 1} {
		in = protowire.AppendTag(in, 3, protowire.VarintType)
		in = protowire.AppendVarint(in, d)
	}
	msg := protowire.AppendTag(nil, 5, protowire.BytesType)
	seeds = append(seeds, protowire.AppendBytes(msg, in))
	bad := protowire.AppendTag(nil, 3, protowire.BytesType)
	seeds = append(seeds, protowire.AppendBytes(bad, []byte{0xff, 0xfe}))
	unknown := protowire.AppendTag(nil, 99, protowire.VarintType)
	seeds = append(seeds, protowire.AppendVarint(unknown, 1))
	seeds = append(seeds, seeds[0][:len(seeds[0])-3])
	return seeds
}

func TestReadInferRequest(t *testing.T) {
	fast := 0
	for _, b := range inferRequestSeeds() {
		if sameInferRequest(t, b) {
			fast++
		}
	}
	// Read here: the first two, the empty one, the unpacked shape; by
	// protobuf: contents, parameters, bad UTF-8, an unknown field, a cut.
	if fast != 4 {
		t.Errorf("%d of the seeds read without protobuf, want 4", fast)
	}
}

// FuzzReadInferRequest: readInferRequest agrees with protobuf on any bytes.
func FuzzReadInferRequest(f *testing.F) {
	for _, b := range inferRequestSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameInferRequest(t, b) })
}
