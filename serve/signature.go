package serve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/interp"
)

// TensorSpec is one input or output of the served signature.
type TensorSpec struct {
	// Key is the name clients use: the SavedModel signature's key, or the
	// tensor's name for a GraphDef.
	Key string
	// Name is the tensor in the program: the placeholder fed, or the
	// output fetched ("node" or "node:i").
	Name string
	// DType is its element type.
	DType interp.DType
	// Shape is its shape, -1 for a dimension of any size; nil with
	// UnknownRank.
	Shape       []int64
	UnknownRank bool
}

// Signature is what the server serves: TensorFlow Serving's SignatureDef
// and the Open Inference Protocol's model metadata both come from it.
type Signature struct {
	// Name is the signature's key ("serving_default").
	Name string
	// Method is its method name ("tensorflow/serving/predict").
	Method          string
	Inputs, Outputs []TensorSpec

	// inIndex and outIndex find inputs and outputs by key (made by
	// check; nil: a linear search).
	inIndex, outIndex map[string]int
	// plainKey says which inputs' keys are written in JSON as they are
	// (no '"', '\\' or control characters; made by check).
	plainKey []bool
	// rowElems is each input's elements per row when its spec fixes
	// every dimension past the first, else -1 (made by check).
	rowElems []int64
}

// DefaultSignature and PredictMethod are TensorFlow's names for the
// signature a GraphDef is served under.
const (
	DefaultSignature = "serving_default"
	PredictMethod    = "tensorflow/serving/predict"
)

// Batched reports whether requests can be put together into batches: every
// input and output has a first dimension of any size (the batch), so that
// requests concatenate along it and outputs split along it. A model with a
// fixed-size or scalar input or output runs each request alone; why says
// which. An output of unknown rank (TensorFlow's graphs often leave it
// so) is taken to have a batch dimension, which every batch checks: the
// first that shows otherwise makes the batcher run requests alone.
func (s *Signature) Batched() (ok bool, why string) {
	if len(s.Inputs) == 0 {
		return false, "the model has no inputs"
	}
	for _, t := range s.Inputs {
		if t.UnknownRank || len(t.Shape) == 0 || t.Shape[0] != -1 {
			return false, fmt.Sprintf("input %q has shape %s: no batch dimension of any size", t.Key, t.ShapeString())
		}
	}
	for _, t := range s.Outputs {
		if !t.UnknownRank && (len(t.Shape) == 0 || t.Shape[0] != -1) {
			return false, fmt.Sprintf("output %q has shape %s: no batch dimension of any size", t.Key, t.ShapeString())
		}
	}
	return true, ""
}

// check validates the signature: keys and names present and unique,
// dtypes served.
func (s *Signature) check() error {
	if len(s.Outputs) == 0 {
		return fmt.Errorf("serve: the signature has no outputs")
	}
	s.inIndex, s.outIndex = map[string]int{}, map[string]int{}
	s.plainKey = make([]bool, len(s.Inputs))
	s.rowElems = make([]int64, len(s.Inputs))
	for i, t := range s.Inputs {
		s.plainKey[i] = !strings.ContainsFunc(t.Key, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 })
		s.rowElems[i] = fixedRow(&t)
	}
	for l, list := range [][]TensorSpec{s.Inputs, s.Outputs} {
		seen := map[string]bool{}
		for i, t := range list {
			if t.Key == "" || t.Name == "" {
				return fmt.Errorf("serve: a signature tensor without a key or name (%q, %q)", t.Key, t.Name)
			}
			if seen[t.Key] {
				return fmt.Errorf("serve: two signature tensors named %q", t.Key)
			}
			seen[t.Key] = true
			if l == 0 {
				s.inIndex[t.Key] = i
			} else {
				s.outIndex[t.Key] = i
			}
			if _, ok := tfTypeName[t.DType]; !ok {
				return fmt.Errorf("serve: %q has dtype %v, which is not served", t.Key, t.DType)
			}
		}
	}
	return nil
}

