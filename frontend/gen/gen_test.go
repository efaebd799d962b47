package gen

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func i64(v int64) *int64 { return &v }

// oneGroup is a spec of one group of the kind.
func oneGroup(k Kind, style TableStyle) *Spec {
	g := Group{Count: 1, Kind: k, Dim: 4, Combiner: "mean", Tables: style}
	switch k {
	case Vocabulary:
		g.VocabularySize, g.NumOOVBuckets = 5, 2
	case Bucketized:
		g.Boundaries = 3
	default:
		g.Buckets = 10
	}
	switch k {
	case SplitString:
		g.Separator = ";"
	case Shared:
		g.Count, g.Share = 2, 2
	case Weighted:
		g.Combiner = "sqrtn"
	}
	return &Spec{Name: string(k), Groups: []Group{g}}
}

// TestKindsAndStyles: every kind in every table style generates a graph
// that validates, imports and verifies.
func TestKindsAndStyles(t *testing.T) {
	for _, k := range Kinds {
		for _, st := range []TableStyle{Variable, Resource, Const} {
			t.Run(fmt.Sprintf("%s/%s", k, st), func(t *testing.T) {
				s := oneGroup(k, st)
				s.Dense = &Dense{Features: 3, Bottom: []int{4}, Top: []int{5}}
				checkModel(t, s, Options{Seed: 1})
			})
		}
	}
	for _, name := range []string{"small", "micro"} {
		t.Run("preset/"+name, func(t *testing.T) {
			s, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, s, Options{Seed: 1})
		})
	}
}

