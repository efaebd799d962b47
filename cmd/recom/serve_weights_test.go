package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
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
		logs, lw := newLogWatch()
		status := make(chan int, 1)
		go func() {
			args := append([]string{"serve", dir, "--backend", "cpu", "--http-addr", "127.0.0.1:0", "--grpc-addr", "", "--log-format", "text"}, tc.args...)
			status <- runContext(ctx, args, strings.NewReader(""), io.Discard, lw)
			lw.Close()
		}()
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
		body, _ := json.Marshal(map[string]any{"inputs": []any{in}})
		hr, err := http.Post("http://"+httpAddr+"/v2/models/tiny/infer", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Outputs []struct{ Data []float32 } }
		b, _ = io.ReadAll(hr.Body)
		hr.Body.Close()
		if err := json.Unmarshal(b, &r); err != nil || hr.StatusCode != 200 || len(r.Outputs) != 1 {
			t.Fatalf("infer: %d %v %s", hr.StatusCode, err, b)
		}
		checkFloats(t, "HTTP", r.Outputs[0].Data, ref)
		cancel()
		if st := <-status; st != 0 {
			t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
		}
	}
}
