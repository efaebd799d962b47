package serve

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// A ModelInfer request written plainly, as clients write it (every input
// of the signature once, its bytes in raw_input_contents, no typed
// contents, no parameters), is read from its wire bytes straight into
// rawFeeds, as the HTTP binary path reads its body: the message's bytes
// are copied once into a pooled body buffer (getBody), each input's
// name, datatype and shape are checked against the signature as they are
// read (rawReader.take) and its raw contents kept as a view of the
// buffer. No message is made per input (readInferRequest's 1001 for a
// request of model E, that grpcRawFeeds then walked again), and nothing
// of the request's size is allocated: the buffer and the rawFeeds go
// back to their pools once the call is answered.
//
// The generated handler of ModelInfer unmarshals into a new
// *oippb.ModelInferRequest; the server registers its own (grpcServiceDesc),
// which unmarshals into a *grpcInferRequest that the codec recognises. A
// request that is not plain, or anything wrong with it, is read as before
// (readInferRequest or protobuf, then grpcRawFeeds or grpcFeeds): that
// path's result or error is the reference, and FuzzDecodeGRPCRaw checks
// that a request read here reads the same there.

// grpcInferRequest is a ModelInfer request as the server's codec reads
// it: either raw (a plain request's feeds, views of buf) or msg (any
// other, read by the general path).
type grpcInferRequest struct {
	s   *Server                  // the server whose signature reads it (set before the codec runs)
	msg *oippb.ModelInferRequest // the general path's message; nil when raw
	raw *rawFeeds
	buf *[]byte // the pooled buffer raw's views point into
	// name, version and outputs are views of buf: they are read during
	// the call only. id is a copy: the response, marshaled after the
	// handler returns (and buf is back in its pool), carries it.
	name, version, id string
	outputs           []string
	outArr            [2]string // outputs' array, for the usual one or two names
	// readAt is when the message was in the buffer, before its inputs
	// were checked: the end of the call's read stage (overheadStats).
	readAt time.Time
	// held: the message's bytes taken from the server's bytes-in-flight
	// budget (Limits.MaxBytesInFlight), given back by release; refused:
	// they were not free, the message is not read and the call is refused.
	held    int64
	refused bool
}

// release gives the request's buffer and feeds back to their pools, once
// no batch reads them (Server.runRaw has returned); it may be called more
// than once.
func (r *grpcInferRequest) release() {
	if r.held > 0 {
		r.s.budget.release(r.held)
		r.held = 0
	}
	putRawFeeds(r.raw)
	putBody(r.buf)
	r.raw, r.buf = nil, nil
	r.name, r.version, r.outputs = "", "", nil
	clear(r.outArr[:])
}

// grpcServiceDesc is oippb.GRPCInferenceService_ServiceDesc with
// grpcModelInfer as ModelInfer's handler (the generated file is left as
// protoc made it).
var grpcServiceDesc = func() grpc.ServiceDesc {
	d := oippb.GRPCInferenceService_ServiceDesc
	d.Methods = append([]grpc.MethodDesc(nil), d.Methods...)
	found := false
	for i := range d.Methods {
		if d.Methods[i].MethodName == "ModelInfer" {
			d.Methods[i].Handler = grpcModelInfer
			found = true
		}
	}
	if !found {
		panic("serve: the generated GRPCInferenceService has no ModelInfer method")
	}
	return d
}()

// grpcModelInfer is ModelInfer's method handler: the generated one but
// for the request's type (the codec reads a *grpcInferRequest), and its
// buffer released once the call is done, the interceptors' work included.
func grpcModelInfer(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	g := srv.(*grpcService)
	r := &grpcInferRequest{s: g.s}
	if err := dec(r); err != nil {
		return nil, err // the codec released what it took
	}
	defer r.release()
	if interceptor == nil {
		return g.infer(ctx, r)
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: oippb.GRPCInferenceService_ModelInfer_FullMethodName}
	return interceptor(ctx, r, info, func(ctx context.Context, req any) (any, error) {
		return g.infer(ctx, req.(*grpcInferRequest))
	})
}

// unmarshalGRPC reads a ModelInfer message into r: raw when it is plain,
// else into r.msg by the general path (whose error is the call's). The
// message counts against the server's bytes in flight, as an HTTP body
// does, from here to the call's end; a call that finds them taken is
// not read (r.refused) and refused at once with RESOURCE_EXHAUSTED by the
// handler (gRPC has already read the message: waiting would hold it
// outside the budget; and an error here would reach the client as
// INTERNAL), which clients retry.
func (c inferCodec) unmarshalGRPC(data mem.BufferSlice, r *grpcInferRequest) error {
	if r.s != nil {
		n := int64(data.Len())
		if !r.s.budget.tryAcquire(n) {
			r.refused = true
			return nil
		}
		r.held = n
		if r.s.readGRPCRaw(data, r) {
			return nil
		}
	}
	r.msg = new(oippb.ModelInferRequest)
	if err := c.unmarshalInfer(data, r.msg); err != nil {
		r.release()
		return err
	}
	return nil
}

