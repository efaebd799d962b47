package serve

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/recom-compiler/recom/interp"
)

// TestViewsRun: binary requests that are batches by themselves run on
// views of their bodies and answer as the interpreter does, with views
// and with the copy; with padding (powers of two, as on the GPU) only
// the requests whose rows are a batch size take views.
func TestViewsRun(t *testing.T) {
	defer func(v bool) { viewBodies = v }(viewBodies)
	for _, tc := range []struct {
		name  string
		views bool
		sizes []int
		rows  []int
		want  int64 // requests run on views
	}{
		{"views", true, nil, []int{1, 3, 5, 33}, 4},
		{"copy", false, nil, []int{1, 3, 5, 33}, 0},
		{"padded", true, PowersOfTwo(64), []int{3, 4, 5, 32, 33}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			viewBodies = tc.views
			f := start(t, func(c *Config) { c.Batch.Sizes = tc.sizes })
			sig := f.srv.Signature()
			for i, rows := range tc.rows {
				feeds := f.prog.feeds(t, rows, uint64(70+i))
				want := f.prog.want(t, feeds)
				for range 2 { // the second from a pooled view set
					code, body := f.postInfer(t, feeds, allBinary(sig))
					var r inferResponse
					if code != 200 || json.Unmarshal(body, &r) != nil {
						t.Fatalf("%d rows: %d %s", rows, code, body)
					}
					checkInferOutput(t, fmt.Sprintf("%s, %d rows", tc.name, rows), &r, want)
				}
			}
			if got := f.srv.batcher.viewed.Load(); got != 2*tc.want {
				t.Errorf("%d requests ran on views, want %d", got, 2*tc.want)
			}
		})
	}
}

// TestViewsMisaligned: inputs after a BYTES input of odd length start at
// odd addresses; their views hold what decodeInfer reads (where the host
// allows such views; elsewhere the request is not viewed).
func TestViewsMisaligned(t *testing.T) {
	sig := Signature{Name: DefaultSignature, Method: PredictMethod, Inputs: []TensorSpec{
		{Key: "s", Name: "s", DType: interp.String, Shape: []int64{-1}},
		{Key: "x", Name: "x", DType: interp.Float32, Shape: []int64{-1, 2}},
		{Key: "i", Name: "i", DType: interp.Int64, Shape: []int64{-1}},
	}, Outputs: []TensorSpec{{Key: "y", Name: "y", DType: interp.Float32, Shape: []int64{-1, 2}}}}
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	hdr := `{"inputs":[{"name":"s","datatype":"BYTES","shape":[2],"parameters":{"binary_data_size":11}},` +
		`{"name":"x","datatype":"FP32","shape":[2,2],"parameters":{"binary_data_size":16}},` +
		`{"name":"i","datatype":"INT64","shape":[2],"parameters":{"binary_data_size":16}}]}`
	var bin []byte
	bin = binary.LittleEndian.AppendUint32(bin, 1)
	bin = append(bin, 'a')
	bin = binary.LittleEndian.AppendUint32(bin, 2)
	bin = append(bin, "bc"...)
	for _, v := range []float32{1.5, -2, 3.25, float32(math.Inf(1))} {
		bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(v))
	}
	bin = binary.LittleEndian.AppendUint64(bin, 1<<40+7)
	bin = binary.LittleEndian.AppendUint64(bin, math.MaxUint64-2) // -3
	buf, _ := getBody(len(hdr)+len(bin), len(hdr))
	body := append(append(buf, hdr...), bin...)
	req, f, ok := decodeInferRaw(body, len(hdr), &sig, 64, nil)
	if !ok {
		t.Fatal("not read by decodeInferRaw")
	}
	sameAsDecodeInfer(t, body, len(hdr), &sig, req, f)
	b := NewBatcher(&sig, nil, BatchOptions{}, nil, nil)
	defer b.Close()
	vs, ok := b.viewsOf(&request{raw: f, rows: int(f.rows)})
	if !unalignedViews {
		if ok {
			t.Fatal("misaligned inputs viewed on a host that does not allow it")
		}
		return
	}
	if !ok {
		t.Fatal("not viewed")
	}
	x := vs.byName["x"]
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(x.Float32s()))); p%4 == 0 {
		t.Fatalf("x's view is aligned (%#x): the test does not test misalignment", p)
	}
	for k, in := range sig.Inputs {
		want, err := f.tensor(&sig, k)
		if err != nil {
			t.Fatal(err)
		}
		got := vs.byName[in.Name]
		if fmt.Sprint(got.Shape(), got.Data()) != fmt.Sprint(want.Shape(), want.Data()) {
			t.Errorf("%s: view %v %v, decoded %v %v", in.Key, got.Shape(), got.Data(), want.Shape(), want.Data())
		}
	}
	vs.release(b)
}

