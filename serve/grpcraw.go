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
}

// release gives the request's buffer and feeds back to their pools, once
// no batch reads them (Server.runRaw has returned); it may be called more
// than once.
func (r *grpcInferRequest) release() {
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
// else into r.msg by the general path (whose error is the call's).
func (c inferCodec) unmarshalGRPC(data mem.BufferSlice, r *grpcInferRequest) error {
	if r.s != nil && r.s.readGRPCRaw(data, r) {
		return nil
	}
	r.msg = new(oippb.ModelInferRequest)
	return c.unmarshalInfer(data, r.msg)
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
	d := rawReader{sig: sig, f: getRawFeeds(len(sig.Inputs)), rows: -1}
	if !d.grpcRequest(b, r) || d.n != len(sig.Inputs) || d.rows <= 0 || d.rows > int64(maxRows) {
		putRawFeeds(d.f)
		r.name, r.version, r.id, r.outputs = "", "", "", nil
		clear(r.outArr[:])
		return false
	}
	d.f.rows = d.rows
	r.raw = d.f
	return true
}

// grpcRequest reads the message's fields in two passes: the first takes
// the scalar fields, the requested outputs and the raw contents (in
// d.f.wire: input i's bytes are the i-th raw_input_contents, wherever the
// inputs lie in the message), and counts the inputs; the second reads the
// inputs in order, each against its raw contents. Anything protobuf
// reads another way than this (a field of another wire type, an unknown
// field, parameters, contents) or would refuse is not plain.
func (d *rawReader) grpcRequest(b []byte, r *grpcInferRequest) bool {
	n := len(d.sig.Inputs)
	if cap(d.f.wire) < n {
		d.f.wire = make([][]byte, 0, n)
	}
	wire := d.f.wire[:0]
	r.outputs = r.outArr[:0]
	ins, first := 0, -1
	for p := b; len(p) > 0; {
		num, typ, tl := protowire.ConsumeTag(p)
		if tl < 0 || typ != protowire.BytesType {
			return false
		}
		v, vl := protowire.ConsumeBytes(p[tl:])
		if vl < 0 {
			return false
		}
		switch num {
		case 1, 2, 3:
			// Strings: the last one given counts, each must be UTF-8.
			if !utf8.Valid(v) {
				return false
			}
			switch num {
			case 1:
				r.name = bytesString(v)
			case 2:
				r.version = bytesString(v)
			default:
				r.id = bytesString(v)
			}
		case 5:
			if ins == n {
				return false // more inputs than the signature's
			}
			if ins == 0 {
				first = len(b) - len(p)
			}
			ins++
		case 6:
			// More names than outputs repeat one: rare, and read by the
			// general path, which bounds the names kept here.
			name, ok := wireOutputName(v)
			if !ok || len(r.outputs) >= len(d.sig.Outputs) {
				return false
			}
			r.outputs = append(r.outputs, name)
		case 7:
			if len(wire) == n {
				return false
			}
			wire = append(wire, v[:len(v):len(v)])
		default:
			return false // parameters, or a field not read here
		}
		p = p[tl+vl:]
	}
	d.f.wire = wire
	if ins != n || len(wire) != n {
		return false
	}
	i := 0
	for p := b[first:]; i < n; {
		// The first pass checked every tag and length.
		num, _, tl := protowire.ConsumeTag(p)
		v, vl := protowire.ConsumeBytes(p[tl:])
		p = p[tl+vl:]
		if num != 5 {
			continue
		}
		d.bin = wire[i]
		if !d.grpcInput(i, v) {
			return false
		}
		i++
	}
	return true
}

// grpcInput reads inputs[i], an InferInputTensor of name, datatype and
// shape (packed or not, its pieces appended in order as protobuf does),
// checks it against its spec and takes d.bin, its raw contents, whole.
func (d *rawReader) grpcInput(i int, b []byte) bool {
	at := len(d.f.dims)
	var name, dt []byte
	for len(b) > 0 {
		num, typ, tl := protowire.ConsumeTag(b)
		if tl < 0 {
			return false
		}
		b = b[tl:]
		switch {
		case (num == 1 || num == 2) && typ == protowire.BytesType:
			v, vl := protowire.ConsumeBytes(b)
			if vl < 0 || !utf8.Valid(v) {
				return false
			}
			b = b[vl:]
			if num == 1 {
				name = v
			} else {
				dt = v
			}
		case num == 3 && typ == protowire.BytesType: // packed
			v, vl := protowire.ConsumeBytes(b)
			if vl < 0 {
				return false
			}
			b = b[vl:]
			for len(v) > 0 {
				x, xl := protowire.ConsumeVarint(v)
				if xl < 0 || len(d.f.dims)-at == interp.MaxRank {
					return false // a rank over the most any input has
				}
				v = v[xl:]
				d.f.dims = append(d.f.dims, int64(x))
			}
		case num == 3 && typ == protowire.VarintType:
			x, xl := protowire.ConsumeVarint(b)
			if xl < 0 || len(d.f.dims)-at == interp.MaxRank {
				return false
			}
			b = b[xl:]
			d.f.dims = append(d.f.dims, int64(x))
		default:
			return false // parameters, contents, or a field not read here
		}
	}
	k, ok := d.sig.inputAt(bytesString(name), i)
	if !ok || bytesString(dt) != oipTypeNames[d.sig.Inputs[k].DType] {
		return false
	}
	end := len(d.f.dims)
	return d.take(k, d.f.dims[at:end:end], int64(len(d.bin)))
}

// wireOutputName is a requested output's name (its message holds nothing
// else when plain).
func wireOutputName(b []byte) (string, bool) {
	name := ""
	for len(b) > 0 {
		num, typ, tl := protowire.ConsumeTag(b)
		if tl < 0 || num != 1 || typ != protowire.BytesType {
			return "", false
		}
		v, vl := protowire.ConsumeBytes(b[tl:])
		if vl < 0 || !utf8.Valid(v) {
			return "", false
		}
		b = b[tl+vl:]
		name = bytesString(v)
	}
	return name, true
}
