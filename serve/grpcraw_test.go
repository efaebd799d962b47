package serve

import (
	"bytes"
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// rawSmall is a server of a small signature (FP32 [-1,2], BYTES [-1],
// INT64 [-1,1], BOOL [-1]; an output "prediction") and a backend that
// costs nothing, for the fuzz test: made once.
var rawSmall = sync.OnceValues(func() (*Server, error) {
	sig := Signature{Inputs: []TensorSpec{
		{Key: "a", DType: interp.Float32, Shape: []int64{-1, 2}},
		{Key: "b", DType: interp.String, Shape: []int64{-1}},
		{Key: "c", DType: interp.Int64, Shape: []int64{-1, 1}},
		{Key: "d", DType: interp.Bool, Shape: []int64{-1}},
	}, Outputs: []TensorSpec{{Key: "prediction", Name: "prediction", DType: interp.Float32, Shape: []int64{-1, 1}}}}
	for i := range sig.Inputs {
		sig.Inputs[i].Name = sig.Inputs[i].Key
	}
	srv, err := New(Config{Name: "E", Signature: sig, Backend: zeros{"a"}, Limits: Limits{MaxRequestRows: 200}})
	if err != nil {
		return nil, err
	}
	srv.SetReady(true)
	return srv, nil
})

func rawSmallServer(t testing.TB) *Server {
	t.Helper()
	srv, err := rawSmall()
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// rawSmallRequest is a plain raw request of rows rows for rawSmall.
func rawSmallRequest(rows int) *oippb.ModelInferRequest {
	r := &oippb.ModelInferRequest{ModelName: "E", Id: "req-1"}
	n := int64(rows)
	add := func(name, dt string, shape []int64, raw []byte) {
		r.Inputs = append(r.Inputs, &oippb.ModelInferRequest_InferInputTensor{Name: name, Datatype: dt, Shape: shape})
		r.RawInputContents = append(r.RawInputContents, raw)
	}
	var a, b, c, d []byte
	for i := range rows {
		a = append(a, 0, 0, 128, 63, byte(i), 0, 0, 64)
		b = protowire.AppendFixed32(b, uint32(i%3))
		b = append(b, "xyz"[:i%3]...)
		c = protowire.AppendFixed64(c, uint64(i*7))
		d = append(d, byte(i%2))
	}
	add("a", "FP32", []int64{n, 2}, a)
	add("b", "BYTES", []int64{n}, b)
	add("c", "INT64", []int64{n, 1}, c)
	add("d", "BOOL", []int64{n}, d)
	return r
}

// rawSmallSeeds are plain raw requests (rows 1 to 130; with a version and
// requested outputs; inputs out of order; an unpacked shape; the raw
// contents before the inputs) and a few that are not.
func rawSmallSeeds(t testing.TB) [][]byte {
	marshal := func(r *oippb.ModelInferRequest) []byte {
		b, err := proto.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var seeds [][]byte
	// 130 rows: dimensions of two bytes (plainInput leaves them to
	// wireInput).
	for _, rows := range []int{1, 2, 3, 130} {
		seeds = append(seeds, marshal(rawSmallRequest(rows)))
	}
	v := "1"
	r := rawSmallRequest(2)
	r.ModelVersion = &v
	r.Outputs = []*oippb.ModelInferRequest_InferRequestedOutputTensor{{Name: "prediction"}}
	seeds = append(seeds, marshal(r))
	r = rawSmallRequest(2)
	r.Inputs[0], r.Inputs[2] = r.Inputs[2], r.Inputs[0]
	r.RawInputContents[0], r.RawInputContents[2] = r.RawInputContents[2], r.RawInputContents[0]
	seeds = append(seeds, marshal(r))
	// The raw contents first, then the inputs, input "c"'s shape unpacked.
	r = rawSmallRequest(2)
	var b []byte
	for _, raw := range r.RawInputContents {
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		b = protowire.AppendBytes(b, raw)
	}
	for _, in := range r.Inputs {
		var m []byte
		m = protowire.AppendTag(m, 1, protowire.BytesType)
		m = protowire.AppendString(m, in.Name)
		m = protowire.AppendTag(m, 2, protowire.BytesType)
		m = protowire.AppendString(m, in.Datatype)
		for _, x := range in.Shape {
			m = protowire.AppendTag(m, 3, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(x))
		}
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	seeds = append(seeds, protowire.AppendString(b, "E"))
	// Not plain: typed contents, a wrong datatype, short raw contents, an
	// input twice, an input missing, parameters, another model.
	for _, edit := range []func(r *oippb.ModelInferRequest){
		func(r *oippb.ModelInferRequest) {
			r.Inputs[2].Contents = &oippb.InferTensorContents{Int64Contents: []int64{1, 2}}
		},
		func(r *oippb.ModelInferRequest) { r.Inputs[0].Datatype = "FP64" },
		func(r *oippb.ModelInferRequest) { r.RawInputContents[3] = r.RawInputContents[3][1:] },
		func(r *oippb.ModelInferRequest) { r.Inputs[1] = r.Inputs[0] },
		func(r *oippb.ModelInferRequest) { r.Inputs, r.RawInputContents = r.Inputs[1:], r.RawInputContents[1:] },
		func(r *oippb.ModelInferRequest) { r.Inputs[1].Parameters = map[string]*oippb.InferParameter{"p": {}} },
		func(r *oippb.ModelInferRequest) { r.ModelName = "F" },
	} {
		r := rawSmallRequest(2)
		edit(r)
		seeds = append(seeds, marshal(r))
	}
	return append(seeds, inferRequestSeeds()...)
}

// sameGRPCRaw checks decodeGRPCRaw against the general path on b: when
// it reads b, protobuf reads b and grpcRawFeeds reads that message into
// the same feeds (and grpcFeeds into the same tensors), with the same
// name, version, id and outputs; and the server's ModelInfer handler
// answers b as the general path (the codec's message, then ModelInfer)
// does, response or status. It reports whether b was read raw.
func sameGRPCRaw(t *testing.T, srv *Server, b []byte) (fast bool) {
	t.Helper()
	sig := srv.sig
	var r grpcInferRequest
	if decodeGRPCRaw(b, sig, srv.lim.MaxRequestRows, &r) {
		fast = true
		var m oippb.ModelInferRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatalf("%x: read raw, protobuf says %v", b, err)
		}
		var names []string
		for _, o := range m.GetOutputs() {
			names = append(names, o.GetName())
		}
		if r.name != m.GetModelName() || r.version != m.GetModelVersion() || r.id != m.GetId() || !slices.Equal(r.outputs, names) {
			t.Fatalf("%x: read %q %q %q %q, protobuf %v", b, r.name, r.version, r.id, r.outputs, &m)
		}
		want, ok := srv.grpcRawFeeds(&m)
		if !ok {
			t.Fatalf("%x: read raw, grpcRawFeeds does not read %v", b, &m)
		}
		tensors, err := srv.grpcFeeds(&m)
		if err != nil {
			t.Fatalf("%x: read raw, grpcFeeds says %v", b, err)
		}
		if r.raw.rows != want.rows {
			t.Fatalf("%x: %d rows, grpcRawFeeds %d", b, r.raw.rows, want.rows)
		}
		for k := range sig.Inputs {
			if !slices.Equal(r.raw.shapes[k], want.shapes[k]) || !bytes.Equal(r.raw.data[k], want.data[k]) {
				t.Fatalf("%x: input %d is %v %x, grpcRawFeeds %v %x", b, k, r.raw.shapes[k], r.raw.data[k], want.shapes[k], want.data[k])
			}
			got, err := r.raw.tensor(sig, k)
			if err != nil || got.Equal(tensors[k]) != nil {
				t.Fatalf("%x: input %d is %v (%v), grpcFeeds %v", b, k, got, err, tensors[k])
			}
		}
		putRawFeeds(want)
		r.release()
	}

	// End to end: the handler against the general path.
	ctx := context.Background()
	codec := newInferCodec()
	g := &grpcService{s: srv}
	var m oippb.ModelInferRequest
	var wresp *oippb.ModelInferResponse
	werr := codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &m)
	if werr == nil {
		wresp, werr = g.ModelInfer(ctx, &m)
	}
	var took *grpcInferRequest
	tookRaw := false
	resp, err := grpcModelInfer(g, ctx, func(v any) error {
		return codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, v)
	}, func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		took = req.(*grpcInferRequest)
		tookRaw = took.raw != nil
		return h(ctx, req)
	})
	if took != nil && tookRaw != fast {
		t.Fatalf("%x: the handler read it raw %v, decodeGRPCRaw %v", b, tookRaw, fast)
	}
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("%x: the handler says %v, the general path %v", b, err, werr)
	}
	if err == nil && !proto.Equal(resp.(*oippb.ModelInferResponse), wresp) {
		t.Fatalf("%x: the handler answers %v, the general path %v", b, resp, wresp)
	}
	if took != nil && (took.raw != nil || took.buf != nil) {
		t.Fatalf("%x: the handler kept its buffer or feeds after the call", b)
	}
	return fast
}

