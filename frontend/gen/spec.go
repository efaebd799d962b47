package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/examples"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// Kind names what a group's feature column is: one of the column kinds of
// the emb dialect (emb.ColumnKinds), the list the generator shares with
// --lower-emb, which reports the columns it finds by the same names.
type Kind = emb.ColumnKind

// The column kinds the generator builds. Each becomes an embedding_column
// over the categorical column named in its comment, fed from a Placeholder
// of the features dict.
const (
	// HashedString: categorical_column_with_hash_bucket(key, buckets) over a
	// string feature.
	HashedString = emb.KindHashedString
	// HashedInt: categorical_column_with_hash_bucket(key, buckets,
	// dtype=int64): the ids go through AsString before the hash.
	HashedInt = emb.KindHashedInt
	// SplitString: a string feature split by StringSplitV2 on Separator
	// before input_layer (tf.compat.v1.strings.split, SparseTensor result),
	// then hashed like HashedString.
	SplitString = emb.KindSplitString
	// Identity: categorical_column_with_identity(key, buckets,
	// default_value) over an int64 feature; DefaultValue is optional.
	Identity = emb.KindIdentity
	// Vocabulary: categorical_column_with_vocabulary_list(key, vocab,
	// num_oov_buckets) over a string feature; the vocabulary is "w0" ...
	Vocabulary = emb.KindVocabulary
	// Bucketized: bucketized_column(numeric_column(key), boundaries) with
	// boundaries 0, 1, ..., Boundaries-1 over a float feature.
	Bucketized = emb.KindBucketized
	// Weighted: weighted_categorical_column(hash bucket column, key+"_weight")
	// over a string feature and a float weight feature.
	Weighted = emb.KindWeighted
	// Shared: shared_embedding_columns over groups of Share hashed string
	// columns, one table per group.
	Shared = emb.KindShared
	// Crossed: crossed_column([key, int_key], Buckets) over a string and an
	// int64 feature (crossed as they are: SparseCross's dense inputs), with
	// Boundaries, a bucketized_column of a float feature first (a sparse
	// input); the cross's ids feed an embedding_column.
	Crossed = emb.KindCrossed
)

// Kinds lists every kind the generator builds, in documentation order: the
// feature-column kinds of emb.ColumnKinds.
var Kinds = featureColumnKinds()

func featureColumnKinds() []Kind {
	var out []Kind
	for _, k := range emb.ColumnKinds {
		if k.IsFeatureColumn() {
			out = append(out, k)
		}
	}
	return out
}

// TableStyle says how an embedding table is stored in the graph.
type TableStyle string

// The table styles.
const (
	// Variable: a VariableV2 read through an Identity (TF1); values in the
	// side file.
	Variable TableStyle = "variable"
	// Resource: a VarHandleOp read by ResourceGather (TF2); values in the
	// side file.
	Resource TableStyle = "resource"
	// Const: a frozen Const read through an Identity; values in the graph.
	Const TableStyle = "const"
)

// Spec is a synthetic model: groups of embedding columns, the distributions
// its random feeds are drawn from, and an optional DLRM-style dense part.
// It is read from JSON (field names as in the json tags; unknown fields are
// errors). This struct is the only definition of the format.
type Spec struct {
	// Name is a label for the model (free text).
	Name string `json:"name,omitempty"`
	// Tables is the default table style of groups that name none:
	// "variable" (the default), "resource" or "const".
	Tables TableStyle `json:"tables,omitempty"`
	// MaxTableBytes, when positive, refuses any single table (rows × dim ×
	// 4 bytes) larger than it.
	MaxTableBytes int64 `json:"max_table_bytes,omitempty"`
	// Groups are the column groups, in order; columns are numbered across
	// groups and input_layer sorts them by name.
	Groups []Group `json:"groups"`
	// Dense is the DLRM dense part; nil means the model's output is the
	// embedding layer itself (input_layer/concat).
	Dense *Dense `json:"dense,omitempty"`
	// Serving is how the features arrive (serving.go): "" (the default)
	// as one Placeholder each; "tf_example" as serialized tf.Example
	// records in the one [batch] string Placeholder
	// "input_example_tensor", parsed by ParseExampleV2 as a TensorFlow 2
	// Estimator's parsing serving input receiver writes it;
	// "tf_example_v1" the same with TensorFlow 1's ParseExample.
	Serving string `json:"serving,omitempty"`
	// Towers, when set, makes a two-tower (DSSM) model (towers.go): two
	// input_layers, each over its own groups and followed by its own MLP,
	// and the sigmoid of their dot product; no Dense part.
	Towers []Tower `json:"towers,omitempty"`
}

