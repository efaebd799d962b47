package main

// End-to-end tests of the generator and the CPU interpreter: recom gen
// writes a model and its feeds, recom interp runs it, and the outputs are
// checked (shapes, finiteness, empty rows, determinism, and for identity
// columns the pooled embeddings against a direct computation).

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp"
)

// e2eTool runs recom in-process and fails the test on a non-zero status.
func e2eTool(t *testing.T, args ...string) {
	t.Helper()
	if code, stdout, stderr := runTool(args...); code != 0 {
		t.Fatalf("recom %s: status %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
}

// e2eFeeds writes the feeds of model for a batch and returns their path
// and arrays.
func e2eFeeds(t *testing.T, model string, batch int, seed uint64) (string, map[string]*interp.Tensor) {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("feeds%d.npz", batch))
	e2eTool(t, "gen", "--feeds", "--batch", strconv.Itoa(batch), "--seed", strconv.FormatUint(seed, 10), model, "-o", path)
	return path, readNPZ(t, path)
}

// e2eInterp runs model and returns the output file's path and arrays.
func e2eInterp(t *testing.T, model, feeds, tables string, outputs ...string) (string, map[string]*interp.Tensor) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.npz")
	args := []string{"interp", model, "--feeds", feeds, "--outputs", strings.Join(outputs, ","), "-o", out}
	if tables != "" {
		args = append(args, "--tables", tables)
	}
	e2eTool(t, args...)
	got := readNPZ(t, out)
	for _, o := range outputs {
		if got[o] == nil {
			t.Fatalf("output %q missing", o)
		}
	}
	return out, got
}

// e2eCheckFinite fails on a NaN or an infinity.
func e2eCheckFinite(t *testing.T, name string, x *interp.Tensor) {
	t.Helper()
	for i, v := range x.Float32s() {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("%s: element %d is %v", name, i, v)
		}
	}
}

func e2eCheckShape(t *testing.T, name string, x *interp.Tensor, want ...int64) {
	t.Helper()
	if got := x.Shape(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: shape %v, want %v", name, got, want)
	}
}

// e2eEmbWidth is the width of the embedding layer of a spec.
func e2eEmbWidth(s *gen.Spec) int64 {
	w := int64(0)
	for _, g := range s.Groups {
		w += int64(g.Count * g.Dim)
	}
	return w
}

