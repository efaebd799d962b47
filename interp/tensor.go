// Package interp holds the value model of recom's CPU reference interpreter:
// a dense, typed, row-major Tensor with TensorFlow's dtypes, and exact and
// tolerance-based comparison used to check lowerings for meaning.
//
// The kernels themselves live in interp/tfops and the NumPy file formats in
// interp/npz.
package interp

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// DType is the element type of a Tensor. The names follow TensorFlow's.
type DType uint8

// The supported element types.
const (
	Invalid DType = iota
	Float32
	Float64
	Int8
	Int16
	Int32
	Int64
	Uint8
	Bool
	String
)

// String returns the TensorFlow (Python) name of the dtype.
func (d DType) String() string {
	switch d {
	case Invalid:
		return "invalid"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Int8:
		return "int8"
	case Int16:
		return "int16"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Uint8:
		return "uint8"
	case Bool:
		return "bool"
	case String:
		return "string"
	}
	return "dtype(" + strconv.Itoa(int(d)) + ")"
}

// Valid reports whether d is one of the supported dtypes.
func (d DType) Valid() bool { return d > Invalid && d <= String }

// IsFloat reports whether d is float32 or float64.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsInteger reports whether d is a signed or unsigned integer type.
func (d DType) IsInteger() bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8:
		return true
	}
	return false
}

// IsNumeric reports whether d is an integer or floating-point type.
func (d DType) IsNumeric() bool { return d.IsFloat() || d.IsInteger() }

// MaxElements bounds the number of elements of one tensor the interpreter
// materialises (default 2^28; the environment variable
// RECOM_MAX_TENSOR_ELEMENTS raises it, see docs/LIMITS.md). Shapes whose
// element count exceeds it are rejected with an error, so a corrupt shape or
// a Fill/Tile/Range of a huge size can never cause a huge allocation or an
// integer overflow. A program may set it before running (not concurrently).
var MaxElements = envElements(EnvMaxElements, DefaultMaxElements)

// MaxBytes bounds the memory of one tensor that MakeSlice allocates:
// constants (splats and partial TensorProtos included), feeds, variables,
// npz arrays and random inputs; its elements times their in-memory size
// (16 bytes for a string's header). Default 2^31, so one tensor at
// MaxElements of 8-byte elements fits, while a string splat of 200 million
// elements (3.2 GB of headers) does not; the environment variable
// RECOM_MAX_TENSOR_BYTES raises it. A program may set it before running.
var MaxBytes = envElements(EnvMaxBytes, DefaultMaxBytes)

// The environment variables that set MaxElements and MaxBytes, and their
// defaults.
const (
	EnvMaxElements     = "RECOM_MAX_TENSOR_ELEMENTS"
	DefaultMaxElements = int64(1) << 28
	EnvMaxBytes        = "RECOM_MAX_TENSOR_BYTES"
	DefaultMaxBytes    = int64(1) << 31
)

