package gen

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/interp/tfexample"
	"github.com/recom-compiler/recom/textir"
)

// graphText builds a text GraphDef node by node for the tests.
type graphText struct{ strings.Builder }

// node adds a node; attrs are pbtxt attr entries (see the t* helpers).
func (g *graphText) node(name, op string, inputs []string, attrs ...string) {
	fmt.Fprintf(g, "node { name: %q op: %q", name, op)
	for _, in := range inputs {
		fmt.Fprintf(g, " input: %q", in)
	}
	for _, a := range attrs {
		g.WriteString(" " + a)
	}
	g.WriteString(" }\n")
}

func tType(key, dt string) string { return fmt.Sprintf("attr { key: %q value { type: %s } }", key, dt) }
func tInt(key string, v int64) string {
	return fmt.Sprintf("attr { key: %q value { i: %d } }", key, v)
}
func tStr(key, v string) string { return fmt.Sprintf("attr { key: %q value { s: %q } }", key, v) }
func tShape(key string, dims ...int64) string {
	var b strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&b, " dim { size: %d }", d)
	}
	return fmt.Sprintf("attr { key: %q value { shape {%s } } }", key, b.String())
}
func tFloats(key string, vs ...float64) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, " f: %g", v)
	}
	return fmt.Sprintf("attr { key: %q value { list {%s } } }", key, b.String())
}

// aTensor is a "value" attr: a tensor of dtype whose elements are vals
// (strings quoted), of the shape dims.
func tTensor(dt string, dims []int64, vals ...string) string {
	field := map[string]string{"DT_STRING": "string_val", "DT_INT64": "int64_val", "DT_INT32": "int_val", "DT_FLOAT": "float_val"}[dt]
	var b strings.Builder
	fmt.Fprintf(&b, "attr { key: \"value\" value { tensor { dtype: %s tensor_shape {", dt)
	for _, d := range dims {
		fmt.Fprintf(&b, " dim { size: %d }", d)
	}
	b.WriteString(" }")
	for _, v := range vals {
		if dt == "DT_STRING" {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, " %s: %s", field, v)
	}
	b.WriteString(" } } }")
	return b.String()
}

func (g *graphText) placeholder(name, dt string, dims ...int64) {
	g.node(name, "Placeholder", nil, tType("dtype", dt), tShape("shape", dims...))
}

func (g *graphText) constant(name, dt string, dims []int64, vals ...string) {
	g.node(name, "Const", nil, tType("dtype", dt), tTensor(dt, dims, vals...))
}

// table adds a string-to-int64 hash table filled with keys by an
// InitializeTableV2.
func (g *graphText) table(name string, keys ...string) {
	g.node(name, "HashTableV2", nil, tType("key_dtype", "DT_STRING"), tType("value_dtype", "DT_INT64"),
		tStr("shared_name", name))
	g.constant(name+"/keys", "DT_STRING", []int64{int64(len(keys))}, keys...)
	var ids []string
	for i := range keys {
		ids = append(ids, strconv.Itoa(i))
	}
	g.constant(name+"/values", "DT_INT64", []int64{int64(len(keys))}, ids...)
	g.node(name+"/init", "InitializeTableV2", []string{name, name + "/keys", name + "/values"},
		tType("Tkey", "DT_STRING"), tType("Tval", "DT_INT64"))
}

// variable adds a float VariableV2 of rows x cols read through Identity.
func (g *graphText) variable(name string, rows, cols int64) {
	g.node(name, "VariableV2", nil, tType("dtype", "DT_FLOAT"), tShape("shape", rows, cols))
	g.node(name+"/read", "Identity", []string{name}, tType("T", "DT_FLOAT"))
}

// importText imports a text GraphDef into tfg.
func importText(t *testing.T, text string) *textir.Operation {
	t.Helper()
	f, err := graphdef.Parse([]byte(text), "test.pbtxt")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	m, err := importer.Import(all.NewContext(), f.Graph)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return m
}

// feedsOf draws the feeds of m and returns them by name.
func feedsOf(t *testing.T, m *textir.Operation, o GraphFeedOptions) (map[string]*interp.Tensor, map[string]FedInput) {
	t.Helper()
	arrays, fed, err := GraphFeeds(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{}
	for _, a := range arrays {
		feeds[a.Name] = a.Tensor
	}
	how := map[string]FedInput{}
	for _, f := range fed {
		how[f.Name] = f
	}
	return feeds, how
}

// graphCase is a small graph, the outputs that run it, and what its feeds
// must be.
type graphCase struct {
	name  string
	build func(g *graphText)
	// outputs run in the interpreter on the feeds (none: the graph has an
	// op the interpreter lacks).
	outputs []string
	opts    GraphFeedOptions
	check   func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput)
}

