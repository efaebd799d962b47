package serve

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// GRPC returns a gRPC server with the Open Inference Protocol's service
// (package inference, GRPCInferenceService) registered: messages up to
// Limits.MaxBodyBytes, every call counted in the metrics, a panic in a
// call turned into an INTERNAL status.
func (s *Server) GRPC(opts ...grpc.ServerOption) *grpc.Server {
	opts = append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(int(min(s.lim.MaxBodyBytes, 1<<31-1))),
		grpc.MaxSendMsgSize(1<<31 - 1),
		grpc.ChainUnaryInterceptor(s.grpcInterceptor),
		grpc.StatsHandler(overheadStats{s}),
		// ModelInferRequest read without a message per input (grpcwire.go).
		grpc.ForceServerCodecV2(newInferCodec()),
	}, opts...)
	g := grpc.NewServer(opts...)
	// ModelInfer's handler is the server's own (grpcModelInfer): its
	// codec reads a plain raw request without a message per input.
	g.RegisterService(&grpcServiceDesc, &grpcService{s: s})
	return g
}

// grpcInterceptor counts and logs calls and recovers from panics.
func (s *Server) grpcInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	t0 := time.Now()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("a gRPC call panicked", "method", info.FullMethod, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp, err = nil, status.Errorf(codes.Internal, "internal error: %v", p)
		}
		code := status.Code(err)
		d := time.Since(t0)
		endpoint := info.FullMethod
		if i := len("/inference.GRPCInferenceService/"); len(endpoint) > i {
			endpoint = endpoint[i:]
		}
		s.met.request("oip-grpc", endpoint, code.String(), d)
		level := slog.LevelDebug
		if code == codes.Internal || code == codes.Unknown {
			level = slog.LevelWarn
		}
		s.log.Log(ctx, level, "request", "protocol", "oip-grpc", "endpoint", endpoint, "code", code.String(), "duration", d)
	}()
	return handler(ctx, req)
}

// grpcStatus turns an error into the call's status.
func grpcStatus(err error) error {
	if err == nil {
		return nil
	}
	e := asError(err)
	return status.Error(e.Code, e.Msg)
}

type grpcService struct {
	oippb.UnimplementedGRPCInferenceServiceServer
	s *Server
}

func (g *grpcService) ServerLive(context.Context, *oippb.ServerLiveRequest) (*oippb.ServerLiveResponse, error) {
	return &oippb.ServerLiveResponse{Live: true}, nil
}

func (g *grpcService) ServerReady(context.Context, *oippb.ServerReadyRequest) (*oippb.ServerReadyResponse, error) {
	return &oippb.ServerReadyResponse{Ready: g.s.Ready()}, nil
}

func (g *grpcService) ModelReady(_ context.Context, r *oippb.ModelReadyRequest) (*oippb.ModelReadyResponse, error) {
	if err := g.s.findV2(r.GetName(), r.GetVersion()); err != nil {
		return nil, grpcStatus(err)
	}
	return &oippb.ModelReadyResponse{Ready: g.s.Ready()}, nil
}

func (g *grpcService) ServerMetadata(context.Context, *oippb.ServerMetadataRequest) (*oippb.ServerMetadataResponse, error) {
	return &oippb.ServerMetadataResponse{Name: ServerName, Version: g.s.cfg.ServerVersion, Extensions: []string{"binary_tensor_data"}}, nil
}

func (g *grpcService) ModelMetadata(_ context.Context, r *oippb.ModelMetadataRequest) (*oippb.ModelMetadataResponse, error) {
	if err := g.s.findV2(r.GetName(), r.GetVersion()); err != nil {
		return nil, grpcStatus(err)
	}
	meta := func(ts []TensorSpec) []*oippb.ModelMetadataResponse_TensorMetadata {
		var out []*oippb.ModelMetadataResponse_TensorMetadata
		for _, t := range ts {
			out = append(out, &oippb.ModelMetadataResponse_TensorMetadata{Name: t.Key, Datatype: oipTypeName[t.DType], Shape: t.Shape})
		}
		return out
	}
	return &oippb.ModelMetadataResponse{
		Name: g.s.cfg.Name, Versions: []string{g.s.cfg.Version}, Platform: Platform,
		Inputs: meta(g.s.sig.Inputs), Outputs: meta(g.s.sig.Outputs),
	}, nil
}

