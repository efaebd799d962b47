package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
)

// zeros is a backend that answers instantly with a [B, 1] prediction: what
// is left of a request's time is the server's own (HTTP, decoding,
// checks, batching, encoding).
type zeros struct{ input string }

func (z zeros) Name() string { return "zeros" }
func (z zeros) Close() error { return nil }
func (z zeros) Run(_ context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	n := feeds[z.input].Dim(0)
	return map[string]*interp.Tensor{"prediction": interp.Must(interp.New([]int64{n, 1}, make([]float32, n)))}, nil
}

// BenchmarkServerOverhead is the server's own time per request for preset
// E (1000 columns, 1001 inputs) and the bundled model, by protocol and
// rows: one client, requests one after another over loopback HTTP, a
// backend that costs nothing. The server-overhead target of issue #20
// compares it with the GPU's end-to-end latency.
func BenchmarkServerOverhead(b *testing.B) {
	for _, preset := range []string{"small", "E"} {
		spec, err := gen.Preset(preset)
		if err != nil {
			b.Fatal(err)
		}
		m, err := gen.Generate(spec, gen.Options{NoTableValues: true})
		if err != nil {
			b.Fatal(err)
		}
		data, err := gen.MarshalGraph(m.Graph)
		if err != nil {
			b.Fatal(err)
		}
		res, err := compiler.CompileBytes(context.Background(), preset+".pb", data, compiler.Options{StopAfter: compiler.StageImport})
		if err != nil {
			b.Fatal(err)
		}
		sig, err := SignatureOf(res.Module, res, []string{"prediction"})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := New(Config{Name: preset, Signature: sig, Backend: zeros{sig.Inputs[0].Name}, Batch: BatchOptions{MaxBatch: 256, Timeout: 0}})
		if err != nil {
			b.Fatal(err)
		}
		srv.SetReady(true)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		hs := &http.Server{Handler: srv.Handler()}
		go hs.Serve(l)
		client := &http.Client{}
		for _, rows := range []int{1, 64} {
			arrays, err := gen.Feeds(spec, rows, 1)
			if err != nil {
				b.Fatal(err)
			}
			feeds := map[string]*interp.Tensor{}
			for _, a := range arrays {
				feeds[a.Name] = a.Tensor
			}
			bodies := map[string][]byte{"tfserving": instancesBody(b, feeds, false)}
			bodies["oip"], _ = inferBody(b, &sig, feeds, nil)
			all := allBinary(&sig)
			var jsonLen int
			bodies["oip-binary"], jsonLen = inferBody(b, &sig, feeds, all)
			for _, proto := range []string{"tfserving", "oip", "oip-binary"} {
				path := "/v1/models/" + preset + ":predict"
				if proto != "tfserving" {
					path = "/v2/models/" + preset + "/infer"
				}
				body := bodies[proto]
				b.Run(fmt.Sprintf("%s/%s/rows=%d", preset, proto, rows), func(b *testing.B) {
					b.SetBytes(int64(len(body)))
					for b.Loop() {
						req, _ := http.NewRequest(http.MethodPost, "http://"+l.Addr().String()+path, bytes.NewReader(body))
						if proto == "oip-binary" {
							req.Header.Set(binaryHeader, strconv.Itoa(jsonLen))
						}
						resp, err := client.Do(req)
						if err != nil {
							b.Fatal(err)
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							b.Fatalf("%d", resp.StatusCode)
						}
					}
				})
			}
		}
		hs.Close()
		srv.Close()
	}
}
