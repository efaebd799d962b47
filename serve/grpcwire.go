package serve

import (
	"unicode/utf8"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/serve/oippb"
)

// The gRPC server reads ModelInferRequest itself: protobuf's reader makes
// a message, a name, a datatype, a shape and a copy of the raw contents
// per input (7,140 allocations for a request of E's 1001 inputs). Here
// the request's bytes are copied once, the inputs' messages are one
// array, their names, datatypes and raw contents views of the bytes, and
// their shapes one array: a handful of allocations per request. It reads
// the fields clients send for inference (model name and version, id,
// inputs with name, datatype and shape, requested outputs by name, raw
// contents); a request with anything else (parameters, typed contents,
// unknown fields) or anything protobuf would refuse (bad wire data,
// strings that are not UTF-8) is read by protobuf, whose result is the
// reference the fuzz test compares with.

// inferCodec is protobuf's gRPC codec but for ModelInferRequest.
type inferCodec struct{ encoding.CodecV2 }

func newInferCodec() inferCodec { return inferCodec{encoding.GetCodecV2(grpcproto.Name)} }

// Unmarshal implements encoding.CodecV2. The server's ModelInfer handler
// asks for a *grpcInferRequest (grpcraw.go); a *oippb.ModelInferRequest
// is read as that handler's general path reads it.
func (c inferCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *grpcInferRequest:
		return c.unmarshalGRPC(data, m)
	case *oippb.ModelInferRequest:
		return c.unmarshalInfer(data, m)
	}
	return c.CodecV2.Unmarshal(data, v)
}

// unmarshalInfer reads a ModelInferRequest into m: by readInferRequest,
// else by protobuf.
func (c inferCodec) unmarshalInfer(data mem.BufferSlice, m *oippb.ModelInferRequest) error {
	b := data.Materialize() // the request's own copy: its views outlive data
	if readInferRequest(b, m) {
		return nil
	}
	proto.Reset(m)
	return proto.Unmarshal(b, m)
}

// readInferRequest reads b into m (a new message) and reports whether it
// did; when not, m holds part of b.
func readInferRequest(b []byte, m *oippb.ModelInferRequest) bool {
	// First the counts of inputs and raw contents (the arrays' sizes).
	nIn, nRaw := 0, 0
	for rest := b; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return false
		}
		rest = rest[n:]
		switch {
		case num == 5 && typ == protowire.BytesType:
			nIn++
		case num == 7 && typ == protowire.BytesType:
			nRaw++
		}
		if n = protowire.ConsumeFieldValue(num, typ, rest); n < 0 {
			return false
		}
		rest = rest[n:]
	}
	ins := make([]oippb.ModelInferRequest_InferInputTensor, nIn)
	if nIn > 0 {
		m.Inputs = make([]*oippb.ModelInferRequest_InferInputTensor, 0, nIn)
	}
	if nRaw > 0 {
		m.RawInputContents = make([][]byte, 0, nRaw)
	}
	shapes := make([]int64, 0, 2*nIn+4)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:] // the count pass read every tag and value
		if typ != protowire.BytesType {
			return false
		}
		v, n := protowire.ConsumeBytes(b)
		b = b[n:]
		switch num {
		case 1, 2, 3:
			s, ok := wireString(v)
			if !ok {
				return false
			}
			switch num {
			case 1:
				m.ModelName = s
			case 2:
				m.ModelVersion = &s
			default:
				m.Id = s
			}
		case 5:
			in := &ins[len(m.Inputs)]
			if !readInferInput(v, in, &shapes) {
				return false
			}
			m.Inputs = append(m.Inputs, in)
		case 6:
			o := &oippb.ModelInferRequest_InferRequestedOutputTensor{}
			for len(v) > 0 {
				num, typ, n := protowire.ConsumeTag(v)
				if n < 0 || num != 1 || typ != protowire.BytesType {
					return false
				}
				v = v[n:]
				s, n := protowire.ConsumeBytes(v)
				if n < 0 {
					return false
				}
				v = v[n:]
				name, ok := wireString(s)
				if !ok {
					return false
				}
				o.Name = name
			}
			m.Outputs = append(m.Outputs, o)
		case 7:
			m.RawInputContents = append(m.RawInputContents, v[:len(v):len(v)])
		default:
			return false // parameters, or a field this reader does not know
		}
	}
	return true
}

// readInferInput reads an InferInputTensor of name, datatype and shape
// (packed or not) into in; its shape goes into *shapes.
func readInferInput(b []byte, in *oippb.ModelInferRequest_InferInputTensor, shapes *[]int64) bool {
	base := len(*shapes)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case (num == 1 || num == 2) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			b = b[n:]
			s, ok := wireString(v)
			if !ok {
				return false
			}
			if num == 1 {
				in.Name = s
			} else {
				in.Datatype = s
			}
		case num == 3 && typ == protowire.BytesType: // packed
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			b = b[n:]
			for len(v) > 0 {
				d, n := protowire.ConsumeVarint(v)
				if n < 0 {
					return false
				}
				v = v[n:]
				*shapes = append(*shapes, int64(d))
			}
		case num == 3 && typ == protowire.VarintType:
			d, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			b = b[n:]
			*shapes = append(*shapes, int64(d))
		default:
			return false // parameters, contents, or an unknown field
		}
	}
	if end := len(*shapes); end > base {
		in.Shape = (*shapes)[base:end:end]
	}
	return true
}

// wireString is a string field's bytes as a string (a view: the request's
// bytes are never written), if they are UTF-8 as protobuf requires.
func wireString(v []byte) (string, bool) {
	if !utf8.Valid(v) {
		return "", false
	}
	return bytesString(v), true
}