func TestDecodeGRPCRaw(t *testing.T) {
	srv := rawSmallServer(t)
	fast := 0
	for _, b := range rawSmallSeeds(t) {
		if sameGRPCRaw(t, srv, b) {
			fast++
		}
	}
	// Read raw: the four of 1 to 130 rows, with a version and outputs,
	// out of order, raw contents first, and another model's (the
	// handler's findV2 refuses it as the general path's does).
	if fast != 8 {
		t.Errorf("%d of the seeds read raw, want 8", fast)
	}
}

// FuzzDecodeGRPCRaw: decodeGRPCRaw reads only what the general path
// reads, into the same feeds, and the ModelInfer handler answers any
// bytes as the general path does.
func FuzzDecodeGRPCRaw(f *testing.F) {
	for _, b := range rawSmallSeeds(f) {
		f.Add(b)
	}
	srv := rawSmallServer(f)
	f.Fuzz(func(t *testing.T, b []byte) { sameGRPCRaw(t, srv, b) })
}

// TestGRPCRawClient: over a real connection, a plain raw request is read
// raw by the codec (not by the general path) and answered as the
// interpreter computes; wrong requests (a datatype, a shape, an input
// missing or twice, short raw contents) get the status, code and message,
// that the general path gives.
func TestGRPCRawClient(t *testing.T) {
	f := start(t, nil)
	var mu sync.Mutex
	var raw []bool // per call, whether its request was read raw
	c := serveGRPC(t, f.srv, grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if r, ok := req.(*grpcInferRequest); ok {
			mu.Lock()
			raw = append(raw, r.raw != nil)
			mu.Unlock()
		}
		return h(ctx, req)
	}))
	ctx := context.Background()
	sig := f.srv.Signature()
	lastRaw := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(raw) > 0 && raw[len(raw)-1]
	}
	for i, rows := range []int{1, 7, 64} {
		feeds := f.prog.feeds(t, rows, uint64(60+i))
		want := f.prog.want(t, feeds)
		req := grpcRequest(sig, feeds, true)
		resp, err := c.ModelInfer(ctx, req)
		if err != nil {
			t.Fatalf("%d rows: %v", rows, err)
		}
		if !lastRaw() {
			t.Fatalf("%d rows: not read raw", rows)
		}
		if resp.Id != "req-1" || len(resp.RawOutputContents) != 1 || !bytes.Equal(resp.RawOutputContents[0], AppendRaw(nil, want)) {
			t.Fatalf("%d rows: %v, the interpreter gives %v", rows, resp, want)
		}
	}
	feeds := f.prog.feeds(t, 3, 70)
	g := &grpcService{s: f.srv}
	for what, edit := range map[string]func(r *oippb.ModelInferRequest){
		"a datatype":       func(r *oippb.ModelInferRequest) { r.Inputs[3].Datatype = "FP64" },
		"a shape":          func(r *oippb.ModelInferRequest) { r.Inputs[2].Shape = append(r.Inputs[2].Shape, 1) },
		"a row count":      func(r *oippb.ModelInferRequest) { r.Inputs[4].Shape[0] = 2 },
		"an input missing": func(r *oippb.ModelInferRequest) { r.Inputs, r.RawInputContents = r.Inputs[1:], r.RawInputContents[1:] },
		"an input twice":   func(r *oippb.ModelInferRequest) { r.Inputs[1] = r.Inputs[0] },
		"short raw bytes":  func(r *oippb.ModelInferRequest) { r.RawInputContents[5] = r.RawInputContents[5][:3] },
		"a raw entry less": func(r *oippb.ModelInferRequest) { r.RawInputContents = r.RawInputContents[1:] },
		"an unknown output": func(r *oippb.ModelInferRequest) {
			r.Outputs = []*oippb.ModelInferRequest_InferRequestedOutputTensor{{Name: "x"}}
		},
		"another model": func(r *oippb.ModelInferRequest) { r.ModelName = "other" },
	} {
		req := grpcRequest(sig, feeds, true)
		edit(req)
		b, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var m oippb.ModelInferRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		_, werr := g.ModelInfer(ctx, &m)
		_, err = c.ModelInfer(ctx, req)
		got, want := status.Convert(err), status.Convert(werr)
		if werr == nil || got.Code() != want.Code() || got.Message() != want.Message() {
			t.Errorf("%s: %v, the general path %v", what, err, werr)
		}
		// An unknown output or another model is found out after the
		// inputs were read raw; anything else is not plain.
		if wantRaw := what == "an unknown output" || what == "another model"; lastRaw() != wantRaw {
			t.Errorf("%s: read raw %v, want %v", what, lastRaw(), wantRaw)
		}
	}
}