var graphCases = []graphCase{
	{
		name: "bucketize straddles the boundaries",
		build: func(g *graphText) {
			g.placeholder("x", "DT_FLOAT", -1)
			g.node("b", "Bucketize", []string{"x"}, tType("T", "DT_FLOAT"), tFloats("boundaries", 0, 1, 2.5, 10))
		},
		outputs: []string{"b"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			x := feeds["x"].Float32s()
			bounds := []float64{0, 1, 2.5, 10}
			for i, b := range bounds {
				gap := 1.5
				if i > 0 {
					gap = b - bounds[i-1]
				}
				below := slices.ContainsFunc(x, func(v float32) bool { return float64(v) < b && float64(v) > b-gap/2 })
				above := slices.ContainsFunc(x, func(v float32) bool { return float64(v) >= b && float64(v) < b+gap/2 })
				if !below || !above {
					t.Errorf("boundary %g: values just below %v, just above %v", b, below, above)
				}
			}
			if slices.Min(x) >= 0 || slices.Max(x) < 10 {
				t.Errorf("no value beyond the first or last boundary: [%g, %g]", slices.Min(x), slices.Max(x))
			}
			if !strings.Contains(how["x"].How, "around 4 boundaries in [0, 10]") {
				t.Errorf("how: %q", how["x"].How)
			}
		},
	},
	{
		name: "integers cast and bucketized land on the boundaries' neighbours",
		build: func(g *graphText) {
			g.placeholder("age", "DT_INT64", -1)
			g.node("f", "Cast", []string{"age"}, tType("SrcT", "DT_INT64"), tType("DstT", "DT_FLOAT"))
			g.node("b", "Bucketize", []string{"f"}, tType("T", "DT_FLOAT"), tFloats("boundaries", 18, 25, 30))
		},
		outputs: []string{"b"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			age := feeds["age"].Int64s()
			for _, want := range []int64{17, 18, 19, 24, 25, 26, 29, 30, 31} {
				if !slices.Contains(age, want) {
					t.Errorf("no age %d (next to a boundary)", want)
				}
			}
		},
	},
	{
		name: "vocabulary keys and some out of vocabulary",
		build: func(g *graphText) {
			g.placeholder("w", "DT_STRING", -1)
			g.table("vocab", "red", "green", "blue")
			g.constant("default", "DT_INT64", nil, "-1")
			g.node("ids", "LookupTableFindV2", []string{"vocab", "w", "default"}, tType("Tin", "DT_STRING"), tType("Tout", "DT_INT64"))
		},
		outputs: []string{"ids"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			keys := []string{"red", "green", "blue"}
			oov := 0
			seen := map[string]bool{}
			for _, w := range feeds["w"].Strings() {
				if slices.Contains(keys, w) {
					seen[w] = true
				} else if strings.HasPrefix(w, "oov-") {
					oov++
				} else {
					t.Errorf("value %q: neither a key nor out of vocabulary", w)
				}
			}
			if len(seen) != 3 {
				t.Errorf("keys drawn: %v", seen)
			}
			if n := feeds["w"].Len(); oov < n/40 || oov > n/4 {
				t.Errorf("%d of %d out of vocabulary, want about 10%%", oov, n)
			}
			if !strings.Contains(how["w"].How, "vocabulary of 3 keys (table vocab)") {
				t.Errorf("how: %q", how["w"].How)
			}
		},
	},
	{
		name: "ids of a table stay in it",
		build: func(g *graphText) {
			g.placeholder("ids", "DT_INT64", -1)
			g.variable("emb", 7, 2)
			g.constant("axis", "DT_INT32", nil, "0")
			g.node("rows", "GatherV2", []string{"emb/read", "ids", "axis"},
				tType("Tparams", "DT_FLOAT"), tType("Tindices", "DT_INT64"), tType("Taxis", "DT_INT32"))
		},
		outputs: []string{"rows"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			ids := feeds["ids"].Int64s()
			for v := range int64(7) {
				if !slices.Contains(ids, v) {
					t.Errorf("id %d never drawn", v)
				}
			}
			if slices.Min(ids) < 0 || slices.Max(ids) >= 7 {
				t.Errorf("ids in [%d, %d], want [0, 7) (no range check handles others)", slices.Min(ids), slices.Max(ids))
			}
		},
	},
	{
		name: "a range check with a default lets ids out of range through",
		build: func(g *graphText) {
			g.placeholder("ids", "DT_INT64", -1)
			g.constant("zero", "DT_INT64", nil, "0")
			g.constant("n", "DT_INT64", nil, "7")
			g.node("less", "Less", []string{"ids", "zero"}, tType("T", "DT_INT64"))
			g.node("ge", "GreaterEqual", []string{"ids", "n"}, tType("T", "DT_INT64"))
			g.node("oor", "LogicalOr", []string{"less", "ge"})
			g.node("shape", "Shape", []string{"ids"}, tType("T", "DT_INT64"), tType("out_type", "DT_INT32"))
			g.constant("dv", "DT_INT64", nil, "3")
			g.node("fill", "Fill", []string{"shape", "dv"}, tType("T", "DT_INT64"), tType("index_type", "DT_INT32"))
			g.node("sel", "SelectV2", []string{"oor", "fill", "ids"}, tType("T", "DT_INT64"))
			g.variable("emb", 7, 2)
			g.constant("axis", "DT_INT32", nil, "0")
			g.node("rows", "GatherV2", []string{"emb/read", "sel", "axis"},
				tType("Tparams", "DT_FLOAT"), tType("Tindices", "DT_INT64"), tType("Taxis", "DT_INT32"))
		},
		outputs: []string{"rows"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			ids := feeds["ids"].Int64s()
			if !slices.ContainsFunc(ids, func(v int64) bool { return v < 0 }) || !slices.ContainsFunc(ids, func(v int64) bool { return v >= 7 }) {
				t.Errorf("ids in [%d, %d]: want some below 0 and some from 7 (the default replaces them)", slices.Min(ids), slices.Max(ids))
			}
			in := 0
			for _, v := range ids {
				if v >= 0 && v < 7 {
					in++
				}
			}
			if in < len(ids)*3/4 {
				t.Errorf("%d of %d ids in range", in, len(ids))
			}
		},
	},
	{
		name: "negative ids pruned, none past the table",
		build: func(g *graphText) {
			g.placeholder("ids", "DT_INT64", -1)
			g.constant("zero", "DT_INT64", nil, "0")
			g.node("ok", "GreaterEqual", []string{"ids", "zero"}, tType("T", "DT_INT64"))
			g.node("where", "Where", []string{"ok"}, tType("T", "DT_BOOL"))
			g.constant("flat", "DT_INT32", []int64{1}, "-1")
			g.node("pos", "Reshape", []string{"where", "flat"}, tType("T", "DT_INT64"), tType("Tshape", "DT_INT32"))
			g.constant("axis", "DT_INT32", nil, "0")
			g.node("kept", "GatherV2", []string{"ids", "pos", "axis"},
				tType("Tparams", "DT_INT64"), tType("Tindices", "DT_INT64"), tType("Taxis", "DT_INT32"))
			g.variable("emb", 5, 2)
			g.node("rows", "GatherV2", []string{"emb/read", "kept", "axis"},
				tType("Tparams", "DT_FLOAT"), tType("Tindices", "DT_INT64"), tType("Taxis", "DT_INT32"))
		},
		outputs: []string{"rows"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			ids := feeds["ids"].Int64s()
			if slices.Max(ids) >= 5 || slices.Min(ids) >= 0 {
				t.Errorf("ids in [%d, %d]: want some negative, none from 5", slices.Min(ids), slices.Max(ids))
			}
		},
	},
	{
		name: "one-hot indices in and out of the depth",
		build: func(g *graphText) {
			g.placeholder("c", "DT_INT32", -1)
			g.constant("depth", "DT_INT32", nil, "5")
			g.constant("on", "DT_FLOAT", nil, "1")
			g.constant("off", "DT_FLOAT", nil, "0")
			g.node("oh", "OneHot", []string{"c", "depth", "on", "off"}, tType("T", "DT_FLOAT"), tType("TI", "DT_INT32"), tInt("axis", -1))
		},
		outputs: []string{"oh"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			c := feeds["c"].Int32s()
			out := 0
			for _, v := range c {
				if v < 0 || v >= 5 {
					out++
				}
			}
			if out == 0 || out > len(c)/4 {
				t.Errorf("%d of %d indices outside [0, 5)", out, len(c))
			}
		},
	},
	{
		name: "split strings are separator-joined tokens",
		build: func(g *graphText) {
			g.placeholder("s", "DT_STRING", -1)
			g.constant("sep", "DT_STRING", nil, ",")
			g.node("split", "StringSplitV2", []string{"s", "sep"}, tInt("maxsplit", -1))
			g.node("h", "StringToHashBucketFast", []string{"split:1"}, tInt("num_buckets", 10))
		},
		outputs: []string{"h"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			counts := map[int]bool{}
			for _, s := range feeds["s"].Strings() {
				if s == "" {
					counts[0] = true
					continue
				}
				toks := strings.Split(s, ",")
				counts[len(toks)] = true
				for _, tok := range toks {
					if tok == "" {
						t.Errorf("%q has an empty token", s)
					}
				}
			}
			for n := range 5 {
				if !counts[n] {
					t.Errorf("no string of %d tokens (have %v)", n, counts)
				}
			}
		},
	},
	{
		name: "padded bags: values first, then the padding",
		build: func(g *graphText) {
			g.placeholder("x", "DT_INT64", -1, 3)
			g.constant("pad", "DT_INT64", nil, "-1")
			g.node("ne", "NotEqual", []string{"x", "pad"}, tType("T", "DT_INT64"))
			g.node("where", "Where", []string{"ne"}, tType("T", "DT_BOOL"))
			g.node("vals", "GatherNd", []string{"x", "where"}, tType("Tparams", "DT_INT64"), tType("Tindices", "DT_INT64"))
			g.node("str", "AsString", []string{"vals"}, tType("T", "DT_INT64"))
			g.node("h", "StringToHashBucketFast", []string{"str"}, tInt("num_buckets", 10))
		},
		outputs: []string{"h"},
		opts:    GraphFeedOptions{Batch: 64},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			x := feeds["x"]
			if !slices.Equal(x.Shape(), []int64{64, 3}) {
				t.Fatalf("shape %v", x.Shape())
			}
			lens := map[int]bool{}
			v := x.Int64s()
			for row := range 64 {
				n := 0
				for n < 3 && v[row*3+n] != -1 {
					n++
				}
				for j := n; j < 3; j++ {
					if v[row*3+j] != -1 {
						t.Errorf("row %d: %v: a value after the padding", row, v[row*3:row*3+3])
					}
				}
				lens[n] = true
			}
			for n := range 4 {
				if !lens[n] {
					t.Errorf("no row of %d values (have %v)", n, lens)
				}
			}
		},
	},
	{
		name: "a sparse placeholder's three parts agree",
		build: func(g *graphText) {
			g.placeholder("sp/indices", "DT_INT64", -1, 2)
			g.placeholder("sp/values", "DT_STRING", -1)
			g.placeholder("sp/shape", "DT_INT64", 2)
			g.constant("empty", "DT_STRING", nil, "")
			g.node("fill", "SparseFillEmptyRows", []string{"sp/indices", "sp/values", "sp/shape", "empty"}, tType("T", "DT_STRING"))
			g.node("h", "StringToHashBucketFast", []string{"fill:1"}, tInt("num_buckets", 10))
		},
		outputs: []string{"h", "fill:2"},
		opts:    GraphFeedOptions{Batch: 32},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			idx, vals, shape := feeds["sp/indices"], feeds["sp/values"], feeds["sp/shape"]
			nnz := vals.Len()
			if !slices.Equal(idx.Shape(), []int64{int64(nnz), 2}) {
				t.Fatalf("indices %v, values %v", idx.Shape(), vals.Shape())
			}
			sh := shape.Int64s()
			if sh[0] != 32 || sh[1] < 1 {
				t.Errorf("dense_shape %v", sh)
			}
			iv := idx.Int64s()
			rows := map[int64]bool{}
			for k := range nnz {
				r, c := iv[2*k], iv[2*k+1]
				rows[r] = true
				if r < 0 || r >= sh[0] || c < 0 || c >= sh[1] {
					t.Errorf("index %d: (%d, %d) outside %v", k, r, c, sh)
				}
				if k > 0 && (r < iv[2*k-2] || r == iv[2*k-2] && c <= iv[2*k-1]) {
					t.Errorf("index %d: (%d, %d) not after (%d, %d)", k, r, c, iv[2*k-2], iv[2*k-1])
				}
			}
			if len(rows) == 32 || len(rows) < 16 {
				t.Errorf("%d of 32 rows have values: want some, not all, empty", len(rows))
			}
		},
	},
	{
		name: "numbers as text",
		build: func(g *graphText) {
			g.placeholder("s", "DT_STRING", -1)
			g.node("n", "StringToNumber", []string{"s"}, tType("out_type", "DT_FLOAT"))
			g.node("b", "Bucketize", []string{"n"}, tType("T", "DT_FLOAT"), tFloats("boundaries", 1, 2))
		},
		// The interpreter has no StringToNumber: the strings are parsed here.
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			var below, above bool
			for _, s := range feeds["s"].Strings() {
				f, err := strconv.ParseFloat(s, 32)
				if err != nil {
					t.Fatalf("%q: %v", s, err)
				}
				below = below || (f < 2 && f > 1.5)
				above = above || (f >= 2 && f < 2.5)
			}
			if !below || !above {
				t.Errorf("numbers around 2: below %v, above %v", below, above)
			}
		},
	},
	{
		name: "weights share their ids' padding and stay positive",
		build: func(g *graphText) {
			g.placeholder("ids", "DT_STRING", -1, 4)
			g.placeholder("w", "DT_FLOAT", -1, 4)
			g.constant("nostr", "DT_STRING", nil, "")
			g.constant("nofloat", "DT_FLOAT", nil, "0")
			g.node("ne_ids", "NotEqual", []string{"ids", "nostr"}, tType("T", "DT_STRING"))
			g.node("ne_w", "NotEqual", []string{"w", "nofloat"}, tType("T", "DT_FLOAT"))
			g.node("both", "LogicalAnd", []string{"ne_ids", "ne_w"})
			g.node("where", "Where", []string{"both"}, tType("T", "DT_BOOL"))
			g.node("wv", "GatherNd", []string{"w", "where"}, tType("Tparams", "DT_FLOAT"), tType("Tindices", "DT_INT64"))
			g.constant("zero", "DT_FLOAT", nil, "0")
			g.node("pos", "Greater", []string{"wv", "zero"}, tType("T", "DT_FLOAT"))
		},
		outputs: []string{"pos"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			ids, w := feeds["ids"].Strings(), feeds["w"].Float32s()
			neg := 0
			for i := range ids {
				if (ids[i] == "") != (w[i] == 0) {
					t.Fatalf("element %d: id %q, weight %g: padding at different places", i, ids[i], w[i])
				}
				if w[i] < 0 {
					neg++
				}
			}
			if neg == 0 || neg > len(w)/4 {
				t.Errorf("%d negative weights of %d: want a few (pruned by w > 0)", neg, len(w))
			}
		},
	},
	{
		name: "columns that only meet in a concatenation keep their own padding",
		build: func(g *graphText) {
			g.constant("nostr", "DT_STRING", nil, "")
			g.constant("axis", "DT_INT32", nil, "0")
			for _, x := range []string{"a", "b"} {
				g.placeholder(x, "DT_STRING", -1, 3)
				g.node(x+"/ne", "NotEqual", []string{x, "nostr"}, tType("T", "DT_STRING"))
				g.node(x+"/where", "Where", []string{x + "/ne"}, tType("T", "DT_BOOL"))
				g.node(x+"/values", "GatherNd", []string{x, x + "/where"}, tType("Tparams", "DT_STRING"), tType("Tindices", "DT_INT64"))
				g.node(x+"/hash", "StringToHashBucketFast", []string{x + "/values"}, tInt("num_buckets", 10))
			}
			g.node("both", "ConcatV2", []string{"a/hash", "b/hash", "axis"}, tInt("N", 2), tType("T", "DT_INT64"), tType("Tidx", "DT_INT32"))
		},
		outputs: []string{"both"},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			a, b := feeds["a"].Strings(), feeds["b"].Strings()
			same := true
			for i := range a {
				same = same && (a[i] == "") == (b[i] == "")
			}
			if same {
				t.Error("a and b have their padding at the same places: aligned, though nothing pairs them")
			}
		},
	},
	{
		name: "dense floats",
		build: func(g *graphText) {
			g.placeholder("x", "DT_FLOAT", -1, 3)
			g.variable("w", 3, 2)
			g.node("y", "MatMul", []string{"x", "w/read"}, tType("T", "DT_FLOAT"))
		},
		outputs: []string{"y"},
		opts:    GraphFeedOptions{Batch: 5},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			if !slices.Equal(feeds["x"].Shape(), []int64{5, 3}) || how["x"].How != "N(0, 1)" {
				t.Errorf("x: %v, %q", feeds["x"].Shape(), how["x"].How)
			}
		},
	},
	{
		name: "the feed spec sets rows, shapes, lengths, ranges and vocabularies",
		build: func(g *graphText) {
			g.placeholder("w", "DT_STRING", -1)
			g.table("vocab", "red", "green", "blue")
			g.constant("default", "DT_INT64", nil, "-1")
			g.node("ids", "LookupTableFindV2", []string{"vocab", "w", "default"}, tType("Tin", "DT_STRING"), tType("Tout", "DT_INT64"))
			g.placeholder("n", "DT_INT64", -1, -1)
			g.node("nf", "Cast", []string{"n"}, tType("SrcT", "DT_INT64"), tType("DstT", "DT_FLOAT"))
			g.placeholder("x", "DT_FLOAT", 9)
		},
		outputs: []string{"ids", "nf"},
		opts: GraphFeedOptions{Batch: 50, Spec: FeedSpec{
			"*": {Rows: 40},
			"w": {Vocabulary: []string{"red", "violet"}, Invalid: new(0.0)},
			"n": {Shape: []int64{-1, 2}, Min: new(3.0), Max: new(4.0), Rows: 6},
			"x": {Min: new(-1.0), Max: new(-0.5)},
		}},
		check: func(t *testing.T, feeds map[string]*interp.Tensor, how map[string]FedInput) {
			w := feeds["w"]
			if w.Len() != 40 {
				t.Errorf("w: %d rows, want 40 (the spec's \"*\")", w.Len())
			}
			for _, v := range w.Strings() {
				if v != "red" && v != "violet" {
					t.Errorf("w: %q is not in the spec's vocabulary", v)
				}
			}
			n := feeds["n"]
			if !slices.Equal(n.Shape(), []int64{6, 2}) {
				t.Errorf("n: shape %v, want [6 2]", n.Shape())
			}
			for _, v := range n.Int64s() {
				if v != 3 && v != 4 {
					t.Errorf("n: %d outside [3, 4]", v)
				}
			}
			for _, v := range feeds["x"].Float32s() {
				if v < -1 || v >= -0.5 {
					t.Errorf("x: %g outside [-1, -0.5)", v)
				}
			}
			if feeds["x"].Len() != 9 {
				t.Errorf("x: %v, want the graph's [9]", feeds["x"].Shape())
			}
		},
	},
}

