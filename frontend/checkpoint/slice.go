package checkpoint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// Slice is a hyper-rectangle of a tensor, as TensorFlow's TensorSlice: per
// dimension a start and a length, where Length -1 (with Start 0) is the
// whole dimension. A partitioned variable is saved as slices of the full
// tensor, one per partition.
type Slice struct {
	Start, Length []int64
}

// FullSlice is the slice of rank n that covers a whole tensor.
func FullSlice(n int) Slice {
	s := Slice{Start: make([]int64, n), Length: make([]int64, n)}
	for i := range s.Length {
		s.Length[i] = -1
	}
	return s
}

// String formats s as TensorFlow does: "0,50:-" (start,length per
// dimension, "-" for a whole one); a rank-0 slice is "".
func (s Slice) String() string {
	parts := make([]string, len(s.Start))
	for i := range s.Start {
		if s.Length[i] < 0 {
			parts[i] = "-"
		} else {
			parts[i] = strconv.FormatInt(s.Start[i], 10) + "," + strconv.FormatInt(s.Length[i], 10)
		}
	}
	return strings.Join(parts, ":")
}

// bounds returns the start and length of s in every dimension of full,
// whole dimensions resolved, after checking that s lies inside full.
func (s Slice) bounds(full []int64) (start, length []int64, err error) {
	if len(s.Start) != len(full) || len(s.Length) != len(full) {
		return nil, nil, fmt.Errorf("slice %s has %d dimensions, the tensor %d", s, len(s.Start), len(full))
	}
	start, length = make([]int64, len(full)), make([]int64, len(full))
	for i, d := range full {
		b, l := s.Start[i], s.Length[i]
		if l == -1 {
			if b != 0 {
				return nil, nil, fmt.Errorf("slice %s: dimension %d is whole but starts at %d", s, i, b)
			}
			l = d
		}
		if b < 0 || l < 0 || b > d || l > d-b {
			return nil, nil, fmt.Errorf("slice %s does not lie inside shape %s (dimension %d)", s, interp.ShapeString(full), i)
		}
		start[i], length[i] = b, l
	}
	return start, length, nil
}

// Shape returns the shape of the part of a tensor of shape full that s
// selects.
func (s Slice) Shape(full []int64) ([]int64, error) {
	_, l, err := s.bounds(full)
	return l, err
}

// sameRegion reports whether a and b select the same part of a tensor of
// shape full (a whole dimension equals an explicit full extent).
func sameRegion(a, b Slice, full []int64) bool {
	as, al, err1 := a.bounds(full)
	bs, bl, err2 := b.bounds(full)
	if err1 != nil || err2 != nil {
		return false
	}
	for i := range as {
		if as[i] != bs[i] || al[i] != bl[i] {
			return false
		}
	}
	return true
}

// sliceFromProto converts a TensorSliceProto; an extent without a length
// is a whole dimension.
func sliceFromProto(p *tfpb.TensorSliceProto) Slice {
	s := Slice{Start: make([]int64, len(p.GetExtent())), Length: make([]int64, len(p.GetExtent()))}
	for i, e := range p.GetExtent() {
		if l, ok := e.GetHasLength().(*tfpb.TensorSliceProto_Extent_Length); ok {
			s.Start[i], s.Length[i] = e.GetStart(), l.Length
		} else {
			s.Start[i], s.Length[i] = e.GetStart(), -1
		}
	}
	return s
}

// sliceProto converts s to a TensorSliceProto (whole dimensions without a
// length).
func sliceProto(s Slice) *tfpb.TensorSliceProto {
	p := &tfpb.TensorSliceProto{}
	for i := range s.Start {
		e := &tfpb.TensorSliceProto_Extent{Start: s.Start[i]}
		if s.Length[i] >= 0 {
			e.HasLength = &tfpb.TensorSliceProto_Extent_Length{Length: s.Length[i]}
		}
		p.Extent = append(p.Extent, e)
	}
	return p
}

