package serve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/serve/oippb"
)

// postInfer posts feeds to the small model's /infer as inferBody writes
// them (the inputs in bin as binary data, with the binary header).
func (f *fixture) postInfer(t testing.TB, feeds map[string]*interp.Tensor, bin map[string]bool) (int, []byte) {
	req, n := inferBody(t, f.srv.Signature(), feeds, bin)
	var hdr []string
	if n >= 0 {
		hdr = []string{binaryHeader, strconv.Itoa(n)}
	}
	return f.post(t, "/v2/models/small/infer", req, hdr...)
}

// allBinary names every input of sig: inferBody then sends them all as
// binary data (a request decodeInferRaw reads).
func allBinary(sig *Signature) map[string]bool {
	m := map[string]bool{}
	for _, in := range sig.Inputs {
		m[in.Key] = true
	}
	return m
}

// sameAsDecodeInfer fails unless decodeInfer reads body into what
// decodeInferRaw read (req, f): the same id, outputs and inputs.
func sameAsDecodeInfer(t testing.TB, body []byte, jsonLen int, sig *Signature, req *inferRequest, f *rawFeeds) {
	t.Helper()
	gen, err := decodeInfer(body, jsonLen, sig)
	if err != nil {
		t.Fatalf("decodeInferRaw read a body decodeInfer refuses: %v", err)
	}
	if req.id != gen.id || fmt.Sprint(req.outputs) != fmt.Sprint(gen.outputs) {
		t.Fatalf("id and outputs %q %v, decodeInfer's %q %v", req.id, req.outputs, gen.id, gen.outputs)
	}
	for k, g := range gen.feeds {
		got, err := f.tensor(sig, k)
		if err != nil {
			t.Fatalf("input %d: %v", k, err)
		}
		if got.DType() != g.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(g.Shape()) || fmt.Sprintf("%#v", got.Data()) != fmt.Sprintf("%#v", g.Data()) {
			t.Fatalf("input %d: %v, decodeInfer's %v", k, got, g)
		}
		if f.rows != g.Dim(0) {
			t.Fatalf("rows %d, input %d has %d", f.rows, k, g.Dim(0))
		}
	}
}

