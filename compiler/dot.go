package compiler

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Column is one embedding column as lower-emb left it (recorded just
// before --fuse runs) and where --fuse put it: what `recom compile --dot`
// draws and the summary lists.
type Column struct {
	// Name is the column's name: its lookup's location (the TensorFlow
	// node it replaced).
	Name string
	// Sources are the tensors the ids (and weights) come from: feeds
	// (placeholders) where the chain reaches one, else the node that
	// computes them.
	Sources []string
	// Transforms are the emb ops between the source and the lookup, in
	// order, with their small attributes ("hash num_buckets=1000").
	Transforms []string
	// Table is the table's name; Rows and Width its shape.
	Table       string
	Rows, Width int64
	// Lookup is the lookup op's name without the dialect (lookup, gather,
	// gather_scatter); Combiner its combiner; Weighted whether it has
	// weights.
	Lookup, Combiner string
	Weighted         bool
	// Crossed: the ids are a cross (emb.cross, the first transform) of
	// every source.
	Crossed bool
	// Kernel and Class are the fused kernel (@emb::@layer) and schedule
	// class that --fuse put the column in; Kernel is "" when the column
	// was not fused.
	Kernel string
	Class  int64
}

// CollectColumns describes the pooled lookups of m, in IR order.
func CollectColumns(m *textir.Operation) []*Column {
	var cols []*Column
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "gpu.module" {
			return false
		}
		lk, ok := emb.AsTableLookup(op)
		if !ok {
			return true
		}
		var weights *textir.Value
		if p, ok := emb.AsPooledLookup(op); ok {
			weights = p.Weights()
		}
		c := &Column{Lookup: strings.TrimPrefix(op.Name(), emb.Name+"."), Combiner: emb.Combiner(op),
			Weighted: weights != nil, Class: -1}
		if n, ok := textir.LocName(op.Loc()); ok {
			c.Name = n
		}
		if t, ok := lk.Table().Type().(*textir.TensorType); ok && len(t.Shape) == 2 {
			c.Rows, c.Width = t.Shape[0], t.Shape[1]
		}
		if d := lk.Table().DefiningOp(); d != nil {
			if s, ok := d.Attr(emb.AttrName).(textir.StringAttr); ok {
				c.Table = s.Value
			}
		}
		if c.Name == "" {
			c.Name = c.Table
		}
		if op.Name() == emb.GatherOp {
			c.Combiner = emb.CombinerSum
		}
		c.Transforms, c.Sources = idChain(lk.IDs())
		c.Crossed = len(c.Transforms) > 0 && strings.HasPrefix(c.Transforms[0], strings.TrimPrefix(emb.CrossOp, emb.Name+".")+" ")
		if c.Weighted {
			if _, ws := idChain(weights); len(ws) > 0 && !slices.Contains(c.Sources, ws[0]) {
				c.Sources = append(c.Sources, ws...)
			}
		}
		cols = append(cols, c)
		return true
	})
	return cols
}

// idChain follows the ids of a lookup back through the emb ops that make
// them to the ragged source, returning the transforms in order and the
// source tensors.
func idChain(v *textir.Value) (xforms, sources []string) {
	for range 64 {
		op := v.DefiningOp()
		if op == nil || op.Dialect() != emb.Name {
			if v != nil {
				sources = append(sources, feedOf(v))
			}
			break
		}
		if d, ok := emb.AsFromDense(op); ok {
			xforms = append(xforms, opLabel(op))
			sources = append(sources, feedOf(d.Input()))
		} else if s, ok := emb.AsSplitStrings(op); ok {
			xforms = append(xforms, opLabel(op))
			sources = append(sources, feedOf(s.Input()))
		} else if s, ok := emb.AsFromSparse(op); ok {
			xforms = append(xforms, opLabel(op))
			sources = append(sources, feedOf(s.SparseValues()))
		} else if x, ok := emb.AsCross(op); ok {
			// A crossed column: the cross, from the sources of its inputs.
			xforms = append(xforms, opLabel(op))
			vals, _ := x.CrossInputs()
			for _, iv := range vals {
				_, s := idChain(iv)
				sources = append(sources, s...)
			}
		} else if in := idInput(op); in != nil {
			if op.Name() != emb.FilterOp || len(xforms) == 0 || xforms[len(xforms)-1] != opLabel(op) {
				xforms = append(xforms, opLabel(op))
			}
			v = in
			continue
		} else {
			sources = append(sources, strings.TrimPrefix(op.Name(), emb.Name+"."))
		}
		break
	}
	slices.Reverse(xforms)
	return xforms, sources
}

