package gen

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/textir"
)

// DefaultFeedBatch is the number of rows GraphFeeds draws for an unknown
// batch dimension when neither the options nor the graph fix one.
const DefaultFeedBatch = 256

// Defaults of the draws where neither the graph nor the FeedSpec says.
const (
	defaultWidth   = 4   // an unknown dimension after the first; the longest bag
	defaultEmpty   = 0.1 // rows without values, where the graph has a way to say so
	defaultInvalid = 0.1 // invalid values, where the graph defines what becomes of them
	defaultMissing = 0.2 // tf.Example records without a dense feature that has a default
	defaultIntHigh = 100 // integers with no use that bounds them: [0, 100)
	unknownTable   = 10  // ids of a table whose size the graph does not say: [0, 10)
)

// GraphFeedOptions control GraphFeeds.
type GraphFeedOptions struct {
	// Batch is the number of rows of the inputs whose first dimension the
	// graph leaves unknown. 0: the first dimension the graph's other
	// inputs have, when they agree on one and outnumber the inputs that
	// leave it unknown, else DefaultFeedBatch.
	Batch int
	// Seed makes the draws: each input draws from its own stream of the
	// seed and its name, so one input's values do not depend on others.
	Seed uint64
	// Spec overrides the draws per input (see FeedSpec).
	Spec FeedSpec
	// Aliases maps other names of inputs to their placeholders (the cut
	// tensor "IteratorGetNext:3" to "IteratorGetNext/out3"), so that Spec
	// may use either.
	Aliases map[string]string
	// Tables holds the contents of lookup tables by table node name (as
	// recom interp --tables takes them). Tables absent from it are read
	// from the module's initializers: constants (InitializeTableV2,
	// LookupTableImportV2) or a vocabulary file
	// (InitializeTableFromTextFileV2).
	Tables map[string]exec.TableData
	// Assets maps a SavedModel's asset tensors ("node:0") to their files;
	// a vocabulary file's name is read from them before the graph's own
	// constant.
	Assets map[string]string
}

// FedInput says how GraphFeeds drew one input.
type FedInput struct {
	Name  string
	DType interp.DType
	Shape []int64
	// How says what the graph does with the input and how its values
	// were drawn, in words.
	How string
}

// GraphFeeds draws random inputs for every tfg.Placeholder of m (the tfg
// module of a graph, as the compiler's import stage makes it): one array
// per placeholder, named like it, in the order of the module, with values
// that the graph accepts (see the file comment of inputs.go for what is
// looked at). It returns the arrays and, for each, how it was drawn.
func GraphFeeds(ctx context.Context, m *textir.Operation, o GraphFeedOptions) ([]npz.Array, []FedInput, error) {
	if o.Batch != 0 {
		if err := CheckRows(int64(o.Batch)); err != nil {
			return nil, nil, &FieldError{Field: "batch", Msg: err.Error()}
		}
	}
	if err := o.Spec.Validate(); err != nil {
		return nil, nil, err
	}
	a, err := analyze(m)
	if err != nil {
		return nil, nil, err
	}
	specs, err := inputSpecs(a, &o)
	if err != nil {
		return nil, nil, err
	}
	batch, batchNote := feedBatch(a, o.Batch)
	tables := &tableSource{ctx: ctx, m: m, given: o.Tables, assets: o.Assets}
	out := map[*input]*interp.Tensor{}
	how := map[*input]string{}
	masks := map[*input][]bool{} // the present values of aligned inputs, by the group's first
	for _, in := range a.inputs {
		if _, done := out[in]; done {
			continue
		}
		sp := specs[in]
		if g := in.group; g != nil {
			if err := drawSparse(g, specs, batch, o.Seed, tables, out, how); err != nil {
				return nil, nil, err
			}
			continue
		}
		r := streamRNG(o.Seed, in.name)
		shape, err := in.feedShape(sp, batch)
		if err != nil {
			return nil, nil, err
		}
		d, err := newDomain(in.vals, sp, tables)
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", in.name, err)
		}
		var present []bool
		if d.pad != nil && len(shape) > 0 {
			first := in
			if in.aligned != nil {
				first = in.aligned[0]
			}
			present = masks[first]
			if n, _ := interp.NumElements(shape); len(present) != int(n) {
				present = d.presence(streamRNG(o.Seed, first.name+"/present"), shape)
				masks[first] = present
			}
		}
		t, h, err := drawDense(r, in.dtype, shape, d, present)
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", in.name, err)
		}
		out[in], how[in] = t, h
	}
	var arrays []npz.Array
	var fed []FedInput
	for _, in := range a.inputs {
		t := out[in]
		arrays = append(arrays, npz.Array{Name: in.name, Tensor: t})
		h := how[in]
		if batchNote != "" && len(in.shape) > 0 && in.shape[0] < 0 && in.role == notSparse {
			h += "; " + batchNote
		}
		fed = append(fed, FedInput{Name: in.name, DType: t.DType(), Shape: t.Shape(), How: h})
	}
	return arrays, fed, nil
}

