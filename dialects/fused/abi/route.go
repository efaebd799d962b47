package abi

// fused.route: the host side of a row-wise column. It takes the column's
// inputs (those of its fused.embedding_layer column, less the table),
// computes its ids on the host as the kernel would (Column.HostBags: the
// id transforms, a "split" column's tokens), and sends each id to the
// piece of the table whose rows hold it, rebased to the piece's first row:
//
//	%ids0, %splits0, %ids1, %splits1, %den = fused.route %values, %splits
//	    {bounds = [0, 500, 1000], column = {combiner = "mean", kind = "lookup", name = "c", rows = 1000, ...}}
//	    : tensor<?x!tfg.string>, tensor<?xi64>
//
// Piece k (rows [bounds[k], bounds[k+1])) gets, per bag, the ids of the bag
// that fall in its rows, in bag order, as ids - bounds[k] (tensor<?xi64>),
// the row splits of those bags (B+1, tensor<?xi64>) and, for a weighted
// column, their weights (tensor<?xf32>). A gather column's one id per row
// becomes a bag of one id in the piece that holds it and an empty bag in
// the others. The pieces' layers pool their bags with combiner "sum"; the
// fused.exchange sums the pieces' partial rows and, for a mean or sqrtn
// column, divides them by the last result, den (tensor<?xf32>, one per
// bag): what the unsharded kernel divides by (kernel.go's combine), taken
// over the whole bag — its id count (mean), the square root of the count
// (sqrtn), the sum of its weights (weighted mean) or the square root of
// the sum of their squares (weighted sqrtn) — and 1 for an empty bag. A
// div_no_nan column's den is +Inf where that divisor is 0, so that the
// exchange's division gives 0 there, as TensorFlow's DivNoNan does (the
// pieces' partial sums are finite).

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/textir"
)

// Route is the static description of a fused.route.
type Route struct {
	// Column is the routed column as its layer had it: name, kind,
	// combiner, weighted, rows, width and the id computation (source,
	// transforms, sep). Its schedule and offsets are not used.
	Column Column
	// Bounds cut the rows: piece k has rows [Bounds[k], Bounds[k+1]).
	Bounds []int64
}

// Pieces returns the number of row ranges.
func (r *Route) Pieces() int { return len(r.Bounds) - 1 }

// Scaled reports whether the route has a den result: mean and sqrtn
// lookups (a gather column's bag is one id: the kernel does not scale it).
func (r *Route) Scaled() bool { return r.Column.Combiner != "sum" && r.Column.Kind != KindGather }

// NumOperands is the column's operands less the table.
func (r *Route) NumOperands() int { return r.Column.NumOperands() - 1 }

// PieceResults is the number of results of one piece: ids, splits and,
// when weighted, weights.
func (r *Route) PieceResults() int {
	if r.Column.Weighted {
		return 3
	}
	return 2
}

// ResultTypes returns the types of the route's results.
func (r *Route) ResultTypes() []textir.Type {
	i64 := textir.TensorOf([]int64{textir.Dynamic}, textir.I64())
	f32 := textir.TensorOf([]int64{textir.Dynamic}, textir.F32())
	var ts []textir.Type
	for range r.Pieces() {
		ts = append(ts, i64, i64)
		if r.Column.Weighted {
			ts = append(ts, f32)
		}
	}
	if r.Scaled() {
		ts = append(ts, f32)
	}
	return ts
}

// routeColumnAttr encodes what a route needs of its column.
func routeColumnAttr(c *Column) textir.DictAttr {
	attrs := []textir.NamedAttribute{
		{Name: "name", Value: textir.Str(c.Name)},
		{Name: "kind", Value: textir.Str(c.Kind)},
		{Name: "combiner", Value: textir.Str(c.Combiner)},
		{Name: "weighted", Value: textir.BoolAttr{Value: c.Weighted}},
		{Name: "rows", Value: textir.I64Attr(c.Rows)},
		{Name: "width", Value: textir.I64Attr(c.Width)},
	}
	if c.Source != SourceIDs && c.Source != "" {
		ts := make([]textir.Attribute, len(c.Transforms))
		for k := range c.Transforms {
			ts[k] = c.Transforms[k].Attr()
		}
		attrs = append(attrs, textir.NamedAttribute{Name: "source", Value: textir.Str(c.Source)},
			textir.NamedAttribute{Name: "transforms", Value: textir.ArrayAttr{Elems: ts}})
		if c.Source == SourceSplit {
			attrs = append(attrs, textir.NamedAttribute{Name: "sep", Value: textir.Str(c.Sep)})
		}
	}
	return textir.NewDictAttr(attrs)
}

