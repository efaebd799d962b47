package serve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// A model served from tf.Example records (recom gen --tf-example, both
// parse ops) takes TF Serving's REST requests for its one string input
// input_example_tensor, the records as {"b64": ...}: row format (the
// values themselves) and columnar, on the CPU backend, answering what
// the interpreter computes from the same records (recom interp).
func TestTFServingExamples(t *testing.T) {
	for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
		t.Run(serving, func(t *testing.T) {
			s, err := gen.Preset("small")
			if err != nil {
				t.Fatal(err)
			}
			s.Serving = serving
			g, err := gen.Generate(s, gen.Options{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "served.pbtxt")
			if err := os.WriteFile(path, graphdef.MarshalText(g.Graph), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := compiler.Compile(context.Background(), path, compiler.Options{StopAfter: compiler.StageImport})
			if err != nil {
				t.Fatal(err)
			}
			opts := &exec.Options{Variables: map[string]*interp.Tensor{}, Tables: map[string]exec.TableData{}}
			for _, a := range g.Tables {
				opts.Variables[a.Name] = a.Tensor
			}
			outputs := []string{g.Output}
			sig, err := SignatureOf(res.Module, res, outputs)
			if err != nil {
				t.Fatal(err)
			}
			if len(sig.Inputs) != 1 || sig.Inputs[0].Name != gen.ExampleInput || sig.Inputs[0].DType != interp.String {
				t.Fatalf("signature inputs %+v, want the string records alone", sig.Inputs)
			}
			b, err := NewInterpBackend(res.Module, outputs, opts)
			if err != nil {
				t.Fatal(err)
			}
			f := start(t, func(c *Config) {
				c.Backend, c.Signature = b, sig
			})
			ref, err := exec.Compile(res.Module)
			if err != nil {
				t.Fatal(err)
			}
			for i, rows := range []int{1, 5, 40} {
				arrays, err := gen.Feeds(s, rows, uint64(20+i))
				if err != nil {
					t.Fatal(err)
				}
				if len(arrays) != 1 || arrays[0].Name != gen.ExampleInput {
					t.Fatalf("feeds %d, want the records alone", len(arrays))
				}
				records := arrays[0].Tensor
				out, err := ref.Run(context.Background(), map[string]*interp.Tensor{gen.ExampleInput: records}, outputs, opts)
				if err != nil {
					t.Fatal(err)
				}
				want := out[g.Output]
				var b64 []any
				for _, r := range records.Strings() {
					b64 = append(b64, map[string]string{"b64": base64.StdEncoding.EncodeToString([]byte(r))})
				}
				for _, body := range []map[string]any{
					{"instances": b64},
					{"instances": toInstances(b64)},
					{"inputs": map[string]any{gen.ExampleInput: b64}},
				} {
					req, err := json.Marshal(body)
					if err != nil {
						t.Fatal(err)
					}
					code, resp := f.post(t, "/v1/models/small:predict", req)
					if code != http.StatusOK {
						t.Fatalf("%d records: %d %s", rows, code, resp)
					}
					var r struct{ Predictions, Outputs [][]float32 }
					if err := json.Unmarshal(resp, &r); err != nil {
						t.Fatalf("%v: %s", err, resp)
					}
					got := r.Predictions
					if _, ok := body["inputs"]; ok {
						got = r.Outputs
					}
					checkPrediction(t, fmt.Sprintf("%d records (%.40s...)", rows, req), got, want)
				}
			}
			// A record that does not parse is the client's error.
			req := fmt.Sprintf(`{"instances": [{"b64": %q}]}`, base64.StdEncoding.EncodeToString([]byte{0xff, 0xff}))
			if code, resp := f.post(t, "/v1/models/small:predict", []byte(req)); code != http.StatusBadRequest {
				t.Errorf("a malformed record: %d %s, want 400", code, resp)
			}
		})
	}
}

// toInstances is each record as an object naming the input.
func toInstances(b64 []any) []any {
	out := make([]any, len(b64))
	for i, v := range b64 {
		out[i] = map[string]any{gen.ExampleInput: v}
	}
	return out
}
