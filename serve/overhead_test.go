package serve

import (
	"context"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// TestOverheadMetric: recom_serve_overhead_seconds gets one observation per
// answered inference request of each protocol (none for a refused one),
// each less than the request's whole time in the server.
func TestOverheadMetric(t *testing.T) {
	f := start(t, nil)
	sig := f.srv.Signature()
	feeds := f.prog.feeds(t, 3, 7)
	for range 3 {
		if code, body := f.post(t, "/v1/models/small:predict", instancesBody(t, feeds, false)); code != 200 {
			t.Fatalf("predict: %d %s", code, body)
		}
	}
	if code, _ := f.post(t, "/v1/models/small:predict", []byte(`{"instances": 1}`)); code != 400 {
		t.Fatalf("a bad request answered %d", code)
	}
	for range 2 {
		body, _ := inferBody(t, sig, feeds, nil)
		if code, resp := f.post(t, "/v2/models/small/infer", body); code != 200 {
			t.Fatalf("infer: %d %s", code, resp)
		}
	}
	c := dialGRPC(t, f.grpcAddr)
	for i := range 4 {
		if _, err := c.ModelInfer(context.Background(), grpcRequest(sig, feeds, i%2 == 0)); err != nil {
			t.Fatal(err)
		}
	}
	// Once stopped, every call's end was seen (gRPC's after its response
	// was sent).
	if err := f.stop(t); err != nil {
		t.Fatal(err)
	}
	mfs, err := f.srv.met.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	hist := map[string]map[string]*dto.Histogram{}
	stages := map[string]map[string]*dto.Histogram{} // protocol, stage
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			proto, stage := "", ""
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "protocol":
					proto = l.GetValue()
				case "stage":
					stage = l.GetValue()
				}
			}
			if mf.GetName() == "recom_serve_overhead_stage_seconds" {
				if stages[proto] == nil {
					stages[proto] = map[string]*dto.Histogram{}
				}
				stages[proto][stage] = m.GetHistogram()
			}
			if m.GetHistogram() != nil && (mf.GetName() == "recom_serve_overhead_seconds" || mf.GetName() == "recom_serve_request_duration_seconds") {
				if hist[mf.GetName()] == nil {
					hist[mf.GetName()] = map[string]*dto.Histogram{}
				}
				hist[mf.GetName()][proto] = m.GetHistogram()
			}
		}
	}
	for proto, want := range map[string]uint64{"tfserving": 3, "oip-http": 2, "oip-grpc": 4} {
		h := hist["recom_serve_overhead_seconds"][proto]
		if h == nil || h.GetSampleCount() != want {
			t.Errorf("%s: %v overhead observations, want %d", proto, h.GetSampleCount(), want)
			continue
		}
		if h.GetSampleSum() <= 0 {
			t.Errorf("%s: the overheads sum to %v s", proto, h.GetSampleSum())
		}
		// Each stage once a request, together at most the overhead.
		sum := 0.0
		for _, st := range []string{"read", "decode", "queue", "join", "split", "respond"} {
			g := stages[proto][st]
			if g == nil || g.GetSampleCount() != want {
				t.Errorf("%s: stage %s observed %v times, want %d", proto, st, g.GetSampleCount(), want)
				continue
			}
			sum += g.GetSampleSum()
		}
		if sum > h.GetSampleSum()*1.0001 {
			t.Errorf("%s: the stages sum to %v s, more than the overheads' %v s", proto, sum, h.GetSampleSum())
		}
		if d := hist["recom_serve_request_duration_seconds"][proto]; d == nil || h.GetSampleSum() >= d.GetSampleSum() {
			t.Errorf("%s: the overheads (%v s) are not less than the requests' whole times (%v s)", proto, h.GetSampleSum(), d.GetSampleSum())
		}
	}
}