// TestViewsHeld: a view a backend returns as an output is not given to a
// later request while its reply holds it (echo returns its feed).
func TestViewsHeld(t *testing.T) {
	b := NewBatcher(&doublerSig, echo{}, BatchOptions{MaxBatch: 64, InFlight: 1}, nil, nil)
	defer b.Close()
	var outs []*interp.Tensor
	for i, rows := range []int{2, 3} {
		x := rowsOf(rows, float32(10*i))
		raw := AppendRaw(nil, x)
		f := getRawFeeds(1)
		f.shapes[0], f.data[0], f.rows = x.Shape(), raw, int64(rows)
		out, _, err := b.doRaw(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out[0])
	}
	if b.viewed.Load() != 2 {
		t.Fatalf("%d requests viewed, want 2", b.viewed.Load())
	}
	if outs[0] == outs[1] || outs[0].Dim(0) != 2 || outs[0].Float32s()[2] != 1 {
		t.Fatalf("the first reply's output changed: %v", outs[0])
	}
}

// TestViewStrings4: viewStrings4 fills four inputs' strings as
// viewStrings does each, and fails exactly when one of them fails, for
// inputs of different counts and lengths, cut short, overlong, or with
// one element's length past the data.
func TestViewStrings4(t *testing.T) {
	elems := func(lens ...int) []byte {
		var b []byte
		for i, l := range lens {
			b = append(binary.LittleEndian.AppendUint32(b, uint32(l)), strings.Repeat(string(rune('a'+i%26)), l)...)
		}
		return b
	}
	views := []struct {
		raw []byte
		n   int
	}{
		{elems(), 0}, {elems(0), 1}, {elems(3, 0, 5), 3}, {elems(3, 0, 5), 2}, {elems(3, 0, 5), 4},
		{elems(3, 0, 5)[:12], 3}, {append(elems(1, 1), 0), 2}, {[]byte{0xff, 0xff, 0xff, 0xff}, 1},
		{elems(1, 2, 3, 4, 5, 6), 6}, {elems(2, 2), 2}, {[]byte{1, 0, 0}, 1}, {elems(7, 1, 0, 2, 9, 4, 4, 1), 8},
	}
	for i := range views {
		for j := range views {
			for _, k := range []int{0, 5, 11} {
				v := [4]int{i, j, k, (i + 2*j) % len(views)}
				var dst, want [4][]string
				var raw [4][]byte
				ok := true
				for l, x := range v {
					raw[l] = views[x].raw
					dst[l], want[l] = make([]string, views[x].n), make([]string, views[x].n)
					ok = viewStrings(want[l], raw[l]) && ok
				}
				if got := viewStrings4(&dst, &raw); got != ok {
					t.Fatalf("%v: viewStrings4 %v, viewStrings %v", v, got, ok)
				} else if ok && fmt.Sprintf("%q", dst) != fmt.Sprintf("%q", want) {
					t.Fatalf("%v: %q, want %q", v, dst, want)
				}
			}
		}
	}
}