// TestDecodeInferRawForms: the forms clients write binary requests in are
// read by decodeInferRaw (it does not fall back), into what decodeInfer
// reads; requests it leaves to decodeInfer are those it must.
func TestDecodeInferRawForms(t *testing.T) {
	sig := mixedSig
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	// s: BYTES [-1]; ids: INT64 [-1,2]; x: FP32 [-1,-1]; b: BOOL [-1].
	bin := "\x01\x00\x00\x00a\x02\x00\x00\x00bc" + // s: "a", "bc"
		"\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00" + // ids
		"\x00\x00\x80\x3f\x00\x00\x00\x40" + // x: 1, 2
		"\x01\x00" // b: true, false
	inputs := []string{
		`{"name":"s","datatype":"BYTES","shape":[2],"parameters":{"binary_data_size":11}}`,
		`{"name":"ids","datatype":"INT64","shape":[2,2],"parameters":{"binary_data_size":32}}`,
		`{"name":"x","datatype":"FP32","shape":[2,1],"parameters":{"binary_data_size":8}}`,
		`{"name":"b","datatype":"BOOL","shape":[2],"parameters":{"binary_data_size":2}}`,
	}
	join := func(in []string) string { return strings.Join(in, ",") }
	takes := map[string]string{
		"compact, in order": `{"inputs":[` + join(inputs) + `]}`,
		"id, outputs, spaces, keys in another order": `{ "id" : "r-1", "inputs" : [ ` +
			strings.ReplaceAll(strings.ReplaceAll(join(inputs), `":`, `": `), `,"`, `, "`) + ` ], "outputs": [{"name": "y", "parameters": {"binary_data": false}}] }`,
		"sorted keys (Go's encoding/json)": `{"id":"1","inputs":[` + strings.Join([]string{
			`{"datatype":"BYTES","name":"s","parameters":{"binary_data_size":11},"shape":[2]}`,
			`{"datatype":"INT64","name":"ids","parameters":{"binary_data_size":32},"shape":[2,2]}`,
			`{"datatype":"FP32","name":"x","parameters":{"binary_data_size":8},"shape":[2,1]}`,
			`{"datatype":"BOOL","name":"b","parameters":{"binary_data_size":2},"shape":[2]}`}, ",") + `]}`,
		"other parameters": `{"inputs":[` + strings.Replace(join(inputs), `{"binary_data_size":11}`, `{"x": [1, {"y": null}], "binary_data_size":11, "z": "w"}`, 1) + `],"parameters":{"p":1}}`,
	}
	for what, hdr := range takes {
		body := []byte(hdr + bin)
		req, f, ok := decodeInferRaw(body, len(hdr), &sig, 64, nil)
		if !ok {
			t.Errorf("%s: not read by decodeInferRaw: %s", what, hdr)
			continue
		}
		sameAsDecodeInfer(t, body, len(hdr), &sig, req, f)
		putRawFeeds(f)
	}
	// Out of the signature's order: the binary data follows the list's.
	rev := `{"inputs":[` + join([]string{inputs[3], inputs[2], inputs[1], inputs[0]}) + `]}`
	revBin := bin[len(bin)-2:] + bin[len(bin)-10:len(bin)-2] + bin[11:43] + bin[:11]
	body := []byte(rev + revBin)
	req, f, ok := decodeInferRaw(body, len(rev), &sig, 64, nil)
	if !ok {
		t.Fatalf("inputs out of order: not read")
	}
	sameAsDecodeInfer(t, body, len(rev), &sig, req, f)

	leaves := map[string]string{
		"JSON data":         strings.Replace(join(inputs), `"parameters":{"binary_data_size":2}`, `"data":[true,false]`, 1),
		"an escape":         strings.Replace(join(inputs), `"name":"x"`, `"name":"\u0078"`, 1),
		"a missing input":   join(inputs[:3]),
		"an input twice":    join(append(inputs[:4:4], inputs[3])),
		"a key twice":       strings.Replace(join(inputs), `"shape":[2,1]`, `"shape":[2,1],"shape":[2,1]`, 1),
		"an unknown key":    strings.Replace(join(inputs), `"shape":[2,1]`, `"shape":[2,1],"q":1`, 1),
		"a wrong datatype":  strings.Replace(join(inputs), `"FP32"`, `"FP64"`, 1),
		"a wrong size":      strings.Replace(join(inputs), `"binary_data_size":8`, `"binary_data_size":7`, 1),
		"rows that differ":  strings.Replace(join(inputs), `"shape":[2,1]`, `"shape":[1,2]`, 1),
		"a fixed dimension": strings.Replace(join(inputs), `"shape":[2,2]`, `"shape":[1,4]`, 1),
		"a leading zero":    strings.Replace(join(inputs), `"shape":[2]`, `"shape":[02]`, 1),
		"a negative size":   strings.Replace(join(inputs), `"binary_data_size":2`, `"binary_data_size":-2`, 1),
		"an unknown input":  strings.Replace(join(inputs), `"name":"b"`, `"name":"c"`, 1),
	}
	for what, in := range leaves {
		hdr := `{"inputs":[` + in + `]}`
		if _, _, ok := decodeInferRaw([]byte(hdr+bin), len(hdr), &sig, 64, nil); ok {
			t.Errorf("%s: read by decodeInferRaw: %s", what, hdr)
		}
	}
	// Too many rows for the server, bytes left over, a body cut short.
	hdr := takes["compact, in order"]
	for what, c := range map[string]struct {
		body    string
		maxRows int
	}{"rows": {hdr + bin, 1}, "left over": {hdr + bin + "x", 64}, "cut": {hdr + bin[:len(bin)-1], 64}} {
		if _, _, ok := decodeInferRaw([]byte(c.body), len(hdr), &sig, c.maxRows, nil); ok {
			t.Errorf("%s: read by decodeInferRaw", what)
		}
	}
}

