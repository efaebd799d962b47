package abi

import (
	"fmt"
	"math"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// Crossed columns (source "cross"): the kernel computes the ids of an
// emb.cross, the hashed cross of its inputs' features (SparseCross's
// semantics, interp/tfops/cross.go), from the inputs' raw values.
//
// The column's operands are its table and, per input, the input's values
// and row splits. Column.Cross lists the inputs in order, each with its
// source (how its values are packed, as a column's: "i64", "f32", "f64"
// or "str") and its number of transforms; Column.Transforms holds the
// inputs' transforms one input after another, then one transform "cross"
// (num_buckets, hash_key). An input's transforms make integer features
// (the features themselves, an int64 as itself) or, with none, a "str"
// input's features are strings (hashed with Fingerprint64). Bag b of the
// column holds a cross for every choice of one feature of bag b of each
// input, the last input varying fastest: cross k of bag b takes feature
// p_i of input i, where k = ((p_0 * n_1 + p_1) * n_2 + p_2) ...
// (n_i: input i's features in bag b). Its id is FingerprintCat64 from
// hash_key over the features' hashes, mod num_buckets (mod 2^63 - 1 when
// num_buckets is 0).
//
// The packed inputs (Layer.Pack): descriptor word 1 is the word of the
// column's input table, three words per input (its row splits, its values
// and its string bytes, -1 unless the input is "str"), then each input's
// regions: its row splits (B+1 words) and values laid out as a column's of
// its source ("str" with offsets: nnz+1 words, then the bytes). A column
// of kind "lookup" also has the cross's row splits at descriptor word 0,
// which Pack computes from the inputs' (the prefix sums of the products
// of their bag sizes); a "gather" column has exactly one cross per bag
// (every input one feature in every bag: Pack checks it).

// SourceCross is the source of a crossed column.
const SourceCross = "cross"

// TransformCross is the last transform of a crossed column: the hashed
// cross of its inputs' features.
const TransformCross = "cross"

// CrossInput is one input of a crossed column.
type CrossInput struct {
	Source     string // how its values are packed: SourceI64, SourceF32, SourceF64 or SourceStr
	Transforms int    // how many of the column's transforms are this input's
}

// CrossValues is one input of a crossed column at run time.
type CrossValues struct {
	Values *interp.Tensor
	Splits []int64
}

// CrossInputWords is the words per input of a crossed column's input
// table: row splits, values and string bytes offsets.
const CrossInputWords = 3

// MaxCrossInputs bounds the inputs of a crossed column (the kernel keeps
// each input's bag in registers).
const MaxCrossInputs = 16

// IsCross reports whether c is a crossed column.
func (c *Column) IsCross() bool { return c.Source == SourceCross }

// crossSplits reports whether c has the cross's row splits region.
func (c *Column) crossSplits() bool { return c.IsCross() && c.Kind == KindLookup }

// CrossTransforms returns the transforms of input i of a crossed column and
// the index in c.Transforms of the first.
func (c *Column) CrossTransforms(i int) (ts []Transform, first int) {
	for j := range i {
		first += c.Cross[j].Transforms
	}
	return c.Transforms[first : first+c.Cross[i].Transforms], first
}

// CrossOp returns the cross transform of a crossed column (its last).
func (c *Column) CrossOp() *Transform { return &c.Transforms[len(c.Transforms)-1] }

func (in CrossInput) attr() textir.DictAttr {
	return textir.NewDictAttr([]textir.NamedAttribute{{Name: "source", Value: textir.Str(in.Source)},
		{Name: "transforms", Value: textir.I64Attr(int64(in.Transforms))}})
}

// crossAttr encodes c.Cross.
func (c *Column) crossAttr() textir.NamedAttribute {
	ins := make([]textir.Attribute, len(c.Cross))
	for i, in := range c.Cross {
		ins[i] = in.attr()
	}
	return textir.NamedAttribute{Name: "cross", Value: textir.ArrayAttr{Elems: ins}}
}

// crossOf decodes the "cross" attribute of a crossed column.
func crossOf(d textir.DictAttr) ([]CrossInput, error) {
	arr, ok := d.Get("cross").(textir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("a column with source \"cross\" requires array attribute 'cross'")
	}
	var out []CrossInput
	for i, e := range arr.Elems {
		ed, ok := e.(textir.DictAttr)
		if !ok {
			return nil, fmt.Errorf("cross input #%d must be a dictionary", i)
		}
		src, err := getStr(ed, "source")
		if err != nil {
			return nil, fmt.Errorf("cross input #%d: %v", i, err)
		}
		n, err := getInt(ed, "transforms")
		if err != nil {
			return nil, fmt.Errorf("cross input #%d: %v", i, err)
		}
		if n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("cross input #%d: transforms must not be negative, got %d", i, n)
		}
		out = append(out, CrossInput{Source: src, Transforms: int(n)})
	}
	return out, nil
}