// BenchmarkDecodeGRPCRaw64 is decodeGRPCRaw alone on BenchmarkServeGRPC64's
// message (the copy into the buffer left out).
func BenchmarkDecodeGRPCRaw64(b *testing.B) {
	p := loadE(b)
	srv := benchServer(b, p)
	msg := grpcMessageE(b, p)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var r grpcInferRequest
		if !decodeGRPCRaw(msg, srv.sig, srv.lim.MaxRequestRows, &r) {
			b.Fatal("not read raw")
		}
		r.release()
	}
}

// TestGRPCBudget: a ModelInfer message counts against the server's bytes
// in flight for the call's length; a call that finds them taken is
// refused with RESOURCE_EXHAUSTED (not read, not INTERNAL), and every
// call gives its bytes back, raw or not, answered or refused.
func TestGRPCBudget(t *testing.T) {
	f := start(t, nil)
	c := serveGRPC(t, f.srv)
	ctx := context.Background()
	sig := f.srv.Signature()
	feeds := f.prog.feeds(t, 3, 80)
	b := f.srv.budget
	free := func() int64 {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.free
	}
	total := free()
	for _, raw := range []bool{true, false} {
		if _, err := c.ModelInfer(ctx, grpcRequest(sig, feeds, raw)); err != nil {
			t.Fatalf("raw %v: %v", raw, err)
		}
		if got := free(); got != total {
			t.Fatalf("raw %v: %d of %d bytes free after the call", raw, got, total)
		}
	}
	if err := b.acquire(ctx, total); err != nil {
		t.Fatal(err)
	}
	_, err := c.ModelInfer(ctx, grpcRequest(sig, feeds, true))
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "--max-bytes-in-flight") {
		t.Fatalf("a call with no bytes free: %v", err)
	}
	b.release(total)
	if _, err := c.ModelInfer(ctx, grpcRequest(sig, feeds, true)); err != nil {
		t.Fatalf("once the bytes are free again: %v", err)
	}
	if got := free(); got != total {
		t.Fatalf("%d of %d bytes free after the calls", got, total)
	}
}

// serveGRPC serves srv's gRPC service (with opts) on a loopback port for
// the test's length and returns a client of it.
func serveGRPC(t *testing.T, srv *Server, opts ...grpc.ServerOption) oippb.GRPCInferenceServiceClient {
	t.Helper()
	gs := srv.GRPC(opts...)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	return dialGRPC(t, l.Addr().String())
}

// TestPlainInputLongShape: a packed shape whose length byte has the
// varint's continuation bit (a length of 128 or more, two bytes to
// protobuf) is not read as one byte by plainInput.
func TestPlainInputLongShape(t *testing.T) {
	b := []byte{tagName, 1, 'a', tagDatatype, 4, 'F', 'P', '3', '2', tagShapePacked, 0x82}
	b = append(b, bytes.Repeat([]byte{1}, 130)...)
	d := rawReader{f: &rawFeeds{}}
	if _, _, ok := d.plainInput(b); ok {
		t.Fatalf("plainInput read a shape of %d dimensions after a length byte 0x82", len(d.f.dims))
	}
}