// readGRPCRaw copies data into a pooled buffer and reads it as a plain
// raw request (decodeGRPCRaw); false, with nothing kept, when it is not
// one or the server reads no request raw.
func (s *Server) readGRPCRaw(data mem.BufferSlice, r *grpcInferRequest) bool {
	if s.noRaw || s.batcher.alone() || !littleEndian || len(s.sig.Inputs) == 0 {
		return false
	}
	// data is the whole message, at most the server's MaxRecvMsgSize
	// (gRPC checked it before the codec was called).
	n := data.Len()
	buf, pooled := getBody(n, -1)
	buf = buf[:n]
	data.CopyTo(buf)
	r.readAt = time.Now()
	if !decodeGRPCRaw(buf, s.sig, s.lim.MaxRequestRows, r) {
		putBody(pooled)
		r.readAt = time.Time{}
		return false
	}
	r.buf = pooled
	r.id = strings.Clone(r.id)
	return true
}

// decodeGRPCRaw reads b, a ModelInferRequest's wire bytes, as a plain raw
// request of at most maxRows rows into r (raw, name, version, id and
// outputs: views of b); false, with r.raw nil, for anything else.
func decodeGRPCRaw(b []byte, sig *Signature, maxRows int, r *grpcInferRequest) bool {
	if len(sig.Inputs) == 0 {
		return false
	}
	// BYTES inputs are checked once all are taken, four at a time, and
	// kept as strings for the join (checkRawStrings, as the HTTP path).
	d := rawReader{sig: sig, f: getRawFeeds(len(sig.Inputs)), rows: -1, lazy: true}
	if !d.grpcRequest(b, r) || d.n != len(sig.Inputs) || d.rows <= 0 || d.rows > int64(maxRows) || !checkRawStrings(d.f, sig) {
		putRawFeeds(d.f)
		r.name, r.version, r.id, r.outputs = "", "", "", nil
		clear(r.outArr[:])
		return false
	}
	d.f.rows = d.rows
	r.raw = d.f
	return true
}

// Tags of the fields read here (field number << 3 | wire type): the
// message's model_name, model_version, id, inputs, outputs and
// raw_input_contents; an input's name, datatype and shape (packed, or a
// varint per dimension); an output's name.
const (
	tagModelName   = 1<<3 | 2
	tagVersion     = 2<<3 | 2
	tagID          = 3<<3 | 2
	tagInput       = 5<<3 | 2
	tagOutput      = 6<<3 | 2
	tagRaw         = 7<<3 | 2
	tagName        = 1<<3 | 2
	tagDatatype    = 2<<3 | 2
	tagShapePacked = 3<<3 | 2
	tagShapeDim    = 3 << 3 // a varint: wire type 0
)

// wireVarint is protowire.ConsumeVarint with a value under 128 (a tag of
// the fields above, a name's length, a dimension of fewer than 128 rows)
// read inline: a request of E has some 10,000 of them.
func wireVarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return protowire.ConsumeVarint(b)
}

// wireBytes is protowire.ConsumeBytes, its length read by wireVarint.
func wireBytes(b []byte) ([]byte, int) {
	l, n := wireVarint(b)
	if n < 0 || l > uint64(len(b)-n) {
		return nil, -1
	}
	return b[n : n+int(l)], n + int(l)
}

// grpcRequest reads the message's fields: the scalar fields, the
// requested outputs, the inputs (in d.f.wireIn) and the raw contents (in
// d.f.wire: input i's bytes are the i-th raw_input_contents, wherever
// the inputs lie in the message); then each input, in order, against its
// raw contents. A tag is compared whole (number and wire type): anything
// protobuf reads another way than this (a field of another wire type, an
// unknown field, parameters, contents) or would refuse is not plain.
func (d *rawReader) grpcRequest(b []byte, r *grpcInferRequest) bool {
	n := len(d.sig.Inputs)
	if cap(d.f.wire) < n {
		d.f.wire = make([][]byte, 0, n)
	}
	if cap(d.f.wireIn) < n {
		d.f.wireIn = make([][]byte, 0, n)
	}
	wire, ins := d.f.wire[:0], d.f.wireIn[:0]
	r.outputs = r.outArr[:0]
	for len(b) > 0 {
		tag, tl := wireVarint(b)
		if tl < 0 {
			return false
		}
		v, vl := wireBytes(b[tl:])
		if vl < 0 {
			return false
		}
		b = b[tl+vl:]
		switch tag {
		case tagInput:
			if len(ins) == n {
				return false // more inputs than the signature's
			}
			ins = append(ins, v)
		case tagRaw:
			if len(wire) == n {
				return false
			}
			wire = append(wire, v[:len(v):len(v)])
		case tagModelName, tagVersion, tagID:
			// Strings: the last one given counts, each must be UTF-8.
			if !utf8.Valid(v) {
				return false
			}
			switch tag {
			case tagModelName:
				r.name = bytesString(v)
			case tagVersion:
				r.version = bytesString(v)
			default:
				r.id = bytesString(v)
			}
		case tagOutput:
			// More names than outputs repeat one: rare, and read by the
			// general path, which bounds the names kept here.
			name, ok := wireOutputName(v)
			if !ok || len(r.outputs) >= len(d.sig.Outputs) {
				return false
			}
			r.outputs = append(r.outputs, name)
		default:
			return false // parameters, or a field not read here
		}
	}
	d.f.wire, d.f.wireIn = wire, ins
	if len(ins) != n || len(wire) != n {
		return false
	}
	for i, in := range ins {
		d.bin = wire[i]
		if !d.grpcInput(i, in) {
			return false
		}
	}
	return true
}