// checkCross checks a crossed column's inputs and transforms.
func (c *Column) checkCross() error {
	switch {
	case len(c.Cross) == 0 || len(c.Cross) > MaxCrossInputs:
		return fmt.Errorf("source \"cross\" takes 1 to %d inputs, got %d", MaxCrossInputs, len(c.Cross))
	case c.Weighted:
		return fmt.Errorf("source \"cross\" is not weighted")
	case len(c.Transforms) == 0 || c.Transforms[len(c.Transforms)-1].Op != TransformCross:
		return fmt.Errorf("source \"cross\" ends in a transform \"cross\"")
	}
	n := 1
	for i, in := range c.Cross {
		n += in.Transforms
		if n > len(c.Transforms) {
			return fmt.Errorf("cross input #%d: its transforms pass the column's %d", i, len(c.Transforms))
		}
	}
	if n != len(c.Transforms) {
		return fmt.Errorf("the cross inputs take %d transforms, the column has %d", n, len(c.Transforms))
	}
	for i, in := range c.Cross {
		ts, _ := c.CrossTransforms(i)
		sub := Column{Source: in.Source, Transforms: ts, Kind: KindLookup}
		if in.Source == SourceStr && len(ts) == 0 {
			continue // strings, fingerprinted
		}
		if in.Source == SourceIDs || in.Source == SourceSplit || in.Source == SourceCross {
			return fmt.Errorf("cross input #%d: source %q is not a cross input's", i, in.Source)
		}
		if in.Source == SourceI64 && len(ts) == 0 {
			continue
		}
		for j := range ts {
			if ts[j].Op == TransformCross {
				return fmt.Errorf("cross input #%d: transform #%d is a cross", i, j)
			}
		}
		if err := sub.CheckChain(); err != nil {
			return fmt.Errorf("cross input #%d: %v", i, err)
		}
	}
	return nil
}

// crossSignature is the code-relevant part of c.Cross.
func (c *Column) crossSignature() string {
	var sb strings.Builder
	sb.WriteString("[")
	for i, in := range c.Cross {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "%s/%d", in.Source, in.Transforms)
	}
	sb.WriteString("]")
	return sb.String()
}

// transformSource returns the source whose values transform i of c reads
// (for a crossed column, its input's).
func (c *Column) transformSource(i int) string {
	if !c.IsCross() {
		return c.Source
	}
	first := 0
	for _, in := range c.Cross {
		if i < first+in.Transforms {
			return in.Source
		}
		first += in.Transforms
	}
	return SourceI64
}

// crossBuckets is the cross transform's modulus: num_buckets, or 2^63 - 1
// when it is 0, as TensorFlow's.
func (t *Transform) crossBuckets() int64 {
	if t.NumBuckets > 0 {
		return t.NumBuckets
	}
	return math.MaxInt64
}

// CrossRowSplits returns the row splits of the crosses of inputs in: bag b
// has the product of the inputs' bag sizes. It checks that the inputs have
// valid row splits of one batch and that the total fits maxTotal.
func CrossRowSplits(name string, in []CrossValues, maxTotal int64) ([]int64, error) {
	splits := make([][]int64, len(in))
	n := make([]int64, len(in))
	for i := range in {
		if in[i].Values == nil {
			return nil, fmt.Errorf("column %q: cross input #%d has no values", name, i)
		}
		splits[i], n[i] = in[i].Splits, int64(in[i].Values.Len())
	}
	return CrossSplitsOf(name, splits, n, maxTotal)
}

