package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// rowSig has scalar rows of every dtype instanceRow reads itself, and one
// input it leaves to the general reader.
var rowSig = Signature{
	Name: DefaultSignature, Method: PredictMethod,
	Inputs: []TensorSpec{
		{Key: "f", Name: "f", DType: interp.Float32, Shape: []int64{-1}},
		{Key: "d", Name: "d", DType: interp.Float64, Shape: []int64{-1}},
		{Key: "i", Name: "i", DType: interp.Int64, Shape: []int64{-1}},
		{Key: "j", Name: "j", DType: interp.Int32, Shape: []int64{-1}},
		{Key: "s", Name: "s", DType: interp.String, Shape: []int64{-1}},
		{Key: "v", Name: "v", DType: interp.Float32, Shape: []int64{-1, 2}},
	},
	Outputs: mixedSig.Outputs,
}

// oddSig has keys written with escapes in JSON (a row's keys are not
// matched in place against them).
var oddSig = Signature{
	Name: DefaultSignature, Method: PredictMethod,
	Inputs: []TensorSpec{
		{Key: `k\`, Name: "k", DType: interp.Float32, Shape: []int64{-1}},
		{Key: `q"`, Name: "q", DType: interp.Float32, Shape: []int64{-1}},
		{Key: `k`, Name: "k2", DType: interp.Float32, Shape: []int64{-1}},
	},
	Outputs: mixedSig.Outputs,
}

func init() {
	for _, sig := range []*Signature{&rowSig, &oddSig} {
		if err := sig.check(); err != nil {
			panic(err)
		}
	}
}

// sameDecode checks that the fast, the parallel and the general row
// readers agree on body: the same tensors, or the same error.
func sameDecode(t *testing.T, body []byte, sig *Signature) {
	t.Helper()
	fast, ferr := decodePredictWith(body, sig, true)
	gen, gerr := decodePredictWith(body, sig, false)
	// The parallel reader, on any body in runs of two rows and up.
	b0, c0, r0 := instancesParallelBytes, instancesChunks, instancesRunBytes
	instancesParallelBytes, instancesChunks, instancesRunBytes = 0, 3, 0
	par, perr := decodePredictWith(body, sig, true)
	instancesParallelBytes, instancesChunks, instancesRunBytes = b0, c0, r0
	switch {
	case (ferr == nil) != (gerr == nil):
		t.Fatalf("%q: the fast reader says %v, the general %v", body, ferr, gerr)
	case (perr == nil) != (gerr == nil):
		t.Fatalf("%q: the parallel reader says %v, the general %v", body, perr, gerr)
	case ferr != nil:
		if ferr.Error() != gerr.Error() || perr.Error() != gerr.Error() {
			t.Fatalf("%q: the fast reader's error %q, the parallel's %q, the general's %q", body, ferr, perr, gerr)
		}
		return
	}
	for k := range fast.feeds {
		a, b := fast.feeds[k], gen.feeds[k]
		if fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) || fmt.Sprintf("%#v", a.Data()) != fmt.Sprintf("%#v", b.Data()) {
			t.Fatalf("%q: input %q: fast %v, general %v", body, sig.Inputs[k].Key, a, b)
		}
	}
	for k := range par.feeds {
		a, b := par.feeds[k], gen.feeds[k]
		if fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) || fmt.Sprintf("%#v", a.Data()) != fmt.Sprintf("%#v", b.Data()) {
			t.Fatalf("%q: input %q: parallel %v, general %v", body, sig.Inputs[k].Key, a, b)
		}
	}
}

func TestInstanceRow(t *testing.T) {
	for _, body := range []string{
		`{"instances": [{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]}, {"v": [3, 4.25], "s": "b\u00e9", "j": 2147483647, "i": -9007199254740993, "d": 0.1, "f": 3.4028235e38}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "", "v": [0, 0]}, {"f": NaN, "d": -Infinity, "i": 1e2, "j": 2147483648, "s": "x", "v": [1, 2]}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 01, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": [1], "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 1, "f": 2}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 1 "d": 2}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"\u0066": 1e-400, "d": 1.00000000000000000001, "i": 3, "j": 4, "s": "a\"b", "v": [0, 0]}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0], "w": 1}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": -, "d": 2}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 1.5e, "d": 2}]}`,
		`{"instances": [{"f": 1, "d": 2, "i": 3, "j": 4, "s": "a", "v": [0, 0]}, {"f": 1x}]}`,
	} {
		sameDecode(t, []byte(body), &rowSig)
	}
	// Runs of rows read in parallel: every run good; a bad row in the
	// last run (the sequential reader's error); runs that disagree on
	// a row's shape; rows that are not objects; a list cut short.
	row := `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a\"}", "v": [1, 2]}`
	rows := func(n int, last string) string {
		b := `{"instances": [`
		for i := range n {
			b += row + ", "
			_ = i
		}
		return b + last + "]}"
	}
	for _, body := range []string{
		rows(6, row),
		rows(6, `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2], "w": 0}`),
		rows(6, `{"f": [1.5], "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]}`),
		rows(6, `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2, 3]}`),
		rows(6, `[1, 2]`),
		rows(6, `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]}}`),
		rows(6, `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]]`),
		rows(6, `{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]`)[:200],
		rows(6, row)[:len(rows(6, row))-2],
		rows(6, row+` , `),
		// Strings that look like a row's end and the next's start: a run
		// may start inside one (and must then fall back).
		rows(5, `{"f": 1, "d": 2, "i": 3, "j": 4, "s": "}, {\"f\": 2}, {},{", "v": [1, 2]}`),
		`{"instances": [` + strings.Repeat(`{"f": 1, "d": 2, "i": 3, "j": 4, "s": "}, {", "v": [1, 2]}, `, 7) + `{"f": 1, "d": 2, "i": 3, "j": 4, "s": "}, {", "v": [1, 2]}]}`,
	} {
		sameDecode(t, []byte(body), &rowSig)
	}
	for _, body := range []string{
		`{"instances": [{"k\\": 1, "q\"": 2, "k": 3}, {"k\\": 4, "q\"": 5, "k": 6}]}`,
		`{"instances": [{"k\\": 1, "q\"": 2, "k": 3}, {"k\", "q\"": 5, "k": 6}]}`,
		`{"instances": [{"k\\": 1, "q\"": 2, "k": 3}, {"k\\": 4, "q\"", "k": 6}]}`,
	} {
		sameDecode(t, []byte(body), &oddSig)
	}
}

