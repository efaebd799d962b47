package abi

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestShardPlanRoundTrip(t *testing.T) {
	for _, text := range []string{
		"devices = 1, dense = 0, columns = []",
		"devices = 2, dense = 1, columns = [0, 1, rows(0:500@0, 500:1000@1), 1]",
		"devices = 64, dense = 63, columns = [rows(0:1@63)]",
	} {
		p, err := ParseShardPlan(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := p.String(); got != text {
			t.Errorf("%q printed as %q", text, got)
		}
	}
	// Free spacing reads the same.
	p, err := ParseShardPlan("\n devices=2 ,dense=0,columns=[ rows( 0 : 5 @ 1 ,5:9@0 ) ,1 ]\t")
	if err != nil {
		t.Fatal(err)
	}
	want := &ShardPlan{Devices: 2, Columns: []Placement{{Device: -1, Pieces: []RowPiece{{0, 5, 1}, {5, 9, 0}}}, {Device: 1}}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got %+v, want %+v", p, want)
	}
}

func TestShardPlanErrors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{"", "at column 1: expected 'devices', found the end"},
		{"devices = 0, dense = 0, columns = []", "at column 11: devices must be in [1, 64], got 0"},
		{"devices = 65, dense = 0, columns = []", "devices must be in [1, 64], got 65"},
		{"devices = 2, dense = 2, columns = []", "at column 22: device 2 is not below devices = 2"},
		{"devices = 2, dense = 0, columns = [3]", "at column 36: device 3 is not below devices = 2"},
		{"devices = 2, dense = 0, columns = [rows(0:5@0, 6:9@1)]", "at column 48: rows 6:9 do not follow on from row 5"},
		{"devices = 2, dense = 0, columns = [rows(1:5@0)]", "the first rows must start at 0, got 1"},
		{"devices = 2, dense = 0, columns = [rows(0:0@0)]", "rows 0:0 are empty"},
		{"devices = 2, dense = 0, columns = [rows(0:5@0, 5:9@0)]", "two row ranges of one table on device 0"},
		{"devices = 2, dense = 0, columns = [rows()]", "expected the first row (a non-negative integer), found \")]\""},
		{"devices = 2, dense = 0, columns = [x]", "expected a device or rows(...)"},
		{"devices = 2, dense = 0, columns = [0,", "expected a device or rows(...), or ']', found the end"},
		{"devices = 2, dense = 0, columns = [0] x", "unexpected text after the plan"},
		{"devices = 2, dense = 0, columns = [rows(0:1234567890123456789@0)]", "the end row 123456789012345678... is too large"},
		{"devices = -1, dense = 0, columns = []", "expected the number of devices (a non-negative integer), found \"-1, dense = ...\""},
		{"devices = 2 dense = 0, columns = []", "expected ','"},
	} {
		_, err := ParseShardPlan(c.text)
		var se *ShardPlanSyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want an error with %q", c.text, err, c.msg)
		}
	}
}

func TestShardPlanCheckLayer(t *testing.T) {
	l := &Layer{Columns: []Column{
		{Name: "a", Rows: 10, TableOffset: 0},
		{Name: "b", Rows: 20, TableOffset: 64},
		{Name: "c", Rows: 20, TableOffset: 64},
	}}
	for _, c := range []struct{ text, msg string }{
		{"devices = 2, dense = 0, columns = [0, rows(0:9@0, 9:20@1), rows(0:9@0, 9:20@1)]", ""},
		{"devices = 2, dense = 0, columns = [0, 1]", "places 2 columns, the layer has 3"},
		{"devices = 2, dense = 0, columns = [0, 1, 0]", "places columns #1 (\"b\") and #2 (\"c\") differently, but they share a table"},
		{"devices = 2, dense = 0, columns = [0, rows(0:9@0, 9:19@1), rows(0:9@0, 9:19@1)]", "into rows up to 19, its table has 20"},
	} {
		p, err := ParseShardPlan(c.text)
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckLayer(l)
		if (c.msg == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.msg)
		}
	}
}

// FuzzShardPlan checks that ParseShardPlan never panics, returns only
// *ShardPlanSyntaxError errors, and that a plan that parses prints to
// text that parses to the same plan.
func FuzzShardPlan(f *testing.F) {
	for _, s := range []string{
		"devices = 2, dense = 1, columns = [0, 1, rows(0:500@0, 500:1000@1), 1]",
		"devices = 1, dense = 0, columns = []",
		"devices=3,dense=2,columns=[rows(0:1@2,1:2@1,2:3@0)]",
		"devices = 2, dense = 0, columns = [rows(0:5@0, 5:9@0)]",
		"devices = 99999999999999999999",
		"devices = 2, dense = 0, columns = [0,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseShardPlan(text)
		if err != nil {
			var se *ShardPlanSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *ShardPlanSyntaxError: %v", err, err)
			}
			if se.Offset < 0 || se.Offset > len(text) {
				t.Fatalf("offset %d outside the %d-byte text", se.Offset, len(text))
			}
			return
		}
		q, err := ParseShardPlan(p.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", text, p.String(), err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("%q: %+v printed and read back as %+v", text, p, q)
		}
	})
}

