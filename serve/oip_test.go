package serve

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// flat is a tensor's elements as JSON values (row-major).
func flat(t *interp.Tensor) any {
	switch d := t.Data().(type) {
	case []string:
		return d
	case []float32:
		return d
	case []int64:
		return d
	}
	panic(t.DType())
}

// inferBody is an Open Inference Protocol request of feeds; the inputs
// named in binary go in the binary data after the JSON (returned: the
// JSON's length, or -1).
func inferBody(t testing.TB, sig *Signature, feeds map[string]*interp.Tensor, binary map[string]bool) ([]byte, int) {
	var inputs []InferInputJSON
	var bin []byte
	for _, in := range sig.Inputs {
		v := feeds[in.Name]
		m := InferInputJSON{Name: in.Key, Shape: v.Shape(), Datatype: oipTypeName[v.DType()]}
		if binary[in.Key] {
			raw := AppendRaw(nil, v)
			m.Parameters = map[string]any{"binary_data_size": len(raw)}
			bin = append(bin, raw...)
		} else if in.Key == "dense_features" {
			m.Data = jsonValue(v, -1, false) // nested, as clients may send it
		} else {
			m.Data = flat(v)
		}
		inputs = append(inputs, m)
	}
	b, err := json.Marshal(map[string]any{"id": "req-1", "inputs": inputs, "outputs": []map[string]any{{"name": "prediction"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(binary) == 0 {
		return b, -1
	}
	return append(b, bin...), len(b)
}

type inferResponse struct {
	ModelName    string `json:"model_name"`
	ModelVersion string `json:"model_version"`
	ID           string
	Outputs      []struct {
		Name, Datatype string
		Shape          []int64
		Data           []float32
	}
}

func checkInferOutput(t testing.TB, what string, r *inferResponse, want *interp.Tensor) {
	t.Helper()
	if r.ModelName != "small" || r.ModelVersion != "1" || r.ID != "req-1" || len(r.Outputs) != 1 {
		t.Fatalf("%s: response %+v", what, r)
	}
	o := r.Outputs[0]
	if o.Name != "prediction" || o.Datatype != "FP32" || !sameShape(o.Shape, want.Shape()) {
		t.Fatalf("%s: output %s %s %v, want prediction FP32 %v", what, o.Name, o.Datatype, o.Shape, want.Shape())
	}
	for i, w := range want.Float32s() {
		if o.Data[i] != w {
			t.Fatalf("%s: element %d is %v, the interpreter gives %v", what, i, o.Data[i], w)
		}
	}
}

func TestOIPHTTP(t *testing.T) {
	f := start(t, nil)
	for path, want := range map[string]string{
		"/v2/health/live":                   `{"live":true}`,
		"/v2/health/ready":                  `{"ready":true}`,
		"/v2/models/small/versions/1/ready": `{"name":"small","ready":true}`,
		"/v2":                               `"extensions":["binary_tensor_data"]`,
		"/healthz":                          `{"live":true}`,
		"/readyz":                           `{"ready":true}`,
	} {
		if code, body := f.get(t, path); code != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %s, want 200 and %s", path, code, body, want)
		}
	}
	code, body := f.get(t, "/v2/models/small")
	var meta struct {
		Name     string
		Versions []string
		Inputs   []struct {
			Name, Datatype string
			Shape          []int64
		}
		Outputs []struct{ Name, Datatype string }
	}
	if err := json.Unmarshal(body, &meta); code != http.StatusOK || err != nil || meta.Name != "small" || len(meta.Inputs) != 27 || meta.Outputs[0].Name != "prediction" {
		t.Fatalf("model metadata: %d %v %s", code, err, body)
	}
	sig := f.srv.Signature()
	for i, rows := range []int{1, 5, 33} {
		feeds := f.prog.feeds(t, rows, uint64(20+i))
		want := f.prog.want(t, feeds)
		for _, bin := range []map[string]bool{nil, {"str_0000": true, "dense_features": true, "int_0004": true, "wstr_0020_weight": true}, allBinary(sig)} {
			req, jsonLen := inferBody(t, sig, feeds, bin)
			var hdr []string
			if jsonLen >= 0 {
				hdr = []string{binaryHeader, strconv.Itoa(jsonLen)}
			}
			code, body := f.post(t, "/v2/models/small/infer", req, hdr...)
			if code != http.StatusOK {
				t.Fatalf("infer of %d rows (binary %v): %d %s", rows, bin, code, body)
			}
			var r inferResponse
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			checkInferOutput(t, fmt.Sprintf("infer of %d rows, binary %v", rows, bin), &r, want)
		}
	}
}

func dialGRPC(t testing.TB, addr string) oippb.GRPCInferenceServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return oippb.NewGRPCInferenceServiceClient(conn)
}

// grpcRequest is feeds as a ModelInferRequest: typed contents, or
// raw_input_contents.
func grpcRequest(sig *Signature, feeds map[string]*interp.Tensor, raw bool) *oippb.ModelInferRequest {
	req := &oippb.ModelInferRequest{ModelName: "small", Id: "req-1"}
	for _, in := range sig.Inputs {
		v := feeds[in.Name]
		t := &oippb.ModelInferRequest_InferInputTensor{Name: in.Key, Datatype: oipTypeName[v.DType()], Shape: v.Shape()}
		if raw {
			req.RawInputContents = append(req.RawInputContents, AppendRaw(nil, v))
		} else {
			t.Contents = contentsOf(v)
		}
		req.Inputs = append(req.Inputs, t)
	}
	return req
}

func TestOIPGRPC(t *testing.T) {
	f := start(t, nil)
	c := dialGRPC(t, f.grpcAddr)
	ctx := context.Background()
	if r, err := c.ServerLive(ctx, &oippb.ServerLiveRequest{}); err != nil || !r.Live {
		t.Fatalf("ServerLive: %v %v", r, err)
	}
	if r, err := c.ServerReady(ctx, &oippb.ServerReadyRequest{}); err != nil || !r.Ready {
		t.Fatalf("ServerReady: %v %v", r, err)
	}
	if r, err := c.ModelReady(ctx, &oippb.ModelReadyRequest{Name: "small"}); err != nil || !r.Ready {
		t.Fatalf("ModelReady: %v %v", r, err)
	}
	if r, err := c.ServerMetadata(ctx, &oippb.ServerMetadataRequest{}); err != nil || r.Name != ServerName {
		t.Fatalf("ServerMetadata: %v %v", r, err)
	}
	meta, err := c.ModelMetadata(ctx, &oippb.ModelMetadataRequest{Name: "small"})
	if err != nil || len(meta.Inputs) != 27 || meta.Outputs[0].Name != "prediction" || meta.Outputs[0].Datatype != "FP32" {
		t.Fatalf("ModelMetadata: %v %v", meta, err)
	}
	if _, err := c.ModelMetadata(ctx, &oippb.ModelMetadataRequest{Name: "other"}); status.Code(err) != codes.NotFound {
		t.Errorf("ModelMetadata of another model: %v, want NOT_FOUND", err)
	}
	sig := f.srv.Signature()
	for i, rows := range []int{1, 9, 64} {
		feeds := f.prog.feeds(t, rows, uint64(30+i))
		want := f.prog.want(t, feeds)
		for _, raw := range []bool{false, true} {
			r, err := c.ModelInfer(ctx, grpcRequest(sig, feeds, raw))
			if err != nil {
				t.Fatalf("ModelInfer of %d rows (raw %v): %v", rows, raw, err)
			}
			if r.ModelName != "small" || r.Id != "req-1" || len(r.Outputs) != 1 || r.Outputs[0].Name != "prediction" || !sameShape(r.Outputs[0].Shape, want.Shape()) {
				t.Fatalf("ModelInfer: %v", r)
			}
			got := r.Outputs[0].GetContents().GetFp32Contents()
			if raw {
				if len(r.RawOutputContents) != 1 {
					t.Fatalf("raw request: %d raw outputs", len(r.RawOutputContents))
				}
				b := r.RawOutputContents[0]
				got = make([]float32, len(b)/4)
				for j := range got {
					got[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
				}
			}
			for j, w := range want.Float32s() {
				if j >= len(got) || got[j] != w {
					t.Fatalf("ModelInfer of %d rows (raw %v): element %d is %v, the interpreter gives %v", rows, raw, j, got, w)
				}
			}
		}
	}
	// A bad request is INVALID_ARGUMENT naming the input.
	feeds := f.prog.feeds(t, 2, 1)
	req := grpcRequest(sig, feeds, false)
	req.Inputs[3].Datatype = "INT32"
	if _, err := c.ModelInfer(ctx, req); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), sig.Inputs[3].Key) {
		t.Errorf("ModelInfer with a wrong datatype: %v", err)
	}
	req = grpcRequest(sig, feeds, true)
	req.RawInputContents[0] = req.RawInputContents[0][:3]
	if _, err := c.ModelInfer(ctx, req); status.Code(err) != codes.InvalidArgument {
		t.Errorf("ModelInfer with truncated raw contents: %v", err)
	}
}

// TestCurl calls the REST APIs with curl, as a user would.
func TestCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: curl is not installed: %v", err)
		}
		t.Skip("curl is not installed")
	}
	f := start(t, nil)
	feeds := f.prog.feeds(t, 3, 40)
	want := f.prog.want(t, feeds)
	out, err := exec.Command(curl, "-sS", "-X", "POST", "-H", "Content-Type: application/json",
		"-d", string(instancesBody(t, feeds, false)), f.httpURL+"/v1/models/small:predict").Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	var r struct{ Predictions [][]float32 }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	checkPrediction(t, "curl :predict", r.Predictions, want)
	out, err = exec.Command(curl, "-sS", "-w", "%{http_code}", "-X", "POST", "-d", `{"instances": [{"nope": 1}]}`, f.httpURL+"/v1/models/small:predict").Output()
	if err != nil || !strings.HasPrefix(string(out), `{"error":`) || !strings.HasSuffix(string(out), "400") || !strings.Contains(string(out), `\"nope\"`) {
		t.Errorf("curl with a bad input: %v %s", err, out)
	}
	out, err = exec.Command(curl, "-sS", f.httpURL+"/metrics").Output()
	if err != nil || !strings.Contains(string(out), `recom_serve_requests_total{code="200",endpoint="predict",model="small",protocol="tfserving"} 1`) {
		t.Errorf("curl /metrics: %v\n%s", err, out)
	}
}