// inputSpecs resolves the FeedSpec entry of every input ("*" under its
// own, by placeholder name or alias); an entry naming no input is an
// error.
func inputSpecs(a *analysis, o *GraphFeedOptions) (map[*input]*InputSpec, error) {
	byName := map[string]*input{}
	for _, in := range a.inputs {
		byName[in.name] = in
	}
	own := map[*input]*InputSpec{}
	for _, k := range slices.Sorted(maps.Keys(o.Spec)) {
		if k == "*" {
			continue
		}
		in := byName[k]
		if in == nil {
			in = byName[o.Aliases[k]]
		}
		if in == nil {
			var names []string
			for _, in := range a.inputs {
				names = append(names, in.name)
			}
			return nil, &FieldError{Field: k, Msg: fmt.Sprintf("the feed spec names no input of the graph (its inputs: %s)", strings.Join(names, ", "))}
		}
		if own[in] != nil {
			return nil, &FieldError{Field: k, Msg: fmt.Sprintf("input %s has two entries in the feed spec", in.name)}
		}
		own[in] = o.Spec[k]
	}
	specs := map[*input]*InputSpec{}
	for _, in := range a.inputs {
		specs[in] = own[in].merged(o.Spec["*"])
	}
	return specs, nil
}

// feedBatch returns the rows of the inputs whose first dimension is
// unknown, and a note when it is not what the options said: without a
// batch in the options, the first dimension the other inputs have, when
// they agree on one and are more than the inputs that leave it
// unknown (one fixed-size input among many batched ones is no batch).
func feedBatch(a *analysis, batch int) (int, string) {
	static := map[int64]int{}
	unknown := 0
	for _, in := range a.inputs {
		switch {
		case in.role != notSparse || len(in.shape) == 0:
		case in.shape[0] >= 0:
			static[in.shape[0]]++
		default:
			unknown++
		}
	}
	if batch > 0 {
		return batch, ""
	}
	if len(static) == 1 {
		for b, n := range static {
			if b > 0 && n > unknown {
				return int(b), fmt.Sprintf("batch %d, as the graph's other inputs have", b)
			}
		}
	}
	return DefaultFeedBatch, ""
}