// grpcInput reads inputs[i], an InferInputTensor of name, datatype and
// shape, checks it against its spec and takes d.bin, its raw contents,
// whole.
func (d *rawReader) grpcInput(i int, b []byte) bool {
	at := len(d.f.dims)
	name, dt, ok := d.plainInput(b)
	if !ok {
		d.f.dims = d.f.dims[:at]
		if name, dt, ok = d.wireInput(b, at); !ok {
			return false
		}
	}
	// The datatype, when it is the spec's, is ASCII: valid UTF-8.
	k, ok := d.sig.inputAt(bytesString(name), i)
	if !ok || bytesString(dt) != oipTypeNames[d.sig.Inputs[k].DType] {
		return false
	}
	end := len(d.f.dims)
	return d.take(k, d.f.dims[at:end:end], int64(len(d.bin)))
}

// plainInput reads an input written as protobuf writes it: its name, its
// datatype, its shape packed, each once and in this order, the lengths
// (so the rank too) and the dimensions under 128 (one byte each); ok false for anything
// else (wireInput then reads it). Its datatype is not checked for UTF-8
// (grpcInput compares it with an ASCII name).
func (d *rawReader) plainInput(b []byte) (name, dt []byte, ok bool) {
	if len(b) < 2 || b[0] != tagName || b[1] >= 0x80 || len(b) < 2+int(b[1])+2 {
		return nil, nil, false
	}
	name, b = b[2:2+int(b[1])], b[2+int(b[1]):]
	if b[0] != tagDatatype || b[1] >= 0x80 || len(b) < 2+int(b[1])+2 {
		return nil, nil, false
	}
	dt, b = b[2:2+int(b[1])], b[2+int(b[1]):]
	if b[0] != tagShapePacked || b[1] >= 0x80 || int(b[1]) != len(b)-2 {
		return nil, nil, false
	}
	for _, x := range b[2:] {
		if x >= 0x80 {
			return nil, nil, false
		}
		d.f.dims = append(d.f.dims, int64(x))
	}
	for _, c := range name {
		if c >= 0x80 {
			return name, dt, utf8.Valid(name)
		}
	}
	return name, dt, true
}

// wireInput reads an input in any form of name, datatype and shape
// (packed or not, its pieces appended in order as protobuf does; the last
// name and datatype given count, each must be UTF-8), its dimensions
// appended to d.f.dims (from at).
func (d *rawReader) wireInput(b []byte, at int) (name, dt []byte, ok bool) {
	for len(b) > 0 {
		tag, tl := wireVarint(b)
		if tl < 0 {
			return nil, nil, false
		}
		b = b[tl:]
		switch tag {
		case tagName, tagDatatype:
			v, vl := wireBytes(b)
			if vl < 0 || !utf8.Valid(v) {
				return nil, nil, false
			}
			b = b[vl:]
			if tag == tagName {
				name = v
			} else {
				dt = v
			}
		case tagShapePacked:
			v, vl := wireBytes(b)
			if vl < 0 {
				return nil, nil, false
			}
			b = b[vl:]
			for len(v) > 0 {
				x, xl := wireVarint(v)
				if xl < 0 || len(d.f.dims)-at == interp.MaxRank {
					return nil, nil, false // a rank over the most any input has
				}
				v = v[xl:]
				d.f.dims = append(d.f.dims, int64(x))
			}
		case tagShapeDim:
			x, xl := wireVarint(b)
			if xl < 0 || len(d.f.dims)-at == interp.MaxRank {
				return nil, nil, false
			}
			b = b[xl:]
			d.f.dims = append(d.f.dims, int64(x))
		default:
			return nil, nil, false // parameters, contents, or a field not read here
		}
	}
	return name, dt, true
}

// wireOutputName is a requested output's name (its message holds nothing
// else when plain).
func wireOutputName(b []byte) (string, bool) {
	name := ""
	for len(b) > 0 {
		tag, tl := wireVarint(b)
		if tl < 0 || tag != tagName {
			return "", false
		}
		v, vl := wireBytes(b[tl:])
		if vl < 0 || !utf8.Valid(v) {
			return "", false
		}
		b = b[tl+vl:]
		name = bytesString(v)
	}
	return name, true
}
