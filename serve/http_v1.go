package serve

import (
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
)

// TensorFlow Serving's REST API (tensorflow_serving/g3doc/api_rest.md):
//
//	GET  /v1/models/NAME[/versions/N]            model status
//	GET  /v1/models/NAME[/versions/N]/metadata   the signature
//	POST /v1/models/NAME[/versions/N]:predict    inference
//
// Errors are {"error": "..."} with the HTTP status of their code.

// v1Target is a parsed /v1/models/... path.
type v1Target struct {
	name, version, label string
	verb                 string // "predict", "classify", ... after ':'
	metadata             bool
}

// parseV1 parses the part of a path after /v1/models/.
func parseV1(rest string) (t v1Target, ok bool) {
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "/") {
		rest, t.verb = rest[:i], rest[i+1:]
	}
	parts := strings.Split(rest, "/")
	t.name = parts[0]
	parts = parts[1:]
	if len(parts) >= 2 && (parts[0] == "versions" || parts[0] == "labels") {
		if parts[0] == "versions" {
			t.version = parts[1]
		} else {
			t.label = parts[1]
		}
		parts = parts[2:]
	}
	if len(parts) == 1 && parts[0] == "metadata" && t.verb == "" {
		t.metadata = true
		parts = nil
	}
	return t, t.name != "" && len(parts) == 0
}

// serveV1 serves /v1/ and returns the endpoint's name.
func (s *Server) serveV1(w http.ResponseWriter, r *http.Request) string {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/models/")
	var t v1Target
	if ok {
		t, ok = parseV1(rest)
	}
	if !ok {
		writeError(w, &Error{Code: codes.NotFound, Msg: fmt.Sprintf("malformed request: %s %s (TensorFlow Serving's REST API: /v1/models/NAME[/versions/N][:predict|/metadata])", r.Method, r.URL.Path)})
		return "unknown"
	}
	endpoint := "status"
	switch {
	case t.metadata:
		endpoint = "metadata"
	case t.verb != "":
		endpoint = t.verb
	}
	if err := s.findV1(t); err != nil {
		writeError(w, err)
		return endpoint
	}
	switch {
	case t.verb == "predict":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, r, http.MethodPost)
			return endpoint
		}
		s.predictV1(w, r)
	case t.verb != "":
		writeError(w, &Error{Code: codes.Unimplemented, Msg: fmt.Sprintf("%q is not served: recom serves :predict (the model's signature is a predict signature)", t.verb)})
		endpoint = "unknown"
	case r.Method != http.MethodGet:
		methodNotAllowed(w, r, http.MethodGet)
	case t.metadata:
		writeJSON(w, http.StatusOK, s.v1Metadata())
	default:
		writeJSON(w, http.StatusOK, s.v1Status())
	}
	return endpoint
}

// findV1 checks the model name, version and label, with TensorFlow
// Serving's "Servable not found" message.
func (s *Server) findV1(t v1Target) error {
	switch {
	case t.name != s.cfg.Name:
		return &Error{Code: codes.NotFound, Msg: fmt.Sprintf("Servable not found for request: Latest(%s)", t.name)}
	case t.version != "" && t.version != s.cfg.Version:
		return &Error{Code: codes.NotFound, Msg: fmt.Sprintf("Servable not found for request: Specific(%s, %s)", t.name, t.version)}
	case t.label != "":
		return &Error{Code: codes.NotFound, Msg: fmt.Sprintf("Servable not found for request: label %q of %s (recom serves one version, %s, and no labels)", t.label, t.name, s.cfg.Version)}
	}
	return nil
}

// predictV1 serves :predict.
func (s *Server) predictV1(w http.ResponseWriter, r *http.Request) {
	body, release, err := s.readBody(w, r, -1)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	markStage(w, stageRead)
	req, err := decodePredict(body, s.sig)
	if err != nil {
		writeError(w, err)
		return
	}
	markStage(w, stageDecode)
	outs, rt, err := s.run(r.Context(), "tfserving", req.feeds)
	markStage(w, stageRun)
	if err != nil {
		writeError(w, err)
		return
	}
	noteRun(w, rt)
	writeJSON(w, http.StatusOK, encodePredict(make([]byte, 0, 256), req.columnar, s.sig, outs))
}

// v1Status is GetModelStatusResponse in JSON.
func (s *Server) v1Status() []byte {
	state, code := "AVAILABLE", "OK"
	if !s.Ready() {
		state, code = "UNAVAILABLE", "UNAVAILABLE"
	}
	return fmt.Appendf(nil, `{"model_version_status":[{"version":%s,"state":"%s","status":{"error_code":"%s","error_message":""}}]}`+"\n",
		appendString(nil, s.cfg.Version), state, code)
}

// v1Metadata is GetModelMetadataResponse in JSON: the signature as a
// SignatureDefMap (proto3's JSON mapping: int64 sizes as strings).
func (s *Server) v1Metadata() []byte {
	b := []byte(`{"model_spec":{"name":`)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"signature_name":"","version":`...)
	b = appendString(b, s.cfg.Version)
	b = append(b, `},"metadata":{"signature_def":{"signature_def":{`...)
	b = appendString(b, s.sig.Name)
	b = append(b, `:{"inputs":`...)
	b = appendTensorInfos(b, s.sig.Inputs)
	b = append(b, `,"outputs":`...)
	b = appendTensorInfos(b, s.sig.Outputs)
	b = append(b, `,"method_name":`...)
	b = appendString(b, s.sig.Method)
	b = append(b, `,"defaults":{}}}}}}`...)
	return append(b, '\n')
}

func appendTensorInfos(b []byte, ts []TensorSpec) []byte {
	b = append(b, '{')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t.Key)
		b = append(b, `:{"dtype":"`...)
		b = append(b, tfTypeName[t.DType]...)
		b = append(b, `","tensor_shape":{"dim":[`...)
		for j, d := range t.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"size":"%d","name":""}`, d)
		}
		b = fmt.Appendf(b, `],"unknown_rank":%t},"name":`, t.UnknownRank)
		name := t.Name
		if !strings.Contains(name, ":") {
			name += ":0"
		}
		b = appendString(b, name)
		b = append(b, '}')
	}
	return append(b, '}')
}