// FuzzDecodeInferRaw: whatever decodeInferRaw reads, decodeInfer reads
// the same, and Server.run would take (rows within the limit, one row
// count); with a template, a body misses its rows' instantiation exactly
// when it misses the template (rawInst).
func FuzzDecodeInferRaw(f *testing.F) {
	hdr := `{"id":"1","inputs":[{"name":"s","datatype":"BYTES","shape":[1],"parameters":{"binary_data_size":5}},` +
		`{"name":"ids","datatype":"INT64","shape":[1,2],"parameters":{"binary_data_size":16}},` +
		`{"name":"x","datatype":"FP32","shape":[1,1],"parameters":{"binary_data_size":4}},` +
		`{"name":"b","datatype":"BOOL","shape":[1],"parameters":{"binary_data_size":1}}],"outputs":[{"name":"y"}]}`
	bin := "\x01\x00\x00\x00a" + "\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00" + "\x00\x00\x80\x3f" + "\x01"
	f.Add([]byte(hdr+bin), len(hdr))
	f.Add([]byte(strings.ReplaceAll(hdr, `":`, `" : `)+bin), len(strings.ReplaceAll(hdr, `":`, `" : `)))
	f.Add([]byte(`{"inputs": [{"shape": [1], "name": "b", "parameters": {"binary_data_size": 1, "q": [2]}, "datatype": "BOOL"}]}`+"\x01"), 101)
	// Bodies of the templates' forms, of other rows, widths and sizes.
	for _, sorted := range []bool{false, true} {
		for rows := 1; rows <= 5; rows++ {
			h, b := mixedRequest(rows, rows%3, sorted, nil)
			f.Add(append([]byte(h), b...), len(h))
		}
		h, b := mixedRequest(3, 2, sorted, func(name, shape, size string) (string, string) {
			if name == "s" {
				return shape, "16"
			}
			return shape, size
		})
		f.Add(append([]byte(h), b...), len(h))
	}
	sig := mixedSig
	if err := sig.check(); err != nil {
		f.Fatal(err)
	}
	// Templates learned from the first seed and from a body of sorted
	// keys: the fuzzed bodies are read by each, with its instantiations
	// and without (and by the input reader when they miss).
	const maxRows = 4
	var tmpls []*rawTemplate
	h, b := mixedRequest(1, 1, true, nil)
	for _, body := range []string{hdr + bin, h + string(b)} {
		var c rawCache
		n := len(hdr)
		if body != hdr+bin {
			n = len(h)
		}
		if _, raw, ok := decodeInferRaw([]byte(body), n, &sig, maxRows, &c); !ok || c.load() == nil {
			f.Fatal("a seed left no template")
		} else {
			putRawFeeds(raw)
		}
		tmpls = append(tmpls, c.load())
	}
	f.Fuzz(func(t *testing.T, body []byte, jsonLen int) {
		read := func(c *rawCache) bool {
			req, raw, ok := decodeInferRaw(body, jsonLen, &sig, maxRows, c)
			if !ok {
				return false
			}
			if raw.rows <= 0 || raw.rows > maxRows {
				t.Fatalf("%d rows", raw.rows)
			}
			sameAsDecodeInfer(t, body, jsonLen, &sig, req, raw)
			putRawFeeds(raw)
			return true
		}
		// lazyRead is read as the server reads a body it decodes while the
		// binary data arrive: BYTES elements checked after.
		lazyRead := func(c *rawCache) bool {
			req, raw, ok := decodeRawHeader(body, jsonLen, &sig, maxRows, c, true)
			if !ok {
				return false
			}
			if !checkRawStrings(raw, &sig) {
				putRawFeeds(raw)
				return false
			}
			sameAsDecodeInfer(t, body, jsonLen, &sig, req, raw)
			for k, in := range sig.Inputs { // the strings kept for the join
				if in.DType == interp.String {
					want, err := raw.tensor(&sig, k)
					if err != nil || fmt.Sprintf("%q", raw.strIn[k]) != fmt.Sprintf("%q", want.Strings()) {
						t.Fatalf("input %d's strings %q, decoded %v (%v)", k, raw.strIn[k], want, err)
					}
				}
			}
			putRawFeeds(raw)
			return true
		}
		ok := read(nil)
		if lazyRead(nil) != ok {
			t.Fatal("read lazily and not at once, or the other way")
		}
		for _, tm := range tmpls {
			var byInst, alone, lazy rawCache
			alone.noInst = true
			byInst.t.Store(tm)
			alone.t.Store(tm)
			lazy.t.Store(tm)
			if read(&byInst) != ok || read(&alone) != ok || lazyRead(&lazy) != ok {
				t.Fatal("read with a template and not without, or the other way")
			}
			if m, n := byInst.misses.Load(), alone.misses.Load(); m != n {
				t.Fatalf("%d misses by the instantiation, %d by the template", m, n)
			}
		}
	})
}