// feedInputs names the input of the tfg ops feedOf looks through.
var feedInputs = map[string]string{"tfg.Identity": "input", "tfg.Cast": "x", "tfg.Reshape": "tensor",
	"tfg.ExpandDims": "input", "tfg.Squeeze": "input", "tfg.AsString": "input"}

// idInput returns the values an emb op on the way from a source to a
// lookup's ids reads: an id transform's input, or the values emb.add_offset
// and emb.filter take; nil for another op.
func idInput(op *textir.Operation) *textir.Value {
	if t, ok := emb.AsIDTransform(op); ok {
		return t.Input()
	}
	if a, ok := emb.AsAddOffset(op); ok {
		return a.Values()
	}
	if f, ok := emb.AsFilter(op); ok {
		return f.Values()
	}
	return nil
}

// feedOf names the tensor v: the placeholder it is read from through
// casts, reshapes and identities, else its defining node.
func feedOf(v *textir.Value) string {
	orig := v
	for range 16 {
		op := v.DefiningOp()
		if op == nil {
			break
		}
		switch op.Name() {
		case "tfg.Placeholder", "tfg.PlaceholderWithDefault":
			return tfg.NodeName(op)
		case "tfg.Identity", "tfg.Cast", "tfg.Reshape", "tfg.ExpandDims", "tfg.Squeeze", "tfg.AsString":
			if in := optab.Operand(op, feedInputs[op.Name()]); in != nil {
				v = in
				continue
			}
		}
		break
	}
	op := orig.DefiningOp()
	if op == nil {
		return "?"
	}
	n := tfg.NodeName(op)
	if n == "" {
		n = op.Name()
	}
	if len(tfg.DataResults(op)) > 1 || (op.Dialect() != tfg.Name && op.NumResults() > 1) {
		n = fmt.Sprintf("%s:%d", n, orig.Index())
	}
	return n
}

// opLabel is an emb op's name and its short attributes.
func opLabel(op *textir.Operation) string {
	var b strings.Builder
	b.WriteString(strings.TrimPrefix(op.Name(), emb.Name+"."))
	attrs := slices.Clone(textir.AllAttrs(op))
	slices.SortFunc(attrs, func(a, b textir.NamedAttribute) int { return strings.Compare(a.Name, b.Name) })
	for _, a := range attrs {
		if strings.HasPrefix(a.Name, "_") {
			continue
		}
		s := textir.AttrString(a.Value)
		if i, ok := a.Value.(textir.IntegerAttr); ok {
			s = fmt.Sprint(i.Value)
		} else if d, ok := a.Value.(*textir.DenseElementsAttr); ok {
			s = fmt.Sprintf("<%d values>", d.NumElements())
		} else if len(s) > 32 {
			s = s[:29] + "..."
		}
		fmt.Fprintf(&b, " %s=%s", a.Name, s)
	}
	return b.String()
}

// markFused sets the kernel and class of the columns that the fused layers
// of m hold (matched by name, in order).
func markFused(cols []*Column, m *textir.Operation) {
	byName := map[string][]*Column{}
	for _, c := range cols {
		byName[c.Name] = append(byName[c.Name], c)
	}
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() == "gpu.module" {
			return false
		}
		if op.Name() != fused.EmbeddingLayerOp {
			return true
		}
		l, err := abi.LayerOf(op)
		if err != nil {
			return true
		}
		kernel := "?"
		if ref, ok := op.Attr("kernel").(textir.SymbolRefAttr); ok {
			kernel = textir.AttrString(ref)
		}
		for _, fc := range l.Columns {
			for _, c := range byName[fc.Name] {
				if c.Kernel == "" {
					c.Kernel, c.Class = kernel, fc.Class
					break
				}
			}
		}
		return true
	})
}