// Each small graph's feeds have the values its ops call for, and the
// interpreter runs the graph on them.
func TestGraphFeeds(t *testing.T) {
	for _, c := range graphCases {
		t.Run(c.name, func(t *testing.T) {
			var g graphText
			c.build(&g)
			m := importText(t, g.String())
			o := c.opts
			if o.Batch == 0 {
				o.Batch = 512
			}
			o.Seed = 7
			feeds, how := feedsOf(t, m, o)
			c.check(t, feeds, how)
			if len(c.outputs) > 0 {
				opts := &exec.Options{RandomTables: true, Seed: 1}
				if _, err := exec.Run(context.Background(), m, feeds, c.outputs, opts); err != nil {
					t.Errorf("the interpreter refuses the feeds: %v", err)
				}
			}
			// The same seed draws the same feeds; another seed others.
			again, _ := feedsOf(t, m, o)
			o.Seed++
			other, _ := feedsOf(t, m, o)
			differs := false
			for name, f := range feeds {
				if err := again[name].Equal(f); err != nil {
					t.Errorf("%s: the same seed drew other values: %v", name, err)
				}
				differs = differs || other[name].Equal(f) != nil
			}
			if !differs {
				t.Error("another seed drew the same feeds")
			}
		})
	}
}

// A string parsed by ParseExampleV2 is fed serialized tf.Example records:
// every feature of the parse with its kind, dense features of their shape
// (missing now and then where they have a default, never where not),
// sparse ones of a few values (absent now and then), drawn from what the
// graph does with each feature's values.
func TestGraphFeedsExamples(t *testing.T) {
	var g graphText
	g.placeholder("serialized", "DT_STRING", -1)
	g.constant("names", "DT_STRING", []int64{0})
	g.constant("sparse_keys", "DT_STRING", []int64{1}, "color")
	g.constant("dense_keys", "DT_STRING", []int64{2}, "age", "id")
	g.constant("ragged_keys", "DT_STRING", []int64{0})
	g.constant("age_default", "DT_FLOAT", []int64{1}, "0")
	g.constant("id_default", "DT_INT64", []int64{0})
	g.node("parse", "ParseExampleV2", []string{"serialized", "names", "sparse_keys", "dense_keys", "ragged_keys", "age_default", "id_default"},
		tInt("num_sparse", 1), "attr { key: \"sparse_types\" value { list { type: DT_STRING } } }",
		"attr { key: \"Tdense\" value { list { type: DT_FLOAT type: DT_INT64 } } }",
		"attr { key: \"ragged_value_types\" value { list { } } }", "attr { key: \"ragged_split_types\" value { list { } } }",
		"attr { key: \"dense_shapes\" value { list { shape { dim { size: 1 } } shape { } } } }")
	g.table("vocab", "red", "green")
	g.constant("default", "DT_INT64", nil, "-1")
	g.node("color_ids", "LookupTableFindV2", []string{"vocab", "parse:1", "default"}, tType("Tin", "DT_STRING"), tType("Tout", "DT_INT64"))
	g.node("age_b", "Bucketize", []string{"parse:3"}, tType("T", "DT_FLOAT"), tFloats("boundaries", 30, 60))
	m := importText(t, g.String())
	feeds, how := feedsOf(t, m, GraphFeedOptions{Batch: 200, Seed: 3, Spec: FeedSpec{"serialized": {Missing: new(0.3)}}})
	if !strings.Contains(how["serialized"].How, "tf.Example records (1 sparse, 2 dense features)") {
		t.Errorf("how: %q", how["serialized"].How)
	}
	var ageMissing, colorMissing, colorVals int
	for i, rec := range feeds["serialized"].Strings() {
		ex, err := tfexample.Unmarshal([]byte(rec))
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		fs := map[string]tfexample.Feature{}
		for _, e := range ex {
			fs[e.Key] = e.Feature
		}
		if id, ok := fs["id"]; !ok || id.Kind != tfexample.Int64List || id.Len() != 1 {
			t.Fatalf("record %d: id %+v: want one int64 (it has no default)", i, id)
		}
		if age, ok := fs["age"]; !ok {
			ageMissing++
		} else if age.Kind != tfexample.FloatList || age.Len() != 1 {
			t.Errorf("record %d: age %+v: want one float", i, age)
		}
		color, ok := fs["color"]
		if !ok {
			colorMissing++
			continue
		}
		if color.Kind != tfexample.BytesList || color.Len() > 4 {
			t.Errorf("record %d: color %+v: want 0 to 4 strings", i, color)
		}
		for _, c := range color.Bytes {
			colorVals++
			if c != "red" && c != "green" && !strings.HasPrefix(c, "oov-") {
				t.Errorf("record %d: color %q", i, c)
			}
		}
	}
	if ageMissing < 30 || ageMissing > 90 {
		t.Errorf("age missing in %d of 200 records, want about 30%%", ageMissing)
	}
	if colorMissing == 0 || colorMissing > 50 || colorVals < 200 {
		t.Errorf("color missing in %d records, %d values", colorMissing, colorVals)
	}
	// The interpreter parses the records and runs the graph on them.
	if _, err := exec.Run(context.Background(), m, feeds, []string{"color_ids", "age_b", "parse:4"}, &exec.Options{}); err != nil {
		t.Errorf("the interpreter refuses the records: %v", err)
	}
}