// feedShape returns the shape to draw for in: the graph's, with the spec's
// shape over it and unknown dimensions filled in.
func (in *input) feedShape(sp *InputSpec, batch int) ([]int64, error) {
	rows := int64(batch)
	if sp.Rows > 0 {
		rows = int64(sp.Rows)
	}
	shape := slices.Clone(in.shape)
	if in.unknownRank {
		shape = []int64{-1}
	}
	if sp.Shape != nil {
		if !in.unknownRank && len(sp.Shape) != len(in.shape) {
			return nil, &FieldError{Field: in.name + ".shape", Msg: fmt.Sprintf("has rank %d; the graph's input has rank %d", len(sp.Shape), len(in.shape))}
		}
		for i, d := range sp.Shape {
			if !in.unknownRank && in.shape[i] >= 0 && d >= 0 && d != in.shape[i] {
				return nil, &FieldError{Field: in.name + ".shape", Msg: fmt.Sprintf("dimension %d is %d; the graph's input has %d", i, d, in.shape[i])}
			}
		}
		shape = slices.Clone(sp.Shape)
		if !in.unknownRank {
			for i, d := range in.shape {
				if d >= 0 {
					shape[i] = d
				}
			}
		}
	}
	for i, d := range shape {
		if d >= 0 {
			continue
		}
		switch {
		case i == 0:
			shape[i] = rows
		case sp.MaxLength != nil && *sp.MaxLength > 0:
			shape[i] = int64(*sp.MaxLength)
		default:
			shape[i] = defaultWidth
		}
	}
	if _, err := interp.NumElements(shape); err != nil {
		return nil, fmt.Errorf("input %s: %w", in.name, err)
	}
	return shape, nil
}

// domain is the set of values to draw for one tensor, and how.
type domain struct {
	dtype interp.DType
	// strs, ints or floats: draw from these keys (a vocabulary).
	strs   []string
	ints   []int64
	floats []float64
	// bounds: floats (or integers) around these boundaries.
	bounds []float64
	// lo, hi: integers in [lo, hi); below and above: values under lo
	// and from hi on are handled by the graph (drawn as invalid).
	lo, hi       int64
	below, above bool
	// flo, fhi: floats uniform in [flo, fhi) when ranged, else N(0, 1).
	flo, fhi float64
	ranged   bool
	// split: strings are joined tokens; number: formatted numbers;
	// examples: serialized tf.Example records.
	split    *splitDomain
	number   *domain
	examples *exampleDomain
	// invalid is the fraction of invalid values: out of vocabulary, out
	// of range.
	invalid float64
	// pad is the padding value, drawn for absent values only.
	pad *interp.Tensor
	// minLen and maxLen bound a row's number of values (maxLen -1: the
	// row's width, at most defaultWidth); empty is the fraction of rows
	// without any.
	minLen, maxLen int
	empty          float64
	// what says what the values are, for the report.
	what string
}

type splitDomain struct {
	sep    string
	tokens *domain
}

// newDomain makes the domain of vals, with the spec over what the graph
// says.
func newDomain(vals *values, sp *InputSpec, tables *tableSource) (*domain, error) {
	d := &domain{dtype: vals.dtype, pad: vals.pad, minLen: 1, maxLen: -1, empty: defaultEmpty}
	if sp.MinLength != nil {
		d.minLen = *sp.MinLength
	}
	if sp.MaxLength != nil {
		d.maxLen = *sp.MaxLength
	}
	if sp.Empty != nil {
		d.empty = *sp.Empty
	}
	tolerant := false // the graph handles invalid values
	var what []string
	if !vals.used {
		what = append(what, "unused")
	}
	switch {
	case vals.dtype == interp.String:
		if err := d.stringDomain(vals, sp, tables, &what, &tolerant); err != nil {
			return nil, err
		}
	case vals.dtype == interp.Bool:
		what = append(what, "booleans")
	default:
		if err := d.numberDomain(vals, sp, tables, &what, &tolerant); err != nil {
			return nil, err
		}
	}
	if tolerant {
		d.invalid = defaultInvalid
	}
	if sp.Invalid != nil {
		d.invalid = *sp.Invalid
	}
	if d.invalid > 0 && d.strs == nil && d.ints == nil && !d.below && !d.above {
		d.invalid = 0 // nothing is invalid
	}
	if d.invalid > 0 {
		what = append(what, fmt.Sprintf("%g%% invalid", 100*d.invalid))
	}
	d.what = strings.Join(what, ", ")
	return d, nil
}

