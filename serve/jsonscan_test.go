package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// mixedSig has an input of every kind the decoders distinguish.
var mixedSig = Signature{
	Name: DefaultSignature, Method: PredictMethod,
	Inputs: []TensorSpec{
		{Key: "s", Name: "s", DType: interp.String, Shape: []int64{-1}},
		{Key: "ids", Name: "ids", DType: interp.Int64, Shape: []int64{-1, 2}},
		{Key: "x", Name: "x", DType: interp.Float32, Shape: []int64{-1, -1}},
		{Key: "b", Name: "b", DType: interp.Bool, Shape: []int64{-1}},
	},
	Outputs: []TensorSpec{{Key: "y", Name: "y", DType: interp.Float32, Shape: []int64{-1}}},
}

var oneSig = Signature{
	Name: DefaultSignature, Method: PredictMethod,
	Inputs:  []TensorSpec{{Key: "examples", Name: "input_example_tensor", DType: interp.String, Shape: []int64{-1}}},
	Outputs: mixedSig.Outputs,
}

func TestScannerValues(t *testing.T) {
	cases := []struct {
		dt   interp.DType
		in   string
		want string // fmt of shape and data, or "error: substring"
	}{
		{interp.Float32, `[1, -2.5, 1e3, NaN, Infinity, -Infinity]`, "[6] [1 -2.5 1000 NaN +Inf -Inf]"},
		{interp.Float32, `[[1,2],[3,4],[5,6]]`, "[3 2] [1 2 3 4 5 6]"},
		{interp.Float32, `7`, "[] [7]"},
		{interp.Float32, `[[],[]]`, "[2 0] []"},
		{interp.Float32, `[]`, "[0] []"},
		{interp.Float32, `[[1],[2,3]]`, "error: ragged"},
		{interp.Float32, `[[1],2]`, "error: ragged"},
		{interp.Float32, `[1,[2]]`, "error: ragged"},
		{interp.Float32, `[[[]],[1]]`, "error: ragged"},
		{interp.Float32, `[1,]`, "error: expected a number"},
		{interp.Float32, `[01]`, "error: expected ']'"},
		{interp.Float32, `[1.]`, "error: no digits after a decimal point"},
		{interp.Float32, `[-]`, "error: expected a number"},
		{interp.Float32, `[3.4e39]`, "error: out of the range"},
		{interp.Int64, `[9223372036854775807, -9223372036854775808]`, "[2] [9223372036854775807 -9223372036854775808]"},
		{interp.Int64, `[9223372036854775808]`, "error: is not a DT_INT64 value"},
		{interp.Int64, `[1e3]`, "error: is not a DT_INT64 value"},
		{interp.Int64, `[NaN]`, "error: is not a DT_INT64 value"},
		{interp.Int32, `[2147483648]`, "error: is not a DT_INT32 value"},
		{interp.Uint8, `[255, 0]`, "[2] [255 0]"},
		{interp.Uint8, `[-1]`, "error: is not a DT_UINT8 value"},
		{interp.Bool, `[true, false]`, "[2] [true false]"},
		{interp.Bool, `[1]`, "error: expected true or false"},
		{interp.String, `["a\"b\\c\/d\n\u00e9\ud83d\ude00", "", "plain"]`, "[3] [a\"b\\c/d\né😀  plain]"},
		{interp.String, `["\ud800x"]`, "[1] [\ufffdx]"},
		{interp.String, `[{"b64": "AAEC/w=="}, {"b64": "AAEC_w"}]`, "[2] [\x00\x01\x02\xff \x00\x01\x02\xff]"},
		{interp.String, `[{"b64": "%%"}]`, "error: bad base64"},
		{interp.String, `[{"x": "a"}]`, "error: a binary value is"},
		{interp.String, `[{}]`, "error: found an empty object"},
		{interp.String, "[\"a\tb\"]", "error: control character"},
		{interp.String, `["abc`, "error: unterminated string"},
		{interp.String, `["\x"]`, "error: bad escape"},
		{interp.String, `["\u12"]`, "error: bad \\u escape"},
		{interp.String, `[null]`, "error: expected a string"},
		{interp.Float32, strings.Repeat("[", 70) + strings.Repeat("]", 70), "error: nested more than 64"},
	}
	for _, c := range cases {
		s := &scanner{buf: []byte(c.in)}
		tb := &tbuf{dt: c.dt}
		shape, err := s.nested(tb)
		if err == nil {
			err = s.end()
		}
		var got string
		if err != nil {
			got = "error: " + err.Error()
		} else {
			tt, terr := tb.tensor(shape)
			if terr != nil {
				t.Fatalf("%s: %v", c.in, terr)
			}
			got = fmt.Sprint(shape, " ", tt.Data())
			if strings.Contains(c.want, "NaN") {
				got = strings.ReplaceAll(got, fmt.Sprint(float32(math.NaN())), "NaN")
			}
		}
		if strings.HasPrefix(c.want, "error: ") {
			if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, strings.TrimPrefix(c.want, "error: ")) {
				t.Errorf("%s (%v): got %q, want an error with %q", c.in, c.dt, got, c.want)
			}
		} else if got != c.want {
			t.Errorf("%s (%v): got %q, want %q", c.in, c.dt, got, c.want)
		}
	}
}