// FuzzInstanceRow: the fast row reader agrees with the general one on any
// body (tensors, or error messages).
func FuzzInstanceRow(f *testing.F) {
	for _, s := range []string{
		`{"instances": [{"f": 1.5, "d": -2e3, "i": 7, "j": -3, "s": "a", "v": [1, 2]}, {"f": 2, "d": 1, "i": 0, "j": 1, "s": "b", "v": [3, 4]}]}`,
		`{"instances": [{"s": "a", "ids": [1, 2], "x": [0.5], "b": true}, {"s": "b", "ids": [3, 4], "x": [1], "b": false}]}`,
	} {
		for which := range uint8(3) {
			f.Add([]byte(s), which)
		}
	}
	f.Add([]byte(`{"instances": [{"k\\": 1, "q\"": 2, "k": 3}, {"k\\": 4, "q\"": 5, "k": 6}]}`), uint8(2))
	// The columnar form: its lists read by nested's fast reader.
	f.Add([]byte(`{"inputs": {"f": [1.5, 2], "d": [-2e3, 1], "i": [7, 0], "j": [-3, 1], "s": ["a", "b"], "v": [[1, 2], [3, 4]]}}`), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		sig := []*Signature{&rowSig, &mixedSig, &oddSig}[which%3]
		sameDecode(t, body, sig)
	})
}

// TestInstancesParallel checks that the parallel reader reads a list of
// good rows itself (it does not fall back), in runs of one to all rows.
func TestInstancesParallel(t *testing.T) {
	defer func(b, c, r int) { instancesParallelBytes, instancesChunks, instancesRunBytes = b, c, r }(instancesParallelBytes, instancesChunks, instancesRunBytes)
	instancesParallelBytes, instancesRunBytes = 0, 0
	list := `[`
	for i := range 7 {
		if i > 0 {
			list += ",\n "
		}
		list += fmt.Sprintf(`{"f": %d, "d": -2e3, "i": %d, "j": -3, "s": "a\"]}", "v": [1, %d]}`, i, 10*i, i)
	}
	list += ` ] ,`
	for chunks := 2; chunks <= 8; chunks++ {
		instancesChunks = chunks
		s := &scanner{buf: []byte(list)}
		feeds, ok := s.instancesParallel(&rowSig)
		if !ok {
			t.Fatalf("%d runs: fell back to the sequential reader", chunks)
		}
		if s.pos != len(list)-2 {
			t.Errorf("%d runs: stopped at %d, want %d (past the ']')", chunks, s.pos, len(list)-2)
		}
		if got := fmt.Sprint(feeds[0].Shape(), feeds[0].Data(), feeds[2].Data(), feeds[5].Shape(), feeds[5].Data()); got != "[7] [0 1 2 3 4 5 6] [0 10 20 30 40 50 60] [7 2] [1 0 1 1 1 2 1 3 1 4 1 5 1 6]" {
			t.Errorf("%d runs: %s", chunks, got)
		}
	}
}

// TestInstancesParallelE reads a row-format body of preset E (1001
// inputs, 64 rows, ~1 MB) in 2 to 16 runs, as the server does, and checks
// the tensors against the general reader's and the feeds the body was
// made of.
func TestInstancesParallelE(t *testing.T) {
	p := loadE(t)
	body := instancesBody(t, p.feeds, false)
	gen, err := decodePredictWith(body, &p.sig, false)
	if err != nil {
		t.Fatal(err)
	}
	defer func(c int) { instancesChunks = c }(instancesChunks)
	for _, chunks := range []int{2, 5, 16} {
		instancesChunks = chunks
		s := &scanner{buf: body}
		if s.peek() != '{' {
			t.Fatal("not an object")
		}
		s.pos = strings.Index(string(body), `"instances":`) + len(`"instances":`)
		if _, ok := s.instancesParallel(&p.sig); !ok {
			t.Fatalf("%d runs: E's body fell back to the sequential reader", chunks)
		}
		got, err := decodePredictWith(body, &p.sig, true)
		if err != nil {
			t.Fatal(err)
		}
		for k, in := range p.sig.Inputs {
			a, b, want := got.feeds[k], gen.feeds[k], p.feeds[in.Name]
			if fmt.Sprint(a.Shape(), a.Data()) != fmt.Sprint(b.Shape(), b.Data()) || fmt.Sprint(a.Shape(), a.Data()) != fmt.Sprint(want.Shape(), want.Data()) {
				t.Fatalf("%d runs: input %q: parallel %v, general %v, fed %v", chunks, in.Key, a, b, want)
			}
		}
	}
}
