package hostpack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfexample"
	"github.com/recom-compiler/recom/textir"
)

// servedModel compiles a preset served from tf.Example records (scaled
// to columns; 0: as is), with the fuse options given.
func servedModel(tb testing.TB, preset string, columns int, serving, fuse string) (*model, *gen.Spec) {
	tb.Helper()
	s, err := gen.Preset(preset)
	if err != nil {
		tb.Fatal(err)
	}
	if columns > 0 {
		if s, err = s.Scale(columns); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range s.Groups {
		s.Groups[i].Buckets = min(s.Groups[i].Buckets, 1000)
		if s.Groups[i].Kind != gen.Bucketized {
			cov := 0.8
			s.Groups[i].Feed.Coverage = &cov
		}
	}
	s.Serving = serving
	g, err := gen.Generate(s, gen.Options{Seed: 1, NoTableValues: true})
	if err != nil {
		tb.Fatal(err)
	}
	m := compile(tb, preset, graphdef.MarshalText(g.Graph), nil, nil, fuse)
	return &model{name: preset + "/" + serving, m: m, opts: &exec.Options{}, feeds: specFeeds(s)}, s
}

// The plan reads the records of a model served from tf.Example records
// itself (no input is left to the interpreter), writes gen's columns
// straight from the records, and packs what Pack packs from the
// interpreter's inputs (ParseExample's semantics), byte for byte, for
// either parse op, with the id transforms in the kernel or before it.
func TestPackExamples(t *testing.T) {
	for _, c := range []struct {
		preset  string
		columns int
	}{{"small", 0}, {"E", 60}} {
		for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
			for _, fuse := range []string{"", "ids-in-kernel=false", "host-ids=hash,bucketize,split_strings", "schedule=recom"} {
				t.Run(fmt.Sprintf("%s/%s/%s", c.preset, serving, fuse), func(t *testing.T) {
					md, _ := servedModel(t, c.preset, c.columns, serving, fuse)
					plan, err := NewForModule(md.m, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(plan.Inputs()) != 1 || plan.Inputs()[0].Name != gen.ExampleInput {
						t.Fatalf("inputs %v, want the records alone", plan.Inputs())
					}
					direct, computed, _ := plan.Columns()
					if (fuse == "" || fuse == "schedule=recom") && c.preset == "E" && computed > 0 {
						t.Errorf("%d columns from the records, %d computed", direct, computed)
					}
					pk := plan.NewPacker()
					for i, batch := range []int{1, 7, 33, 256} {
						mustCheck(t, md, plan, pk, md.feeds(t, batch, uint64(i+1)))
					}
				})
			}
		}
	}
}

// randomRecords draws n records for the small served model's features,
// most of them valid (with repeated keys, unpacked lists, empty Features,
// unknown keys and fields, missing features) and some with a fault (a
// wrong list kind, a wrong count for a dense feature, a required feature
// missing, bytes that do not parse, an id out of range); faults sets how
// often.
func randomRecords(r *rand.Rand, n int, faults float64) []string {
	type feat struct {
		key  string
		kind tfexample.Kind
		fix  int // dense: values (0: a sparse feature)
		req  bool
	}
	feats := []feat{
		{"str_0000", tfexample.BytesList, 0, false}, {"str_0001", tfexample.BytesList, 0, false},
		{"str_0002", tfexample.BytesList, 0, false}, {"int_0004", tfexample.Int64List, 0, false},
		{"tok_0007", tfexample.BytesList, 1, false}, {"id_0010", tfexample.Int64List, 0, false},
		{"id_0012", tfexample.Int64List, 0, false}, {"voc_0014", tfexample.BytesList, 0, false},
		{"num_0017", tfexample.FloatList, 1, true}, {"num_0018", tfexample.FloatList, 1, true},
		{"num_0019", tfexample.FloatList, 1, true}, {"wstr_0020", tfexample.BytesList, 0, false},
		{"sh_0022", tfexample.BytesList, 0, false}, {gen.DenseInput, tfexample.FloatList, 8, false},
	}
	words := []string{"", "a", "w1", "w7", "oov", "v3", "a much longer word than a slot", "x;y;z", "w19"}
	value := func(k tfexample.Kind, m int) tfexample.Feature {
		switch k {
		case tfexample.BytesList:
			v := make([]string, m)
			for i := range v {
				v[i] = words[r.IntN(len(words))]
			}
			return tfexample.Bytes(v...)
		case tfexample.FloatList:
			v := make([]float32, m)
			for i := range v {
				v[i] = float32(r.NormFloat64() * 5)
			}
			return tfexample.Floats(v...)
		}
		v := make([]int64, m)
		for i := range v {
			v[i] = r.Int64N(40) - 2
		}
		return tfexample.Int64s(v...)
	}
	out := make([]string, n)
	for i := range out {
		var e tfexample.Example
		fault := r.Float64() < faults
		for _, f := range feats {
			if !f.req && r.IntN(5) == 0 {
				continue
			}
			m := f.fix
			if m == 0 {
				m = r.IntN(4)
			}
			if m == 1 && f.key == "tok_0007" {
				e = append(e, tfexample.Pair(f.key, tfexample.Bytes(words[r.IntN(len(words))])))
				continue
			}
			if f.key == "wstr_0020" {
				e = append(e, tfexample.Pair(f.key, value(f.kind, m)), tfexample.Pair("wstr_0020_weight", value(tfexample.FloatList, m)))
				continue
			}
			if r.IntN(10) == 0 {
				e = append(e, tfexample.Pair(f.key, value(f.kind, r.IntN(3)))) // a repeat: the last wins
			}
			e = append(e, tfexample.Pair(f.key, value(f.kind, m)))
			if r.IntN(10) == 0 && f.fix > 0 {
				e = append(e, tfexample.Pair(f.key, tfexample.Feature{})) // an empty Feature after it
			}
		}
		if r.IntN(8) == 0 {
			e = append(e, tfexample.Pair("unknown", value(tfexample.Int64List, 2)))
		}
		if fault {
			f := feats[r.IntN(len(feats))]
			switch r.IntN(3) {
			case 0:
				k := tfexample.Int64List
				if f.kind == tfexample.Int64List {
					k = tfexample.FloatList
				}
				e = append(e, tfexample.Pair(f.key, value(k, 1)))
			case 1:
				if f.fix > 0 {
					e = append(e, tfexample.Pair(f.key, value(f.kind, f.fix+1)))
				} else {
					e = append(e, tfexample.Pair(f.key, value(tfexample.FloatList, 2)))
				}
			case 2:
				kept := e[:0]
				for _, x := range e {
					if x.Key != "num_0018" {
						kept = append(kept, x)
					}
				}
				e = kept
			}
		}
		opts := tfexample.MarshalOptions{Unpacked: r.IntN(3) == 0}
		b := opts.Marshal(e)
		if fault && r.IntN(4) == 0 {
			b = b[:r.IntN(len(b)+1)]
		}
		out[i] = string(b)
	}
	return out
}

// On random records, valid and faulty, the plan packs exactly what the
// interpreter's ParseExampleV2 and the layer's Pack make, and fails where
// the interpreter fails, with an error naming the record and the
// feature.
func TestPackRandomRecords(t *testing.T) {
	for _, fuse := range []string{"", "ids-in-kernel=false"} {
		md, _ := servedModel(t, "small", 0, gen.ServingTFExample, fuse)
		plan, err := NewForModule(md.m, nil)
		if err != nil {
			t.Fatal(err)
		}
		pk := plan.NewPacker()
		r := rand.New(rand.NewPCG(3, 4))
		fails := 0
		for i := range 60 {
			batch := 1 + r.IntN(40)
			faults := 0.0
			if i%2 == 1 {
				faults = 0.05
			}
			feeds := map[string]*interp.Tensor{gen.ExampleInput: interp.Vector(randomRecords(r, batch, faults)...)}
			werr := check(t, md, plan, pk, feeds)
			if werr == nil {
				continue
			}
			fails++
			in, _ := plan.Gather(feeds)
			_, err := pk.Measure(in)
			if err == nil {
				t.Fatalf("the interpreter fails (%v), the plan measures", werr)
			}
			msg := err.Error()
			if !strings.Contains(msg, "record ") || !strings.Contains(msg, `(node "`) {
				t.Errorf("error %q names no record or node (the interpreter: %v)", msg, werr)
			}
		}
		if fails == 0 || fails > 30 {
			t.Errorf("%d of 60 batches failed", fails)
		}
	}
}

// FuzzRecords: any bytes as records of the small served model: the plan
// packs exactly what the interpreter's parse and the layer's Pack make, or
// fails where the interpreter fails, never panicking.
func FuzzRecords(f *testing.F) {
	md, _ := servedModel(f, "small", 0, gen.ServingTFExample, "")
	plan, err := NewForModule(md.m, nil)
	if err != nil {
		f.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, rec := range randomRecords(r, 12, 0.3) {
		f.Add([]byte(rec), []byte{})
	}
	valid := randomRecords(r, 2, 0)
	f.Add([]byte(valid[0]), []byte(valid[1]))
	f.Add([]byte{}, []byte("\x0a\x00"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		pk := plan.NewPacker()
		feeds := map[string]*interp.Tensor{gen.ExampleInput: interp.Vector(string(a), string(b))}
		check(t, md, plan, pk, feeds)
	})
}

// The parser computes every result of the parse as the interpreter's
// ParseExample and ParseExampleV2 do, on random records (valid and
// faulty: both fail then), every dtype and kind of feature among them.
func TestExampleParser(t *testing.T) {
	for _, serving := range []string{gen.ServingTFExample, gen.ServingTFExampleV1} {
		md, _ := servedModel(t, "small", 0, serving, "")
		var op *textir.Operation
		md.m.Walk(func(o *textir.Operation) bool {
			if tfg.IsExampleParse(o) {
				op = o
			}
			return true
		})
		var results []*textir.Value
		var names []string
		for i := range op.NumResults() {
			if r := op.Result(i); !exec.IsUnitType(r.Type()) {
				results = append(results, r)
				names = append(names, fmt.Sprintf("%s:%d", tfg.NodeName(op), i))
			}
		}
		ps, err := NewExampleParser(op, results, 3)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		for i := range 30 {
			recs := interp.Vector(randomRecords(r, 1+r.IntN(30), float64(i%3)*0.03)...)
			want, werr := exec.Run(context.Background(), md.m, map[string]*interp.Tensor{gen.ExampleInput: recs}, names, &exec.Options{RandomTables: true})
			got, err := ps.Parse(recs)
			if (werr == nil) != (err == nil) {
				t.Fatalf("%s batch %d: the interpreter: %v, the parser: %v", serving, i, werr, err)
			}
			if err != nil {
				continue
			}
			for j, n := range names {
				if e := got[j].Equal(want[n]); e != nil {
					t.Fatalf("%s batch %d: result %s: %v", serving, i, n, e)
				}
			}
		}
	}
}

// kindRecords draws records of testdata/parse-kinds.mlir's features
// (s, i sparse; d_i [2] int64 default [7, 8]; d_f [] float required; d_s
// [1] string default; v_f [-1, 2] float and v_s [-1] string padded; r_i,
// r_s ragged), with repeats, empty Features, unpacked lists and, with
// faults, the ParseExample errors of each kind.
func kindRecords(r *rand.Rand, n int, faults float64) []string {
	strs := func(m int) tfexample.Feature {
		v := make([]string, m)
		for i := range v {
			v[i] = []string{"", "a", "bb", "a string of more than 8 bytes", "x"}[r.IntN(5)]
		}
		return tfexample.Bytes(v...)
	}
	ints := func(m int) tfexample.Feature {
		v := make([]int64, m)
		for i := range v {
			v[i] = r.Int64N(60) - 5
		}
		return tfexample.Int64s(v...)
	}
	floats := func(m int) tfexample.Feature {
		v := make([]float32, m)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 6)
		}
		return tfexample.Floats(v...)
	}
	out := make([]string, n)
	for k := range out {
		var e tfexample.Example
		maybe := func(key string, f tfexample.Feature) {
			if r.IntN(4) > 0 {
				e = append(e, tfexample.Pair(key, f))
			}
		}
		maybe("s", strs(r.IntN(4)))
		maybe("i", ints(r.IntN(4)))
		maybe("d_i", ints(2))
		e = append(e, tfexample.Pair("d_f", floats(1)))
		maybe("d_s", strs(1))
		maybe("v_f", floats(2*r.IntN(3)))
		maybe("v_s", strs(r.IntN(3)))
		maybe("r_i", ints(r.IntN(4)))
		maybe("r_s", strs(r.IntN(3)))
		if r.IntN(6) == 0 {
			e = append(e, tfexample.Pair([]string{"d_i", "s", "v_s"}[r.IntN(3)], tfexample.Feature{}))
		}
		if r.Float64() < faults {
			switch r.IntN(4) {
			case 0:
				e = append(e, tfexample.Pair("d_i", ints(3)))
			case 1:
				e = append(e, tfexample.Pair("v_f", floats(3)))
			case 2:
				e = append(e, tfexample.Pair("r_s", ints(1)))
			case 3:
				kept := e[:0]
				for _, x := range e {
					if x.Key != "d_f" {
						kept = append(kept, x)
					}
				}
				e = kept
			}
		}
		out[k] = string(tfexample.MarshalOptions{Unpacked: r.IntN(3) == 0}.Marshal(e))
	}
	return out
}