// CrossSplitsOf is CrossRowSplits of inputs given by their row splits and
// their numbers of values.
func CrossSplitsOf(name string, splits [][]int64, values []int64, maxTotal int64) ([]int64, error) {
	return CrossSplitsInto(nil, name, splits, values, maxTotal)
}

// CrossSplitsInto is CrossSplitsOf into out's storage when it is large
// enough (a runtime's per-batch buffer).
func CrossSplitsInto(out []int64, name string, splits [][]int64, values []int64, maxTotal int64) ([]int64, error) {
	if len(splits) == 0 {
		return nil, fmt.Errorf("column %q: a cross of no inputs", name)
	}
	batch := int64(len(splits[0])) - 1
	for i, s := range splits {
		b := int64(len(s)) - 1
		if b < 0 || b != batch {
			return nil, fmt.Errorf("column %q: cross input #%d has %d rows, input #0 has %d", name, i, b, batch)
		}
		if s[0] != 0 || s[b] != values[i] {
			return nil, fmt.Errorf("column %q: cross input #%d: invalid row splits", name, i)
		}
		for j := range b {
			if s[j] > s[j+1] {
				return nil, fmt.Errorf("column %q: cross input #%d: row splits must be non-decreasing", name, i)
			}
		}
	}
	if int64(cap(out)) < batch+1 {
		out = make([]int64, batch+1)
	}
	out = out[:batch+1]
	out[0] = 0
	for b := range batch {
		n := int64(1)
		for _, s := range splits {
			k := s[b+1] - s[b]
			if k != 0 && n > maxTotal/k {
				return nil, fmt.Errorf("column %q: row %d makes more than %d crosses", name, b, maxTotal)
			}
			n *= k
		}
		if out[b] > maxTotal-n {
			return nil, fmt.Errorf("column %q: more than %d crosses", name, maxTotal)
		}
		out[b+1] = out[b] + n
	}
	return out, nil
}

// CheckGatherCross checks the cross row splits of a gather column: one
// cross a row.
func CheckGatherCross(name string, splits []int64) error {
	for b := range int64(len(splits)) - 1 {
		if splits[b+1]-splits[b] != 1 {
			return fmt.Errorf("column %q: row %d has %d crosses, a gather column one", name, b, splits[b+1]-splits[b])
		}
	}
	return nil
}

// prepareCross makes x ready for a crossed column c: its row splits
// (the crosses'), checked as the kernel needs them.
func (x *ColumnInput) prepareCross(c *Column) error {
	if len(x.Cross) != len(c.Cross) {
		return fmt.Errorf("column %q: %d cross inputs for %d", c.Name, len(x.Cross), len(c.Cross))
	}
	for i := range c.Cross {
		v := x.Cross[i].Values
		if v == nil || v.Rank() != 1 {
			return fmt.Errorf("column %q: cross input #%d: values must be a vector", c.Name, i)
		}
		sub := ColumnInput{Values: v}
		if err := sub.checkSource(&Column{Name: c.Name, Source: c.Cross[i].Source}); err != nil {
			return fmt.Errorf("cross input #%d: %v", i, err)
		}
	}
	splits, err := CrossRowSplits(c.Name, x.Cross, math.MaxInt32)
	if err != nil {
		return err
	}
	if c.Kind == KindGather {
		if err := CheckGatherCross(c.Name, splits); err != nil {
			return err
		}
	}
	x.Splits = splits
	return nil
}

// crossSize is the size of a crossed column's regions.
func (x *ColumnInput) crossSize(c *Column) (ColumnSize, error) {
	s := ColumnSize{N: x.Splits[len(x.Splits)-1]}
	for i := range c.Cross {
		v := x.Cross[i].Values
		in := ColumnSize{N: int64(v.Len())}
		if c.Cross[i].Source == SourceStr {
			for _, str := range v.Strings() {
				in.Bytes += int64(len(str))
			}
		}
		s.Inputs = append(s.Inputs, in)
	}
	return s, nil
}

