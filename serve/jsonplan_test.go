package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// keySig has keys of 1 to 30 bytes (pre of 1 to 3 words, and longer)
// and a list input, for the row plan's key words.
var keySig = func() Signature {
	sig := Signature{Name: DefaultSignature, Method: PredictMethod, Outputs: mixedSig.Outputs}
	for _, n := range []int{1, 5, 6, 13, 14, 21, 22, 30} {
		key := strings.Repeat(string(rune('a'+n%26)), n)
		sig.Inputs = append(sig.Inputs, TensorSpec{Key: key, Name: key, DType: interp.Float32, Shape: []int64{-1}})
	}
	sig.Inputs = append(sig.Inputs, TensorSpec{Key: "ids", Name: "ids", DType: interp.Int64, Shape: []int64{-1, 3}})
	if err := sig.check(); err != nil {
		panic(err)
	}
	return sig
}()

// keySigRow is a row of keySig with values v and w.
func keySigRow(v, w int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, in := range keySig.Inputs[:len(keySig.Inputs)-1] {
		fmt.Fprintf(&b, "%q:%d.%d,", in.Key, v+i, w)
	}
	fmt.Fprintf(&b, `"ids":[%d,%d,%d]}`, v, w, v+w)
	return b.String()
}

// planDecode reads list (the row format's list) as decodeInstances does,
// with a reader that has read prev's rows before (and so carries their
// plan), and by the general reader; it returns both results and the rows
// the plan read.
func planDecode(sig *Signature, prev, list string) (planRows int, fast, gen []*interp.Tensor, ferr, gerr error) {
	r := newRowReader(sig)
	r.reset()
	if prev != "" {
		s := &scanner{buf: []byte(prev), depth: 1}
		_, _ = s.readInstances(r, true)
		r.reset()
	}
	s := &scanner{buf: []byte(list), depth: 1}
	if fast, ferr = s.readInstances(r, true); ferr == nil {
		ferr = s.end()
	}
	g := &scanner{buf: []byte(list), depth: 1, general: true}
	gr := newRowReader(sig)
	gr.reset()
	if gen, gerr = g.readInstances(gr, false); gerr == nil {
		gerr = g.end()
	}
	return r.planRows, fast, gen, ferr, gerr
}

// samePlan checks that planDecode's readers agree: the same tensors, or
// the same error.
func samePlan(t *testing.T, sig *Signature, prev, list string) int {
	t.Helper()
	planned, fast, gen, ferr, gerr := planDecode(sig, prev, list)
	switch {
	case (ferr == nil) != (gerr == nil):
		t.Fatalf("after %q, %q: the fast reader says %v, the general %v", prev, list, ferr, gerr)
	case ferr != nil:
		if ferr.Error() != gerr.Error() {
			t.Fatalf("after %q, %q: the fast reader's error %q, the general's %q", prev, list, ferr, gerr)
		}
		return planned
	}
	for k := range fast {
		a, b := fast[k], gen[k]
		if fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) || fmt.Sprintf("%#v", a.Data()) != fmt.Sprintf("%#v", b.Data()) {
			t.Fatalf("after %q, %q: input %q: fast %v, general %v", prev, list, sig.Inputs[k].Key, a, b)
		}
	}
	return planned
}