func checkModel(t *testing.T, s *Spec, opt Options) *Model {
	t.Helper()
	m, err := Generate(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := graphdef.Validate(m.Graph); err != nil {
		t.Fatalf("validate: %v", err)
	}
	for _, n := range m.Graph.Node {
		sig, ok := graphdef.Signature(n.Op)
		if !ok {
			t.Fatalf("node %s: op %s has no signature", n.Name, n.Op)
		}
		for _, a := range sig.Attrs {
			if _, ok := n.Attr[a.Name]; !ok && a.Required() {
				t.Errorf("node %s (%s): missing required attr %s", n.Name, n.Op, a.Name)
			}
		}
		for name := range n.Attr {
			if _, ok := sig.Attr(name); !ok {
				t.Errorf("node %s (%s): attr %s not in the op's signature", n.Name, n.Op, name)
			}
		}
		if _, err := graphdef.OutputTypes(n); err != nil {
			t.Errorf("node %s: %v", n.Name, err)
		}
	}
	ctx := all.NewContext()
	mod, err := importer.Import(ctx, m.Graph)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if err := textir.Verify(ctx, mod); err != nil {
		t.Fatalf("verify: %v", err)
	}
	back, err := SpecFromGraph(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Feeds(back, 16, 3); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGolden: the node names, ops and inputs of one column of each kind.
func TestGolden(t *testing.T) {
	cases := map[string]*Spec{}
	for _, k := range Kinds {
		cases[string(k)] = oneGroup(k, Variable)
	}
	cases["hashed_string_resource"] = oneGroup(HashedString, Resource)
	cases["hashed_string_const"] = oneGroup(HashedString, Const)
	id := oneGroup(Identity, Variable)
	id.Groups[0].DefaultValue = i64(0)
	cases["identity_default"] = id
	for _, comb := range []string{"sum", "mean"} {
		w := oneGroup(Weighted, Variable)
		w.Groups[0].Combiner = comb
		cases["weighted_"+comb] = w
	}
	v := oneGroup(Vocabulary, Variable)
	v.Groups[0].NumOOVBuckets = 0
	cases["vocabulary_no_oov"] = v
	x := oneGroup(Crossed, Variable)
	x.Groups[0].Boundaries = 3
	cases["crossed_bucketized"] = x
	d := oneGroup(HashedString, Resource)
	d.Dense = &Dense{Features: 2, Bottom: []int{3}, Top: []int{4}}
	cases["dense_resource"] = d
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := Generate(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.SplitAfter(Listing(m.Graph), "\n") {
				if !strings.HasPrefix(line, SpecNode+" ") {
					got = append(got, line)
				}
			}
			golden(t, filepath.Join("testdata", name+".golden"), strings.Join(got, ""))
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, a, b)
		}
	}
	return ""
}

// TestDeterminism: the same seed gives the same bytes, another seed other
// table values but the same graph structure.
func TestDeterminism(t *testing.T) {
	s, err := Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	enc := func(seed uint64) ([]byte, []byte, []byte) {
		m, err := Generate(s, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var tb, fb bytes.Buffer
		if err := npz.WriteNPZ(&tb, m.Tables); err != nil {
			t.Fatal(err)
		}
		f, err := Feeds(s, 64, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := npz.WriteNPZ(&fb, f); err != nil {
			t.Fatal(err)
		}
		return graphdef.MarshalText(m.Graph), tb.Bytes(), fb.Bytes()
	}
	g1, t1, f1 := enc(7)
	g2, t2, f2 := enc(7)
	if !bytes.Equal(g1, g2) || !bytes.Equal(t1, t2) || !bytes.Equal(f1, f2) {
		t.Fatal("same seed, different bytes")
	}
	_, t3, f3 := enc(8)
	if bytes.Equal(t1, t3) || bytes.Equal(f1, f3) {
		t.Fatal("different seeds, same tables or feeds")
	}
}

// TestValidationErrors: each inconsistent spec is refused with an error
// naming the field.
func TestValidationErrors(t *testing.T) {
	base := `{"groups":[{"count":2,"kind":"hashed_string","buckets":10,"dim":4,"combiner":"mean"%s}]%s}`
	cases := []struct{ group, top, field string }{
		{`,"count":-1`, ``, "groups[0].count"},
		{`,"buckets":-5`, ``, "groups[0].buckets"},
		{`,"dim":0`, ``, "groups[0].dim"},
		{`,"combiner":"max"`, ``, "groups[0].combiner"},
		{`,"kind":"wide"`, ``, "groups[0].kind"},
		{`,"kind":"crossed","boundaries":-2`, ``, "groups[0].boundaries"},
		{`,"tables":"disk"`, ``, "groups[0].tables"},
		{`,"feed":{"coverage":1.5}`, ``, "groups[0].feed.coverage"},
		{`,"feed":{"coverage":-0.1}`, ``, "groups[0].feed.coverage"},
		{`,"feed":{"pooling":{"dist":"normal","mean":5,"std":1,"max":3}}`, ``, "groups[0].feed.pooling.max"},
		{`,"feed":{"pooling":{"dist":"uniform","min":4,"max":2}}`, ``, "groups[0].feed.pooling.max"},
		{`,"feed":{"pooling":{"dist":"poisson"}}`, ``, "groups[0].feed.pooling.dist"},
		{`,"feed":{"popularity":{"dist":"zipf","s":0.9}}`, ``, "groups[0].feed.popularity.s"},
		{`,"feed":{"invalid":2}`, ``, "groups[0].feed.invalid"},
		{`,"separator":";"`, ``, "groups[0].separator"},
		{`,"boundaries":3`, ``, "groups[0].boundaries"},
		{`,"default_value":1`, ``, "groups[0].default_value"},
		{`,"input_rank":3`, ``, "groups[0].input_rank"},
		{``, `,"max_table_bytes":100`, "groups[0].buckets"},
		{``, `,"dense":{"features":0}`, "dense.features"},
		{``, `,"dense":{"features":2,"top":[4,-1]}`, "dense.top[1]"},
		{``, `,"tables":"paper"`, "tables"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			_, err := ParseSpec([]byte(fmt.Sprintf(base, c.group, c.top)), "spec.json")
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FieldError about %s", err, c.field)
			}
			if !strings.Contains(err.Error(), c.field+": ") {
				t.Fatalf("error %q does not name %s", err, c.field)
			}
		})
	}
	if _, err := ParseSpec([]byte(`{"groups":[],"bogus":1}`), "x"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown field: %v", err)
	}
	s := oneGroup(HashedString, Const)
	s.Groups[0].Buckets = 1 << 20
	s.Groups[0].Dim = 128
	if _, err := Generate(s, Options{}); err == nil || !strings.Contains(err.Error(), "const tables need") {
		t.Fatalf("const limit: %v", err)
	}
}

// TestPresetCounts: E and F have the paper's column counts per kind, and
// --columns scales to exactly N.
func TestPresetCounts(t *testing.T) {
	want := map[string][5]int{"E": {880, 50, 50, 15, 5}, "F": {1000, 90, 100, 7, 3}}
	for name, w := range want {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range s.Groups {
			if g.Count != w[i] {
				t.Errorf("%s group %d (%s): %d columns, want %d", name, i, g.Kind, g.Count, w[i])
			}
		}
		m, err := Generate(s, Options{NoTableValues: true})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, n := range m.Graph.Node {
			switch n.Op {
			case "Bucketize", "AsString", "StringSplitV2":
				kinds[n.Op]++
			case "SparseSegmentMean", "SparseSegmentSum":
				kinds[n.Op]++
			}
		}
		if kinds["Bucketize"] != w[0] || kinds["AsString"] != w[1] || kinds["StringSplitV2"] != w[3] ||
			kinds["SparseSegmentMean"] != w[0]+w[1]+w[2] || kinds["SparseSegmentSum"] != w[3]+w[4] {
			t.Errorf("%s: op counts %v", name, kinds)
		}
		for _, n := range []int{1, 7, 100, 1234} {
			sc, err := s.Scale(n)
			if err != nil {
				t.Fatal(err)
			}
			if sc.NumColumns() != n {
				t.Errorf("%s scaled to %d has %d columns", name, n, sc.NumColumns())
			}
		}
	}
}

// TestFeedStatistics: over a large batch, the mean bag length of present
// rows and the coverage are within a few percent of the spec.
func TestFeedStatistics(t *testing.T) {
	cov := func(v float64) *float64 { return &v }
	cases := []struct {
		name     string
		g        Group
		wantMean float64
	}{
		{"fixed", Group{Kind: HashedString, Buckets: 100, Feed: Feed{Pooling: &Pooling{Dist: "fixed", Length: 3}, Coverage: cov(0.7)}}, 3},
		{"uniform", Group{Kind: HashedString, Buckets: 100, Feed: Feed{Pooling: &Pooling{Dist: "uniform", Min: 1, Max: 10}, Coverage: cov(0.9)}}, 5.5},
		{"normal", Group{Kind: SplitString, Separator: ";", Buckets: 100, Feed: Feed{Pooling: &Pooling{Dist: "normal", Mean: 20, Std: 3, Max: 40}, Coverage: cov(0.5)}}, 20},
		{"one_sided", Group{Kind: HashedInt, Buckets: 100, Feed: Feed{Pooling: &Pooling{Dist: "one_sided_normal", Mean: 2, Std: 4, Max: 60}, Coverage: cov(0.8),
			Popularity: &Popularity{Dist: "zipf", S: 1.3}}}, 2 + 4*0.7978845608},
		{"identity", Group{Kind: Identity, Buckets: 50, Feed: Feed{Coverage: cov(0.6), Invalid: 0.1}}, 1},
	}
	const batch = 20000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.g
			g.Count, g.Dim, g.Combiner = 1, 4, "sum"
			s := &Spec{Groups: []Group{g}}
			arrs, err := Feeds(s, batch, 11)
			if err != nil {
				t.Fatal(err)
			}
			st := FeedStats(s, arrs)[0]
			if d := st.Coverage - *g.Feed.Coverage; d > 0.02 || d < -0.02 {
				t.Errorf("coverage %.3f, want %.3f", st.Coverage, *g.Feed.Coverage)
			}
			if r := st.MeanPooling / c.wantMean; r < 0.97 || r > 1.03 {
				t.Errorf("mean pooling %.3f, want %.3f", st.MeanPooling, c.wantMean)
			}
			if g.Feed.Invalid > 0 {
				if r := st.Invalid / g.Feed.Invalid; r < 0.85 || r > 1.15 {
					t.Errorf("invalid fraction %.3f, want %.3f", st.Invalid, g.Feed.Invalid)
				}
			}
		})
	}
}