func (d *domain) stringDomain(vals *values, sp *InputSpec, tables *tableSource, what *[]string, tolerant *bool) error {
	switch {
	case sp.Vocabulary != nil:
		d.strs = slices.Clone(sp.Vocabulary)
		*what = append(*what, fmt.Sprintf("%d words of the feed spec", len(d.strs)))
		*tolerant = len(vals.lookups) > 0
	case len(vals.lookups) > 0:
		keys, from, err := tables.stringKeys(vals.lookups)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			*what = append(*what, "vocabulary lookup with no keys ("+from+"): random strings")
			break
		}
		d.strs = keys
		*what = append(*what, fmt.Sprintf("vocabulary of %d keys (%s)", len(keys), from))
		*tolerant = true
	case vals.split != nil:
		tok, err := newDomain(vals.split.tokens, &InputSpec{Invalid: sp.Invalid}, tables)
		if err != nil {
			return err
		}
		if tok.strs != nil {
			tok.strs = slices.DeleteFunc(tok.strs, func(s string) bool { return s == "" || strings.Contains(s, vals.split.sep) })
		}
		d.split = &splitDomain{sep: vals.split.sep, tokens: tok}
		*what = append(*what, fmt.Sprintf("%q-joined tokens: %s", vals.split.sep, tok.what))
	case vals.number != nil:
		num, err := newDomain(vals.number, &InputSpec{Min: sp.Min, Max: sp.Max}, tables)
		if err != nil {
			return err
		}
		d.number = num
		*what = append(*what, "numbers as text: "+num.what)
	case len(vals.parses) > 0:
		ex, err := newExampleDomain(vals.parses, sp, tables)
		if err != nil {
			return err
		}
		d.examples = ex
		*what = append(*what, ex.what)
	case vals.hashed:
		*what = append(*what, "hashed: random short strings")
	default:
		*what = append(*what, "random short strings")
	}
	if d.pad != nil && d.pad.DType() == interp.String {
		if p := d.pad.Strings()[0]; d.strs != nil {
			d.strs = slices.DeleteFunc(d.strs, func(s string) bool { return s == p })
		}
	}
	return nil
}