// Every kind of feature: the parser computes every result of the parse
// as the interpreter does, and the columns over sparse, fixed and
// variable-length dense features (defaults and padding, strings in slots
// and offsets) are written from the records as Pack writes the
// interpreter's inputs.
func TestExampleKinds(t *testing.T) {
	m := fuseFile(t, "testdata/parse-kinds.mlir", "")
	md := &model{name: "parse-kinds", m: m, opts: &exec.Options{}, feeds: func(tb testing.TB, batch int, seed uint64) map[string]*interp.Tensor {
		return map[string]*interp.Tensor{"records": interp.Vector(kindRecords(rand.New(rand.NewPCG(seed, 1)), batch, 0)...)}
	}}
	plan, err := NewForModule(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if direct, computed, _ := plan.Columns(); direct != 6 || computed != 0 {
		t.Errorf("%d columns from the records, %d computed; want 6 and 0", direct, computed)
	}
	pk := plan.NewPacker()
	for i, b := range []int{1, 9, 100} {
		mustCheck(t, md, plan, pk, md.feeds(t, b, uint64(i)))
	}

	var op *textir.Operation
	m.Walk(func(o *textir.Operation) bool {
		if tfg.IsExampleParse(o) {
			op = o
		}
		return true
	})
	var results []*textir.Value
	var names []string
	for i := range op.NumResults() {
		if res := op.Result(i); !exec.IsUnitType(res.Type()) {
			results = append(results, res)
			names = append(names, fmt.Sprintf("parse:%d", i))
		}
	}
	ps, err := NewExampleParser(op, results, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	fails := 0
	for i := range 40 {
		recs := interp.Vector(kindRecords(r, 1+r.IntN(20), float64(i%2)*0.05)...)
		want, werr := exec.Run(context.Background(), m, map[string]*interp.Tensor{"records": recs}, names, &exec.Options{})
		got, err := ps.Parse(recs)
		if (werr == nil) != (err == nil) {
			t.Fatalf("batch %d: the interpreter: %v, the parser: %v", i, werr, err)
		}
		if err != nil {
			fails++
			if !strings.Contains(err.Error(), "record ") {
				t.Errorf("error %q names no record", err)
			}
			// The layer's plan fails on the same records.
			in, _ := plan.Gather(map[string]*interp.Tensor{"records": recs})
			if _, err := plan.NewPacker().Measure(in); err == nil {
				t.Errorf("batch %d: the plan measures records the interpreter refuses (%v)", i, werr)
			}
			continue
		}
		for j, n := range names {
			if e := got[j].Equal(want[n]); e != nil {
				t.Fatalf("batch %d: result %s: %v", i, n, e)
			}
		}
		mustCheck(t, md, plan, plan.NewPacker(), map[string]*interp.Tensor{"records": recs})
	}
	if fails == 0 || fails == 40 {
		t.Errorf("%d of 40 batches failed", fails)
	}
}

// A batch packed by Plan.Pack (a session's packer) allocates nothing
// but the *abi.Packed it returns once the plan's Packer and the pool's
// workers are warm: not for
// records (their index, the ranges indexed and written on the pool) nor
// for one feed per feature. (AllocsPerRun's average is truncated, so an
// allocation of a sync.Pool emptied by a collection does not count.)
func TestPackAllocs(t *testing.T) {
	served, _ := servedModel(t, "E", 60, gen.ServingTFExample, "")
	for _, md := range []*model{served, smallModel(t, "")} {
		t.Run(md.name, func(t *testing.T) {
			plan, err := NewForModule(md.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			feeds := md.feeds(t, 256, 1)
			var buf []byte
			alloc := func(_, n int64) ([]byte, error) {
				if int64(cap(buf)) < n {
					buf = make([]byte, n)
				}
				return buf[:n], nil
			}
			if _, err := plan.Pack(feeds, alloc); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(50, func() {
				if _, err := plan.Pack(feeds, alloc); err != nil {
					t.Fatal(err)
				}
			}); n > 1 {
				t.Errorf("%v allocations per batch, want 1 (the abi.Packed)", n)
			}
		})
	}
}
