package tfgtoemb

import (
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/lowering/conversion"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Lowering is what the lower-emb patterns share while they lower the
// columns of one tfg graph block: the columns FindColumns identified, by
// the pooling op that roots each, the emb.table made for each table op,
// and what became of each column (its Kind, Err and Lowered). The pass
// makes one per block, hands it to PopulateLowerEmbPatterns and to its
// target (Settled is the pooling ops' legality), and reads the columns
// back once the conversion is done.
type Lowering struct {
	columns []*Column
	byRoot  map[*textir.Operation][]*Column
	reads   map[*textir.Operation]int // table op → columns that read it
	tables  map[*textir.Operation]*textir.Operation
	keep    bool
	// The tfg ops the patterns erased, and the tfg.Unique ops among them.
	removed, uniques int64
	// rewrites counts the columns rewritten (matchLookup).
	rewrites int
}

// NewLowering identifies the columns of b (FindColumns). A column whose
// output leads to no pooling op cannot be lowered: it is settled at once,
// as unmatched, with the reason the matcher gives. With keepChains the
// patterns name every column's kind but rewrite none (--lower-emb's
// no-unique-removal).
func NewLowering(b *textir.Block, keepChains bool) *Lowering {
	l := &Lowering{
		columns: FindColumns(b),
		byRoot:  map[*textir.Operation][]*Column{},
		reads:   map[*textir.Operation]int{},
		tables:  map[*textir.Operation]*textir.Operation{},
		keep:    keepChains,
	}
	for _, c := range l.columns {
		l.reads[c.Table]++
		if c.Root != nil {
			l.byRoot[c.Root] = append(l.byRoot[c.Root], c)
			continue
		}
		_, err := c.matchLookup(0)
		if err == nil {
			err = fail("its output does not lead to a pooling op")
		}
		c.Kind, c.Err = emb.KindUnmatched, err
	}
	return l
}

// Columns returns the block's columns, in layer order.
func (l *Lowering) Columns() []*Column { return l.columns }

// Settled reports whether every column rooted at op has been lowered,
// classified or found unmatched: the legality of PoolingOps. The
// conversion tries patterns only on illegal ops, so a pooling op stays
// illegal while a column rooted at it is pending.
func (l *Lowering) Settled(op *textir.Operation) bool {
	for _, c := range l.byRoot[op] {
		if c.Kind == "" {
			return false
		}
	}
	return true
}

// matchLookup returns the column's lookupChain, matched once for all the
// patterns that try it while no column is rewritten (gen counts the
// rewrites: a rewrite may erase ops that another column's plan holds, when
// columns share them).
func (c *Column) matchLookup(gen int) (*plan, error) {
	if (c.chain == nil && c.chainErr == nil) || c.chainGen != gen {
		c.chain, c.chainErr = lookupChain(c)
		c.chainGen = gen
	}
	return c.chain, c.chainErr
}

// idForm is one form of a column's ids (ids.go): its name, the benefit
// of its patterns, and its recogniser.
type idForm struct {
	name    string
	benefit int
	ids     func(*plan) (source, []xform, bool)
}

// idForms are tried at each pooling op by decreasing benefit: the four
// forms told apart by structure (the dense ids of a plain embedding_lookup,
// plain.go, and three feature-column forms), then sparse, which takes
// every column they did not recognise.
var idForms = []idForm{
	{"dense", 2, denseIDs},
	{"categorical", 2, categoricalIDs},
	{"bucketized", 2, bucketizedIDs},
	{"split-string", 2, splitIDs},
	{"parsed", 2, parsedIDs},
	{"crossed", 2, crossedIDs},
	{"sparse", 1, sparseIDs},
}

// PopulateLowerEmbPatterns adds the patterns that lower the columns of l
// to patterns: for each form of a column's ids (a categorical column over a dense
// feature, a bucketized column, split strings, a VarLenFeature parsed from
// tf.Example records (parsed.go), sparse ids of any other origin), one pattern rooted at each of PoolingOps. A pattern matches the
// columns rooted at its op whose ids have its form, weighted or not, and
// replaces each with emb ops of the same meaning (tables, the ids' source,
// the id transforms and pruning, the pooled lookup); the tfg ops that die
// with it are erased. A column whose lookup chain or types do not fit is
// marked unmatched with the reason, and stays in tfg.
func PopulateLowerEmbPatterns(patterns *conversion.PatternList, l *Lowering) {
	for _, f := range idForms {
		for _, root := range PoolingOps {
			patterns.Add(&columnPattern{root: root, form: f, l: l})
		}
	}
}

// columnPattern lowers the columns of one id form rooted at one pooling op.
type columnPattern struct {
	root string
	form idForm
	l    *Lowering
}

func (cp *columnPattern) Root() string { return cp.root }
func (cp *columnPattern) Benefit() int { return cp.form.benefit }
func (cp *columnPattern) Name() string { return "lower-emb-" + cp.form.name }

func (cp *columnPattern) MatchAndRewrite(op *textir.Operation, _ []*textir.Value, rw *conversion.ConversionRewriter) bool {
	l := cp.l
	lowered := false
	for _, c := range l.byRoot[op] {
		if c.Kind != "" {
			continue
		}
		p, err := c.matchLookup(l.rewrites)
		if err != nil {
			c.Kind, c.Err = emb.KindUnmatched, err
			continue
		}
		src, xforms, ok := cp.form.ids(p)
		if !ok {
			continue
		}
		q, err := complete(p, src, xforms)
		if err != nil {
			c.Kind, c.Err = emb.KindUnmatched, err
			continue
		}
		c.Kind = q.kind
		if l.reads[c.Table] > 1 && c.Kind != emb.KindWeighted {
			c.Kind = emb.KindShared
		}
		if l.keep {
			continue
		}
		// The plain rewriter: tfg users take the lookup's result whatever
		// its type, so the conversion's casts to the old type are not
		// wanted; the conversion still sees every change.
		l.emit(rw.Rewriter, c, q)
		l.rewrites++
		c.Lowered = true
		lowered = true
	}
	return lowered
}

// placeTables moves each emb.table the patterns made to just before the
// ids' source of the first column, in layer order, that reads it. The
// conversion lowers columns in the order of their pooling ops; this puts
// each table where lowering the columns in layer order puts it.
func (l *Lowering) placeTables(rw *rewrite.Rewriter) {
	placed := map[*textir.Operation]bool{}
	for _, c := range l.columns {
		if !c.Lowered || placed[c.table] {
			continue
		}
		placed[c.table] = true
		if c.table.Next() != c.first {
			rw.MoveOpBefore(c.table, c.first)
		}
	}
}