// Attrs returns the route's attributes.
func (r *Route) Attrs() []textir.NamedAttribute {
	bs := make([]textir.Attribute, len(r.Bounds))
	for i, b := range r.Bounds {
		bs[i] = textir.I64Attr(b)
	}
	return []textir.NamedAttribute{
		{Name: "bounds", Value: textir.ArrayAttr{Elems: bs}},
		{Name: "column", Value: routeColumnAttr(&r.Column)},
	}
}

// int64List reads an array attribute of integers.
func int64List(a textir.Attribute, what string) ([]int64, error) {
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("attribute '%s' must be an array of integers", what)
	}
	out := make([]int64, len(arr.Elems))
	for i, e := range arr.Elems {
		ia, ok := e.(textir.IntegerAttr)
		if !ok {
			return nil, fmt.Errorf("attribute '%s' must be an array of integers (element #%d is not)", what, i)
		}
		out[i] = ia.Value
	}
	return out, nil
}

// RouteOf decodes and checks the attributes of a fused.route.
func RouteOf(op *textir.Operation) (*Route, error) {
	r := &Route{}
	var err error
	if r.Bounds, err = int64List(op.LookupAttr("bounds"), "bounds"); err != nil {
		return nil, op.Errorf("%v", err)
	}
	d, ok := op.LookupAttr("column").(textir.DictAttr)
	if !ok {
		return nil, op.Errorf("requires dictionary attribute 'column'")
	}
	c := &r.Column
	wrap := func(e error) error { return op.Errorf("column: %v", e) }
	if err := c.readNaming(d); err != nil {
		return nil, wrap(err)
	}
	if c.Rows, err = getInt(d, "rows"); err != nil {
		return nil, wrap(err)
	}
	if c.Width, err = getInt(d, "width"); err != nil {
		return nil, wrap(err)
	}
	hasSource, err := c.readSource(d)
	if err != nil {
		return nil, wrap(err)
	}
	if hasSource {
		if c.Source == SourceSplit {
			if c.Sep, err = getStr(d, "sep"); err != nil {
				return nil, wrap(err)
			}
		}
	}
	switch {
	case c.Kind != KindLookup && c.Kind != KindGather:
		return nil, wrap(fmt.Errorf("kind must be \"lookup\" or \"gather\", got %q", c.Kind))
	case c.Combiner != "sum" && c.Combiner != "mean" && c.Combiner != "sqrtn":
		return nil, wrap(fmt.Errorf("unknown combiner %q", c.Combiner))
	case c.Kind == KindGather && c.Weighted:
		return nil, wrap(fmt.Errorf("a gather column cannot be weighted"))
	case c.Source == SourceSplit && c.Weighted:
		return nil, wrap(fmt.Errorf("a \"split\" column cannot be weighted"))
	case c.DivNoNaN && (!c.Weighted || c.Combiner == "sum"):
		return nil, wrap(fmt.Errorf("div_no_nan is for weighted mean and sqrtn columns"))
	case c.Rows < 1 || c.Rows > math.MaxInt32 || c.Width < 1 || c.Width > MaxArenaFloats:
		return nil, wrap(fmt.Errorf("table must be at least 1x1, with rows below 2^31, got %dx%d", c.Rows, c.Width))
	}
	if err := c.CheckChain(); err != nil {
		return nil, wrap(err)
	}
	if len(r.Bounds) < 2 || len(r.Bounds) > MaxShardDevices+1 {
		return nil, op.Errorf("attribute 'bounds' must cut the rows into 1 to %d ranges, got %d bounds", MaxShardDevices, len(r.Bounds))
	}
	if r.Bounds[0] != 0 || r.Bounds[len(r.Bounds)-1] != c.Rows {
		return nil, op.Errorf("attribute 'bounds' must go from 0 to the table's %d rows, got %v", c.Rows, r.Bounds)
	}
	for k := 1; k < len(r.Bounds); k++ {
		if r.Bounds[k] <= r.Bounds[k-1] {
			return nil, op.Errorf("attribute 'bounds' must increase, got %v", r.Bounds)
		}
	}
	return r, nil
}