// ShapeString is the shape as [-1,8], or "unknown rank".
func (t *TensorSpec) ShapeString() string {
	if t.UnknownRank {
		return "unknown rank"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range t.Shape {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(']')
	return b.String()
}

// input returns the input of key k.
func (s *Signature) input(k string) (int, bool) {
	return s.inputAt(k, -1)
}

// inputAt is input that first tries index at (clients send the inputs in
// the signature's order, mostly: a string compare instead of a lookup).
func (s *Signature) inputAt(k string, at int) (int, bool) {
	if at >= 0 && at < len(s.Inputs) && s.Inputs[at].Key == k {
		return at, true
	}
	if s.inIndex != nil {
		i, ok := s.inIndex[k]
		return i, ok
	}
	for i, t := range s.Inputs {
		if t.Key == k {
			return i, true
		}
	}
	return -1, false
}

// inputRaw is input for a key as the scanner read it (looked up without
// a copy when it holds no escapes).
func (s *Signature) inputRaw(raw []byte, escaped bool) (int, string, bool) {
	if escaped {
		k, err := unescape(raw)
		if err != nil {
			return -1, string(raw), false
		}
		i, ok := s.input(k)
		return i, k, ok
	}
	if s.inIndex != nil {
		if i, ok := s.inIndex[string(raw)]; ok {
			return i, s.Inputs[i].Key, true
		}
		return -1, string(raw), false
	}
	i, ok := s.input(string(raw))
	return i, string(raw), ok
}

// output returns the output of key k.
func (s *Signature) output(k string) (int, bool) {
	if s.outIndex != nil {
		i, ok := s.outIndex[k]
		return i, ok
	}
	for i, t := range s.Outputs {
		if t.Key == k {
			return i, true
		}
	}
	return -1, false
}

// The served dtypes by their TensorFlow (DataType enum) and Open Inference
// Protocol names.
var (
	tfTypeName = map[interp.DType]string{
		interp.Float32: "DT_FLOAT", interp.Float64: "DT_DOUBLE",
		interp.Int8: "DT_INT8", interp.Int16: "DT_INT16", interp.Int32: "DT_INT32", interp.Int64: "DT_INT64",
		interp.Uint8: "DT_UINT8", interp.Bool: "DT_BOOL", interp.String: "DT_STRING",
	}
	oipTypeName = map[interp.DType]string{
		interp.Float32: "FP32", interp.Float64: "FP64",
		interp.Int8: "INT8", interp.Int16: "INT16", interp.Int32: "INT32", interp.Int64: "INT64",
		interp.Uint8: "UINT8", interp.Bool: "BOOL", interp.String: "BYTES",
	}
	oipTypes = func() map[string]interp.DType {
		m := map[string]interp.DType{}
		for dt, n := range oipTypeName {
			m[n] = dt
		}
		return m
	}()
)

// fixedRow is the elements of one row of an input of spec t when t fixes
// every dimension past the first (and they are within MaxElements), else
// -1.
func fixedRow(t *TensorSpec) int64 {
	if t.UnknownRank || len(t.Shape) == 0 {
		return -1
	}
	n, err := interp.NumElements(t.Shape[1:])
	if err != nil || slices.ContainsFunc(t.Shape[1:], func(d int64) bool { return d < 0 }) {
		return -1
	}
	return n
}

// elements is checkShape and interp.NumElements of input k's shape got,
// in one step where the spec fixes the row (rowElems): the element count,
// or false where either would fail.
func (s *Signature) elements(k int, got []int64) (int64, bool) {
	spec := &s.Inputs[k]
	if k < len(s.rowElems) && s.rowElems[k] >= 0 && len(got) == len(spec.Shape) {
		row, rows := s.rowElems[k], got[0]
		if rows < 0 || (spec.Shape[0] >= 0 && rows != spec.Shape[0]) || !slices.Equal(got[1:], spec.Shape[1:]) {
			return 0, false
		}
		if row == 0 || rows == 0 {
			return 0, true // a zero dimension: no elements, nothing to bound (NumElements)
		}
		if rows > interp.MaxElements/row {
			return 0, false
		}
		return rows * row, true
	}
	if spec.checkShape(got) != nil {
		return 0, false
	}
	n, err := interp.NumElements(got)
	return n, err == nil
}

// checkShape checks a request's tensor of shape got against spec t: the
// rank and every fixed dimension.
func (t *TensorSpec) checkShape(got []int64) error {
	if t.UnknownRank {
		return nil
	}
	if len(got) != len(t.Shape) {
		return fmt.Errorf("input %q has shape %s, the model wants rank %d (%s)", t.Key, shapeString(got), len(t.Shape), t.ShapeString())
	}
	for i, d := range t.Shape {
		if d >= 0 && got[i] != d {
			return fmt.Errorf("input %q has shape %s, the model wants %s (dimension %d must be %d)", t.Key, shapeString(got), t.ShapeString(), i, d)
		}
	}
	return nil
}

func shapeString(s []int64) string {
	t := TensorSpec{Shape: s}
	return t.ShapeString()
}