// A route sends each id to the range that holds its row, rebased, keeps
// the bags, weights and the denominators of the whole bags.
func TestRouteRun(t *testing.T) {
	c := Column{Name: "c", Kind: KindLookup, Combiner: "mean", Weighted: true, Rows: 10, Width: 4, Source: SourceIDs}
	r := NewRoute(&c, []int64{0, 4, 10})
	x := &ColumnInput{Ids: []int64{1, 7, 3, 9, 5}, Splits: []int64{0, 3, 3, 5}, Weights: []float32{1, 2, 3, 0.5, 0.25}}
	pieces, den, err := r.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	want := []RoutedPiece{
		{Ids: []int64{1, 3}, Splits: []int64{0, 2, 2, 2}, Weights: []float32{1, 3}},
		{Ids: []int64{3, 5, 1}, Splits: []int64{0, 1, 1, 3}, Weights: []float32{2, 0.5, 0.25}},
	}
	if !reflect.DeepEqual(pieces, want) {
		t.Errorf("pieces %+v, want %+v", pieces, want)
	}
	if !reflect.DeepEqual(den, []float32{6, 1, 0.75}) {
		t.Errorf("den %v", den)
	}
	// A div_no_nan mean: a bag whose weights sum to 0 has den +Inf (the
	// exchange's division gives 0); without div_no_nan its den is 0.
	cancel := &ColumnInput{Ids: []int64{1, 7, 2}, Splits: []int64{0, 2, 3}, Weights: []float32{1, -1, 2}}
	if _, den, err = r.Run(cancel); err != nil || den[0] != 0 || den[1] != 2 {
		t.Errorf("mean den %v (%v), want [0 2]", den, err)
	}
	nn := c
	nn.DivNoNaN = true
	if _, den, err = NewRoute(&nn, []int64{0, 4, 10}).Run(cancel); err != nil || !math.IsInf(float64(den[0]), 1) || den[1] != 2 {
		t.Errorf("div_no_nan den %v (%v), want [+Inf 2]", den, err)
	}
	// A column that drops ids (a vocabulary's default_value = -1) routes
	// the kept ids, weights and counts only.
	dr := c
	dr.Source, dr.Transforms = SourceI64, []Transform{{Op: TransformDrop, Min: 0, Max: 5}}
	pieces, den, err = NewRoute(&dr, []int64{0, 4, 10}).Run(&ColumnInput{Values: interp.Vector[int64](1, 7, 3, 9, 5), Splits: []int64{0, 3, 3, 5}, Weights: []float32{1, 2, 3, 0.5, 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pieces[1], RoutedPiece{Ids: []int64{1}, Splits: []int64{0, 0, 0, 1}, Weights: []float32{0.25}}) || !reflect.DeepEqual(den, []float32{4, 1, 0.25}) {
		t.Errorf("drop: pieces %+v, den %v", pieces, den)
	}
	// sqrtn, unweighted: the square root of the count; a gather column:
	// a bag of one id, no denominators.
	c.Combiner, c.Weighted = "sqrtn", false
	x.Weights = nil
	if _, den, _ = NewRoute(&c, []int64{0, 4, 10}).Run(x); den[0] != float32(math.Sqrt(3)) || den[1] != 1 || den[2] != float32(math.Sqrt(2)) {
		t.Errorf("sqrtn den %v", den)
	}
	g := Column{Name: "g", Kind: KindGather, Combiner: "mean", Rows: 10, Width: 4, Source: SourceIDs}
	pieces, den, err = NewRoute(&g, []int64{0, 5, 10}).Run(&ColumnInput{Ids: []int64{9, 0}})
	if err != nil || den != nil {
		t.Fatalf("gather: %v, den %v", err, den)
	}
	if !reflect.DeepEqual(pieces[0].Splits, []int64{0, 0, 1}) || !reflect.DeepEqual(pieces[1].Ids, []int64{4}) {
		t.Errorf("gather pieces %+v", pieces)
	}
	// Transforms run on the host: strings hashed into the table.
	h := Column{Name: "h", Kind: KindLookup, Combiner: "sum", Rows: 7, Width: 4, Source: SourceStr,
		Transforms: []Transform{{Op: TransformHash, NumBuckets: 7}}}
	vals := interp.Vector("a", "bb", "ccc")
	pieces, _, err = NewRoute(&h, []int64{0, 3, 7}).Run(&ColumnInput{Values: vals, Splits: []int64{0, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pieces[0].Ids) + len(pieces[1].Ids); n != 3 {
		t.Errorf("%d ids routed, want 3", n)
	}
	// Bad inputs are errors.
	for _, bad := range []*ColumnInput{
		{Ids: []int64{1, 11}, Splits: []int64{0, 2}},
		{Ids: []int64{1, -1}, Splits: []int64{0, 2}},
		{Ids: []int64{1, 2}, Splits: []int64{0, 3}},
		{Ids: []int64{1, 2}, Splits: []int64{0, 2, 1, 2}},
	} {
		if _, _, err := NewRoute(&c, []int64{0, 4, 10}).Run(bad); err == nil {
			t.Errorf("%+v routed", bad)
		}
	}
}