// RoutedPiece is what a route sends to one piece: ids rebased to its
// first row, the row splits of the bags and their weights (weighted).
type RoutedPiece struct {
	Ids     []int64
	Splits  []int64
	Weights []float32
}

// Run routes one batch of the column's inputs x (Table unused): the
// pieces' bags, and den (nil unless Scaled). It checks what Pack checks:
// valid row splits, ids in the table, a weight per id.
func (r *Route) Run(x *ColumnInput) ([]RoutedPiece, []float32, error) {
	c := &r.Column
	if err := x.checkSource(c); err != nil {
		return nil, nil, err
	}
	ids, splits, weights, err := c.HostBags(x)
	if err != nil {
		return nil, nil, err
	}
	if c.Kind == KindGather {
		splits = make([]int64, len(ids)+1)
		for i := range splits {
			splits[i] = int64(i)
		}
	}
	n := int64(len(ids))
	b := int64(len(splits)) - 1
	if b < 0 || splits[0] != 0 || splits[b] != n {
		return nil, nil, fmt.Errorf("column %q: invalid row splits", c.Name)
	}
	for j := int64(0); j < b; j++ {
		if splits[j] > splits[j+1] {
			return nil, nil, fmt.Errorf("column %q: row splits must be non-decreasing", c.Name)
		}
	}
	if c.Weighted && int64(len(weights)) != n {
		return nil, nil, fmt.Errorf("column %q: %d weights for %d ids", c.Name, len(weights), n)
	}
	pieceOf := func(id int64) int {
		lo, hi := 0, r.Pieces()
		for hi-lo > 1 {
			m := (lo + hi) / 2
			if id >= r.Bounds[m] {
				lo = m
			} else {
				hi = m
			}
		}
		return lo
	}
	out := make([]RoutedPiece, r.Pieces())
	for k := range out {
		out[k].Splits = make([]int64, 1, b+1)
		out[k].Ids = []int64{}
		if c.Weighted {
			out[k].Weights = []float32{}
		}
	}
	var den []float32
	if r.Scaled() {
		den = make([]float32, b)
	}
	for bag := int64(0); bag < b; bag++ {
		var ws, ws2 float32
		for j := splits[bag]; j < splits[bag+1]; j++ {
			id := ids[j]
			if id < 0 || id >= c.Rows {
				return nil, nil, fmt.Errorf("column %q: id %d (value %d) is not in [0, %d)", c.Name, id, j, c.Rows)
			}
			k := pieceOf(id)
			p := &out[k]
			p.Ids = append(p.Ids, id-r.Bounds[k])
			if c.Weighted {
				w := weights[j]
				p.Weights = append(p.Weights, w)
				ws += w
				ws2 += w * w
			}
		}
		for k := range out {
			out[k].Splits = append(out[k].Splits, int64(len(out[k].Ids)))
		}
		if den == nil {
			continue
		}
		cnt := splits[bag+1] - splits[bag]
		var d float32
		switch {
		case cnt == 0:
			d = 1
		case c.Combiner == "mean" && !c.Weighted:
			d = float32(cnt)
		case c.Combiner == "sqrtn" && !c.Weighted:
			d = float32(math.Sqrt(float64(float32(cnt))))
		case c.Combiner == "mean":
			d = ws
		default:
			d = float32(math.Sqrt(float64(ws2)))
		}
		if d == 0 && c.DivNoNaN {
			d = float32(math.Inf(1))
		}
		den[bag] = d
	}
	return out, den, nil
}

// NewRoute returns the route of column c (of a layer) cut at bounds.
func NewRoute(c *Column, bounds []int64) *Route {
	rc := Column{Name: c.Name, Kind: c.Kind, Combiner: c.Combiner, Weighted: c.Weighted, DivNoNaN: c.DivNoNaN, Rows: c.Rows, Width: c.Width,
		Source: c.Source, Transforms: c.Transforms, Sep: c.Sep, ParamsOffset: -1}
	if rc.Source == "" {
		rc.Source = SourceIDs
	}
	return &Route{Column: rc, Bounds: append([]int64(nil), bounds...)}
}