func (d *domain) numberDomain(vals *values, sp *InputSpec, tables *tableSource, what *[]string, tolerant *bool) error {
	isInt := vals.dtype.IsInteger()
	switch {
	case sp.Vocabulary != nil:
		if !isInt {
			for _, w := range sp.Vocabulary {
				f, err := strconv.ParseFloat(w, 64)
				if err != nil {
					return fmt.Errorf("vocabulary: %q is not a number", w)
				}
				d.floats = append(d.floats, f)
			}
			*what = append(*what, fmt.Sprintf("%d values of the feed spec", len(d.floats)))
			return nil
		}
		for _, w := range sp.Vocabulary {
			n, err := strconv.ParseInt(w, 10, 64)
			if err != nil {
				return fmt.Errorf("vocabulary: %q is not an integer", w)
			}
			d.ints = append(d.ints, n)
		}
		*what = append(*what, fmt.Sprintf("%d ids of the feed spec", len(d.ints)))
		*tolerant = len(vals.lookups) > 0
		return nil
	case len(vals.lookups) > 0 && isInt:
		keys, from, err := tables.intKeys(vals.lookups)
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			d.ints = keys
			*what = append(*what, fmt.Sprintf("vocabulary of %d keys (%s)", len(keys), from))
			*tolerant = true
			return nil
		}
	}
	if sp.Min != nil || sp.Max != nil {
		lo, hi := 0.0, float64(defaultIntHigh)
		if !isInt {
			lo, hi = -1, 1
		}
		if sp.Min != nil {
			lo = *sp.Min
		}
		if sp.Max != nil {
			hi = *sp.Max
		}
		if isInt {
			d.lo, d.hi = int64(math.Ceil(lo)), int64(math.Floor(hi))+1
			if d.hi <= d.lo {
				return fmt.Errorf("min %g and max %g hold no integer", lo, hi)
			}
			*what = append(*what, fmt.Sprintf("integers in [%d, %d] (feed spec)", d.lo, d.hi-1))
		} else {
			d.flo, d.fhi, d.ranged = lo, hi, true
			*what = append(*what, fmt.Sprintf("uniform in [%g, %g) (feed spec)", lo, hi))
		}
		return nil
	}
	if bounds := vals.boundaries; len(bounds) > 0 {
		d.bounds = slices.Clone(bounds)
		*what = append(*what, fmt.Sprintf("around %d boundaries in [%s, %s]", len(bounds), num(bounds[0]), num(bounds[len(bounds)-1])))
		if isInt {
			d.lo, d.hi = math.MinInt64, math.MaxInt64
		}
		return nil
	}
	if !isInt {
		ts := vals.thresholds
		switch {
		case len(ts) >= 2:
			d.flo, d.fhi, d.ranged, d.below, d.above = ts[0], ts[len(ts)-1], true, true, true
		case len(ts) == 1 && vals.trueAbove[0]:
			d.flo, d.fhi, d.ranged, d.below = ts[0], ts[0]+2, true, true
		case len(ts) == 1:
			d.flo, d.fhi, d.ranged, d.above = ts[0]-2, ts[0], true, true
		default:
			*what = append(*what, "N(0, 1)")
			return nil
		}
		*what = append(*what, fmt.Sprintf("uniform in [%s, %s) (range checked)", num(d.flo), num(d.fhi)))
		*tolerant = true
		return nil
	}
	d.lo, d.hi = 0, defaultIntHigh
	var why []string
	switch {
	case vals.limit > 0:
		d.hi = vals.limit
		why = append(why, fmt.Sprintf("ids of table %s", vals.limitBy))
	case vals.limit < 0:
		d.hi = unknownTable
		why = append(why, fmt.Sprintf("ids of table %s, whose size the graph does not say", vals.limitBy))
	}
	if vals.depth > 0 {
		d.lo, d.hi = 0, min(d.hi, vals.depth)
		if vals.limit == 0 {
			d.hi = vals.depth
		}
		d.below, d.above = true, true
		why = append(why, fmt.Sprintf("one-hot of depth %d", vals.depth))
	}
	if ts := vals.thresholds; len(ts) > 0 {
		first, last := int64(ts[0]), int64(ts[len(ts)-1])
		switch {
		case len(ts) >= 2:
			d.lo, d.below, d.above = first, true, true
			if vals.limit <= 0 || last < d.hi {
				d.hi = last
			}
		case first <= d.lo:
			d.lo, d.below = first, true
		default:
			d.hi, d.above = min(d.hi, first), true
		}
		why = append(why, "range checked")
	}
	if vals.hashed && len(why) == 0 {
		d.hi, d.below = 1000, true
		why = append(why, "hashed")
	}
	if d.hi <= d.lo {
		d.hi = d.lo + 1
	}
	desc := fmt.Sprintf("integers in [%d, %d)", d.lo, d.hi)
	if len(why) > 0 {
		desc += " (" + strings.Join(why, "; ") + ")"
	}
	*what = append(*what, desc)
	*tolerant = d.below || d.above
	return nil
}

// padString and padNumber are the padding value of d.
func (d *domain) padString() (string, bool) {
	if d.pad == nil || d.pad.DType() != interp.String {
		return "", false
	}
	return d.pad.Strings()[0], true
}

func (d *domain) padNumber() (float64, bool) {
	if d.pad == nil || d.pad.DType() == interp.String || d.pad.Len() != 1 {
		return 0, false
	}
	return d.pad.Float64At(0), true
}

