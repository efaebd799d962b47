package gen

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/recom-compiler/recom/textir/inputfile"
)

// FeedSpec says, per input, how GraphFeeds draws what the graph alone
// does not tell: JSON, an object keyed by input name (a placeholder's node
// name, or the tensor an input was cut at, "IteratorGetNext:3"), each value
// an InputSpec. The key "*" holds defaults for every input; an input's own
// entry overrides them field by field:
//
//	{
//	  "*":             {"rows": 64, "empty": 0.2},
//	  "voc_0014":      {"vocabulary": ["a", "b", "c"], "invalid": 0},
//	  "str_0002":      {"min_length": 1, "max_length": 4},
//	  "age":           {"min": 17, "max": 90},
//	  "examples":      {"features": {"age": {"min": 17, "max": 90}}, "missing": 0.5}
//	}
type FeedSpec map[string]*InputSpec

// InputSpec is one input's entry in a FeedSpec. Every field is optional.
type InputSpec struct {
	// Rows is the input's number of rows: its first dimension where the
	// graph leaves it unknown, the rows of a sparse input's dense_shape,
	// the number of serialized tf.Example records (default: the batch).
	Rows int `json:"rows,omitempty"`
	// Shape is the input's shape, -1 for the rows; it must agree with the
	// dimensions the graph knows (default: the graph's, unknown
	// dimensions after the first being the max_length of a padded input,
	// else 4).
	Shape []int64 `json:"shape,omitempty"`
	// MinLength and MaxLength bound the number of values in a row: ids
	// before the padding of a padded input, the values of a sparse
	// input's row or of a sparse tf.Example feature, the tokens of a
	// string that is split (default 1 to 4, at most the row's width).
	MinLength *int `json:"min_length,omitempty"`
	MaxLength *int `json:"max_length,omitempty"`
	// Empty is the fraction of rows without any value: padding only, an
	// empty sparse row, an absent sparse tf.Example feature (default 0.1
	// where the graph has a padding value or a sparse input, else 0).
	Empty *float64 `json:"empty,omitempty"`
	// Min and Max bound numeric values (integers: both included; floats:
	// uniform in [min, max)). They replace the ranges the graph implies.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Vocabulary lists the values to draw from (integers written as
	// strings for an integer input), instead of a table's keys.
	Vocabulary []string `json:"vocabulary,omitempty"`
	// Invalid is the fraction of values that are out of vocabulary or out
	// of range (default 0.1 where the graph defines what happens to them:
	// a vocabulary's default or OOV buckets, ids pruned or replaced by a
	// range check, a one-hot of an out-of-range index; else 0).
	Invalid *float64 `json:"invalid,omitempty"`
	// Missing is the fraction of tf.Example records without a dense
	// feature that has a default (default 0.2).
	Missing *float64 `json:"missing,omitempty"`
	// Features holds the specs of the features of serialized tf.Example
	// records, by feature key.
	Features map[string]*InputSpec `json:"features,omitempty"`
}

// ParseFeedSpec reads a FeedSpec; name is used in error messages. Unknown
// fields and trailing data are errors; the result is validated.
func ParseFeedSpec(data []byte, name string) (FeedSpec, error) {
	var s FeedSpec
	if err := decodeStrict(data, name, "feed spec", &s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// LoadFeedSpec reads a FeedSpec from a JSON file.
func LoadFeedSpec(file string) (FeedSpec, error) {
	data, err := inputfile.Read(file)
	if err != nil {
		return nil, err
	}
	return ParseFeedSpec(data, file)
}

// Validate checks every entry's fields (a *FieldError names the first bad
// one, as "voc.max_length").
func (s FeedSpec) Validate() error {
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if err := s[k].validate(k); err != nil {
			return err
		}
	}
	return nil
}

func (p *InputSpec) validate(field string) error {
	if p == nil {
		return &FieldError{Field: field, Msg: "is null (want an object)"}
	}
	bad := func(f, format string, args ...any) error {
		return &FieldError{Field: field + "." + f, Msg: fmt.Sprintf(format, args...)}
	}
	if p.Rows < 0 {
		return bad("rows", "must be positive (got %d)", p.Rows)
	} else if p.Rows > 0 {
		if err := CheckRows(int64(p.Rows)); err != nil {
			return bad("rows", "%v", err)
		}
	}
	for i, d := range p.Shape {
		if d < -1 {
			return bad(fmt.Sprintf("shape[%d]", i), "must be -1 (the rows) or a size (got %d)", d)
		}
	}
	if p.MinLength != nil && *p.MinLength < 0 {
		return bad("min_length", "must not be negative (got %d)", *p.MinLength)
	}
	if p.MaxLength != nil && *p.MaxLength < 0 {
		return bad("max_length", "must not be negative (got %d)", *p.MaxLength)
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		return bad("min_length", "%d is above max_length %d", *p.MinLength, *p.MaxLength)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"empty", p.Empty}, {"invalid", p.Invalid}, {"missing", p.Missing}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= 1) {
			return bad(f.name, "is a fraction, in [0, 1] (got %g)", *f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"min", p.Min}, {"max", p.Max}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return bad(f.name, "must be finite")
		}
	}
	if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
		return bad("min", "%g is above max %g", *p.Min, *p.Max)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Features)) {
		if err := p.Features[k].validate(field + ".features." + k); err != nil {
			return err
		}
	}
	return nil
}

// merged returns p's fields over base's (either may be nil).
func (p *InputSpec) merged(base *InputSpec) *InputSpec {
	var out InputSpec
	if base != nil {
		out = *base
	}
	if p == nil {
		return &out
	}
	if p.Rows != 0 {
		out.Rows = p.Rows
	}
	if p.Shape != nil {
		out.Shape = p.Shape
	}
	if p.MinLength != nil {
		out.MinLength = p.MinLength
	}
	if p.MaxLength != nil {
		out.MaxLength = p.MaxLength
	}
	if p.Empty != nil {
		out.Empty = p.Empty
	}
	if p.Min != nil {
		out.Min = p.Min
	}
	if p.Max != nil {
		out.Max = p.Max
	}
	if p.Vocabulary != nil {
		out.Vocabulary = p.Vocabulary
	}
	if p.Invalid != nil {
		out.Invalid = p.Invalid
	}
	if p.Missing != nil {
		out.Missing = p.Missing
	}
	if p.Features != nil {
		out.Features = p.Features
	}
	return &out
}
