package tfexample

import (
	"fmt"
	"sort"

	"github.com/recom-compiler/recom/interp"
)

// Column is one feature's values for a batch of examples: row i of Values
// (its dim 0 being the batch) is example i's list; with RowSplits (batch +
// 1 non-decreasing offsets from 0 to Values.Len()), example i's list is
// instead the flat Values[RowSplits[i]:RowSplits[i+1]], so rows may differ
// in length (a sparse or ragged feature). Values are float32 (a
// float_list), int32 or int64 (an int64_list) or string (a bytes_list).
type Column struct {
	Values    *interp.Tensor
	RowSplits []int64
}

// Batch builds batch examples from per-feature columns (features in key
// order): example i holds row i of every column, an empty row included
// (an empty list; leave a feature out of an example by building it with
// Pair instead). It fails on a column of another dtype or whose rows do
// not match the batch.
func Batch(batch int, cols map[string]Column) ([]Example, error) {
	if batch < 0 {
		return nil, fmt.Errorf("tfexample: negative batch %d", batch)
	}
	keys := make([]string, 0, len(cols))
	for k := range cols {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Example, batch)
	for _, k := range keys {
		c := cols[k]
		if c.Values == nil {
			return nil, fmt.Errorf("tfexample: feature %q has no values", k)
		}
		splits := c.RowSplits
		if splits == nil {
			if c.Values.Rank() == 0 || c.Values.Dim(0) != int64(batch) {
				return nil, fmt.Errorf("tfexample: feature %q: values of shape %s are not %d rows", k, interp.ShapeString(c.Values.Shape()), batch)
			}
			width := int64(0)
			if batch > 0 {
				width = int64(c.Values.Len() / batch)
			}
			splits = make([]int64, batch+1)
			for i := range splits {
				splits[i] = int64(i) * width
			}
		}
		if len(splits) != batch+1 || splits[0] != 0 || splits[batch] != int64(c.Values.Len()) {
			return nil, fmt.Errorf("tfexample: feature %q: row splits must be %d offsets from 0 to %d", k, batch+1, c.Values.Len())
		}
		for i := range batch {
			if splits[i+1] < splits[i] {
				return nil, fmt.Errorf("tfexample: feature %q: row splits decrease at %d", k, i+1)
			}
		}
		for i := range batch {
			f, err := featureOf(c.Values, int(splits[i]), int(splits[i+1]))
			if err != nil {
				return nil, fmt.Errorf("tfexample: feature %q: %v", k, err)
			}
			out[i] = append(out[i], Entry{Key: k, Feature: f})
		}
	}
	return out, nil
}

// featureOf returns the flat values [lo, hi) of t as a Feature.
func featureOf(t *interp.Tensor, lo, hi int) (Feature, error) {
	switch d := t.Data().(type) {
	case []float32:
		return Floats(append([]float32{}, d[lo:hi]...)...), nil
	case []int64:
		return Int64s(append([]int64{}, d[lo:hi]...)...), nil
	case []int32:
		v := make([]int64, hi-lo)
		for i := range v {
			v[i] = int64(d[lo+i])
		}
		return Int64s(v...), nil
	case []string:
		return Bytes(append([]string{}, d[lo:hi]...)...), nil
	}
	return Feature{}, fmt.Errorf("values of dtype %v (a tf.Example holds float32, int64 or string)", t.DType())
}

// Serialized returns the serialized examples as a string vector: the
// serialized input of ParseExample.
func (o MarshalOptions) Serialized(exs []Example) *interp.Tensor {
	s := make([]string, len(exs))
	for i, e := range exs {
		s[i] = string(o.Marshal(e))
	}
	return interp.Vector(s...)
}