// drawString draws one string value (for a string domain).
func (d *domain) drawString(r *rand.Rand) (string, error) {
	pad, hasPad := d.padString()
	switch {
	case d.examples != nil:
		return d.examples.draw(r)
	case d.split != nil:
		n := d.length(r, 1<<30)
		toks := make([]string, n)
		for i := range toks {
			for range 100 {
				t, err := d.split.tokens.drawString(r)
				if err != nil {
					return "", err
				}
				toks[i] = t
				if t != "" && !strings.Contains(t, d.split.sep) {
					break
				}
			}
		}
		return strings.Join(toks, d.split.sep), nil
	case d.number != nil:
		if d.number.dtype.IsInteger() {
			return strconv.FormatInt(d.number.drawInt(r), 10), nil
		}
		bits := 64
		if d.number.dtype == interp.Float32 {
			bits = 32
		}
		return strconv.FormatFloat(d.number.drawFloat(r), 'g', -1, bits), nil
	case d.strs != nil:
		if d.invalid > 0 && r.Float64() < d.invalid {
			return "oov-" + randomWord(r), nil
		}
		return d.strs[r.IntN(len(d.strs))], nil
	}
	for {
		if w := randomWord(r); !hasPad || w != pad {
			return w, nil
		}
	}
}

// num prints a float attribute's value (they are float32) briefly.
func num(v float64) string {
	if math.Abs(v) < 1e-30 {
		v = 0 // a threshold just above 0 (x > 0)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// randomWord is a short random string of lower-case letters and digits.
func randomWord(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 1+r.IntN(8))
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// drawInt draws one integer (for an integer domain), never the padding.
func (d *domain) drawInt(r *rand.Rand) int64 {
	pad, hasPad := d.padNumber()
	for range 100 {
		v := d.drawInt1(r)
		if !hasPad || float64(v) != pad {
			return v
		}
	}
	return d.lo
}

func (d *domain) drawInt1(r *rand.Rand) int64 {
	if d.ints != nil {
		if d.invalid > 0 && r.Float64() < d.invalid {
			hi := slices.Max(d.ints)
			if r.IntN(2) == 0 && hi < math.MaxInt64-2000 {
				return hi + 1 + r.Int64N(1000)
			}
			return -2 - r.Int64N(1000)
		}
		return d.ints[r.IntN(len(d.ints))]
	}
	if d.bounds != nil {
		return int64(math.Round(d.drawAround(r, true)))
	}
	if d.invalid > 0 && r.Float64() < d.invalid {
		switch {
		case d.below && (!d.above || r.IntN(2) == 0) && d.lo > math.MinInt64+2000:
			return d.lo - 1 - r.Int64N(1000)
		case d.above && d.hi < math.MaxInt64-2000:
			return d.hi + r.Int64N(1000)
		}
	}
	return d.lo + r.Int64N(d.hi-d.lo)
}

// drawFloat draws one float (for a float domain).
func (d *domain) drawFloat(r *rand.Rand) float64 {
	pad, hasPad := d.padNumber()
	for range 100 {
		var v float64
		switch {
		case d.floats != nil:
			v = d.floats[r.IntN(len(d.floats))]
		case d.bounds != nil:
			v = d.drawAround(r, false)
		case d.ranged && d.invalid > 0 && (d.below || d.above) && r.Float64() < d.invalid:
			if d.below && (!d.above || r.IntN(2) == 0) {
				v = math.Nextafter(d.flo, math.Inf(-1)) - 2*r.Float64()
			} else {
				v = d.fhi + 2*r.Float64()
			}
		case d.ranged:
			v = d.flo + (d.fhi-d.flo)*r.Float64()
		default:
			v = r.NormFloat64()
		}
		if !hasPad || v != pad {
			return v
		}
	}
	return 0
}

// drawAround draws a value near one of d.bounds: on it (one draw in ten),
// just below or above it (within half the gap to its neighbour), or, one
// draw in ten, beyond the first or last boundary. Integers (ints) land
// on the boundary's integer neighbours.
func (d *domain) drawAround(r *rand.Rand, ints bool) float64 {
	b := d.bounds
	n := len(b)
	span := b[n-1] - b[0]
	if span == 0 {
		span = math.Max(1, math.Abs(b[0]))
	}
	if r.IntN(10) == 0 {
		if r.IntN(2) == 0 {
			return b[0] - span*r.Float64() - 1
		}
		return b[n-1] + span*r.Float64() + 1
	}
	i := r.IntN(n)
	if ints {
		return math.Floor(b[i]) + float64(r.IntN(3)-1)
	}
	if r.IntN(10) == 0 {
		return b[i]
	}
	gap := span / float64(n)
	if i > 0 {
		gap = b[i] - b[i-1]
	}
	if i+1 < n && b[i+1]-b[i] < gap {
		gap = b[i+1] - b[i]
	}
	off := gap / 2 * r.Float64()
	if r.IntN(2) == 0 {
		return b[i] - off
	}
	return b[i] + off
}

// length draws the number of values of a row of width w (the domain's
// minimum and maximum length, clipped to w; empty rows one in ten, or as
// the spec says).
func (d *domain) length(r *rand.Rand, w int) int {
	if d.empty > 0 && r.Float64() < d.empty {
		return 0
	}
	lo, hi := d.minLen, d.maxLen
	if hi < 0 {
		hi = min(w, defaultWidth)
	}
	hi = min(hi, w)
	lo = min(lo, hi)
	if hi <= lo {
		return max(hi, 0)
	}
	return lo + r.IntN(hi-lo+1)
}

// presence draws which elements of a padded tensor of the shape hold a
// value: each row a bag of values at its front, then padding.
func (d *domain) presence(r *rand.Rand, shape []int64) []bool {
	n, _ := interp.NumElements(shape)
	present := make([]bool, n)
	if n == 0 {
		return present
	}
	w := int(n / shape[0])
	for row := range int(shape[0]) {
		for j := range d.length(r, w) {
			present[row*w+j] = true
		}
	}
	return present
}

// drawDense draws a tensor of dtype and shape from d: the elements that
// present marks (all when it is nil), the others padding.
func drawDense(r *rand.Rand, dt interp.DType, shape []int64, d *domain, present []bool) (*interp.Tensor, string, error) {
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, "", err
	}
	buf, err := interp.MakeSlice(dt, int(n))
	if err != nil {
		return nil, "", err
	}
	how := d.what
	if present != nil {
		k := 0
		for _, p := range present {
			if p {
				k++
			}
		}
		how += fmt.Sprintf("; padding %s: %d of %d values present", d.pad.ElemString(0), k, n)
	} else {
		present = make([]bool, n)
		for i := range present {
			present[i] = true
		}
	}
	if err := d.fill(r, buf, present); err != nil {
		return nil, "", err
	}
	t, err := interp.FromSlice(shape, buf)
	return t, how, err
}

// fill draws buf's present elements from d and sets the others to the
// padding value.
func (d *domain) fill(r *rand.Rand, buf any, present []bool) error {
	padF, _ := d.padNumber()
	padS, _ := d.padString()
	for i, p := range present {
		switch b := buf.(type) {
		case []string:
			if !p {
				b[i] = padS
				continue
			}
			s, err := d.drawString(r)
			if err != nil {
				return err
			}
			b[i] = s
		case []bool:
			b[i] = p && r.IntN(2) == 0
		case []float32:
			b[i] = float32(padF)
			if p {
				b[i] = float32(d.drawFloat(r))
			}
		case []float64:
			b[i] = padF
			if p {
				b[i] = d.drawFloat(r)
			}
		default:
			v := int64(padF)
			if p {
				if d.dtype.IsInteger() {
					v = d.drawInt(r)
				} else {
					v = int64(d.drawFloat(r))
				}
			}
			switch b := buf.(type) {
			case []int64:
				b[i] = v
			case []int32:
				b[i] = int32(v)
			case []int16:
				b[i] = int16(v)
			case []int8:
				b[i] = int8(v)
			case []uint8:
				b[i] = uint8(v)
			default:
				return fmt.Errorf("no random values of type %T", buf)
			}
		}
	}
	return nil
}

// drawSparse draws the three placeholders of a sparse tensor together:
// rows of 1 to 4 values (some empty), indices in row-major order,
// dense_shape [rows, longest row (at least 1), 1, ...].
func drawSparse(g *sparseGroup, specs map[*input]*InputSpec, batch int, seed uint64, tables *tableSource,
	out map[*input]*interp.Tensor, how map[*input]string) error {
	var name string
	var sp *InputSpec
	for _, in := range []*input{g.values, g.indices, g.shape} {
		if in != nil {
			if name == "" {
				name, sp = in.name, specs[in]
			}
		}
	}
	if g.like != nil {
		if _, done := out[g.like.indices]; !done {
			if err := drawSparse(g.like, specs, batch, seed, tables, out, how); err != nil {
				return err
			}
		}
		return drawLike(g, specs, seed, tables, out, how)
	}
	r := streamRNG(seed, name)
	rows := batch
	if sp.Rows > 0 {
		rows = sp.Rows
	}
	rank := int64(2)
	switch {
	case g.indices != nil && len(g.indices.shape) == 2 && g.indices.shape[1] > 0:
		rank = g.indices.shape[1]
	case g.shape != nil && len(g.shape.shape) == 1 && g.shape.shape[0] > 0:
		rank = g.shape.shape[0]
	}
	vals := &values{dtype: interp.Float32}
	vdt := interp.Float32
	if g.values != nil {
		vals, vdt = g.values.vals, g.values.dtype
	}
	d, err := newDomain(vals, sp, tables)
	if err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	width := defaultWidth
	if d.maxLen >= 0 {
		width = d.maxLen
	}
	if g.indices != nil && g.indices.vals.segments {
		// embedding_lookup_sparse: every row has a value.
		d.empty, d.minLen = 0, max(d.minLen, 1)
		width = max(width, 1)
	}
	var idx []int64
	longest := 0
	nnz := 0
	for row := range rows {
		l := d.length(r, width)
		longest = max(longest, l)
		for j := range l {
			idx = append(idx, int64(row), int64(j))
			for range rank - 2 {
				idx = append(idx, 0)
			}
		}
		nnz += l
	}
	dense := []int64{int64(rows), int64(max(longest, 1))}
	for range rank - 2 {
		dense = append(dense, 1)
	}
	desc := fmt.Sprintf("sparse tensor (%d rows, %d values, dense_shape %v)", rows, nnz, dense)
	if g.values != nil {
		buf, err := interp.MakeSlice(vdt, nnz)
		if err != nil {
			return err
		}
		present := make([]bool, nnz)
		for i := range present {
			present[i] = true
		}
		if err := d.fill(r, buf, present); err != nil {
			return fmt.Errorf("input %s: %w", g.values.name, err)
		}
		t, err := interp.FromSlice([]int64{int64(nnz)}, buf)
		if err != nil {
			return err
		}
		out[g.values], how[g.values] = t, desc+" values: "+d.what
	}
	toDType := func(in *input, shape []int64, v []int64) (*interp.Tensor, error) {
		t := interp.Must(interp.New(shape, v))
		if in.dtype == interp.Int32 {
			v32 := make([]int32, len(v))
			for i, x := range v {
				v32[i] = int32(x)
			}
			return interp.New(shape, v32)
		}
		if in.dtype != interp.Int64 {
			return nil, fmt.Errorf("input %s: sparse indices and shapes are int64 or int32, not %v", in.name, in.dtype)
		}
		return t, nil
	}
	if g.indices != nil {
		t, err := toDType(g.indices, []int64{int64(nnz), rank}, idx)
		if err != nil {
			return err
		}
		out[g.indices], how[g.indices] = t, desc+" indices, row-major"
	}
	if g.shape != nil {
		t, err := toDType(g.shape, []int64{rank}, dense)
		if err != nil {
			return err
		}
		out[g.shape], how[g.shape] = t, desc+" dense_shape"
	}
	return nil
}