// envElements returns the positive integer in the environment variable
// name, or def when it is unset or not a positive integer.
func envElements(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// TooLargeError reports a tensor refused for having more than MaxElements
// elements (or, with Bytes, taking more than MaxBytes); its message names
// the limit and how to raise it.
type TooLargeError struct {
	What  string // e.g. "shape [100000,100000]"
	Limit int64
	Bytes bool // the limit is MaxBytes
}

func (e *TooLargeError) Error() string {
	if e.Bytes {
		return fmt.Sprintf("%s is too large to materialise: more than %d bytes (set %s to raise the limit; see docs/LIMITS.md)", e.What, e.Limit, EnvMaxBytes)
	}
	return fmt.Sprintf("%s is too large to materialise: more than %d elements (set %s to raise the limit; see docs/LIMITS.md)", e.What, e.Limit, EnvMaxElements)
}

// ItemSize returns the memory one element of dtype d takes in a tensor's
// backing slice: 16 bytes for a string (its header; the bytes it points to
// may be shared), 0 for an invalid dtype.
func (d DType) ItemSize() int64 {
	switch d {
	case Float32, Int32:
		return 4
	case Float64, Int64:
		return 8
	case Int16:
		return 2
	case Int8, Uint8, Bool:
		return 1
	case String:
		return 16
	}
	return 0
}

// MaxRank bounds the rank of a tensor, as TensorFlow does (254).
const MaxRank = 254

// NumElements returns the number of elements of shape, or an error if a
// dimension is negative, the rank exceeds MaxRank or the count exceeds
// MaxElements.
func NumElements(shape []int64) (int64, error) {
	if len(shape) > MaxRank {
		return 0, fmt.Errorf("rank %d exceeds the maximum %d", len(shape), MaxRank)
	}
	zero := false
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d of shape %s is negative", i, ShapeString(shape))
		}
		zero = zero || d == 0
	}
	if zero {
		return 0, nil
	}
	n := int64(1)
	for _, d := range shape {
		if d > MaxElements || n > MaxElements/d {
			return 0, &TooLargeError{What: "shape " + ShapeString(shape), Limit: MaxElements}
		}
		n *= d
	}
	return n, nil
}

// ShapeString formats a shape as [2,3].
func ShapeString(shape []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range shape {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// Elem is the set of Go element types a Tensor can hold.
type Elem interface {
	float32 | float64 | int8 | int16 | int32 | int64 | uint8 | bool | string
}

// DTypeOf returns the dtype that holds Go values of type T.
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case bool:
		return Bool
	case string:
		return String
	}
	return Invalid
}

// Tensor is a dense row-major tensor. Its backing slice has exactly
// NumElements(shape) elements of the Go type matching its dtype. Tensors are
// treated as immutable by the kernels: they never modify their inputs.
type Tensor struct {
	dtype DType
	shape []int64
	data  any // []float32, []float64, []int8, ..., []string
}

// New returns a tensor of the given shape holding data (not copied).
func New[T Elem](shape []int64, data []T) (*Tensor, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != n {
		return nil, fmt.Errorf("shape %s needs %d elements, got %d", ShapeString(shape), n, len(data))
	}
	if data == nil {
		data = []T{}
	}
	return &Tensor{dtype: DTypeOf[T](), shape: append([]int64{}, shape...), data: data}, nil
}

// Must panics if err is non-nil and otherwise returns t. It is meant for
// tests and constant tables only, never for data read at run time.
func Must(t *Tensor, err error) *Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

// Scalar returns a rank-0 tensor holding v.
func Scalar[T Elem](v T) *Tensor {
	return &Tensor{dtype: DTypeOf[T](), shape: []int64{}, data: []T{v}}
}

// Vector returns a rank-1 tensor holding a copy of v.
func Vector[T Elem](v ...T) *Tensor {
	d := make([]T, len(v))
	copy(d, v)
	return &Tensor{dtype: DTypeOf[T](), shape: []int64{int64(len(v))}, data: d}
}

// FromSlice is New for a backing slice of dynamic type, such as
// []float32 or []string. The slice is not copied.
func FromSlice(shape []int64, data any) (*Tensor, error) {
	switch d := data.(type) {
	case []float32:
		return New(shape, d)
	case []float64:
		return New(shape, d)
	case []int8:
		return New(shape, d)
	case []int16:
		return New(shape, d)
	case []int32:
		return New(shape, d)
	case []int64:
		return New(shape, d)
	case []uint8:
		return New(shape, d)
	case []bool:
		return New(shape, d)
	case []string:
		return New(shape, d)
	}
	return nil, fmt.Errorf("unsupported backing slice type %T", data)
}

// Zeros returns a zero-filled tensor (false, "" for bool and string).
func Zeros(dt DType, shape []int64) (*Tensor, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	data, err := MakeSlice(dt, int(n))
	if err != nil {
		return nil, err
	}
	return &Tensor{dtype: dt, shape: append([]int64{}, shape...), data: data}, nil
}

