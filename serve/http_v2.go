package serve

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/recom-compiler/recom/interp"
)

// The Open Inference Protocol (KServe V2) over HTTP:
//
//	GET  /v2                                        server metadata
//	GET  /v2/health/live, /v2/health/ready          health
//	GET  /v2/models/NAME[/versions/V]               model metadata
//	GET  /v2/models/NAME[/versions/V]/ready         model readiness
//	POST /v2/models/NAME[/versions/V]/infer         inference
//
// with the binary tensor data extension for inputs (the
// Inference-Header-Content-Length header).

// ServerName is the server's name in the protocol's server metadata.
const ServerName = "recom"

// binaryHeader is the binary tensor data extension's header.
const binaryHeader = "Inference-Header-Content-Length"

// serveV2 serves /v2 and returns the endpoint's name.
func (s *Server) serveV2(w http.ResponseWriter, r *http.Request) string {
	p := strings.TrimSuffix(r.URL.Path, "/")
	get := func(endpoint string, f func()) string {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, r, http.MethodGet)
		} else {
			f()
		}
		return endpoint
	}
	switch p {
	case "/v2":
		return get("server_metadata", func() { writeJSON(w, http.StatusOK, s.v2ServerMetadata()) })
	case "/v2/health/live":
		return get("server_live", func() { writeJSON(w, http.StatusOK, []byte("{\"live\":true}\n")) })
	case "/v2/health/ready":
		return get("server_ready", func() { s.writeReady(w, s.Ready()) })
	}
	rest, ok := strings.CutPrefix(p, "/v2/models/")
	parts := strings.Split(rest, "/")
	if !ok || parts[0] == "" {
		writeError(w, &Error{Code: codes.NotFound, Msg: fmt.Sprintf("no endpoint %s %s (the Open Inference Protocol: /v2/models/NAME[/versions/V][/ready|/infer])", r.Method, r.URL.Path)})
		return "unknown"
	}
	name, version := parts[0], ""
	parts = parts[1:]
	if len(parts) >= 2 && parts[0] == "versions" {
		version = parts[1]
		parts = parts[2:]
	}
	verb := ""
	if len(parts) == 1 {
		verb = parts[0]
	}
	if len(parts) > 1 || (verb != "" && verb != "ready" && verb != "infer") {
		writeError(w, &Error{Code: codes.NotFound, Msg: fmt.Sprintf("no endpoint %s %s (the Open Inference Protocol: /v2/models/NAME[/versions/V][/ready|/infer])", r.Method, r.URL.Path)})
		return "unknown"
	}
	endpoint := map[string]string{"": "model_metadata", "ready": "model_ready", "infer": "infer"}[verb]
	if err := s.findV2(name, version); err != nil {
		writeError(w, err)
		return endpoint
	}
	switch verb {
	case "":
		return get(endpoint, func() { writeJSON(w, http.StatusOK, s.v2ModelMetadata()) })
	case "ready":
		return get(endpoint, func() {
			status := http.StatusOK
			if !s.Ready() {
				status = http.StatusServiceUnavailable
			}
			b := []byte(`{"name":`)
			b = appendString(b, s.cfg.Name)
			b = fmt.Appendf(b, `,"ready":%t}`+"\n", s.Ready())
			writeJSON(w, status, b)
		})
	}
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, http.MethodPost)
		return endpoint
	}
	s.inferV2(w, r)
	return endpoint
}

// findV2 checks the model's name and version.
func (s *Server) findV2(name, version string) error {
	if name != s.cfg.Name {
		return &Error{Code: codes.NotFound, Msg: fmt.Sprintf("model %q is not served (this server serves %q)", name, s.cfg.Name)}
	}
	if version != "" && version != s.cfg.Version {
		return &Error{Code: codes.NotFound, Msg: fmt.Sprintf("model %q has no version %q (it has %q)", name, version, s.cfg.Version)}
	}
	return nil
}

// inferV2 serves /infer.
func (s *Server) inferV2(w http.ResponseWriter, r *http.Request) {
	jsonLen := -1
	if h := r.Header.Get(binaryHeader); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n < 0 {
			writeError(w, badRequest("%s: %q is not a byte count", binaryHeader, h))
			return
		}
		jsonLen = n
	}
	// A binary request's header is decoded while its binary data arrive
	// (decodeRawHeader, lazy); their BYTES elements are checked once in
	// (and kept as strings for the join: checkRawStrings).
	var req *inferRequest
	var raw *rawFeeds
	early, ok := false, false
	body, release, err := s.readBodyEarly(w, r, jsonLen, func(b []byte) {
		early = true
		req, raw, ok = s.decodeRaw(b, jsonLen, true)
	})
	if err != nil {
		if ok {
			putRawFeeds(raw)
		}
		writeError(w, err)
		return
	}
	defer release()
	markStage(w, stageRead)
	var outs []*interp.Tensor
	var rt runTime
	if !early {
		req, raw, ok = s.decodeRaw(body, jsonLen, true)
	}
	if ok && (len(body) != int(r.ContentLength) && early || !checkRawStrings(raw, s.sig)) {
		putRawFeeds(raw) // decodeInfer's error, or its request
		req, raw, ok = nil, nil, false
	}
	if ok {
		defer putRawFeeds(raw)
		markStage(w, stageDecode)
		outs, rt, err = s.runRaw(r.Context(), "oip-http", raw)
	} else {
		if req, err = decodeInfer(body, jsonLen, s.sig); err != nil {
			writeError(w, err)
			return
		}
		markStage(w, stageDecode)
		outs, rt, err = s.run(r.Context(), "oip-http", req.feeds)
	}
	markStage(w, stageRun)
	if err != nil {
		writeError(w, err)
		return
	}
	noteRun(w, rt)
	which := req.outputs
	if which == nil {
		which = allOutputs(len(outs))
	}
	writeJSON(w, http.StatusOK, encodeInfer(make([]byte, 0, 256), s.cfg.Name, s.cfg.Version, req.id, s.sig, outs, which))
}

func allOutputs(n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = i
	}
	return w
}

// Platform is the model's platform in its metadata.
const Platform = "recom"

func (s *Server) v2ServerMetadata() []byte {
	b := []byte(`{"name":"` + ServerName + `","version":`)
	b = appendString(b, s.cfg.ServerVersion)
	return append(b, `,"extensions":["binary_tensor_data"]}`+"\n"...)
}

func (s *Server) v2ModelMetadata() []byte {
	b := []byte(`{"name":`)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"versions":[`...)
	b = appendString(b, s.cfg.Version)
	b = append(b, `],"platform":"`+Platform+`","inputs":`...)
	b = appendTensorMetadata(b, s.sig.Inputs)
	b = append(b, `,"outputs":`...)
	b = appendTensorMetadata(b, s.sig.Outputs)
	return append(b, "}\n"...)
}

func appendTensorMetadata(b []byte, ts []TensorSpec) []byte {
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, t.Key)
		b = append(b, `,"datatype":"`...)
		b = append(b, oipTypeName[t.DType]...)
		b = append(b, `","shape":[`...)
		for j, d := range t.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}
