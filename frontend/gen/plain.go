package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// Plain-lookup models: embedding tables used through tf.nn's lookups
// directly, without feature columns, as a model written by hand with
// tf.compat.v1 builds them:
//
//	emb_0 = tf.compat.v1.get_variable("emb_0", [rows, dim], partitioner=...)
//	ids_0 = tf.compat.v1.placeholder(tf.int64, [None, bag], name="ids_0")
//	x0 = tf.reduce_sum(tf.compat.v1.nn.embedding_lookup(emb_0, ids_0), axis=1)
//	sp_ids_1 = tf.SparseTensor(indices, values, dense_shape)  # 3 placeholders "sp_ids_1/..."
//	x1 = tf.compat.v1.nn.embedding_lookup_sparse(emb_1, sp_ids_1, None, combiner="mean")
//	out = tf.concat([x0, x1, ...], axis=1)
//
// Each lookup is written node for node as embedding_ops.py of the chosen
// TensorFlow version writes it (lookups.go), over a variable, a resource
// variable or a frozen constant, whole or in shards. The graphs carry no
// spec: GraphFeeds draws their feeds.

// APIs of a plain lookup.
const (
	APIEmbeddingLookup     = "embedding_lookup"
	APILookupSparse        = "embedding_lookup_sparse"
	APISafeLookupSparse    = "safe_embedding_lookup_sparse"
	maxPartitions          = 1024
	defaultPlainOutputName = "concat"
)

// LookupSpec is a plain-lookup model (JSON; unknown fields are errors).
type LookupSpec struct {
	// Name is a label (free text).
	Name string `json:"name,omitempty"`
	// TF is the TensorFlow version whose graph is written: "1.15", "2.6"
	// (the default) or "2.16" (see tfStyle).
	TF string `json:"tf,omitempty"`
	// Lookups are the groups of lookups, in order; their results are
	// concatenated on axis 1 ("concat"), or, for a single lookup, are the
	// output.
	Lookups []Lookup `json:"lookups"`
}

// Lookup is Count lookups of one form.
type Lookup struct {
	Count int `json:"count"`
	// API is embedding_lookup, embedding_lookup_sparse or
	// safe_embedding_lookup_sparse.
	API string `json:"api"`
	// Rows and Dim are the table's shape.
	Rows int64 `json:"rows"`
	Dim  int   `json:"dim"`
	// Bag (embedding_lookup) is the number of ids per row: the ids are
	// [batch, bag], pooled by the combiner (reduce_sum or reduce_mean over
	// axis 1); 0 means ids [batch] and no pooling.
	Bag int `json:"bag,omitempty"`
	// Combiner is "sum", "mean" or (the sparse APIs) "sqrtn".
	Combiner string `json:"combiner,omitempty"`
	// Weighted (the sparse APIs) adds sparse weights.
	Weighted bool `json:"weighted,omitempty"`
	// IDs is the ids' dtype (embedding_lookup): "int64" (the default) or
	// "int32".
	IDs string `json:"ids,omitempty"`
	// Tables is the table style: "variable" (the default), "resource" or
	// "const".
	Tables TableStyle `json:"tables,omitempty"`
	// Partitions (> 1) splits the table into that many shards
	// ("<table>/part_<i>", as a fixed_size_partitioner does), looked up
	// with Strategy "mod" or "div" (the default: "mod" for TensorFlow 1.15,
	// else "div").
	Partitions int    `json:"partitions,omitempty"`
	Strategy   string `json:"partition_strategy,omitempty"`
}