// Records survive .npz, which drops the trailing zero bytes of strings:
// none ends in one, even where every feature's encoding does (ids of 0,
// empty lists), and the interpreter parses them.
func TestGraphFeedsExamplesNPZ(t *testing.T) {
	for _, c := range []struct {
		name   string
		sparse bool
		spec   *InputSpec
	}{
		{"a dense id of 0 and a sparse list", true, &InputSpec{Features: map[string]*InputSpec{"id": {Min: new(0.0), Max: new(0.0)}}}},
		{"only an id of 0", false, &InputSpec{Features: map[string]*InputSpec{"id": {Min: new(0.0), Max: new(0.0)}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g graphText
			g.placeholder("serialized", "DT_STRING", -1)
			g.constant("none", "DT_STRING", []int64{0})
			g.constant("dense_keys", "DT_STRING", []int64{1}, "id")
			g.constant("id_default", "DT_INT64", []int64{0})
			sparseKeys, n, types := "none", 0, ""
			if c.sparse {
				g.constant("sparse_keys", "DT_STRING", []int64{1}, "tags")
				sparseKeys, n, types = "sparse_keys", 1, "type: DT_INT64"
			}
			g.node("parse", "ParseExampleV2", []string{"serialized", "none", sparseKeys, "dense_keys", "none", "id_default"},
				tInt("num_sparse", int64(n)), "attr { key: \"sparse_types\" value { list { "+types+" } } }",
				"attr { key: \"Tdense\" value { list { type: DT_INT64 } } }",
				"attr { key: \"ragged_value_types\" value { list { } } }", "attr { key: \"ragged_split_types\" value { list { } } }",
				"attr { key: \"dense_shapes\" value { list { shape { } } } }")
			m := importText(t, g.String())
			arrays, _, err := GraphFeeds(context.Background(), m, GraphFeedOptions{Batch: 50, Spec: FeedSpec{"serialized": c.spec}})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := npz.WriteNPZ(&buf, arrays); err != nil {
				t.Fatal(err)
			}
			back, err := npz.DecodeNPZ(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := back[0].Tensor.Equal(arrays[0].Tensor); err != nil {
				t.Fatalf("the records changed through .npz: %v", err)
			}
			out, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{"serialized": back[0].Tensor}, []string{"parse:" + strconv.Itoa(3*n)}, &exec.Options{})
			if err != nil {
				t.Fatalf("the interpreter refuses the records: %v", err)
			}
			for _, id := range out["parse:"+strconv.Itoa(3*n)].Int64s() {
				if id != 0 {
					t.Fatalf("id %d, want the feed spec's 0", id)
				}
			}
		})
	}
}

// A vocabulary read from a file (InitializeTableFromTextFileV2): the keys
// are the file's lines, or a column of them; a SavedModel's asset path
// comes before the graph's constant.
func TestGraphFeedsVocabularyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vocab.txt")
	if err := os.WriteFile(file, []byte("apple\t1\npear\t2\nplum\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		keyIndex int64
		assets   map[string]string
		constant string
		want     []string
	}{
		{"whole lines, asset path", -2, map[string]string{"vocab_file:0": file}, "vocab.txt", []string{"apple\t1", "pear\t2", "plum\t3"}},
		{"first column, the constant's path", 0, nil, file, []string{"apple", "pear", "plum"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g graphText
			g.placeholder("w", "DT_STRING", -1)
			g.node("table", "HashTableV2", nil, tType("key_dtype", "DT_STRING"), tType("value_dtype", "DT_INT64"))
			g.constant("vocab_file", "DT_STRING", nil, c.constant)
			g.node("init", "InitializeTableFromTextFileV2", []string{"table", "vocab_file"},
				tInt("key_index", c.keyIndex), tInt("value_index", -1), tInt("vocab_size", -1), tStr("delimiter", "\t"))
			g.constant("default", "DT_INT64", nil, "-1")
			g.node("ids", "LookupTableFindV2", []string{"table", "w", "default"}, tType("Tin", "DT_STRING"), tType("Tout", "DT_INT64"))
			m := importText(t, g.String())
			feeds, how := feedsOf(t, m, GraphFeedOptions{Batch: 100, Assets: c.assets})
			// The interpreter reads the file (a relative name from the
			// SavedModel's directory) and looks the words up.
			if _, err := exec.Run(context.Background(), m, feeds, []string{"ids"}, &exec.Options{AssetDir: dir}); err != nil {
				t.Errorf("the interpreter refuses the feeds: %v", err)
			}
			seen := map[string]bool{}
			for _, w := range feeds["w"].Strings() {
				if !strings.HasPrefix(w, "oov-") {
					seen[w] = true
				}
			}
			got := slices.Sorted(func(yield func(string) bool) {
				for k := range seen {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(got, c.want) {
				t.Errorf("keys drawn %q, want %q", got, c.want)
			}
			if !strings.Contains(how["w"].How, "file "+file) {
				t.Errorf("how: %q", how["w"].How)
			}
		})
	}
}

// The draws of one domain, table-driven: what is drawn stays in the domain
// (keys, ranges, the boundaries' neighbourhoods), the invalid values are
// where the graph handles them, the padding never appears as a value.
func TestDomainDraws(t *testing.T) {
	pad := interp.Scalar[int64](-1)
	for _, c := range []struct {
		name string
		d    domain
		ok   func(v float64) bool // every draw
		want []float64            // drawn at least once
	}{
		{"ids in range, none invalid", domain{dtype: interp.Int64, lo: 0, hi: 5},
			func(v float64) bool { return v >= 0 && v < 5 }, []float64{0, 1, 2, 3, 4}},
		{"negatives handled", domain{dtype: interp.Int64, lo: 0, hi: 5, below: true, invalid: 0.2},
			func(v float64) bool { return v < 5 }, []float64{0, 4}},
		{"both sides handled", domain{dtype: interp.Int64, lo: 0, hi: 5, below: true, above: true, invalid: 0.2},
			func(v float64) bool { return true }, []float64{0, 4}},
		{"padding never drawn", domain{dtype: interp.Int64, lo: -1, hi: 2, pad: pad},
			func(v float64) bool { return v == 0 || v == 1 }, []float64{0, 1}},
		{"integer vocabulary", domain{dtype: interp.Int64, ints: []int64{10, 20}},
			func(v float64) bool { return v == 10 || v == 20 }, []float64{10, 20}},
		{"integer vocabulary, out of vocabulary", domain{dtype: interp.Int64, ints: []int64{10, 20}, invalid: 0.3},
			func(v float64) bool { return v == 10 || v == 20 || v < 0 || v > 20 }, []float64{10, 20}},
		{"integers around boundaries", domain{dtype: interp.Int64, bounds: []float64{5, 9.5}, lo: math.MinInt64, hi: math.MaxInt64},
			func(v float64) bool { return v <= 4 || v == 5 || v == 6 || v == 8 || v == 9 || v == 10 || v > 10 }, []float64{4, 5, 6, 8, 9, 10}},
		{"floats in a range", domain{dtype: interp.Float32, flo: 2, fhi: 3, ranged: true},
			func(v float64) bool { return v >= 2 && v < 3 }, nil},
		{"floats of a range check", domain{dtype: interp.Float32, flo: 0, fhi: 2, ranged: true, below: true, invalid: 0.2},
			func(v float64) bool { return v < 2 }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			seen := map[float64]bool{}
			invalid := 0
			for range 2000 {
				var v float64
				if c.d.dtype.IsInteger() {
					v = float64(c.d.drawInt(r))
				} else {
					v = c.d.drawFloat(r)
				}
				if !c.ok(v) {
					t.Fatalf("drew %g", v)
				}
				seen[v] = true
				if c.d.ints == nil && c.d.bounds == nil && (c.d.dtype.IsInteger() && (v < float64(c.d.lo) || v >= float64(c.d.hi)) ||
					!c.d.dtype.IsInteger() && (v < c.d.flo || v >= c.d.fhi)) {
					invalid++
				}
			}
			for _, w := range c.want {
				if !seen[w] {
					t.Errorf("never drew %g", w)
				}
			}
			if c.d.invalid > 0 && c.d.ints == nil && (invalid < 200 || invalid > 600) {
				t.Errorf("%d of 2000 invalid, want about %g", invalid, 2000*c.d.invalid)
			}
			if c.d.invalid == 0 && invalid > 0 {
				t.Errorf("%d invalid values, want none", invalid)
			}
		})
	}
}

// Bags are between min_length and max_length values, with the fraction of
// empty rows asked for.
func TestLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		minLen, maxLen, width int
		empty                 float64
		lo, hi                int
	}{
		{1, -1, 3, 0, 1, 3},
		{1, -1, 10, 0, 1, defaultWidth},
		{2, 5, 10, 0, 2, 5},
		{2, 5, 3, 0, 2, 3},
		{0, 0, 3, 0, 0, 0},
		{1, 2, 4, 0.5, 0, 2},
	} {
		d := domain{minLen: c.minLen, maxLen: c.maxLen, empty: c.empty}
		seen := map[int]int{}
		for range 1000 {
			n := d.length(r, c.width)
			if n < c.lo || n > c.hi {
				t.Fatalf("%+v: length %d outside [%d, %d]", c, n, c.lo, c.hi)
			}
			seen[n]++
		}
		if seen[c.lo] == 0 || seen[c.hi] == 0 {
			t.Errorf("%+v: lengths %v: want both ends", c, seen)
		}
		if c.empty > 0 && (seen[0] < 400 || seen[0] > 600) {
			t.Errorf("%+v: %d empty of 1000", c, seen[0])
		}
	}
}

func TestFeedSpecErrors(t *testing.T) {
	var g graphText
	g.placeholder("x", "DT_FLOAT", -1)
	m := importText(t, g.String())
	for _, c := range []struct {
		spec string
		want string
	}{
		{`{"y": {}}`, "y: the feed spec names no input of the graph (its inputs: x)"},
		{`{"x": {"rows": -1}}`, "x.rows: must be positive"},
		{`{"x": {"rows": 2000000000}}`, "x.rows: too many rows: more than 1048576 rows (set RECOM_MAX_GEN_ROWS"},
		{`{"x": {"min_length": 3, "max_length": 2}}`, "x.min_length: 3 is above max_length 2"},
		{`{"x": {"empty": 1.5}}`, "x.empty: is a fraction"},
		{`{"x": {"min": 2, "max": 1}}`, "x.min: 2 is above max 1"},
		{`{"x": {"shape": [-1, 2]}}`, "x.shape: has rank 2"},
		{`{"x": {"vocabulary": ["a"]}}`, `vocabulary: "a" is not a number`},
		{`{"x": {"colour": 1}}`, `unknown field "colour"`},
		{`{"x": null}`, "x: is null"},
		{`{} {}`, "trailing data"},
	} {
		spec, err := ParseFeedSpec([]byte(c.spec), "spec.json")
		if err == nil {
			_, _, err = GraphFeeds(context.Background(), m, GraphFeedOptions{Spec: spec})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.spec, err, c.want)
		}
	}
}