// ModelInfer implements oippb.GRPCInferenceServiceServer: the server
// registers grpcModelInfer instead, which reads plain requests raw; this
// is its general path, for a message already read.
func (g *grpcService) ModelInfer(ctx context.Context, r *oippb.ModelInferRequest) (*oippb.ModelInferResponse, error) {
	return g.infer(ctx, &grpcInferRequest{msg: r})
}

// infer serves a ModelInfer request: r.raw, read by the codec, or
// r.msg, a message (read raw by grpcRawFeeds when it can be).
func (g *grpcService) infer(ctx context.Context, r *grpcInferRequest) (*oippb.ModelInferResponse, error) {
	s := g.s
	if r.refused {
		return nil, status.Errorf(codes.ResourceExhausted, "the server holds its most bytes of requests (--max-bytes-in-flight %d): try again", s.lim.MaxBytesInFlight)
	}
	s.accepted.Add(1)
	defer s.answered.Add(1)
	c, _ := ctx.Value(callKey{}).(*callStat)
	var tm callTimes // the stages' ends, for overheadStats
	if c != nil {
		tm.marks[stageRead] = time.Now() // the message in and unmarshaled
		if !r.readAt.IsZero() {
			tm.marks[stageRead] = r.readAt // in, its inputs not yet checked
		}
	}
	m := r.msg
	name, version := r.name, r.version
	if m != nil {
		name, version = m.GetModelName(), m.GetModelVersion()
	}
	if err := s.findV2(name, version); err != nil {
		return nil, grpcStatus(err)
	}
	var outs []*interp.Tensor
	var rt runTime
	var which []int
	var err error
	decoded := func() {
		if c != nil {
			tm.marks[stageDecode] = time.Now()
		}
	}
	if m == nil {
		if which, err = requestedOutputs(r.outputs, s.sig); err == nil {
			decoded()
			outs, rt, err = s.runRaw(ctx, "oip-grpc", r.raw)
		}
	} else if f, ok := s.grpcRawFeeds(m); ok {
		defer putRawFeeds(f)
		if which, err = s.grpcOutputs(m); err == nil {
			decoded()
			outs, rt, err = s.runRaw(ctx, "oip-grpc", f)
		}
	} else {
		var feeds []*interp.Tensor
		if feeds, err = s.grpcFeeds(m); err != nil {
			return nil, grpcStatus(err)
		}
		if which, err = s.grpcOutputs(m); err == nil {
			decoded()
			outs, rt, err = s.run(ctx, "oip-grpc", feeds)
		}
	}
	if err != nil {
		return nil, grpcStatus(err)
	}
	if c != nil {
		tm.marks[stageRun], tm.rt = time.Now(), rt
		c.times.Store(&tm)
	}
	if which == nil {
		which = allOutputs(len(outs))
	}
	id, raw := r.id, true // a raw request's id is the codec's copy
	if m != nil {
		id, raw = m.GetId(), len(m.GetRawInputContents()) > 0
	}
	resp := &oippb.ModelInferResponse{ModelName: s.cfg.Name, ModelVersion: s.cfg.Version, Id: id}
	for _, k := range which {
		t := outs[k]
		o := &oippb.ModelInferResponse_InferOutputTensor{Name: s.sig.Outputs[k].Key, Datatype: oipTypeName[t.DType()], Shape: t.Shape()}
		if raw {
			resp.RawOutputContents = append(resp.RawOutputContents, AppendRaw(nil, t))
		} else {
			o.Contents = contentsOf(t)
		}
		resp.Outputs = append(resp.Outputs, o)
	}
	return resp, nil
}