// ParseLookupSpec reads a JSON plain-lookup spec; name is used in error
// messages. The result is validated.
func ParseLookupSpec(data []byte, name string) (*LookupSpec, error) {
	var s LookupSpec
	if err := decodeStrict(data, name, "spec", &s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// LoadLookupSpec reads a plain-lookup spec file.
func LoadLookupSpec(file string) (*LookupSpec, error) {
	data, err := inputfile.Read(file)
	if err != nil {
		return nil, err
	}
	return ParseLookupSpec(data, file)
}

func (s *LookupSpec) style() tfStyle {
	switch s.TF {
	case "1.15":
		return tf115
	case "2.16":
		return tf216
	}
	return tf26
}

// strategy is the group's partition strategy with its default.
func (l *Lookup) strategy(st tfStyle) string {
	if l.Strategy != "" {
		return l.Strategy
	}
	if st == tf115 {
		return "mod"
	}
	return "div"
}

// Validate checks every field and the limits on sizes (MaxColumns
// lookups; tables below the default table limits, checked again against
// the options by GenerateLookups).
func (s *LookupSpec) Validate() error {
	switch s.TF {
	case "", "1.15", "2.6", "2.16":
	default:
		return &FieldError{Field: "tf", Msg: fmt.Sprintf("unknown TensorFlow version %q (want 1.15, 2.6 or 2.16)", s.TF)}
	}
	if len(s.Lookups) == 0 {
		return &FieldError{Field: "lookups", Msg: "needs at least one group"}
	}
	var count int64
	for i := range s.Lookups {
		l := &s.Lookups[i]
		f := func(field, format string, args ...any) error {
			return &FieldError{Field: fmt.Sprintf("lookups[%d].%s", i, field), Msg: fmt.Sprintf(format, args...)}
		}
		if l.Count < 1 {
			return f("count", "must be at least 1 (got %d)", l.Count)
		}
		count += int64(l.Count)
		if count > MaxColumns {
			return &FieldError{Field: "lookups", Msg: (&textir.LimitError{What: "the groups' counts add up to too many lookups", Limit: MaxColumns, Unit: "columns", Env: EnvMaxColumns}).Error()}
		}
		if l.Rows < 1 || l.Dim < 1 {
			return f("rows", "the table needs at least one row and one column (got %dx%d)", l.Rows, l.Dim)
		}
		if l.Rows > math.MaxInt32 || int64(l.Dim) > 1<<16 {
			return f("rows", "the table %dx%d is beyond 2^31-1 rows or 65536 columns", l.Rows, l.Dim)
		}
		if l.Rows*int64(l.Dim)*4 > DefaultTableLimit {
			return f("rows", "the table %dx%d (%s) is larger than %s", l.Rows, l.Dim, human(l.Rows*int64(l.Dim)*4), human(DefaultTableLimit))
		}
		switch l.API {
		case APIEmbeddingLookup:
			if l.Bag < 0 || l.Bag > 1<<16 {
				return f("bag", "must be in [0, 65536] (got %d)", l.Bag)
			}
			if l.Bag == 0 && l.Combiner != "" {
				return f("combiner", "ids [batch] are not pooled: give a bag to pool them")
			}
			if l.Bag > 0 && l.Combiner != "sum" && l.Combiner != "mean" {
				return f("combiner", "must be sum or mean (reduce_sum, reduce_mean) for embedding_lookup, got %q", l.Combiner)
			}
			if l.Weighted {
				return f("weighted", "embedding_lookup takes no weights")
			}
			if l.IDs != "" && l.IDs != "int64" && l.IDs != "int32" {
				return f("ids", "must be int64 or int32, got %q", l.IDs)
			}
		case APILookupSparse, APISafeLookupSparse:
			if l.Combiner != "sum" && l.Combiner != "mean" && l.Combiner != "sqrtn" {
				return f("combiner", "must be sum, mean or sqrtn, got %q", l.Combiner)
			}
			if l.Bag != 0 || l.IDs != "" {
				return f("bag", "bag and ids are for embedding_lookup (sparse ids are int64 placeholders)")
			}
		default:
			return f("api", "unknown API %q (want embedding_lookup, embedding_lookup_sparse or safe_embedding_lookup_sparse)", l.API)
		}
		switch l.Tables {
		case "", Variable, Resource, Const:
		default:
			return f("tables", "unknown table style %q (want variable, resource or const)", l.Tables)
		}
		if l.Partitions < 0 || l.Partitions > maxPartitions || int64(l.Partitions) > l.Rows {
			return f("partitions", "must be in [0, min(rows, %d)] (got %d)", maxPartitions, l.Partitions)
		}
		switch l.Strategy {
		case "", "mod", "div":
		default:
			return f("partition_strategy", "must be mod or div, got %q", l.Strategy)
		}
		if l.Strategy != "" && l.Partitions < 2 {
			return f("partition_strategy", "is for a table in 2 or more partitions")
		}
	}
	return nil
}

// GenerateLookups builds the plain-lookup model of a validated spec. The
// options' Seed, Tables (overriding every group's style), ConstLimit,
// TableLimit and NoTableValues mean what they mean for Generate.
func GenerateLookups(s *LookupSpec, opt Options) (*Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opt.ConstLimit == 0 {
		opt.ConstLimit = DefaultConstLimit
	}
	if opt.TableLimit == 0 {
		opt.TableLimit = DefaultTableLimit
	}
	var constBytes, sideBytes int64
	for _, l := range s.Lookups {
		n := int64(l.Count) * l.Rows * int64(l.Dim) * 4
		if plainStyle(l, opt) == Const {
			constBytes += n
		} else {
			sideBytes += n
		}
		if constBytes > opt.ConstLimit {
			return nil, fmt.Errorf("const tables of %s exceed the limit of %s", human(constBytes), human(opt.ConstLimit))
		}
		if sideBytes > opt.TableLimit {
			return nil, fmt.Errorf("tables of %s exceed the limit of %s", human(sideBytes), human(opt.TableLimit))
		}
	}
	g := &gen{b: newBuilder(64), opt: opt}
	st := s.style()
	var outs []tensor
	k := 0
	for _, l := range s.Lookups {
		for range l.Count {
			outs = append(outs, g.plainLookup(&l, k, st, plainStyle(l, opt)))
			k++
		}
	}
	out := outs[0]
	if len(outs) > 1 {
		out = g.b.concatV2(defaultPlainOutputName, outs, 1)
	}
	gd := &tfpb.GraphDef{Node: g.b.nodes, Versions: &tfpb.VersionDef{Producer: producer}}
	return &Model{Graph: gd, Tables: g.tables, Output: out.ref}, nil
}

func plainStyle(l Lookup, opt Options) TableStyle {
	switch {
	case opt.Tables != "":
		return opt.Tables
	case l.Tables != "":
		return l.Tables
	}
	return Variable
}

// plainLookup writes lookup k of group l: its inputs, its table and the
// lookup, and returns the [batch, dim] result.
func (g *gen) plainLookup(l *Lookup, k int, st tfStyle, style TableStyle) tensor {
	b := g.b
	p := lookupParams{dim: int64(l.Dim), style: st, strategy: l.strategy(st)}
	name := fmt.Sprintf("emb_%d", k)
	fill := func(r *rand.Rand, v []float32) {
		std := 1 / math.Sqrt(float64(l.Dim))
		for i := range v {
			v[i] = float32(truncNormal(r) * std)
		}
	}
	if l.Partitions > 1 {
		n := int64(l.Partitions)
		for i := range n {
			rows := l.Rows / n
			if i < l.Rows%n {
				rows++
			}
			p.shards = append(p.shards, g.variable(fmt.Sprintf("%s/part_%d", name, i), style, []int64{rows, int64(l.Dim)}, fill))
			p.rows = append(p.rows, rows)
		}
	} else {
		p.shards = []tableRef{g.variable(name, style, []int64{l.Rows, int64(l.Dim)}, fill)}
		p.rows = []int64{l.Rows}
	}
	switch l.API {
	case APIEmbeddingLookup:
		dt := dtInt64
		if l.IDs == "int32" {
			dt = dtInt32
		}
		shape := []int64{-1}
		if l.Bag > 0 {
			shape = append(shape, int64(l.Bag))
		}
		ids := b.placeholder(fmt.Sprintf("ids_%d", k), dt, shape...)
		e := g.embeddingLookup(p, ids)
		if l.Bag == 0 {
			return e
		}
		op := map[string]string{"sum": "Sum", "mean": "Mean"}[l.Combiner]
		full, s := b.enter(op)
		ax := b.scalarI32("reduction_indices", 1)
		b.exit(s)
		r := b.emit(full, op, []tensor{e, ax}, attrs("T", aType(dtFloat), "Tidx", aType(dtInt32), "keep_dims", aBool(false)))
		r.dt = dtFloat
		return r
	}
	ids := g.sparsePlaceholder(fmt.Sprintf("sp_ids_%d", k), dtInt64)
	var w *sparseT
	if l.Weighted {
		sw := g.sparsePlaceholder(fmt.Sprintf("sp_weights_%d", k), dtFloat)
		w = &sw
	}
	if l.API == APISafeLookupSparse {
		return g.safeLookup("embedding_lookup", l.Combiner, p, ids, w)
	}
	var wv *tensor
	if w != nil {
		wv = &w.values
	}
	return g.lookupSparse("embedding_lookup_sparse", l.Combiner, p, ids, wv)
}

// sparsePlaceholder is a 2-D SparseTensor fed as three placeholders,
// tf.SparseTensor(placeholder(int64, [None, 2], name+"/indices"),
// placeholder(dt, [None], name+"/values"), placeholder(int64, [2],
// name+"/shape")): the rank is known, as safe_embedding_lookup_sparse's
// graph of constants assumes. (tf.compat.v1.sparse_placeholder without
// a shape leaves the rank unknown, and safe_ computes it.)
func (g *gen) sparsePlaceholder(name string, dt tfpb.DataType) sparseT {
	b := g.b
	ind := b.placeholder(name+"/indices", dtInt64, -1, 2)
	vals := b.placeholder(name+"/values", dt, -1)
	sh := b.placeholder(name+"/shape", dtInt64, 2)
	return sparseT{indices: ind, values: vals, shape: sh}
}
