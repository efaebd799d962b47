package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
)

// recom serve takes a SavedModel directory with its trained weights and
// vocabulary asset (issue #20), as recom interp does: served on the CPU
// backend, the tiny model's predictions over HTTP are recom interp's of
// the same directory, and --signature chooses among several signatures.
func TestServeSavedModel(t *testing.T) {
	for _, tc := range []struct {
		sigs []string
		args []string
	}{
		{nil, nil},
		{[]string{"predict", "classify"}, []string{"--signature", "classify"}},
	} {
		dir, feeds, words := tinyModel(t, tc.sigs...)
		want := filepath.Join(t.TempDir(), "want.npz")
		if st, _, e := runTool(append([]string{"interp", dir, "--feeds", feeds, "-o", want}, tc.args...)...); st != 0 {
			t.Fatalf("recom interp: %s", e)
		}
		ref := readNPZ(t, want)["y:0"].Float32s()

		ctx, cancel := context.WithCancel(context.Background())
		logs, status := startServe(ctx, append([]string{dir, "--backend", "cpu", "--http-addr", "127.0.0.1:0", "--grpc-addr", "", "--log-format", "text"}, tc.args...)...)
		httpAddr := logs.wait(t, `msg="serving HTTP" addr=(\S+)`)

		// The metadata names the signature's input; the inputs are fed by it.
		mr, err := http.Get("http://" + httpAddr + "/v2/models/tiny")
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Inputs []struct{ Name, Datatype string }
		}
		b, _ := io.ReadAll(mr.Body)
		mr.Body.Close()
		if err := json.Unmarshal(b, &meta); err != nil || len(meta.Inputs) != 1 {
			t.Fatalf("metadata: %v %s", err, b)
		}
		in := map[string]any{"name": meta.Inputs[0].Name, "datatype": meta.Inputs[0].Datatype, "shape": []int{len(words)}, "data": words}
		outs := postInferJSON(t, httpAddr, "tiny", []map[string]any{in})
		if len(outs) != 1 {
			t.Fatalf("infer: %d outputs, want 1", len(outs))
		}
		checkFloats(t, "HTTP", outs[0].Data, ref)
		cancel()
		if st := <-status; st != 0 {
			t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
		}
	}
}