// layoutCross places a crossed column's regions from word pos (the
// column's descriptor d, its input table tab: CrossInputWords per input)
// and returns the next free word.
func layoutCross(c *Column, s ColumnSize, d, tab []int64, pos, batch int64) (int64, error) {
	const limit = math.MaxInt32
	if len(s.Inputs) != len(c.Cross) {
		return 0, fmt.Errorf("column %q: sizes of %d cross inputs for %d", c.Name, len(s.Inputs), len(c.Cross))
	}
	if c.crossSplits() {
		d[0] = pos
		pos = align4(pos + batch + 1)
	}
	table := pos
	d[1] = table
	pos = align4(pos + CrossInputWords*int64(len(c.Cross)))
	for i, in := range c.Cross {
		is := s.Inputs[i]
		if is.N < 0 || is.N > limit || is.Bytes < 0 || is.Bytes > 4*limit {
			return 0, fmt.Errorf("column %q: cross input #%d: %d values of %d bytes exceed the kernel's 32-bit offsets", c.Name, i, is.N, is.Bytes)
		}
		t := tab[CrossInputWords*i:]
		t[0] = pos
		pos = align4(pos + batch + 1)
		t[1] = pos
		t[2] = -1
		switch in.Source {
		case SourceI64, SourceF64:
			pos = align4(pos + 2*is.N)
		case SourceStr:
			pos = align4(pos + is.N + 1)
			t[2] = pos
			pos = align4(pos + (is.Bytes+3)/4)
		default:
			pos = align4(pos + is.N)
		}
		if pos > limit {
			return 0, fmt.Errorf("the packed inputs (%d words at column %q) exceed the kernel's 32-bit offsets", pos, c.Name)
		}
	}
	return pos, nil
}

// hostCrossIDs computes on the CPU the ids of a crossed column (its
// inputs' transforms, then the cross), with TensorFlow's semantics.
func (c *Column) hostCrossIDs(x *ColumnInput) ([]int64, error) {
	var cols []tfops.CrossInput
	batch := int64(-1)
	for i := range c.Cross {
		in := x.Cross[i]
		ts, _ := c.CrossTransforms(i)
		vals := in.Values
		if len(ts) > 0 {
			sub := Column{Name: c.Name, Source: c.Cross[i].Source, Transforms: ts, Kind: KindLookup}
			ids, err := sub.HostIDs(&ColumnInput{Values: in.Values, Splits: in.Splits})
			if err != nil {
				return nil, err
			}
			vals = interp.Vector(ids...)
		} else if vals.DType() != interp.String && vals.DType() != interp.Int64 {
			ids := make([]int64, vals.Len())
			for j := range ids {
				ids[j], _ = vals.Int64At(j)
			}
			vals = interp.Vector(ids...)
		}
		batch = int64(len(in.Splits)) - 1
		cols = append(cols, tfops.CrossInput{Values: vals, Starts: in.Splits})
	}
	t := c.CrossOp()
	_, out, _, err := tfops.Cross("cross", cols, batch, tfops.CrossSpec{Mode: tfops.CrossHashKey, HashKey: uint64(t.HashKey), NumBuckets: t.NumBuckets})
	if err != nil {
		return nil, fmt.Errorf("column %q: %v", c.Name, err)
	}
	return out.Int64s(), nil
}

// packCross writes a crossed column's input table and regions (tab: its
// input table from the layout).
func (x *ColumnInput) packCross(c *Column, words []int32, d, tab []int64) {
	if c.crossSplits() {
		for j, v := range x.Splits {
			words[d[0]+int64(j)] = int32(v)
		}
	}
	for j, v := range tab {
		words[d[1]+int64(j)] = int32(v)
	}
	for i := range c.Cross {
		t := tab[CrossInputWords*i:]
		for j, v := range x.Cross[i].Splits {
			words[t[0]+int64(j)] = int32(v)
		}
		sub := ColumnInput{Values: x.Cross[i].Values}
		// The values as a column of the input's source packs them ("str"
		// with offsets: no transform reads them as slots).
		sub.packValues(&Column{Source: c.Cross[i].Source}, words, []int64{-1, t[1], -1, -1, -1, -1, t[2]})
	}
}