// grpcOutputs are the outputs a request asks for (nil: all).
func (s *Server) grpcOutputs(r *oippb.ModelInferRequest) ([]int, error) {
	var names []string
	for _, o := range r.GetOutputs() {
		names = append(names, o.GetName())
	}
	return requestedOutputs(names, s.sig)
}

// grpcRawFeeds reads a request whose every input of the signature comes
// in raw_input_contents, and nothing else, as its bytes lie in the
// message (rawFeeds: decodeInferRaw's checks, no tensor per input); false
// for anything else or anything wrong (grpcFeeds then reads it: its
// result or error is the reference).
func (s *Server) grpcRawFeeds(r *oippb.ModelInferRequest) (*rawFeeds, bool) {
	raw, ins := r.GetRawInputContents(), r.GetInputs()
	if s.noRaw || s.batcher.alone() || !littleEndian || len(ins) != len(s.sig.Inputs) || len(raw) != len(ins) {
		return nil, false
	}
	d := rawReader{sig: s.sig, f: getRawFeeds(len(ins)), rows: -1}
	for i, in := range ins {
		k, ok := s.sig.inputAt(in.GetName(), i)
		if !ok || in.GetContents() != nil || len(in.GetParameters()) > 0 || in.GetDatatype() != oipTypeNames[s.sig.Inputs[k].DType] {
			putRawFeeds(d.f)
			return nil, false
		}
		d.bin = raw[i]
		if !d.take(k, in.GetShape(), int64(len(raw[i]))) {
			putRawFeeds(d.f)
			return nil, false
		}
	}
	if d.n != len(s.sig.Inputs) || d.rows <= 0 || d.rows > int64(s.lim.MaxRequestRows) {
		putRawFeeds(d.f)
		return nil, false
	}
	d.f.rows = d.rows
	return d.f, true
}

// grpcFeeds converts a request's inputs (typed contents, or
// raw_input_contents) to tensors in signature order.
func (s *Server) grpcFeeds(r *oippb.ModelInferRequest) ([]*interp.Tensor, error) {
	raw := r.GetRawInputContents()
	if len(raw) > 0 && len(raw) != len(r.GetInputs()) {
		return nil, badRequest("raw_input_contents has %d entries for %d inputs", len(raw), len(r.GetInputs()))
	}
	feeds := make([]*interp.Tensor, len(s.sig.Inputs))
	for i, in := range r.GetInputs() {
		k, ok := s.sig.inputAt(in.GetName(), i)
		if !ok {
			return nil, badRequest("inputs[%d]: %q is not an input of the model (%s)", i, in.GetName(), inputList(s.sig))
		}
		if feeds[k] != nil {
			return nil, badRequest("inputs[%d]: input %q given twice", i, in.GetName())
		}
		spec := &s.sig.Inputs[k]
		if err := checkOIPType(spec, in.GetDatatype(), in.GetShape()); err != nil {
			return nil, prefixError(fmt.Sprintf("inputs[%d] (%q)", i, in.GetName()), err)
		}
		var t *interp.Tensor
		var err error
		if len(raw) > 0 {
			if in.GetContents() != nil {
				return nil, badRequest("inputs[%d] (%q) has contents while the request has raw_input_contents", i, in.GetName())
			}
			t, err = decodeRaw(spec.DType, in.GetShape(), raw[i])
		} else {
			t, err = fromContents(spec.DType, in.GetShape(), in.GetContents())
		}
		if err != nil {
			return nil, prefixError(fmt.Sprintf("inputs[%d] (%q)", i, in.GetName()), err)
		}
		feeds[k] = t
	}
	for k, t := range feeds {
		if t == nil {
			return nil, badRequest("input %q is missing", s.sig.Inputs[k].Key)
		}
	}
	return feeds, nil
}