// TestFillRaw: a batch filled from raw inputs holds what one filled from
// their tensors holds, padding included.
func TestFillRaw(t *testing.T) {
	sig := mixedSig
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	hdr := `{"inputs":[{"name":"s","datatype":"BYTES","shape":[2],"parameters":{"binary_data_size":11}},` +
		`{"name":"ids","datatype":"INT64","shape":[2,2],"parameters":{"binary_data_size":32}},` +
		`{"name":"x","datatype":"FP32","shape":[2,1],"parameters":{"binary_data_size":8}},` +
		`{"name":"b","datatype":"BOOL","shape":[2],"parameters":{"binary_data_size":2}}]}`
	bin := "\x01\x00\x00\x00a\x02\x00\x00\x00bc" +
		"\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x80\x3f\x00\x00\x00\x40" + "\x01\x00"
	body := []byte(hdr + bin)
	_, raw, ok := decodeInferRaw(body, len(hdr), &sig, 64, nil)
	if !ok {
		t.Fatal("not read by decodeInferRaw")
	}
	gen, err := decodeInfer(body, len(hdr), &sig)
	if err != nil {
		t.Fatal(err)
	}
	rawReq := &request{raw: raw, rows: 2}
	tenReq := &request{feeds: gen.feeds, rows: 2}
	if a, b := rawReq.shapeKey(), tenReq.shapeKey(); a != b || a != ";2,;1,;;" {
		t.Fatalf("keys %q (raw) and %q (tensors), want both %q", a, b, ";2,;1,;;")
	}
	var got [2]string
	for i, r := range []*request{rawReq, tenReq} {
		lay, err := newBatchLayout(r, &sig, 8, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := lay.fill(r, 0, 2, 0, 4); err != nil {
			t.Fatal(err)
		}
		if err := lay.fill([]*request{tenReq, rawReq}[i], 2, 2, 0, 2); err != nil {
			t.Fatal(err)
		}
		if err := lay.fill([]*request{tenReq, rawReq}[i], 2, 2, 2, 4); err != nil {
			t.Fatal(err)
		}
		lay.padRows(0, 2)
		lay.padRows(2, 4)
		for _, f := range lay.feeds {
			got[i] += fmt.Sprint(f.Shape(), f.Data()) + ";"
		}
	}
	if got[0] != got[1] {
		t.Fatalf("raw first: %s\ntensors first: %s", got[0], got[1])
	}
	want := `[8] [a bc a bc bc bc bc bc];[8 2] [1 2 3 4 1 2 3 4 3 4 3 4 3 4 3 4];[8 1] [1 2 1 2 2 2 2 2];[8] [true false true false false false false false];`
	if got[0] != want {
		t.Fatalf("batch %s, want %s", got[0], want)
	}
	// A raw input that does not fit its part of the batch is refused.
	short := &rawFeeds{shapes: raw.shapes, data: append([][]byte{}, raw.data...), rows: 2}
	short.data[2] = short.data[2][:4]
	lay, err := newBatchLayout(rawReq, &sig, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := lay.fill(&request{raw: short, rows: 2}, 0, 2, 0, 4); err == nil || !strings.Contains(err.Error(), "input #2") {
		t.Fatalf("a short raw input: %v", err)
	}
}

// TestRawTemplate: a request read by the input reader leaves its list's
// template; requests of the same form and other row counts are read by
// it into what decodeInfer reads; a request of another form misses it and
// is still read, and once rawRelearn such requests in a row came, the
// template is theirs.
func TestRawTemplate(t *testing.T) {
	f := start(t, nil)
	sig := f.srv.Signature()
	var c rawCache
	read := func(rows int, seed uint64, edit func(string) string) *rawTemplate {
		t.Helper()
		body, n := inferBody(t, sig, f.prog.feeds(t, rows, seed), allBinary(sig))
		if edit != nil {
			hdr := edit(string(body[:n]))
			body, n = append([]byte(hdr), body[n:]...), len(hdr)
		}
		req, raw, ok := decodeInferRaw(body, n, sig, 64, &c)
		if !ok {
			t.Fatalf("%d rows: not read by decodeInferRaw", rows)
		}
		sameAsDecodeInfer(t, body, n, sig, req, raw)
		putRawFeeds(raw)
		return c.load()
	}
	first := read(1, 1, nil)
	if first == nil || len(first.ins) != len(sig.Inputs) {
		t.Fatalf("no template after the first request: %+v", first)
	}
	for i, rows := range []int{5, 33, 64, 10} {
		if got := read(rows, uint64(2+i), nil); got != first || c.misses.Load() != 0 {
			t.Fatalf("%d rows: the template missed (%d misses)", rows, c.misses.Load())
		}
	}
	// Another form: spaces after the colons.
	spaced := func(h string) string { return strings.ReplaceAll(h, `":`, `": `) }
	for i := range rawRelearn - 1 {
		if got := read(3, uint64(10+i), spaced); got != first {
			t.Fatalf("miss %d replaced the template", i+1)
		}
	}
	second := read(3, 20, spaced)
	if second == first || second == nil {
		t.Fatalf("after %d misses in a row the template is not the new form's", rawRelearn)
	}
	if got := read(7, 21, spaced); got != second || c.misses.Load() != 0 {
		t.Fatalf("the new form's template missed")
	}
}

// TestGRPCRawFeeds: a ModelInferRequest of raw_input_contents is read as
// rawFeeds into what grpcFeeds reads; one with typed contents, a wrong
// datatype or short contents is left to grpcFeeds.
func TestGRPCRawFeeds(t *testing.T) {
	f := start(t, nil)
	s, sig := f.srv, f.srv.Signature()
	for i, rows := range []int{1, 6, 40} {
		req := grpcRequest(sig, f.prog.feeds(t, rows, uint64(30+i)), true)
		raw, ok := s.grpcRawFeeds(req)
		if !ok {
			t.Fatalf("%d rows: not read as raw feeds", rows)
		}
		want, err := s.grpcFeeds(req)
		if err != nil {
			t.Fatal(err)
		}
		if raw.rows != int64(rows) {
			t.Fatalf("%d rows read as %d", rows, raw.rows)
		}
		for k, w := range want {
			got, err := raw.tensor(sig, k)
			if err != nil || fmt.Sprint(got.Shape(), got.Data()) != fmt.Sprint(w.Shape(), w.Data()) {
				t.Fatalf("%d rows, input %d: %v %v, grpcFeeds %v", rows, k, got, err, w)
			}
		}
		putRawFeeds(raw)
	}
	feeds := f.prog.feeds(t, 2, 40)
	for what, edit := range map[string]func(r *oippb.ModelInferRequest){
		"typed contents": func(r *oippb.ModelInferRequest) { *r = *grpcRequest(sig, feeds, false) },
		"a datatype":     func(r *oippb.ModelInferRequest) { r.Inputs[3].Datatype = "FP64" },
		"short contents": func(r *oippb.ModelInferRequest) { r.RawInputContents[5] = r.RawInputContents[5][1:] },
		"an input less":  func(r *oippb.ModelInferRequest) { r.Inputs, r.RawInputContents = r.Inputs[1:], r.RawInputContents[1:] },
	} {
		req := grpcRequest(sig, feeds, true)
		edit(req)
		if _, ok := s.grpcRawFeeds(req); ok {
			t.Errorf("%s: read as raw feeds", what)
		}
	}
}

// TestSignatureElements: Signature.elements is checkShape and
// interp.NumElements in one step, for specs that fix the row and those
// that do not, at the limits too.
func TestSignatureElements(t *testing.T) {
	big := interp.MaxElements
	sig := Signature{Inputs: []TensorSpec{
		{Key: "a", Shape: []int64{-1, 2, 3}}, {Key: "b", Shape: []int64{-1}}, {Key: "c", Shape: []int64{-1, -1}},
		{Key: "d", Shape: []int64{4, 2}}, {Key: "e", Shape: []int64{-1, 0}}, {Key: "f", UnknownRank: true},
		{Key: "g", Shape: []int64{-1, big / 2}},
	}, Outputs: []TensorSpec{{Key: "y", Name: "y", DType: interp.Float32}}}
	for i := range sig.Inputs {
		sig.Inputs[i].Name, sig.Inputs[i].DType = sig.Inputs[i].Key, interp.Float32
	}
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	shapes := [][]int64{{}, {0}, {1}, {3}, {-1}, {2, 2, 3}, {2, 3, 2}, {0, 2, 3}, {-2, 2, 3}, {big, 2, 3}, {big/6 + 1, 2, 3}, {big / 6, 2, 3},
		{4, 2}, {3, 2}, {5, 0}, {5, 1}, {2, big / 2}, {3, big / 2}, {7, 7, 7}, {1, -1}}
	for k, spec := range sig.Inputs {
		for _, sh := range shapes {
			got, ok := sig.elements(k, sh)
			want, err := interp.NumElements(sh)
			wok := spec.checkShape(sh) == nil && err == nil
			if ok != wok || (ok && got != want) {
				t.Errorf("%s %v: elements %d %v, checkShape and NumElements %d %v", spec.ShapeString(), sh, got, ok, want, wok)
			}
		}
	}
}

// TestSplitFill: a batch's first request split in two for the join (every
// request, here) fills and pads its batch as one job does, binary and
// JSON.
func TestSplitFill(t *testing.T) {
	defer func(b int64) { splitBytes = b }(splitBytes)
	splitBytes = 1
	f := start(t, func(c *Config) { c.Batch.Sizes = PowersOfTwo(64) }) // padded, as on the GPU
	sig := f.srv.Signature()
	for i, rows := range []int{1, 3, 5, 33} {
		feeds := f.prog.feeds(t, rows, uint64(50+i))
		want := f.prog.want(t, feeds)
		for _, bin := range []map[string]bool{nil, allBinary(sig)} {
			code, body := f.postInfer(t, feeds, bin)
			var r inferResponse
			if code != 200 || json.Unmarshal(body, &r) != nil {
				t.Fatalf("%d rows: %d %s", rows, code, body)
			}
			checkInferOutput(t, fmt.Sprintf("%d rows, split", rows), &r, want)
		}
	}
}