// MakeSlice allocates a zeroed backing slice of n elements of dtype dt,
// refusing more than MaxElements elements or MaxBytes bytes.
func MakeSlice(dt DType, n int) (any, error) {
	if int64(n) > MaxElements {
		return nil, &TooLargeError{What: fmt.Sprintf("a tensor of %d elements", n), Limit: MaxElements}
	}
	if n < 0 {
		return nil, fmt.Errorf("element count %d out of range [0, %d]", n, MaxElements)
	}
	if size := dt.ItemSize(); size > 0 && int64(n) > MaxBytes/size {
		return nil, &TooLargeError{What: fmt.Sprintf("a tensor of %d %s elements (%d bytes)", n, dt, int64(n)*size), Limit: MaxBytes, Bytes: true}
	}
	switch dt {
	case Float32:
		return make([]float32, n), nil
	case Float64:
		return make([]float64, n), nil
	case Int8:
		return make([]int8, n), nil
	case Int16:
		return make([]int16, n), nil
	case Int32:
		return make([]int32, n), nil
	case Int64:
		return make([]int64, n), nil
	case Uint8:
		return make([]uint8, n), nil
	case Bool:
		return make([]bool, n), nil
	case String:
		return make([]string, n), nil
	}
	return nil, fmt.Errorf("unsupported dtype %v", dt)
}

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Shape returns a copy of the shape.
func (t *Tensor) Shape() []int64 { return append([]int64{}, t.shape...) }

// Rank returns the number of dimensions.
func (t *Tensor) Rank() int { return len(t.shape) }

// Dim returns dimension i (negative i counts from the end); it returns -1
// when i is out of range.
func (t *Tensor) Dim(i int) int64 {
	if i < 0 {
		i += len(t.shape)
	}
	if i < 0 || i >= len(t.shape) {
		return -1
	}
	return t.shape[i]
}

// Len returns the number of elements.
func (t *Tensor) Len() int {
	switch d := t.data.(type) {
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []int8:
		return len(d)
	case []int16:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []uint8:
		return len(d)
	case []bool:
		return len(d)
	case []string:
		return len(d)
	}
	return 0
}

// Data returns the backing slice ([]float32, []string, ...). It is shared
// with the tensor: callers must not modify it.
func (t *Tensor) Data() any { return t.data }

// Values returns the backing slice of t if its element type is T.
func Values[T Elem](t *Tensor) ([]T, bool) {
	d, ok := t.data.([]T)
	return d, ok
}

// Float32s returns the backing slice, or nil if the dtype is not float32.
func (t *Tensor) Float32s() []float32 { d, _ := t.data.([]float32); return d }

// Float64s returns the backing slice, or nil if the dtype is not float64.
func (t *Tensor) Float64s() []float64 { d, _ := t.data.([]float64); return d }

// Int32s returns the backing slice, or nil if the dtype is not int32.
func (t *Tensor) Int32s() []int32 { d, _ := t.data.([]int32); return d }

// Int64s returns the backing slice, or nil if the dtype is not int64.
func (t *Tensor) Int64s() []int64 { d, _ := t.data.([]int64); return d }

// Bools returns the backing slice, or nil if the dtype is not bool.
func (t *Tensor) Bools() []bool { d, _ := t.data.([]bool); return d }

// Strings returns the backing slice, or nil if the dtype is not string.
func (t *Tensor) Strings() []string { d, _ := t.data.([]string); return d }

// Reshaped returns a tensor sharing t's data with a new shape of the same
// element count.
func (t *Tensor) Reshaped(shape []int64) (*Tensor, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if n != int64(t.Len()) {
		return nil, fmt.Errorf("cannot reshape %s with %d elements to %s", t.dtype, t.Len(), ShapeString(shape))
	}
	return &Tensor{dtype: t.dtype, shape: append([]int64{}, shape...), data: t.data}, nil
}