// noteColumns records the columns of the module before --fuse runs (and
// marks the fused ones once it has).
func (d *driver) noteColumns(fuseRan bool) {
	r := d.res
	if r.Module == nil || (r.Stage(StageLowerEmb) == nil && !d.inputPast(StageLowerEmb)) {
		return
	}
	if r.Columns == nil {
		r.Columns = CollectColumns(r.Module)
	}
	if fuseRan {
		markFused(r.Columns, r.Module)
	}
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// WriteDot writes the column structure of the compilation as a Graphviz
// graph: one cluster per embedding column (its sources, its transforms,
// its table with shape, its lookup and combiner, and the schedule class of
// the fused kernel it went to), one node per fused kernel, and the dense
// part (every op that is neither a column's nor a kernel's) as one node.
// The output depends only on the IR: the same model gives the same file.
func (r *Result) WriteDot(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph recom {\n")
	b.WriteString("  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=10, label=")
	b.WriteString(dotQuote(fmt.Sprintf("%s: %d embedding columns", baseName(r.Model), len(r.Columns))))
	b.WriteString(", labelloc=t];\n")
	b.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")

	var kernels []string
	for _, c := range r.Columns {
		if c.Kernel != "" && !slices.Contains(kernels, c.Kernel) {
			kernels = append(kernels, c.Kernel)
		}
	}
	for i, c := range r.Columns {
		id := fmt.Sprintf("c%d", i)
		fmt.Fprintf(&b, "\n  subgraph cluster_%d {\n", i)
		fmt.Fprintf(&b, "    label=%s;\n", dotQuote(c.Name))
		b.WriteString("    style=rounded; color=gray60;\n")
		prev := ""
		for j, s := range c.Sources {
			n := fmt.Sprintf("%s_src%d", id, j)
			fmt.Fprintf(&b, "    %s [label=%s, shape=ellipse];\n", n, dotQuote(s))
			if j == 0 {
				prev = n
			}
		}
		for j, x := range c.Transforms {
			n := fmt.Sprintf("%s_x%d", id, j)
			fmt.Fprintf(&b, "    %s [label=%s];\n", n, dotQuote(x))
			if prev != "" {
				fmt.Fprintf(&b, "    %s -> %s;\n", prev, n)
			}
			for k := 1; j == 0 && c.Crossed && k < len(c.Sources); k++ {
				fmt.Fprintf(&b, "    %s_src%d -> %s;\n", id, k, n)
			}
			prev = n
		}
		tab := id + "_table"
		fmt.Fprintf(&b, "    %s [label=%s, shape=cylinder];\n", tab,
			dotQuote(fmt.Sprintf("%s\n%d x %d", c.Table, c.Rows, c.Width)))
		lk := id + "_lookup"
		label := fmt.Sprintf("%s\ncombiner %s", c.Lookup, c.Combiner)
		if c.Weighted {
			label += ", weighted"
		}
		if c.Kernel != "" {
			label += fmt.Sprintf("\nclass %d", c.Class)
		}
		fmt.Fprintf(&b, "    %s [label=%s];\n", lk, dotQuote(label))
		if prev != "" {
			fmt.Fprintf(&b, "    %s -> %s;\n", prev, lk)
		}
		for j := 1; j < len(c.Sources) && !c.Crossed; j++ {
			fmt.Fprintf(&b, "    %s_src%d -> %s [label=\"weights\"];\n", id, j, lk)
		}
		fmt.Fprintf(&b, "    %s -> %s;\n", tab, lk)
		b.WriteString("  }\n")
	}

	b.WriteString("\n")
	for i, k := range kernels {
		var desc string
		for _, l := range r.Layers() {
			if strings.HasPrefix(l, k+":") {
				desc = strings.TrimPrefix(l, k+": ")
			}
		}
		fmt.Fprintf(&b, "  k%d [label=%s, shape=box3d];\n", i, dotQuote(fmt.Sprintf("kernel %s\n%s", k, desc)))
	}
	dense := "dense part"
	if r.Module != nil {
		dense = fmt.Sprintf("dense part\n%d ops", denseOps(r.Module))
	}
	fmt.Fprintf(&b, "  dense [label=%s, shape=box, style=filled, fillcolor=gray90];\n", dotQuote(dense))
	for i := range kernels {
		fmt.Fprintf(&b, "  k%d -> dense;\n", i)
	}
	for i, c := range r.Columns {
		if c.Kernel == "" {
			fmt.Fprintf(&b, "  c%d_lookup -> dense [label=\"not fused\", style=dashed];\n", i)
			continue
		}
		fmt.Fprintf(&b, "  c%d_lookup -> k%d;\n", i, slices.Index(kernels, c.Kernel))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDotSummary writes the column structure as a Graphviz graph small
// enough to read for any number of columns: one node per schedule class of
// each fused kernel (the columns --fuse gave one code path: their count,
// transform chain, lookups, combiners, widths and table rows), one per
// transform chain of the columns not fused, one per kernel and the dense
// part. WriteDot draws every column instead (thousands of clusters for a
// large model). The output depends only on the IR.
func (r *Result) WriteDotSummary(w io.Writer) error {
	type group struct {
		kernel  string
		class   int64
		chain   string
		cols    int
		lookups []string
		widths  []int64
		rows    int64
	}
	var groups []*group
	find := func(c *Column, chain string) *group {
		for _, g := range groups {
			if g.kernel == c.Kernel && (c.Kernel != "" && g.class == c.Class || c.Kernel == "" && g.chain == chain) {
				return g
			}
		}
		g := &group{kernel: c.Kernel, class: c.Class, chain: chain}
		groups = append(groups, g)
		return g
	}
	var kernels []string
	for _, c := range r.Columns {
		if c.Kernel != "" && !slices.Contains(kernels, c.Kernel) {
			kernels = append(kernels, c.Kernel)
		}
		chain := chainOf(c)
		g := find(c, chain)
		if g.chain != chain && !strings.Contains(g.chain, chain) {
			g.chain += "\n" + chain // a class holding columns of several chains
		}
		g.cols++
		lk := c.Lookup + " " + c.Combiner
		if c.Weighted {
			lk += ", weighted"
		}
		if !slices.Contains(g.lookups, lk) {
			g.lookups = append(g.lookups, lk)
		}
		if !slices.Contains(g.widths, c.Width) {
			g.widths = append(g.widths, c.Width)
		}
		g.rows += c.Rows
	}
	// By kernel, the columns not fused last, then by class.
	rank := func(g *group) int {
		if g.kernel == "" {
			return len(kernels)
		}
		return slices.Index(kernels, g.kernel)
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return cmp.Compare(a.class, b.class)
	})

	var b strings.Builder
	b.WriteString("digraph recom {\n")
	b.WriteString("  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=10, label=")
	b.WriteString(dotQuote(fmt.Sprintf("%s: %d embedding columns in %d groups (summary)", baseName(r.Model), len(r.Columns), len(groups))))
	b.WriteString(", labelloc=t];\n")
	b.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n\n")
	for i, g := range groups {
		title := "not fused"
		if g.kernel != "" {
			title = fmt.Sprintf("class %d", g.class)
		}
		slices.Sort(g.widths)
		widths := make([]string, len(g.widths))
		for j, wd := range g.widths {
			widths[j] = fmt.Sprint(wd)
		}
		label := fmt.Sprintf("%s: %d column%s\n%s\n%s\nwidth %s, %d table rows", title, g.cols, plural(g.cols),
			g.chain, strings.Join(g.lookups, ", "), strings.Join(widths, ", "), g.rows)
		fmt.Fprintf(&b, "  g%d [label=%s];\n", i, dotQuote(label))
	}
	for i, k := range kernels {
		var desc string
		for _, l := range r.Layers() {
			if strings.HasPrefix(l, k+":") {
				desc = strings.TrimPrefix(l, k+": ")
			}
		}
		fmt.Fprintf(&b, "  k%d [label=%s, shape=box3d];\n", i, dotQuote(fmt.Sprintf("kernel %s\n%s", k, desc)))
	}
	dense := "dense part"
	if r.Module != nil {
		dense = fmt.Sprintf("dense part\n%d ops", denseOps(r.Module))
	}
	fmt.Fprintf(&b, "  dense [label=%s, shape=box, style=filled, fillcolor=gray90];\n", dotQuote(dense))
	for i, g := range groups {
		if g.kernel == "" {
			fmt.Fprintf(&b, "  g%d -> dense [label=\"not fused\", style=dashed];\n", i)
			continue
		}
		fmt.Fprintf(&b, "  g%d -> k%d [label=%s];\n", i, slices.Index(kernels, g.kernel), dotQuote(fmt.Sprint(g.cols)))
	}
	for i := range kernels {
		fmt.Fprintf(&b, "  k%d -> dense;\n", i)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// chainOf is a column's transform chain by op name: what makes its kind
// (from_dense -> as_string -> hash for a hashed integer column).
func chainOf(c *Column) string {
	names := make([]string, 0, len(c.Transforms))
	for _, t := range c.Transforms {
		name, _, _ := strings.Cut(t, " ")
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "(ids as fed)"
	}
	return strings.Join(names, " -> ")
}

// denseOps counts the tfg ops of m: what the embedding layer feeds.
func denseOps(m *textir.Operation) int {
	n := 0
	m.Walk(func(op *textir.Operation) bool {
		if op.Dialect() == tfg.Name && op.Name() != "tfg.graph" {
			n++
		}
		return true
	})
	return n
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