// ParseShapeAndSlice parses a shape_and_slices element of SaveV2 and
// RestoreV2: "" is the whole tensor (full is nil), otherwise the full
// shape's dimensions and a slice separated by spaces, such as
// "100 8 0,50:-" (rows 0 to 49 of a 100×8 tensor, every column).
func ParseShapeAndSlice(spec string) (full []int64, s Slice, whole bool, err error) {
	if spec == "" {
		return nil, Slice{}, true, nil
	}
	fields := strings.Split(spec, " ")
	if len(fields) < 2 {
		return nil, Slice{}, false, fmt.Errorf("shape and slice %q: want the dimensions and a slice separated by spaces", spec)
	}
	if len(fields)-1 > interp.MaxRank {
		return nil, Slice{}, false, fmt.Errorf("shape and slice %q: rank %d exceeds the maximum %d", spec, len(fields)-1, interp.MaxRank)
	}
	for _, f := range fields[:len(fields)-1] {
		d, err := strconv.ParseInt(f, 10, 64)
		if err != nil || d < 0 {
			return nil, Slice{}, false, fmt.Errorf("shape and slice %q: bad dimension %q", spec, f)
		}
		full = append(full, d)
	}
	ext := strings.Split(fields[len(fields)-1], ":")
	if len(ext) != len(full) {
		return nil, Slice{}, false, fmt.Errorf("shape and slice %q: the slice has %d extents for %d dimensions", spec, len(ext), len(full))
	}
	s = Slice{Start: make([]int64, len(full)), Length: make([]int64, len(full))}
	for i, e := range ext {
		if e == "-" {
			s.Length[i] = -1
			continue
		}
		b, l, ok := strings.Cut(e, ",")
		start, err1 := strconv.ParseInt(b, 10, 64)
		length, err2 := strconv.ParseInt(l, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, Slice{}, false, fmt.Errorf("shape and slice %q: bad extent %q (want start,length or -)", spec, e)
		}
		s.Start[i], s.Length[i] = start, length
	}
	if _, _, err := s.bounds(full); err != nil {
		return nil, Slice{}, false, fmt.Errorf("shape and slice %q: %v", spec, err)
	}
	return full, s, false, nil
}

// eachRun calls f for each run of elements of the region (start, length)
// of a tensor of shape full that is contiguous in both the tensor and the
// region (row-major): at flat offset at in the tensor and from in the
// region, n elements. Regions with no elements have no runs.
func eachRun(full, start, length []int64, f func(at, from, n int64)) {
	r := len(full)
	for _, l := range length {
		if l == 0 {
			return
		}
	}
	if r == 0 {
		f(0, 0, 1)
		return
	}
	// The innermost dimensions the region spans whole merge into the run.
	k := r - 1
	run := length[k]
	for k > 0 && length[k] == full[k] {
		k--
		run *= length[k]
	}
	// stride[i] is the tensor's element stride of dimension i.
	stride := make([]int64, r)
	stride[r-1] = 1
	for i := r - 2; i >= 0; i-- {
		stride[i] = stride[i+1] * full[i+1]
	}
	idx := make([]int64, k) // position in dimensions 0..k-1 of the region
	for from := int64(0); ; from += run {
		at := start[k] * stride[k]
		for i := range idx {
			at += (start[i] + idx[i]) * stride[i]
		}
		for i := k + 1; i < r; i++ {
			at += start[i] * stride[i]
		}
		f(at, from, run)
		i := k - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < length[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// copyRuns copies between the backing slices dst and src, which must be of
// the same element type: toFull copies region elements (src) into the
// tensor (dst), otherwise tensor elements (src) into the region (dst).
func copyRuns(dst, src any, full, start, length []int64, toFull bool) {
	switch d := dst.(type) {
	case []float32:
		copyRunsOf(d, src.([]float32), full, start, length, toFull)
	case []float64:
		copyRunsOf(d, src.([]float64), full, start, length, toFull)
	case []int8:
		copyRunsOf(d, src.([]int8), full, start, length, toFull)
	case []int16:
		copyRunsOf(d, src.([]int16), full, start, length, toFull)
	case []int32:
		copyRunsOf(d, src.([]int32), full, start, length, toFull)
	case []int64:
		copyRunsOf(d, src.([]int64), full, start, length, toFull)
	case []uint8:
		copyRunsOf(d, src.([]uint8), full, start, length, toFull)
	case []bool:
		copyRunsOf(d, src.([]bool), full, start, length, toFull)
	case []string:
		copyRunsOf(d, src.([]string), full, start, length, toFull)
	}
}

func copyRunsOf[T interp.Elem](dst, src []T, full, start, length []int64, toFull bool) {
	eachRun(full, start, length, func(at, from, n int64) {
		if toFull {
			copy(dst[at:at+n], src[from:from+n])
		} else {
			copy(dst[from:from+n], src[at:at+n])
		}
	})
}

// Extract returns the part of t that s selects, as a new tensor.
func Extract(t *interp.Tensor, s Slice) (*interp.Tensor, error) {
	full := t.Shape()
	start, length, err := s.bounds(full)
	if err != nil {
		return nil, err
	}
	n, err := interp.NumElements(length)
	if err != nil {
		return nil, err
	}
	buf, err := interp.MakeSlice(t.DType(), int(n))
	if err != nil {
		return nil, err
	}
	copyRuns(buf, t.Data(), full, start, length, false)
	return interp.FromSlice(length, buf)
}