// Clone returns a deep copy of t.
func (t *Tensor) Clone() *Tensor {
	var d any
	switch s := t.data.(type) {
	case []float32:
		d = append([]float32{}, s...)
	case []float64:
		d = append([]float64{}, s...)
	case []int8:
		d = append([]int8{}, s...)
	case []int16:
		d = append([]int16{}, s...)
	case []int32:
		d = append([]int32{}, s...)
	case []int64:
		d = append([]int64{}, s...)
	case []uint8:
		d = append([]uint8{}, s...)
	case []bool:
		d = append([]bool{}, s...)
	case []string:
		d = append([]string{}, s...)
	}
	return &Tensor{dtype: t.dtype, shape: t.Shape(), data: d}
}

// Float64At returns element i converted to float64 (bool as 0/1); it returns
// NaN for strings and out-of-range i.
func (t *Tensor) Float64At(i int) float64 {
	if i < 0 || i >= t.Len() {
		return math.NaN()
	}
	switch d := t.data.(type) {
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	case []int8:
		return float64(d[i])
	case []int16:
		return float64(d[i])
	case []int32:
		return float64(d[i])
	case []int64:
		return float64(d[i])
	case []uint8:
		return float64(d[i])
	case []bool:
		if d[i] {
			return 1
		}
		return 0
	}
	return math.NaN()
}

