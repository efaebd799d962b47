package tfops

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/interp"
)

// StringToHashBucketFast maps each string to Fingerprint64(s) mod
// numBuckets (FarmHash Fingerprint64), as int64 of the input's shape.
func StringToHashBucketFast(x *interp.Tensor, numBuckets int64) (*interp.Tensor, error) {
	const op = "StringToHashBucketFast"
	if err := checkDType(op, "input", x, interp.String); err != nil {
		return nil, err
	}
	if numBuckets < 1 {
		return nil, errorf(op, "num_buckets must be >= 1, got %d", numBuckets)
	}
	in := x.Strings()
	out := make([]int64, len(in))
	nb := uint64(numBuckets)
	var buf []byte
	for i, s := range in {
		buf = append(buf[:0], s...)
		out[i] = int64(farm.Fingerprint64(buf) % nb)
	}
	return interp.New(x.Shape(), out)
}

// AsStringAttrs are AsString's attributes. Use DefaultAsStringAttrs for
// TensorFlow's defaults (precision -1, width -1).
type AsStringAttrs struct {
	Precision  int    // digits after the point for floats; -1: default
	Scientific bool   // floats as %e
	Shortest   bool   // floats as %g
	Width      int    // minimum width; -1: none
	Fill       string // "", or one of " ", "+", "-", "0", "#" (a printf flag)
}

// DefaultAsStringAttrs returns AsString's default attributes.
func DefaultAsStringAttrs() AsStringAttrs { return AsStringAttrs{Precision: -1, Width: -1} }

// AsString formats each element of a numeric or bool tensor as a string
// with TensorFlow's default attributes: integers as %d, floats as %f, bools
// as "true"/"false".
func AsString(x *interp.Tensor) (*interp.Tensor, error) {
	return AsStringWith(x, DefaultAsStringAttrs())
}

// AsStringWith is AsString with explicit attributes, building the same
// printf format TensorFlow does.
func AsStringWith(x *interp.Tensor, a AsStringAttrs) (*interp.Tensor, error) {
	const op = "AsString"
	if x == nil {
		return nil, errorf(op, "input is nil")
	}
	dt := x.DType()
	if !dt.IsNumeric() && dt != interp.Bool {
		return nil, errorf(op, "unsupported dtype %v", dt)
	}
	if !dt.IsFloat() {
		if a.Scientific || a.Shortest {
			return nil, errorf(op, "scientific and shortest format not supported for datatype %v", dt)
		}
		if a.Precision >= 0 {
			return nil, errorf(op, "precision not supported for datatype %v", dt)
		}
	}
	if len(a.Fill) > 1 {
		return nil, errorf(op, "fill string must be one or fewer characters, got %q", a.Fill)
	}
	if a.Scientific && a.Shortest {
		return nil, errorf(op, "cannot select both scientific and shortest notation")
	}
	flags := ""
	if a.Fill != "" {
		if !strings.Contains(" +-0#", a.Fill) {
			return nil, errorf(op, "fill argument not supported: %q", a.Fill)
		}
		flags = a.Fill
	}
	format := "%" + flags
	if a.Width > -1 {
		format += strconv.Itoa(a.Width)
	}
	prec := a.Precision
	verb := "d"
	if dt.IsFloat() {
		switch {
		case a.Scientific:
			verb = "e"
		case a.Shortest:
			verb = "g"
			if prec < 0 {
				prec = 6 // C's %g default; Go's would be the shortest repr
			}
		default:
			verb = "f"
		}
	}
	if prec > -1 {
		format += "." + strconv.Itoa(prec)
	}
	format += verb
	out := make([]string, x.Len())
	for i := range out {
		switch {
		case dt == interp.Bool:
			out[i] = strconv.FormatBool(x.Bools()[i])
		case dt.IsFloat():
			f := x.Float64At(i)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				out[i] = cNonFinite(f, flags, a.Width)
			} else {
				out[i] = fmt.Sprintf(format, f)
			}
		default:
			v, _ := x.Int64At(i)
			out[i] = fmt.Sprintf(format, v)
		}
	}
	return interp.New(x.Shape(), out)
}

// cNonFinite formats NaN and infinities as glibc's printf does ("nan",
// "-inf"), where the '0' flag pads with spaces.
func cNonFinite(f float64, flags string, width int) string {
	s := "inf"
	if math.IsNaN(f) {
		s = "nan"
	}
	switch {
	case math.Signbit(f):
		s = "-" + s
	case flags == "+":
		s = "+" + s
	case flags == " ":
		s = " " + s
	}
	if pad := width - len(s); pad > 0 {
		if flags == "-" {
			return s + strings.Repeat(" ", pad)
		}
		return strings.Repeat(" ", pad) + s
	}
	return s
}

// StringSplitV2 splits each string of the vector x on sep, as Python's
// str.split: a non-empty sep delimits empty strings too; an empty sep
// splits on runs of ASCII whitespace and drops leading and trailing
// whitespace. maxsplit > 0 limits the number of splits (the rest of the
// string is the last token). Outputs are a SparseTensor: indices [N, 2]
// int64, values [N] string and dense shape [len(x), max tokens] int64.
func StringSplitV2(x, sep *interp.Tensor, maxsplit int64) (indices, values, shape *interp.Tensor, err error) {
	const op = "StringSplitV2"
	if err := checkDType(op, "input", x, interp.String); err != nil {
		return nil, nil, nil, err
	}
	if err := checkDType(op, "sep", sep, interp.String); err != nil {
		return nil, nil, nil, err
	}
	if x.Rank() != 1 {
		return nil, nil, nil, errorf(op, "input must be a vector, got shape: %s", shapeStr(x.Shape()))
	}
	if sep.Rank() != 0 {
		return nil, nil, nil, errorf(op, "sep must be a scalar, got shape: %s", shapeStr(sep.Shape()))
	}
	s := sep.Strings()[0]
	var idx []int64
	var toks []string
	maxTokens := int64(0)
	for i, str := range x.Strings() {
		parts := splitV2(str, s, maxsplit)
		for j, p := range parts {
			idx = append(idx, int64(i), int64(j))
			toks = append(toks, p)
		}
		maxTokens = max(maxTokens, int64(len(parts)))
	}
	if idx == nil {
		idx, toks = []int64{}, []string{}
	}
	n := int64(len(toks))
	if indices, err = interp.New([]int64{n, 2}, idx); err != nil {
		return nil, nil, nil, err
	}
	if values, err = interp.New([]int64{n}, toks); err != nil {
		return nil, nil, nil, err
	}
	return indices, values, interp.Vector(x.Dim(0), maxTokens), nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func splitV2(str, sep string, maxsplit int64) []string {
	if maxsplit == 0 {
		return []string{str}
	}
	var out []string
	if sep == "" {
		text := str
		trim := func() {
			for len(text) > 0 && isSpace(text[0]) {
				text = text[1:]
			}
		}
		trim()
		splits := int64(0)
		for len(text) > 0 {
			k := 0
			for k < len(text) && !isSpace(text[k]) {
				k++
			}
			out = append(out, text[:k])
			text = text[k:]
			trim()
			splits++
			if maxsplit > 0 && splits == maxsplit {
				// The remainder is kept even if empty, as TensorFlow does.
				return append(out, text)
			}
		}
		return out
	}
	text := str
	splits := int64(0)
	for {
		k := strings.Index(text, sep)
		if k < 0 {
			break
		}
		out = append(out, text[:k])
		text = text[k+len(sep):]
		splits++
		if maxsplit > 0 && splits == maxsplit {
			break
		}
	}
	return append(out, text)
}