// The generated models' graphs are fed from what the graph says too (not
// their spec), and the interpreter runs them on the feeds.
func TestGraphFeedsGenerated(t *testing.T) {
	s, err := Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Generate(s, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := importer.Import(all.NewContext(), mod.Graph)
	if err != nil {
		t.Fatal(err)
	}
	arrays, fed, err := GraphFeeds(context.Background(), m, GraphFeedOptions{Batch: 16, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]*interp.Tensor{}
	for _, a := range arrays {
		feeds[a.Name] = a.Tensor
	}
	vars := map[string]*interp.Tensor{}
	for _, a := range mod.Tables {
		vars[a.Name] = a.Tensor
	}
	if _, err := exec.Run(context.Background(), m, feeds, []string{mod.Output}, &exec.Options{Variables: vars, RandomTables: true}); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, f := range fed {
		kinds[f.Name] = f.How
	}
	for name, want := range map[string]string{
		"voc_0014":         "vocabulary of",
		"num_0017":         "boundaries",
		"tok_0007":         `";"-joined tokens`,
		"id_0010":          "ids of table",
		"wstr_0020_weight": "range checked",
		"dense_features":   "N(0, 1)",
	} {
		if !strings.Contains(kinds[name], want) {
			t.Errorf("%s: %q, want %q in it", name, kinds[name], want)
		}
	}
}

// Without a batch in the options, an unknown first dimension takes the one
// the other inputs have, when they mostly have one; one fixed-size input
// among batched ones is no batch.
func TestGraphFeedsStaticBatch(t *testing.T) {
	for _, c := range []struct {
		name  string
		fixed []int64 // first dimensions of the other inputs
		batch int
		want  int64
		note  bool
	}{
		{"the graph's batch", []int64{128, 128}, 0, 128, true},
		{"the options' batch", []int64{128, 128}, 8, 8, false},
		{"a fixed-size input is no batch", []int64{3}, 0, DefaultFeedBatch, false},
		{"inputs that disagree", []int64{128, 64}, 0, DefaultFeedBatch, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g graphText
			g.placeholder("y", "DT_FLOAT", -1)
			for i, d := range c.fixed {
				g.placeholder(fmt.Sprintf("x%d", i), "DT_FLOAT", d)
			}
			feeds, how := feedsOf(t, importText(t, g.String()), GraphFeedOptions{Batch: c.batch})
			if got := feeds["y"].Dim(0); got != c.want {
				t.Errorf("y has %d rows, want %d", got, c.want)
			}
			if note := strings.Contains(how["y"].How, "as the graph's other inputs have"); note != c.note {
				t.Errorf("how: %q", how["y"].How)
			}
			for i, d := range c.fixed {
				if got := feeds[fmt.Sprintf("x%d", i)].Dim(0); got != d {
					t.Errorf("x%d has %d rows, want the graph's %d", i, got, d)
				}
			}
		})
	}
}