// TestRowPlan checks that rows written alike are read by the plan (every
// row after the first, and the first too by the last request's plan),
// with the general reader's results, and that rows that depart from the
// plan anywhere are read as the general reader reads them.
func TestRowPlan(t *testing.T) {
	rows := func(rs ...string) string { return "[" + strings.Join(rs, ",") + "]" }
	good := rows(keySigRow(1, 5), keySigRow(2, 25), keySigRow(-3, 125))
	if n := samePlan(t, &keySig, "", good); n != 2 {
		t.Errorf("a fresh reader: %d rows read by the plan, want 2", n)
	}
	if n := samePlan(t, &keySig, good, good); n != 3 {
		t.Errorf("a reader with a plan: %d rows read by the plan, want 3", n)
	}
	pretty := strings.NewReplacer(`":`, `" : `, `,"`, ",\n  \"", "[", "[ ", "{", "{\n").Replace(good)
	if n := samePlan(t, &keySig, good, pretty); n != 3 {
		t.Errorf("space between the tokens: %d rows read by the plan, want 3", n)
	}
	// Values the plan reads with instanceValue (a bool, a matrix): their
	// first row's shapes are read, as instanceRow reads them.
	mixed := `[{"s":"a","ids":[1,2],"x":[[0.5]],"b":true},{"s":"b","ids":[3,4],"x":[[1]],"b":false}]`
	if n := samePlan(t, &mixedSig, mixed, mixed); n != 2 {
		t.Errorf("mixedSig: %d rows read by the plan, want 2", n)
	}
	for _, list := range []string{
		`[{"s":"a","ids":[1,2],"x":[[0.5, 1]],"b":[true]},{"s":"b","ids":[3,4],"x":[[1, 2]],"b":[false]}]`,
		`[{"s":"a","ids":[1,2],"x":[[0.5, 1]],"b":[true]},{"s":"b","ids":[3,4],"x":[[1, 2]],"b":false}]`,
		`[{"s":"a","ids":[1,2],"x":[[0.5], [1]],"b":true},{"s":"b","ids":[3,4],"x":[[1, 2]],"b":true}]`,
		`[{"s":"a","ids":[1,2],"x":[0.5],"b":true}]`,
	} {
		samePlan(t, &mixedSig, mixed, list)
	}
	row := keySigRow(7, 5)
	// Each row departs from the plan one way: every byte of the row
	// changed in turn (keys among them), and values the plan reads with
	// instanceValue or not at all.
	var bad []string
	for i := range len(row) {
		for _, c := range []byte{'x', '"', '1', ' ', ']', '{'} {
			if row[i] != c {
				bad = append(bad, row[:i]+string(c)+row[i+1:])
			}
		}
		bad = append(bad, row[:i]+row[i+1:])
	}
	bad = append(bad,
		strings.Replace(row, "7.5", "NaN", 1),
		strings.Replace(row, "7.5", "1e400", 1),
		strings.Replace(row, "7.5", "0.41040283", 1),
		strings.Replace(row, "7.5", "[7.5]", 1),
		strings.Replace(row, "7.5", `"7.5"`, 1),
		strings.Replace(row, `"ids":[7,5,12]`, `"ids":[7,5]`, 1),
		strings.Replace(row, `"ids":[7,5,12]`, `"ids":[7,5,12,1]`, 1),
		strings.Replace(row, `"ids":[7,5,12]`, `"ids":[[7],[5],[12]]`, 1),
		strings.Replace(row, `"ids":[7,5,12]`, `"ids":[7,5,1.5]`, 1),
		strings.Replace(row, `"ids":[7,5,12]`, `"ids":[ 7 , 5 , 12 ]`, 1),
		strings.Replace(row, `"a":`, `"\u0061":`, 1),
		strings.Replace(row, `{"a":7.5,`, `{`, 1),
		strings.Replace(row, `{"a":7.5,`, `{"a":7.5,"a":7.5,`, 1),
		strings.Replace(row, `}`, `,"z":1}`, 1),
		row[:len(row)-1],
	)
	for _, b := range bad {
		for _, list := range []string{rows(b, row), rows(row, b, row), rows(row, row, b)} {
			samePlan(t, &keySig, "", list)
			samePlan(t, &keySig, good, list)
		}
	}
}

// FuzzRowPlan: a reader that has read one list (and carries its plan)
// reads another as the general reader does.
func FuzzRowPlan(f *testing.F) {
	f.Add(`[{"f":1.5,"d":2,"i":3,"j":4,"s":"a","v":[1,2]}]`, `[{"f":1.5,"d":2,"i":3,"j":4,"s":"a","v":[1,2]},{"f":2,"d":1,"i":0,"j":1,"s":"b","v":[3,4]}]`, uint8(0))
	f.Add(`[{"f":1.5,"d":2,"i":3,"j":4,"s":"a","v":[1,2]}]`, `[{"f":1.5,"d":2,"i":3,"j":4,"s":"a","v":[1,2,3]},{"f":2,"d":1,"i":0,"j":1,"s":"b","v":[3,4,5]}]`, uint8(0))
	f.Add(`[{"s":"a","ids":[1,2],"x":[0.5],"b":true}]`, `[{"s":"a","ids":[1,2],"x":[0.5],"b":true},{"s":"b","ids":[3,4],"x":[1],"b":false}]`, uint8(1))
	f.Add("["+keySigRow(1, 2)+"]", "["+keySigRow(3, 4)+","+keySigRow(5, 6)+"]", uint8(2))
	f.Fuzz(func(t *testing.T, prev, list string, which uint8) {
		sig := []*Signature{&rowSig, &mixedSig, &keySig, &oddSig}[which%4]
		samePlan(t, sig, prev, list)
	})
}