// Group is Count columns of one kind with the same parameters.
type Group struct {
	Count int  `json:"count"`
	Kind  Kind `json:"kind"`
	// Buckets: hash buckets (hashed_string, hashed_int, split_string,
	// weighted, shared) or num_buckets (identity). The table has this many rows.
	Buckets int64 `json:"buckets,omitempty"`
	// VocabularySize and NumOOVBuckets (vocabulary): the table has
	// VocabularySize+NumOOVBuckets rows.
	VocabularySize int64 `json:"vocabulary_size,omitempty"`
	NumOOVBuckets  int64 `json:"num_oov_buckets,omitempty"`
	// Boundaries (bucketized): the number of boundaries; Boundaries+1 rows.
	// (crossed): when positive, a bucketized feature of that many
	// boundaries is crossed too.
	Boundaries int `json:"boundaries,omitempty"`
	// DefaultValue (identity): ids outside [0, Buckets) become this id.
	DefaultValue *int64 `json:"default_value,omitempty"`
	// Separator (split_string): the StringSplitV2 separator.
	Separator string `json:"separator,omitempty"`
	// Share (shared): how many columns share one table (>= 2).
	Share int `json:"share,omitempty"`
	// Dim is the embedding width D.
	Dim int `json:"dim"`
	// Combiner: "sum", "mean" or "sqrtn".
	Combiner string `json:"combiner"`
	// Tables overrides the spec's table style for this group.
	Tables TableStyle `json:"tables,omitempty"`
	// InputRank (1 or 2) is the rank of a single-valued feature's
	// placeholder: [batch] (the default; input_layer adds ExpandDims) or
	// [batch, 1]. Multi-valued features (pooling max > 1, other than
	// split_string) are [batch, max] padded with "" or -1.
	InputRank int `json:"input_rank,omitempty"`
	// Feed describes the random inputs of these columns.
	Feed Feed `json:"feed"`
}

// Feed is how random inputs are drawn for one column.
type Feed struct {
	// Pooling is the number of ids in a row where the feature is present.
	// The default is exactly one.
	Pooling *Pooling `json:"pooling,omitempty"`
	// Coverage is the fraction of rows where the feature is present (the
	// rest are empty rows); the default is 1. Nil means 1.
	Coverage *float64 `json:"coverage,omitempty"`
	// Popularity is the distribution of ids: "uniform" (the default) or
	// "zipf" with exponent S > 1 (rank k drawn with weight 1/(k+1)^S).
	Popularity *Popularity `json:"popularity,omitempty"`
	// Invalid is the fraction of ids replaced by invalid ones: negative ids
	// for integer features (and ids >= buckets where a default value
	// exists), out-of-vocabulary strings for vocabulary columns, values
	// outside the boundaries for bucketized columns.
	Invalid float64 `json:"invalid,omitempty"`
}

// Pooling is a distribution of bag lengths (ids per present row).
type Pooling struct {
	// Dist is "fixed" (Length), "uniform" (Min..Max inclusive),
	// "normal" (mean Mean, deviation Std, truncated to [1, Max]) or
	// "one_sided_normal" (Mean + |N(0, Std)|, truncated to Max).
	Dist   string  `json:"dist"`
	Length int     `json:"length,omitempty"`
	Min    int     `json:"min,omitempty"`
	Max    int     `json:"max,omitempty"`
	Mean   float64 `json:"mean,omitempty"`
	Std    float64 `json:"std,omitempty"`
}

// Popularity is a distribution of ids.
type Popularity struct {
	Dist string  `json:"dist"`
	S    float64 `json:"s,omitempty"`
}