func TestDecodePredictForms(t *testing.T) {
	_, err := decodePredict([]byte(`{"instances": [
		{"s": "a", "ids": [1, 2], "x": [0.5], "b": true},
		{"b": false, "x": [1.5], "ids": [3, 4], "s": {"b64": "Yg=="}, "ignored": 1}
	], "other": {"a": [1, {"b": null}]}}`), &mixedSig)
	if err == nil {
		err = fmt.Errorf("no error")
	}
	if !strings.Contains(err.Error(), `instances[1]: "ignored" is not an input`) {
		t.Errorf("an unknown key in an instance: %v", err)
	}
	req, err := decodePredict([]byte(`{"instances": [
		{"s": "a", "ids": [1, 2], "x": [0.5], "b": true},
		{"b": false, "x": [1.5], "ids": [3, 4], "s": {"b64": "Yg=="}}
	], "other": {"a": [1, {"b": null}]}}`), &mixedSig)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(req.feeds[0].Strings(), req.feeds[1].Shape(), req.feeds[1].Int64s(), req.feeds[2].Shape(), req.feeds[2].Float32s(), req.feeds[3].Bools())
	if want := "[a b] [2 2] [1 2 3 4] [2 1] [0.5 1.5] [true false]"; got != want || req.columnar {
		t.Errorf("instances: %s, want %s", got, want)
	}
	req, err = decodePredict([]byte(`{"inputs": {"s": ["a", "b"], "ids": [[1, 2], [3, 4]], "x": [[1, 2, 3], [4, 5, 6]], "b": [true, true]}}`), &mixedSig)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(req.feeds[2].Shape()); got != "[2 3]" || !req.columnar {
		t.Errorf("inputs: x has shape %s", got)
	}
	// One input: the values themselves, {"b64": ...} among them.
	for _, body := range []string{
		`{"instances": [{"b64": "AQI="}, "x"]}`,
		`{"instances": [{"examples": {"b64": "AQI="}}, {"examples": "x"}]}`,
		`{"inputs": [{"b64": "AQI="}, "x"]}`,
		`{"inputs": {"examples": [{"b64": "AQI="}, "x"]}}`,
	} {
		req, err := decodePredict([]byte(body), &oneSig)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got := fmt.Sprintf("%q", req.feeds[0].Strings()); got != `["\x01\x02" "x"]` {
			t.Errorf("%s: %s", body, got)
		}
	}
	// Rows of one input must have one shape.
	if _, err := decodePredict([]byte(`{"instances": [{"s": "a", "ids": [1, 2], "x": [0.5], "b": true}, {"s": "a", "ids": [1, 2], "x": [0.5, 1], "b": true}]}`), &mixedSig); err == nil || !strings.Contains(err.Error(), "instances[1].x: the value has shape [2], the first row's has [1]") {
		t.Errorf("rows of two shapes: %v", err)
	}
}

// TestEncodePredict: responses are the JSON TensorFlow Serving writes and
// read back exactly.
func TestEncodePredict(t *testing.T) {
	sig := Signature{Outputs: []TensorSpec{{Key: "p"}, {Key: "id_bytes"}}}
	p := interp.Must(interp.New([]int64{2, 1}, []float32{0.1, float32(math.Inf(1))}))
	ids := interp.Must(interp.New([]int64{2}, []string{"a\"\n", "\xff"}))
	got := string(encodePredict(nil, false, &sig, []*interp.Tensor{p, ids}))
	want := `{"predictions":[{"p":[0.1],"id_bytes":{"b64":"YSIK"}},{"p":[Infinity],"id_bytes":{"b64":"/w=="}}]}` + "\n"
	if got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
	got = string(encodePredict(nil, true, &Signature{Outputs: []TensorSpec{{Key: "s"}}}, []*interp.Tensor{ids}))
	want = `{"outputs":["a\"\n",{"b64":"/w=="}]}` + "\n"
	if got != want {
		t.Errorf("columns:\n got %s\nwant %s", got, want)
	}
	v := []float32{1.0000001, 3.4028235e38, -1.1754944e-38, 0}
	b := appendFlat(nil, interp.Must(interp.New([]int64{4}, v)))
	var back []float32
	if err := json.Unmarshal(b, &back); err != nil || fmt.Sprint(back) != fmt.Sprint(v) {
		t.Errorf("floats %v written as %s read back as %v (%v)", v, b, back, err)
	}
}