// BenchmarkGenerate10k: 10,000 heterogeneous columns (the small spec's
// mix, scaled), graph only.
func BenchmarkGenerate10k(b *testing.B) {
	s, err := Preset("small")
	if err != nil {
		b.Fatal(err)
	}
	s, err = s.Scale(10000)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m, err := Generate(s, Options{NoTableValues: true, ConstLimit: 1 << 40})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(m.Graph.Node)), "nodes")
	}
}

// TestSizeLimits: the sizes that a flag or spec gives (--columns, --batch,
// the groups' counts) are refused beyond MaxColumns and MaxRows before
// anything is allocated (--columns 2000000000 and --batch 2000000000 ran
// out of memory), and a lowered limit applies.
func TestSizeLimits(t *testing.T) {
	s, err := Preset("micro")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"scale", func() error { _, err := s.Scale(2_000_000_000); return err }, "columns: too many columns: more than 65536 columns (set RECOM_MAX_GEN_COLUMNS"},
		{"scale-zero", func() error { _, err := s.Scale(0); return err }, "columns: must be positive (got 0)"},
		{"feeds", func() error { _, err := Feeds(s, 2_000_000_000, 1); return err }, "batch: too many rows: more than 1048576 rows (set RECOM_MAX_GEN_ROWS"},
		{"feeds-zero", func() error { _, err := Feeds(s, 0, 1); return err }, "batch: must be positive (got 0)"},
		{"graph-feeds", func() error {
			_, _, err := GraphFeeds(context.Background(), nil, GraphFeedOptions{Batch: 2_000_000_000})
			return err
		}, "batch: too many rows"},
		{"counts", func() error {
			c := s.Clone()
			c.Groups[0].Count = math.MaxInt
			c.Groups = append(c.Groups, c.Groups[0])
			_, err := Generate(c, Options{})
			return err
		}, "groups: the groups' counts add up to too many columns: more than 65536 columns"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	defer func(c, r int64) { MaxColumns, MaxRows = c, r }(MaxColumns, MaxRows)
	MaxColumns, MaxRows = 50, 10
	if _, err := s.Scale(51); err == nil || !strings.Contains(err.Error(), "more than 50 columns") {
		t.Errorf("Scale(51) under a limit of 50: %v", err)
	}
	// A spec over the limit loads and scales down; it is refused when it
	// is built or fed.
	small, err := s.Scale(50)
	if err != nil {
		t.Errorf("Scale(50) under a limit of 50: %v", err)
	} else if _, err := Generate(small, Options{NoTableValues: true}); err != nil {
		t.Errorf("Generate of 50 columns under a limit of 50: %v", err)
	}
	if _, err := Generate(s, Options{NoTableValues: true}); err == nil || !strings.Contains(err.Error(), "more than 50 columns") {
		t.Errorf("Generate of %d columns under a limit of 50: %v", s.NumColumns(), err)
	}
	if _, err := Feeds(s, 4, 1); err == nil || !strings.Contains(err.Error(), "more than 50 columns") {
		t.Errorf("Feeds of %d columns under a limit of 50: %v", s.NumColumns(), err)
	}
	if _, err := Feeds(oneGroup(HashedString, Variable), 11, 1); err == nil || !strings.Contains(err.Error(), "more than 10 rows") {
		t.Errorf("Feeds of 11 rows under a limit of 10: %v", err)
	}
	if _, err := Feeds(oneGroup(HashedString, Variable), 10, 1); err != nil {
		t.Errorf("Feeds of 10 rows under a limit of 10: %v", err)
	}
}