// Int64At returns element i of an integer or bool tensor as int64.
func (t *Tensor) Int64At(i int) (int64, bool) {
	if i < 0 || i >= t.Len() {
		return 0, false
	}
	switch d := t.data.(type) {
	case []int8:
		return int64(d[i]), true
	case []int16:
		return int64(d[i]), true
	case []int32:
		return int64(d[i]), true
	case []int64:
		return d[i], true
	case []uint8:
		return int64(d[i]), true
	case []bool:
		if d[i] {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// ElemString formats element i for messages.
func (t *Tensor) ElemString(i int) string {
	if i < 0 || i >= t.Len() {
		return "<out of range>"
	}
	switch d := t.data.(type) {
	case []float32:
		return strconv.FormatFloat(float64(d[i]), 'g', -1, 32)
	case []float64:
		return strconv.FormatFloat(d[i], 'g', -1, 64)
	case []bool:
		return strconv.FormatBool(d[i])
	case []string:
		return strconv.Quote(d[i])
	}
	v, _ := t.Int64At(i)
	return strconv.FormatInt(v, 10)
}

// Unravel converts a flat row-major index into coordinates of shape.
func Unravel(flat int64, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 0 {
			idx[i] = flat % shape[i]
			flat /= shape[i]
		}
	}
	return idx
}

// maxStringElems is how many elements String prints before eliding.
const maxStringElems = 8

// String formats t compactly, such as float32[2,3]{1, 2, 3, 4, 5, 6},
// eliding elements after the first few.
func (t *Tensor) String() string {
	if t == nil {
		return "<nil tensor>"
	}
	var b strings.Builder
	b.WriteString(t.dtype.String())
	b.WriteString(ShapeString(t.shape))
	b.WriteByte('{')
	n := t.Len()
	for i := 0; i < n && i < maxStringElems; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.ElemString(i))
	}
	if n > maxStringElems {
		fmt.Fprintf(&b, ", ... (%d more)", n-maxStringElems)
	}
	b.WriteByte('}')
	return b.String()
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// MismatchError describes how two tensors differ. For element differences
// it reports the worst element: the first unequal one for Equal, the one
// that exceeds its tolerance the most for AllClose.
type MismatchError struct {
	Reason    string  // "dtype", "shape" or "value"
	Got, Want string  // the differing dtypes, shapes or element values
	Index     []int64 // coordinates of the worst element (Reason "value")
	Count     int     // number of mismatching elements (Reason "value")
	Excess    float64 // |got-want| - (atol + rtol*|want|) at Index, for AllClose
}

func (e *MismatchError) Error() string {
	if e.Reason != "value" {
		return fmt.Sprintf("%s mismatch: got %s, want %s", e.Reason, e.Got, e.Want)
	}
	s := fmt.Sprintf("%d element(s) differ; worst at %s: got %s, want %s",
		e.Count, ShapeString(e.Index), e.Got, e.Want)
	if e.Excess != 0 {
		s += fmt.Sprintf(" (exceeds tolerance by %g)", e.Excess)
	}
	return s
}

func (t *Tensor) headerMismatch(want *Tensor) error {
	if t == nil || want == nil {
		if t == want {
			return nil
		}
		return &MismatchError{Reason: "nil", Got: fmt.Sprint(t), Want: fmt.Sprint(want)}
	}
	if t.dtype != want.dtype {
		return &MismatchError{Reason: "dtype", Got: t.dtype.String(), Want: want.dtype.String()}
	}
	if !sameShape(t.shape, want.shape) {
		return &MismatchError{Reason: "shape", Got: ShapeString(t.shape), Want: ShapeString(want.shape)}
	}
	return nil
}

// Equal returns nil if t and want have the same dtype, shape and elements,
// and a *MismatchError otherwise. NaNs compare equal to NaNs.
func (t *Tensor) Equal(want *Tensor) error {
	if err := t.headerMismatch(want); err != nil || t == nil {
		return err
	}
	first, count := -1, 0
	for i, n := 0, t.Len(); i < n; i++ {
		if !elemEqual(t, want, i) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	if count == 0 {
		return nil
	}
	return &MismatchError{Reason: "value", Got: t.ElemString(first), Want: want.ElemString(first),
		Index: Unravel(int64(first), t.shape), Count: count}
}

func elemEqual(a, b *Tensor, i int) bool {
	switch x := a.data.(type) {
	case []float32:
		y := b.data.([]float32)
		return x[i] == y[i] || (x[i] != x[i] && y[i] != y[i])
	case []float64:
		y := b.data.([]float64)
		return x[i] == y[i] || (x[i] != x[i] && y[i] != y[i])
	case []string:
		return x[i] == b.data.([]string)[i]
	case []bool:
		return x[i] == b.data.([]bool)[i]
	}
	u, _ := a.Int64At(i)
	v, _ := b.Int64At(i)
	return u == v
}

// AllClose returns nil if t and want have the same dtype and shape and every
// element satisfies |got-want| <= atol + rtol*|want| (NumPy's rule; NaN
// matches NaN, infinities must be equal). Non-float dtypes are compared
// exactly. Otherwise it returns a *MismatchError naming the element that
// exceeds its tolerance the most.
func (t *Tensor) AllClose(want *Tensor, rtol, atol float64) error {
	if err := t.headerMismatch(want); err != nil || t == nil {
		return err
	}
	if !t.dtype.IsFloat() {
		return t.Equal(want)
	}
	worst, count := -1, 0
	worstExcess := math.Inf(-1)
	for i, n := 0, t.Len(); i < n; i++ {
		g, w := t.Float64At(i), want.Float64At(i)
		var excess float64
		switch {
		case math.IsNaN(g) || math.IsNaN(w):
			if math.IsNaN(g) && math.IsNaN(w) {
				continue
			}
			excess = math.Inf(1)
		case math.IsInf(g, 0) || math.IsInf(w, 0):
			if g == w {
				continue
			}
			excess = math.Inf(1)
		default:
			excess = math.Abs(g-w) - (atol + rtol*math.Abs(w))
			if excess <= 0 {
				continue
			}
		}
		count++
		if excess > worstExcess {
			worst, worstExcess = i, excess
		}
	}
	if count == 0 {
		return nil
	}
	return &MismatchError{Reason: "value", Got: t.ElemString(worst), Want: want.ElemString(worst),
		Index: Unravel(int64(worst), t.shape), Count: count, Excess: worstExcess}
}