func TestDecodeRaw(t *testing.T) {
	for _, tt := range []*interp.Tensor{
		interp.Must(interp.New([]int64{2, 2}, []float32{1, -2, 3.5, 0})),
		interp.Must(interp.New([]int64{3}, []int64{-1, 1 << 40, 7})),
		interp.Must(interp.New([]int64{3}, []string{"", "ab", "\x00c"})),
		interp.Must(interp.New([]int64{2}, []bool{true, false})),
		interp.Must(interp.New([]int64{2}, []int8{-3, 4})),
	} {
		raw := AppendRaw(nil, tt)
		back, err := decodeRaw(tt.DType(), tt.Shape(), raw)
		if err != nil || back.Equal(tt) != nil {
			t.Errorf("%v: read back as %v (%v)", tt, back, err)
		}
		if len(raw) > 0 {
			if _, err := decodeRaw(tt.DType(), tt.Shape(), raw[:len(raw)-1]); err == nil {
				t.Errorf("%v: a truncated raw tensor was read", tt)
			}
		}
	}
	if _, err := decodeRaw(interp.String, []int64{1}, []byte{255, 255, 255, 255, 'a'}); err == nil || !strings.Contains(err.Error(), "has length 4294967295") {
		t.Errorf("a string longer than the data: %v", err)
	}
	if _, err := decodeRaw(interp.String, []int64{1 << 40}, nil); err == nil {
		t.Error("a shape of 2^40 strings was read from no data")
	}
}

// FuzzDecodePredict: no body makes the :predict decoder panic, and what
// it accepts fits the signature.
func FuzzDecodePredict(f *testing.F) {
	for _, s := range []string{
		`{"instances": [{"s": "a", "ids": [1, 2], "x": [0.5], "b": true}]}`,
		`{"inputs": {"s": ["a"], "ids": [[1, 2]], "x": [[1]], "b": [false]}}`,
		`{"signature_name": "serving_default", "instances": [{"s": {"b64": "YQ=="}, "ids": [1, 2], "x": [NaN, -Infinity], "b": true}]}`,
		`{"instances": [[[[[`, `{"inputs": "\u0000"}`, `[1e999]`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, one bool) {
		sig := &mixedSig
		if one {
			sig = &oneSig
		}
		req, err := decodePredict(body, sig)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v (%T) is not a request error", err, err)
			}
			return
		}
		for i, t2 := range req.feeds {
			if t2 == nil || t2.DType() != sig.Inputs[i].DType {
				t.Fatalf("input %d: %v", i, t2)
			}
		}
	})
}

// FuzzDecodeInfer: the same for the Open Inference Protocol's body, with
// and without binary data.
func FuzzDecodeInfer(f *testing.F) {
	f.Add([]byte(`{"id": "1", "inputs": [{"name": "s", "shape": [1], "datatype": "BYTES", "data": ["a"]}, {"name": "ids", "shape": [1, 2], "datatype": "INT64", "data": [[1, 2]]}, {"name": "x", "shape": [1, 1], "datatype": "FP32", "data": [1]}, {"name": "b", "shape": [1], "datatype": "BOOL", "data": [true]}], "outputs": [{"name": "y"}]}`), -1)
	f.Add([]byte(`{"inputs": [{"name": "x", "shape": [1, 1], "datatype": "FP32", "parameters": {"binary_data_size": 4}}]}`+"\x00\x00\x80\x3f"), 88)
	f.Add([]byte(`{"inputs": [{"name": "s", "shape": [2], "datatype": "BYTES", "parameters": {"binary_data_size": 9}}]}`+"\x01\x00\x00\x00a\x00\x00\x00\x00"), 94)
	f.Add([]byte(`{"inputs": [{"name": "x", "shape": [1, 1], "datatype": "FP32", "parameters": {"binary\u005fdata_size": 4, "p": [1, {"q": "r"}]}}, {"shape": [ 2 ], "datatype": "INT64", "name": "ids", "data": [1, 2], "x": 1}]}`+"\x00\x00\x80\x3f"), 208)
	f.Add([]byte(`{"inputs": [{"name": "x", "shape": [01, 1], "datatype": "FP32", "data": [1]}, {"name": "x", "name": "ids", "shape": [1, 2], "shape": [2], "datatype": "INT64", "data": [1, 2]}]}`), -1)
	f.Fuzz(func(t *testing.T, body []byte, jsonLen int) {
		req, err := decodeInfer(body, jsonLen, &mixedSig)
		// The plain inputs' fast reader agrees with the general one.
		gen, gerr := decodeInferWith(body, jsonLen, &mixedSig, false)
		switch {
		case (err == nil) != (gerr == nil):
			t.Fatalf("the fast reader says %v, the general %v", err, gerr)
		case err != nil && err.Error() != gerr.Error():
			t.Fatalf("the fast reader's error %q, the general's %q", err, gerr)
		case err == nil && (req.id != gen.id || fmt.Sprint(req.outputs) != fmt.Sprint(gen.outputs)):
			t.Fatalf("the fast reader's id and outputs %q %v, the general's %q %v", req.id, req.outputs, gen.id, gen.outputs)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v (%T) is not a request error", err, err)
			}
			return
		}
		for i, t2 := range req.feeds {
			if t2 == nil || t2.DType() != mixedSig.Inputs[i].DType {
				t.Fatalf("input %d: %v", i, t2)
			}
			g := gen.feeds[i]
			if fmt.Sprint(t2.Shape()) != fmt.Sprint(g.Shape()) || fmt.Sprintf("%#v", t2.Data()) != fmt.Sprintf("%#v", g.Data()) {
				t.Fatalf("input %d: fast %v, general %v", i, t2, g)
			}
			// Inputs share arrays (dataArena): none may reach past its
			// elements into another's.
			if d := reflect.ValueOf(t2.Data()); d.Cap() != d.Len() {
				t.Fatalf("input %d: %d elements with capacity %d", i, d.Len(), d.Cap())
			}
		}
	})
}