// fromContents makes a tensor from the typed contents field of its dtype.
func fromContents(dt interp.DType, shape []int64, c *oippb.InferTensorContents) (*interp.Tensor, error) {
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, badRequest("shape %s: %v", shapeString(shape), err)
	}
	count := func(got int, field string) error {
		if int64(got) != n {
			return badRequest("contents.%s has %d elements, shape %s has %d", field, got, shapeString(shape), n)
		}
		return nil
	}
	switch dt {
	case interp.Float32:
		v := c.GetFp32Contents()
		if err := count(len(v), "fp32_contents"); err != nil {
			return nil, err
		}
		return interp.New(shape, append([]float32{}, v...))
	case interp.Float64:
		v := c.GetFp64Contents()
		if err := count(len(v), "fp64_contents"); err != nil {
			return nil, err
		}
		return interp.New(shape, append([]float64{}, v...))
	case interp.Int64:
		v := c.GetInt64Contents()
		if err := count(len(v), "int64_contents"); err != nil {
			return nil, err
		}
		return interp.New(shape, append([]int64{}, v...))
	case interp.Int8, interp.Int16, interp.Int32:
		v := c.GetIntContents()
		if err := count(len(v), "int_contents"); err != nil {
			return nil, err
		}
		lo, hi := int32(-1<<31), int32(1<<31-1)
		switch dt {
		case interp.Int8:
			lo, hi = -128, 127
		case interp.Int16:
			lo, hi = -32768, 32767
		}
		for i, x := range v {
			if x < lo || x > hi {
				return nil, badRequest("contents.int_contents[%d] = %d is out of the range of %s", i, x, oipTypeName[dt])
			}
		}
		switch dt {
		case interp.Int8:
			return interp.New(shape, convert[int32, int8](v))
		case interp.Int16:
			return interp.New(shape, convert[int32, int16](v))
		}
		return interp.New(shape, append([]int32{}, v...))
	case interp.Uint8:
		v := c.GetUintContents()
		if err := count(len(v), "uint_contents"); err != nil {
			return nil, err
		}
		for i, x := range v {
			if x > 255 {
				return nil, badRequest("contents.uint_contents[%d] = %d is out of the range of UINT8", i, x)
			}
		}
		return interp.New(shape, convert[uint32, uint8](v))
	case interp.Bool:
		v := c.GetBoolContents()
		if err := count(len(v), "bool_contents"); err != nil {
			return nil, err
		}
		return interp.New(shape, append([]bool{}, v...))
	case interp.String:
		v := c.GetBytesContents()
		if err := count(len(v), "bytes_contents"); err != nil {
			return nil, err
		}
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = string(x)
		}
		return interp.New(shape, s)
	}
	return nil, badRequest("datatype %s is not served", oipTypeName[dt])
}

func convert[From, To int32 | uint32 | int8 | int16 | uint8](v []From) []To {
	out := make([]To, len(v))
	for i, x := range v {
		out[i] = To(x)
	}
	return out
}

// contentsOf puts t's elements in the contents field of its dtype.
func contentsOf(t *interp.Tensor) *oippb.InferTensorContents {
	c := &oippb.InferTensorContents{}
	switch d := t.Data().(type) {
	case []float32:
		c.Fp32Contents = d
	case []float64:
		c.Fp64Contents = d
	case []int64:
		c.Int64Contents = d
	case []int32:
		c.IntContents = d
	case []int16:
		c.IntContents = convert[int16, int32](d)
	case []int8:
		c.IntContents = convert[int8, int32](d)
	case []uint8:
		c.UintContents = convert[uint8, uint32](d)
	case []bool:
		c.BoolContents = d
	case []string:
		c.BytesContents = make([][]byte, len(d))
		for i, s := range d {
			c.BytesContents[i] = []byte(s)
		}
	}
	return c
}