// e2eSpecOf reads the spec recorded in a generated model.
func e2eSpecOf(t *testing.T, model string) *gen.Spec {
	t.Helper()
	f, err := graphdef.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gen.SpecFromGraph(f.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestE2ESmallBundled runs the bundled small model (every kind and table
// style, a dense part) at batch 1 and 64 with its tables: the prediction
// and the embedding layer have the right shapes and are finite, and runs
// are deterministic.
func TestE2ESmallBundled(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	tables := filepath.Join("..", "..", "examples", "small.tables.npz")
	width := e2eEmbWidth(e2eSpecOf(t, model))
	for _, batch := range []int{1, 64} {
		feeds, _ := e2eFeeds(t, model, batch, 7)
		out, got := e2eInterp(t, model, feeds, tables, "prediction", gen.EmbeddingNode)
		p, emb := got["prediction"], got[gen.EmbeddingNode]
		e2eCheckShape(t, "prediction", p, int64(batch), 1)
		e2eCheckShape(t, "embedding", emb, int64(batch), width)
		e2eCheckFinite(t, "prediction", p)
		e2eCheckFinite(t, "embedding", emb)
		for i, v := range p.Float32s() {
			if !(v > 0 && v < 1) {
				t.Errorf("batch %d: prediction[%d] = %v is not a probability", batch, i, v)
			}
		}
		// The same feeds and tables give the same bytes; so do the feeds.
		out2, _ := e2eInterp(t, model, feeds, tables, "prediction", gen.EmbeddingNode)
		feeds2, _ := e2eFeeds(t, model, batch, 7)
		for _, pair := range [][2]string{{out, out2}, {feeds, feeds2}} {
			a, _ := os.ReadFile(pair[0])
			b, _ := os.ReadFile(pair[1])
			if !bytes.Equal(a, b) {
				t.Errorf("batch %d: %s and %s differ", batch, pair[0], pair[1])
			}
		}
	}
}

// TestE2EVocabularyTables requests only the lookups of the vocabulary
// columns: the interpreter runs the tables' initializers (gathered under
// init_all_tables, connected to the lookups by nothing but the table
// handle) and the ids are the vocabulary positions, -1 out of vocabulary.
func TestE2EVocabularyTables(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	s := e2eSpecOf(t, model)
	f, err := graphdef.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	feeds, in := e2eFeeds(t, model, 64, 3)
	var finds []string
	for _, n := range f.Graph.Node {
		if n.Op == "LookupTableFindV2" {
			finds = append(finds, n.Name)
		}
	}
	if len(finds) == 0 {
		t.Fatal("no vocabulary lookups in the small model")
	}
	vocab := int64(0)
	for _, g := range s.Groups {
		if g.Kind == gen.Vocabulary {
			vocab = g.VocabularySize
		}
	}
	for _, name := range finds {
		_, got := e2eInterp(t, model, feeds, "", name)
		// input_layer/<key>_embedding/...: the feed is <key>.
		key := strings.TrimSuffix(strings.Split(name, "/")[1], "_embedding")
		var want []int64
		for _, v := range in[key].Strings() {
			if v == "" {
				continue // to_sparse drops the padding
			}
			id := int64(-1)
			if k, err := strconv.ParseInt(strings.TrimPrefix(v, "w"), 10, 64); err == nil && strings.HasPrefix(v, "w") && k < vocab {
				id = k
			}
			want = append(want, id)
		}
		if g := got[name].Int64s(); fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("%s: ids %v, want %v", name, g, want)
		}
	}
}

// TestE2EFeedEdgeCases checks that the feeds of the small model hold what
// the interpreter must handle: empty rows, negative ids, out-of-vocabulary
// strings and long bags.
func TestE2EFeedEdgeCases(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "small.pbtxt")
	_, in := e2eFeeds(t, model, 64, 1)
	var emptyRows, negative, oov, longest int
	for _, name := range e2eSortedKeys(in) {
		x := in[name]
		rows := int(x.Dim(0))
		width := 1
		if x.Rank() == 2 {
			width = int(x.Dim(1))
		}
		for r := 0; r < rows; r++ {
			n := 0
			for j := 0; j < width; j++ {
				i := r*width + j
				switch d := x.Data().(type) {
				case []int64:
					if d[i] != -1 {
						n++
					}
					if d[i] < -1 {
						negative++
					}
				case []string:
					if strings.HasPrefix(d[i], "oov") {
						oov++
					}
					switch {
					case strings.HasPrefix(name, "tok_"):
						// StringSplitV2 (as Python's str.split) makes
						// one empty token of "": never an empty row.
						n += strings.Count(d[i], ";") + 1
					case d[i] != "":
						n++
					}
				default:
					n = -1 // floats: never empty
				}
			}
			if n == 0 {
				emptyRows++
			}
			longest = max(longest, n)
		}
	}
	if emptyRows == 0 || negative == 0 || oov == 0 || longest < 8 {
		t.Errorf("feeds lack edge cases: %d empty rows, %d negative ids, %d out-of-vocabulary strings, longest bag %d (want >= 8)",
			emptyRows, negative, oov, longest)
	}
}

func e2eSortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// e2eKindCase is one column kind of the matrix, with its parameters.
type e2eKindCase struct {
	name  string
	group gen.Group
}

func e2eKindCases() []e2eKindCase {
	def := int64(3)
	multi := &gen.Pooling{Dist: "uniform", Min: 1, Max: 4}
	cov, full := 0.7, 1.0
	feed := gen.Feed{Pooling: multi, Coverage: &cov, Invalid: 0.2}
	return []e2eKindCase{
		{"hashed_string", gen.Group{Count: 1, Kind: gen.HashedString, Buckets: 50, Feed: feed}},
		{"hashed_int", gen.Group{Count: 1, Kind: gen.HashedInt, Buckets: 50, Feed: feed}},
		{"split_string", gen.Group{Count: 1, Kind: gen.SplitString, Separator: ";", Buckets: 50, Feed: feed}},
		{"identity", gen.Group{Count: 1, Kind: gen.Identity, Buckets: 20, Feed: feed}},
		{"identity_default", gen.Group{Count: 1, Kind: gen.Identity, Buckets: 20, DefaultValue: &def, Feed: feed}},
		{"identity_rank2", gen.Group{Count: 1, Kind: gen.Identity, Buckets: 20, InputRank: 2, Feed: gen.Feed{Coverage: &cov, Invalid: 0.2}}},
		{"vocabulary_oov", gen.Group{Count: 1, Kind: gen.Vocabulary, VocabularySize: 10, NumOOVBuckets: 3, Feed: feed}},
		{"vocabulary", gen.Group{Count: 1, Kind: gen.Vocabulary, VocabularySize: 10, Feed: feed}},
		{"bucketized", gen.Group{Count: 1, Kind: gen.Bucketized, Boundaries: 6, Feed: gen.Feed{Coverage: &full, Invalid: 0.2}}},
		{"weighted", gen.Group{Count: 1, Kind: gen.Weighted, Buckets: 50, Feed: feed}},
		{"shared", gen.Group{Count: 2, Kind: gen.Shared, Share: 2, Buckets: 50, Feed: feed}},
	}
}

// TestE2EEveryKind runs one model per column kind × table style ×
// combiner at batch 1 and 64: the embedding layer is [batch, count×D] and
// finite, rows whose features are all empty are zero, and identity columns
// (variable tables) pool exactly what a direct computation from the feeds
// and the side file gives.
func TestE2EEveryKind(t *testing.T) {
	const dim = 4
	for _, kc := range e2eKindCases() {
		for _, style := range []gen.TableStyle{gen.Variable, gen.Resource, gen.Const} {
			for _, comb := range []string{"sum", "mean", "sqrtn"} {
				name := kc.name + "/" + string(style) + "/" + comb
				t.Run(name, func(t *testing.T) {
					g := kc.group
					g.Dim, g.Combiner, g.Tables = dim, comb, style
					s := &gen.Spec{Name: name, Groups: []gen.Group{g}}
					dir := t.TempDir()
					spec := filepath.Join(dir, "spec.json")
					if err := os.WriteFile(spec, s.JSON(), 0o644); err != nil {
						t.Fatal(err)
					}
					model := filepath.Join(dir, "m.pb")
					e2eTool(t, "gen", "--spec", spec, "--seed", "5", "-o", model)
					tables := ""
					if style != gen.Const {
						tables = filepath.Join(dir, "m.tables.npz")
					}
					for _, batch := range []int{1, 64} {
						feeds, in := e2eFeeds(t, model, batch, 11)
						_, got := e2eInterp(t, model, feeds, tables, gen.EmbeddingNode)
						emb := got[gen.EmbeddingNode]
						e2eCheckShape(t, "embedding", emb, int64(batch), int64(g.Count*dim))
						e2eCheckFinite(t, "embedding", emb)
						if g.Kind != gen.SplitString {
							// StringSplitV2 splits "" into one empty
							// token, as Python's str.split: TensorFlow
							// pools the row of hash(""), not zeros.
							e2eCheckEmptyRows(t, in, emb)
						}
						if g.Kind == gen.Identity && style == gen.Variable {
							e2eCheckIdentity(t, &g, in, readNPZ(t, tables), emb)
						}
					}
				})
			}
		}
	}
}

// e2eCheckEmptyRows: a row where every id feed is empty (padding only) pools
// nothing and must be zero. Bucketized features are never empty.
func e2eCheckEmptyRows(t *testing.T, in map[string]*interp.Tensor, emb *interp.Tensor) {
	t.Helper()
	rows, width := int(emb.Dim(0)), int(emb.Dim(1))
	for r := 0; r < rows; r++ {
		empty := true
		for name, x := range in {
			if strings.HasSuffix(name, "_weight") {
				continue
			}
			w := x.Len() / rows
			for j := 0; j < w; j++ {
				switch d := x.Data().(type) {
				case []int64:
					empty = empty && d[r*w+j] == -1
				case []string:
					empty = empty && d[r*w+j] == ""
				default:
					empty = false
				}
			}
		}
		if !empty {
			continue
		}
		for j, v := range emb.Float32s()[r*width : (r+1)*width] {
			if v != 0 {
				t.Fatalf("row %d is empty but its embedding[%d] = %v", r, j, v)
			}
		}
	}
}

// e2eCheckIdentity recomputes an identity column: ids are the feed without
// the -1 padding; out-of-range ids become the default value when there is
// one, then negative ids are dropped; the rows of the table are combined.
func e2eCheckIdentity(t *testing.T, g *gen.Group, in, tables map[string]*interp.Tensor, emb *interp.Tensor) {
	t.Helper()
	var key, table string
	for k := range in {
		key = k
	}
	for k := range tables {
		table = k
	}
	ids, w := in[key], tables[table].Float32s()
	rows := int(emb.Dim(0))
	width := ids.Len() / rows
	dim := g.Dim
	for r := 0; r < rows; r++ {
		acc := make([]float64, dim)
		n := 0
		for j := 0; j < width; j++ {
			id := ids.Int64s()[r*width+j]
			if id == -1 {
				continue
			}
			if g.DefaultValue != nil && (id < 0 || id >= g.Buckets) {
				id = *g.DefaultValue
			}
			if id < 0 {
				continue
			}
			n++
			for d := 0; d < dim; d++ {
				acc[d] += float64(w[int(id)*dim+d])
			}
		}
		for d := 0; d < dim; d++ {
			want := acc[d]
			switch {
			case n == 0:
				want = 0
			case g.Combiner == "mean":
				want /= float64(n)
			case g.Combiner == "sqrtn":
				want /= math.Sqrt(float64(n))
			}
			got := float64(emb.Float32s()[r*dim+d])
			if math.Abs(got-want) > 1e-5+1e-5*math.Abs(want) {
				t.Fatalf("row %d dim %d: got %v, want %v (%d ids, %s)", r, d, got, want, n, g.Combiner)
			}
		}
	}
}

// TestE2EScaledPresets runs models E and F scaled to 50 columns with
// random tables (--no-tables) at batch 64.
func TestE2EScaledPresets(t *testing.T) {
	for _, preset := range []string{"E", "F"} {
		t.Run(preset, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), preset+".pb")
			e2eTool(t, "gen", "--preset", preset, "--columns", "50", "--no-tables", "-o", model)
			feeds, _ := e2eFeeds(t, model, 64, 2)
			_, got := e2eInterp(t, model, feeds, "", "prediction", gen.EmbeddingNode)
			e2eCheckShape(t, "prediction", got["prediction"], 64, 1)
			e2eCheckShape(t, "embedding", got[gen.EmbeddingNode], 64, e2eEmbWidth(e2eSpecOf(t, model)))
			e2eCheckFinite(t, "prediction", got["prediction"])
			e2eCheckFinite(t, "embedding", got[gen.EmbeddingNode])
		})
	}
}