// TestOIPInputFast checks that inputs as clients write them are read by
// the fast reader (it does not fall back), with what the general reader
// gives.
func TestOIPInputFast(t *testing.T) {
	for _, in := range []string{
		`{"name":"ids","shape":[64,2],"datatype":"INT64","parameters":{"binary_data_size":1024}}`,
		`{ "name" : "s", "datatype": "BYTES", "shape": [ 3 ], "data": ["a", "b", "c"] }`,
		`{"name": "x", "shape": [], "datatype": "FP32", "parameters": {"other": [1, "2"], "binary_data_size": 0}}`,
	} {
		shapes := make([]int64, 0, 8)
		var fast oipInput
		fast.binSize = -1
		s := &scanner{buf: []byte(in)}
		if !s.oipInputFast(&fast, &shapes) || s.pos != len(in) {
			t.Fatalf("%s: not read by the fast reader (stopped at %d)", in, s.pos)
		}
		var gen oipInput
		gen.binSize = -1
		g := &scanner{buf: []byte(in), general: true}
		if err := g.oipInput(0, &gen, &shapes); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(fast.name, fast.datatype, fast.shape, fast.haveShape, string(fast.data), fast.dataAt, fast.binSize) !=
			fmt.Sprint(gen.name, gen.datatype, gen.shape, gen.haveShape, string(gen.data), gen.dataAt, gen.binSize) {
			t.Errorf("%s: fast %+v, general %+v", in, fast, gen)
		}
	}
}

// TestOIPReadData: an input whose datatype and shape come before its
// data has its data read with it, in one pass (readData), spanning what
// the general reader spans; one whose data comes first is spanned only.
func TestOIPReadData(t *testing.T) {
	for in, wantRead := range map[string]bool{
		`{"name": "x", "datatype": "FP32", "shape": [2, 2], "data": [[1, 2.5], [-3, 4e1]]}`: true,
		`{"name":"s","shape":[3],"datatype":"BYTES","data":["a","b","c"]}`:                  true,
		`{"name": "ids", "data": [1, 2], "shape": [2], "datatype": "INT64"}`:                false,
		`{"name": "x", "datatype": "FP16", "shape": [1], "data": [1]}`:                      false,
	} {
		var arena dataArena
		shapes := make([]int64, 0, 8)
		fast := oipInput{binSize: -1}
		s := &scanner{buf: []byte(in), arena: &arena}
		if !s.oipInputFast(&fast, &shapes) || s.pos != len(in) {
			t.Fatalf("%s: not read by the fast reader", in)
		}
		gen := oipInput{binSize: -1}
		g := &scanner{buf: []byte(in), general: true}
		if err := g.oipInput(0, &gen, &shapes); err != nil {
			t.Fatal(err)
		}
		if fast.hasRead != wantRead || string(fast.data) != string(gen.data) || fast.dataAt != gen.dataAt {
			t.Errorf("%s: read %v, data %q at %d; general: %q at %d", in, fast.hasRead, fast.data, fast.dataAt, gen.data, gen.dataAt)
		}
		if fast.hasRead {
			var x, y interp.Tensor
			if err := dataTensor(&fast.read, fast.shape, &x); err != nil {
				t.Fatal(err)
			}
			dt := oipTypes[fast.datatype]
			if err := decodeData(dt, gen.shape, gen.data, gen.dataAt, &dataArena{}, &y); err != nil {
				t.Fatal(err)
			}
			if x.Equal(&y) != nil {
				t.Errorf("%s: read %v, decodeData %v", in, &x, &y)
			}
		}
	}
}
