package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve"
	"github.com/recom-compiler/recom/serve/oippb"
)

// recom loadtest --protocol grpc: the Open Inference Protocol's
// ModelInfer over gRPC, paced by the same vegeta attacker as the HTTP
// protocols. A gRPC call is an HTTP/2 POST of one length-prefixed
// message (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md:
// a compressed-flag byte, a 4-byte big-endian length, the message) whose
// outcome is the grpc-status trailer; grpcTransport speaks it over
// cleartext HTTP/2 (net/http's unencrypted HTTP/2) and turns a call that failed into an HTTP error for
// vegeta's counts.

// grpcInferPath is ModelInfer's method path.
const grpcInferPath = "/inference.GRPCInferenceService/ModelInfer"

// grpcBody is a ModelInfer request for feeds in the signature's order,
// every input in raw_input_contents (as Triton's and KServe's clients
// send tensors), framed as one gRPC message.
func grpcBody(model string, sig *serve.Signature, feeds map[string]*interp.Tensor) ([]byte, http.Header, error) {
	req := &oippb.ModelInferRequest{ModelName: model}
	for _, in := range sig.Inputs {
		t := feeds[in.Key]
		req.Inputs = append(req.Inputs, &oippb.ModelInferRequest_InferInputTensor{Name: in.Key, Datatype: serve.OIPDatatype(t.DType()), Shape: t.Shape()})
		req.RawInputContents = append(req.RawInputContents, serve.AppendRaw(nil, t))
	}
	msg, err := proto.Marshal(req)
	if err != nil {
		return nil, nil, err
	}
	if uint64(len(msg)) > 1<<32-1 {
		return nil, nil, fmt.Errorf("a ModelInfer request of %d bytes does not fit gRPC's 4-byte length", len(msg))
	}
	b := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	hdr := http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
	return append(b, msg...), hdr, nil
}

// grpcTransport sends the attack's calls over conns HTTP/2 connections
// without TLS (gRPC's "h2c" with prior knowledge), round robin: a
// gRPC client's channels, each one connection multiplexing its calls.
// A call answered with a grpc-status other than OK becomes a 500 whose
// status line carries the gRPC status and message.
type grpcTransport struct {
	conns []*http.Transport
	next  atomic.Uint32
}

func newGRPCTransport(conns int) *grpcTransport {
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	t := &grpcTransport{conns: make([]*http.Transport, conns)}
	for i := range t.conns {
		// HTTP/2 only, without TLS: a transport keeps one connection to
		// the server, its calls streams on it.
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		t.conns[i] = &http.Transport{Protocols: p, DialContext: dialer.DialContext}
	}
	return t
}

func (t *grpcTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := t.conns[int(t.next.Add(1)-1)%len(t.conns)]
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	// The body whole, so that the trailers are in.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	// A call that fails at once answers with its status in the headers
	// ("trailers-only"), any other in the trailers.
	st, msg := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if st == "" {
		st, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if code, err := strconv.ParseUint(st, 10, 32); err != nil || code != 0 {
		what := "no grpc-status trailer"
		if err == nil {
			what = fmt.Sprintf("grpc-status %d (%v)", code, codes.Code(code))
		}
		resp.StatusCode = http.StatusInternalServerError
		resp.Status = fmt.Sprintf("%d %s: %s", resp.StatusCode, what, grpcMessage(msg))
	}
	return resp, nil
}

// grpcMessage decodes grpc-message's percent-encoding (the protocol's
// escaping of bytes outside printable ASCII and of '%').
func grpcMessage(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// grpcClient is the attack's client for --protocol grpc.
func grpcClient(conns int, timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: newGRPCTransport(conns)}
}