// BenchmarkInterpE runs model E (1000 columns, random tables: the graph is
// written with --no-tables) at batch 256 through recom interp, from the
// file to the outputs. It reports the process CPU seconds per run too (the
// machine may be shared).
func BenchmarkInterpE(b *testing.B) {
	dir := b.TempDir()
	model, feeds := filepath.Join(dir, "E.pb"), filepath.Join(dir, "feeds.npz")
	for _, args := range [][]string{
		{"gen", "--preset", "E", "--no-tables", "-o", model},
		{"gen", "--feeds", "--batch", "256", model, "-o", feeds},
	} {
		if code, _, stderr := runTool(args...); code != 0 {
			b.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "out.npz")
	cpu0 := e2eCPUSeconds()
	for b.Loop() {
		if code, _, stderr := runTool("interp", model, "--feeds", feeds, "--outputs", "prediction", "-o", out); code != 0 {
			b.Fatal(stderr)
		}
	}
	b.ReportMetric((e2eCPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkGen10k generates model F scaled to 10,000 columns as binary
// protobuf (about a million nodes), without the side file.
func BenchmarkGen10k(b *testing.B) {
	out := filepath.Join(b.TempDir(), "F10k.pb")
	cpu0 := e2eCPUSeconds()
	for b.Loop() {
		if code, _, stderr := runTool("gen", "--preset", "F", "--columns", "10000", "--no-tables", "-o", out); code != 0 {
			b.Fatal(stderr)
		}
	}
	b.ReportMetric((e2eCPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// e2eCPUSeconds is the process's user and system CPU time.
func e2eCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