// TestKeyWords checks the plan's word compare of `"key":` on keys of 0
// to 21 bytes: it matches the key written so, and nothing that differs
// from it in a byte.
func TestKeyWords(t *testing.T) {
	for n := range 22 {
		key := strings.Repeat("k", n)
		var sl rowSlot
		sl.setKey(key)
		pre := `"` + key + `":`
		if int(sl.words) != (len(pre)+7)/8 {
			t.Fatalf("key of %d bytes: %d words", n, sl.words)
		}
		pad := pre + strings.Repeat("\x00", 8*int(sl.words)-len(pre))
		if !keyWords([]byte(pad), &sl, int(sl.words)) {
			t.Fatalf("key of %d bytes: %q does not match", n, pad)
		}
		for i := range len(pre) {
			b := []byte(pad)
			b[i] ^= 0x20
			if keyWords(b, &sl, int(sl.words)) {
				t.Fatalf("key of %d bytes: %q matches", n, b)
			}
		}
	}
	var sl rowSlot
	if sl.setKey(strings.Repeat("k", 22)); sl.words != 0 {
		t.Errorf("a key of 22 bytes (25 with its quotes and colon) has %d words", sl.words)
	}
}

// TestFastNested checks that nested's fast reader reads plain lists (it
// does not fall back) with the general reader's results, and agrees with
// it on lists it leaves to it.
func TestFastNested(t *testing.T) {
	for _, c := range []struct {
		dt   interp.DType
		in   string
		fast bool
	}{
		{interp.Float32, `[1, -2.5, 0.41040283]`, true},
		{interp.Float32, `[[1,2],[3,4],[5,6]]`, true},
		{interp.Float32, `[ [ [1] , [2] ] ]`, true},
		{interp.Int64, `[[1,2,3],[4,5,6]]`, true},
		{interp.Int32, `[2147483647, -2147483648]`, true},
		{interp.String, `["a", "b"]`, true},
		{interp.Float64, `[1e22, 2]`, true},
		{interp.Float32, `[]`, false},
		{interp.Float32, `[[1,2],[3]]`, false},
		{interp.Float32, `[[1,2],3]`, false},
		{interp.Float32, `[1, NaN]`, false},
		{interp.Float32, `[1, [2]]`, false},
		{interp.Float32, `[1, 2`, false},
		{interp.Float32, `[1,,2]`, false},
		{interp.Int64, `[1.5]`, false},
		{interp.Bool, `[true]`, false},
		{interp.String, `["a\n"]`, false},
		{interp.Float32, strings.Repeat("[", 65) + "1" + strings.Repeat("]", 65), false},
	} {
		f := &scanner{buf: []byte(c.in)}
		if _, ok := f.fastNested(&tbuf{dt: c.dt}, nil); ok != c.fast {
			t.Errorf("%v %s: fast reader %v, want %v", c.dt, c.in, ok, c.fast)
		}
		sameNested(t, c.dt, []byte(c.in))
	}
}

// sameNested checks nested with its fast reader against the general
// reader alone on in: the same shape, elements and end, or the same
// error.
func sameNested(t *testing.T, dt interp.DType, in []byte) {
	t.Helper()
	f, g := &scanner{buf: in, depth: 1}, &scanner{buf: in, depth: 1, general: true}
	ft, gt := &tbuf{dt: dt}, &tbuf{dt: dt}
	shapes := make([]int64, 1, 1+len(in)%4) // room for a shape of 0 to 3 dimensions
	fs, ferr := f.nestedIn(ft, &shapes)
	if ferr == nil && len(shapes) > 1 && (len(shapes) != 1+len(fs) || &shapes[1] != &fs[0]) {
		t.Fatalf("%v %q: shape %v, in shapes %v", dt, in, fs, shapes)
	}
	gs, gerr := g.nested(gt)
	switch {
	case (ferr == nil) != (gerr == nil):
		t.Fatalf("%v %q: fast %v, general %v", dt, in, ferr, gerr)
	case ferr != nil:
		if ferr.Error() != gerr.Error() {
			t.Fatalf("%v %q: fast error %q, general %q", dt, in, ferr, gerr)
		}
	default:
		a, _ := ft.tensor(fs)
		b, _ := gt.tensor(gs)
		if f.pos != g.pos || fmt.Sprint(fs) != fmt.Sprint(gs) || fmt.Sprintf("%#v", a.Data()) != fmt.Sprintf("%#v", b.Data()) {
			t.Fatalf("%v %q: fast %v %v (at %d), general %v %v (at %d)", dt, in, fs, a, f.pos, gs, b, g.pos)
		}
	}
}

// FuzzNested: nested's fast reader agrees with the general one on any
// bytes, for every dtype it reads.
func FuzzNested(f *testing.F) {
	for _, s := range []string{`[1, -2.5, 0.41040283]`, `[[1,2],[3,4]]`, `["a","b"]`, `[[1,2],[3]]`, `[1e400]`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, which uint8) {
		dts := []interp.DType{interp.Float32, interp.Float64, interp.Int32, interp.Int64, interp.String, interp.Bool}
		sameNested(t, dts[int(which)%len(dts)], in)
	})
}
