package tfexample

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestBatch(t *testing.T) {
	ids := interp.Vector[int64](1, 2, 3)
	exs, err := Batch(2, map[string]Column{
		"x":   {Values: interp.Must(interp.New([]int64{2, 2}, []float32{1, 2, 3, 4}))},
		"ids": {Values: ids, RowSplits: []int64{0, 0, 3}},
		"s":   {Values: interp.Vector("a", "b")},
		"n":   {Values: interp.Vector[int32](7, -7)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Example{
		{Pair("ids", Int64s()), Pair("n", Int64s(7)), Pair("s", Bytes("a")), Pair("x", Floats(1, 2))},
		{Pair("ids", Int64s(1, 2, 3)), Pair("n", Int64s(-7)), Pair("s", Bytes("b")), Pair("x", Floats(3, 4))},
	}
	if len(exs) != len(want) {
		t.Fatalf("got %d examples, want %d", len(exs), len(want))
	}
	for i := range want {
		if !sameExample(exs[i], want[i]) {
			t.Errorf("example %d: got %+v\nwant %+v", i, exs[i], want[i])
		}
	}
	ser := MarshalOptions{}.Serialized(exs)
	if ser.Rank() != 1 || ser.Len() != 2 {
		t.Fatalf("serialized %v", ser)
	}
	back, err := Unmarshal([]byte(ser.Strings()[1]))
	if err != nil || !sameExample(back, want[1]) {
		t.Errorf("example 1 decodes to %+v, %v", back, err)
	}
	if exs, err := Batch(0, map[string]Column{"x": {Values: interp.Must(interp.New([]int64{0, 3}, []float32{}))}}); err != nil || len(exs) != 0 {
		t.Errorf("empty batch: %v, %v", exs, err)
	}
	for _, c := range []struct {
		name string
		col  Column
		err  string
	}{
		{"rows", Column{Values: interp.Vector[int64](1, 2, 3)}, "are not 2 rows"},
		{"dtype", Column{Values: interp.Vector(1.0, 2.0)}, "dtype float64"},
		{"splits length", Column{Values: ids, RowSplits: []int64{0, 3}}, "row splits must be 3 offsets from 0 to 3"},
		{"splits end", Column{Values: ids, RowSplits: []int64{0, 1, 2}}, "row splits must be"},
		{"splits decrease", Column{Values: ids, RowSplits: []int64{0, 2, 1, 3}[1:]}, "row splits must be"},
		{"splits decrease inside", Column{Values: ids, RowSplits: []int64{0, 4, 3}}, "decrease"},
		{"no values", Column{}, "has no values"},
	} {
		_, err := Batch(2, map[string]Column{"f": c.col})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.err)
		}
	}
}

func sameExample(a, b Example) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !sameFeature(a[i].Feature, b[i].Feature) {
			return false
		}
	}
	return true
}