// Dense is the DLRM-style dense part: Features float inputs through the
// bottom MLP (ReLU), concatenated with the embedding layer, then the top MLP
// (ReLU), dense(1) and a sigmoid.
type Dense struct {
	Features int   `json:"features"`
	Bottom   []int `json:"bottom,omitempty"`
	Top      []int `json:"top,omitempty"`
	// Tables is the storage of the MLP weights (default: the spec's).
	Tables TableStyle `json:"tables,omitempty"`
}

// FieldError is a validation error about one field of a spec.
type FieldError struct {
	Field string // e.g. "groups[2].feed.pooling.max"
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ParseSpec reads a JSON spec; name is used in error messages. Unknown
// fields and trailing data are errors; the result is validated.
func ParseSpec(data []byte, name string) (*Spec, error) {
	var s Spec
	if err := decodeStrict(data, name, "spec", &s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// decodeStrict decodes one JSON value of data into v: unknown fields and
// trailing data (after it, "the WHAT") are errors, prefixed with name.
func decodeStrict(data []byte, name, what string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: trailing data after the %s", name, what)
	}
	return nil
}

// LoadSpec reads a JSON spec file.
func LoadSpec(file string) (*Spec, error) {
	data, err := inputfile.Read(file)
	if err != nil {
		return nil, err
	}
	return ParseSpec(data, file)
}

// Presets lists the names of the bundled specs (examples/specs/*.json).
func Presets() []string {
	ents, _ := examples.Specs.ReadDir("specs")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Preset returns a bundled spec by name ("E", "F", "micro", "probe", "small").
func Preset(name string) (*Spec, error) {
	data, err := examples.Specs.ReadFile(path.Join("specs", name+".json"))
	if err != nil {
		return nil, fmt.Errorf("unknown preset %q (have %s)", name, strings.Join(Presets(), ", "))
	}
	return ParseSpec(data, "preset "+name)
}

// JSON returns the spec as indented JSON (deterministic).
func (s *Spec) JSON() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return append(b, '\n')
}

// Clone returns a deep copy.
func (s *Spec) Clone() *Spec {
	var c Spec
	if err := json.Unmarshal(s.JSON(), &c); err != nil {
		panic(err)
	}
	return &c
}

// NumColumns is the total number of columns.
func (s *Spec) NumColumns() int {
	n := 0
	for _, g := range s.Groups {
		n += g.Count
	}
	return n
}

// Rows is the number of table rows of one column of the group.
func (g *Group) Rows() int64 {
	switch g.Kind {
	case Vocabulary:
		return g.VocabularySize + g.NumOOVBuckets
	case Bucketized:
		return int64(g.Boundaries) + 1
	}
	return g.Buckets
}

// MaxPooling is the largest bag length of the group's feeds.
func (g *Group) MaxPooling() int {
	p := g.Feed.Pooling
	if p == nil {
		return 1
	}
	switch p.Dist {
	case "fixed":
		return p.Length
	}
	return p.Max
}

// coverage returns the coverage with its default.
func (f *Feed) coverage() float64 {
	if f.Coverage == nil {
		return 1
	}
	return *f.Coverage
}

// Validate checks the spec; every error names the field it is about.
func (s *Spec) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	checkStyle := func(field string, t TableStyle) {
		switch t {
		case "", Variable, Resource, Const:
		default:
			bad(field, "unknown table style %q (want variable, resource or const)", t)
		}
	}
	checkStyle("tables", s.Tables)
	switch s.Serving {
	case "", ServingTFExample, ServingTFExampleV1:
	default:
		bad("serving", "unknown serving input %q (want tf_example or tf_example_v1, or none for placeholders)", s.Serving)
	}
	if s.MaxTableBytes < 0 {
		bad("max_table_bytes", "negative (%d)", s.MaxTableBytes)
	}
	if len(s.Groups) == 0 {
		bad("groups", "no column groups")
	}
	for i := range s.Groups {
		g := &s.Groups[i]
		f := func(name string) string { return fmt.Sprintf("groups[%d].%s", i, name) }
		if g.Count < 0 {
			bad(f("count"), "negative (%d)", g.Count)
		}
		known := false
		for _, k := range Kinds {
			known = known || g.Kind == k
		}
		if !known {
			bad(f("kind"), "unknown kind %q", g.Kind)
		}
		usesBuckets := g.Kind != Vocabulary && g.Kind != Bucketized
		switch {
		case usesBuckets && g.Buckets <= 0:
			bad(f("buckets"), "must be positive for kind %s (got %d)", g.Kind, g.Buckets)
		case !usesBuckets && g.Buckets != 0:
			bad(f("buckets"), "not used by kind %s", g.Kind)
		}
		if g.Kind == Vocabulary {
			if g.VocabularySize <= 0 {
				bad(f("vocabulary_size"), "must be positive (got %d)", g.VocabularySize)
			}
			if g.NumOOVBuckets < 0 {
				bad(f("num_oov_buckets"), "negative (%d)", g.NumOOVBuckets)
			}
		} else {
			if g.VocabularySize != 0 {
				bad(f("vocabulary_size"), "not used by kind %s", g.Kind)
			}
			if g.NumOOVBuckets != 0 {
				bad(f("num_oov_buckets"), "not used by kind %s", g.Kind)
			}
		}
		if g.Kind == Bucketized {
			if g.Boundaries <= 0 {
				bad(f("boundaries"), "must be positive (got %d)", g.Boundaries)
			}
		} else if g.Kind == Crossed {
			if g.Boundaries < 0 {
				bad(f("boundaries"), "negative (%d)", g.Boundaries)
			}
		} else if g.Boundaries != 0 {
			bad(f("boundaries"), "not used by kind %s", g.Kind)
		}
		if g.DefaultValue != nil {
			if g.Kind != Identity {
				bad(f("default_value"), "not used by kind %s", g.Kind)
			} else if *g.DefaultValue < 0 || *g.DefaultValue >= g.Buckets {
				bad(f("default_value"), "%d is outside [0, buckets=%d)", *g.DefaultValue, g.Buckets)
			}
		}
		if g.Kind == SplitString {
			if g.Separator == "" {
				bad(f("separator"), "required for kind split_string")
			}
		} else if g.Separator != "" {
			bad(f("separator"), "not used by kind %s", g.Kind)
		}
		if g.Kind == Shared {
			if g.Share < 2 {
				bad(f("share"), "must be at least 2 for kind shared (got %d)", g.Share)
			} else if g.Count%g.Share != 0 {
				bad(f("count"), "%d is not a multiple of share=%d", g.Count, g.Share)
			}
		} else if g.Share != 0 {
			bad(f("share"), "not used by kind %s", g.Kind)
		}
		if g.Dim <= 0 {
			bad(f("dim"), "must be positive (got %d)", g.Dim)
		}
		switch g.Combiner {
		case "sum", "mean", "sqrtn":
		default:
			bad(f("combiner"), "unknown combiner %q (want sum, mean or sqrtn)", g.Combiner)
		}
		checkStyle(f("tables"), g.Tables)
		if g.InputRank != 0 && g.InputRank != 1 && g.InputRank != 2 {
			bad(f("input_rank"), "must be 1 or 2 (got %d)", g.InputRank)
		} else if g.InputRank == 2 && g.Kind == SplitString {
			bad(f("input_rank"), "a split_string feature is a [batch] string (StringSplitV2 takes rank 1)")
		}
		if rows := g.Rows(); rows > 0 && g.Dim > 0 && s.MaxTableBytes > 0 && rows*int64(g.Dim)*4 > s.MaxTableBytes {
			bad(f("buckets"), "a table of %d×%d float32 (%d bytes) exceeds max_table_bytes=%d", rows, g.Dim, rows*int64(g.Dim)*4, s.MaxTableBytes)
		}
		validateFeed(&g.Feed, g, f, bad)
	}
	if d := s.Dense; d != nil {
		if d.Features <= 0 {
			bad("dense.features", "must be positive (got %d)", d.Features)
		}
		for j, w := range d.Bottom {
			if w <= 0 {
				bad(fmt.Sprintf("dense.bottom[%d]", j), "must be positive (got %d)", w)
			}
		}
		for j, w := range d.Top {
			if w <= 0 {
				bad(fmt.Sprintf("dense.top[%d]", j), "must be positive (got %d)", w)
			}
		}
		checkStyle("dense.tables", d.Tables)
	}
	s.validateTowers(bad)
	return errors.Join(errs...)
}

func validateFeed(fd *Feed, g *Group, f func(string) string, bad func(string, string, ...any)) {
	if c := fd.Coverage; c != nil && (math.IsNaN(*c) || *c < 0 || *c > 1) {
		bad(f("feed.coverage"), "%v is outside [0, 1]", *c)
	}
	if math.IsNaN(fd.Invalid) || fd.Invalid < 0 || fd.Invalid > 1 {
		bad(f("feed.invalid"), "%v is outside [0, 1]", fd.Invalid)
	}
	if p := fd.Popularity; p != nil {
		switch p.Dist {
		case "uniform":
			if p.S != 0 {
				bad(f("feed.popularity.s"), "not used by the uniform distribution")
			}
		case "zipf":
			if !(p.S > 1) {
				bad(f("feed.popularity.s"), "zipf exponent must be > 1 (got %v)", p.S)
			}
		default:
			bad(f("feed.popularity.dist"), "unknown distribution %q (want uniform or zipf)", p.Dist)
		}
	}
	if p := fd.Pooling; p != nil {
		pf := func(n string) string { return f("feed.pooling." + n) }
		switch p.Dist {
		case "fixed":
			if p.Length < 1 {
				bad(pf("length"), "must be at least 1 (got %d)", p.Length)
			}
		case "uniform":
			if p.Min < 1 {
				bad(pf("min"), "must be at least 1 (got %d)", p.Min)
			}
			if p.Max < p.Min {
				bad(pf("max"), "%d is below min=%d", p.Max, p.Min)
			}
		case "normal", "one_sided_normal":
			if p.Mean < 1 || math.IsNaN(p.Mean) {
				bad(pf("mean"), "must be at least 1 (got %v)", p.Mean)
			}
			if p.Std < 0 || math.IsNaN(p.Std) {
				bad(pf("std"), "negative (%v)", p.Std)
			}
			if float64(p.Max) < p.Mean {
				bad(pf("max"), "%d is below mean=%v", p.Max, p.Mean)
			}
		default:
			bad(pf("dist"), "unknown distribution %q (want fixed, uniform, normal or one_sided_normal)", p.Dist)
		}
		if g.Kind == Bucketized && g.MaxPooling() != 1 {
			bad(pf("dist"), "a bucketized column has exactly one value per row")
		}
	}
	if g.Kind == Bucketized && fd.coverage() != 1 {
		bad(f("feed.coverage"), "a bucketized column is always present (coverage must be 1)")
	}
}

// Scale returns a copy of the spec with exactly n columns, spread over the
// groups in proportion to their counts (largest remainders first; shared
// groups keep whole share groups; a group may drop to zero).
func (s *Spec) Scale(n int) (*Spec, error) {
	if err := CheckColumns(int64(n)); err != nil {
		return nil, &FieldError{Field: "columns", Msg: err.Error()}
	}
	total := s.NumColumns()
	if total == 0 {
		return nil, &FieldError{Field: "groups", Msg: "no columns to scale"}
	}
	c := s.Clone()
	unit := func(g *Group) int {
		if g.Kind == Shared {
			return g.Share
		}
		return 1
	}
	type rem struct {
		i    int
		frac float64
	}
	got := 0
	var rems []rem
	for i := range c.Groups {
		g := &c.Groups[i]
		u := unit(g)
		exact := float64(s.Groups[i].Count) * float64(n) / float64(total) / float64(u)
		k := int(math.Floor(exact))
		g.Count = k * u
		got += g.Count
		rems = append(rems, rem{i, exact - float64(k)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].frac > rems[b].frac })
	for _, r := range rems {
		g := &c.Groups[r.i]
		if u := unit(g); got+u <= n && s.Groups[r.i].Count > 0 {
			g.Count += u
			got += u
		}
	}
	// Whatever is left (shared units too big) goes to the first group of
	// unit 1.
	if got < n {
		for i := range c.Groups {
			if unit(&c.Groups[i]) == 1 {
				c.Groups[i].Count += n - got
				got = n
				break
			}
		}
	}
	if got != n {
		return nil, &FieldError{Field: "columns", Msg: fmt.Sprintf("cannot scale to exactly %d columns (shared groups come in units)", n)}
	}
	return c, c.Validate()
}
