package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// recom serve and recom loadtest take a model's imported stage (a .mlir
// file, as bench/real-models.sh writes a real model's cut graph) with
// --outputs naming what to fetch, as recom run and recom bench do: IR is
// past any cut, so --outputs does not cut it again (before, both refused
// it: "outputs ... apply to graph files, not to IR"). Served on the CPU
// backend, the predictions are recom interp's of the graph it came from,
// and a load test of the IR answers every request.
func TestServeIR(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "c")
	if st, _, e := runTool("compile", exampleModel, "--outputs", "prediction", "--stop-after=import", "-o", cdir, "-q"); st != 0 {
		t.Fatalf("recom compile --stop-after=import: %s", e)
	}
	ir := filepath.Join(dir, "small.mlir")
	if err := os.Rename(filepath.Join(cdir, "0-tfg.mlir"), ir); err != nil {
		t.Fatal(err)
	}
	in, ref := exampleReference(t, dir, 5, 9)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, status := startServe(ctx, ir, "--tables", exampleTables, "--outputs", "prediction", "--backend", "cpu",
		"--http-addr", "127.0.0.1:0", "--grpc-addr", "")
	addr := logs.wait(t, `msg="serving HTTP" addr=(\S+)`)

	mr, err := http.Get("http://" + addr + "/v2/models/small")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Inputs  []struct{ Name, Datatype string }
		Outputs []struct{ Name string }
	}
	b, _ := io.ReadAll(mr.Body)
	mr.Body.Close()
	if err := json.Unmarshal(b, &meta); err != nil || len(meta.Inputs) == 0 || len(meta.Outputs) != 1 {
		t.Fatalf("metadata: %v %s", err, b)
	}
	var inputs []map[string]any
	for _, im := range meta.Inputs {
		x, ok := in[im.Name]
		if !ok {
			t.Fatalf("the feeds have no %q", im.Name)
		}
		inputs = append(inputs, map[string]any{"name": im.Name, "datatype": im.Datatype, "shape": x.Shape(), "data": x.Data()})
	}
	outs := postInferJSON(t, addr, "small", inputs)
	if len(outs) != 1 {
		t.Fatalf("infer: %d outputs, want 1", len(outs))
	}
	checkFloats(t, "HTTP", outs[0].Data, ref)

	out := filepath.Join(dir, "load.jsonl")
	st, o, e := runTool("loadtest", ir, "--outputs", "prediction", "--url", "http://"+addr, "--protocol", "oip-binary",
		"--rates", "20", "--duration", "250ms", "--bodies", "4", "--max-rows", "8", "--json", out)
	if st != 0 {
		t.Fatalf("recom loadtest of the IR: exit %d\n%s%s", st, o, e)
	}
	lb, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var lr loadResult
	if err := json.Unmarshal(lb, &lr); err != nil {
		t.Fatalf("%s: %v", lb, err)
	}
	if lr.Requests == 0 || lr.Success != 1 || lr.Codes["200"] != int(lr.Requests) {
		t.Errorf("recom loadtest of the IR: %+v", lr)
	}
	cancel()
	if st := <-status; st != 0 {
		t.Fatalf("recom serve exited %d:\n%s", st, logs.text())
	}
}
