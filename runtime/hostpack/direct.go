package hostpack

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
)

// The writers of the packed regions: row splits, ids, i64, f32 and f64
// values and strings, each from a slice of feed elements in row-major
// order, dropping those equal to an ignore value (emb.from_dense), into
// int32 words laid out as abi.Layer.Pack lays them out.

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// integer is the Go types of integer feeds.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8
}

// intIgnore returns ign as a T, and whether some T equals it (the
// interpreter compares the elements widened to int64 with ign).
func intIgnore[T integer](ign ignore) (T, bool) {
	v := T(ign.i)
	return v, ign.has && int64(v) == ign.i
}

// count returns how many elements of d are not ign (all of them without has).
func count[T comparable](d []T, ign T, has bool) int64 {
	if !has {
		return int64(len(d))
	}
	var n int64
	for _, x := range d {
		if x != ign {
			n++
		}
	}
	return n
}

// putSplits writes the row splits of rows rows of per elements of d,
// dropping ign, into s (rows+1 words).
func putSplits[T comparable](s []int32, d []T, rows, per int64, ign T, has bool) {
	s = s[:rows+1]
	s[0] = 0
	if !has {
		for r := range rows {
			s[r+1] = int32((r + 1) * per)
		}
		return
	}
	var n int32
	for r := range rows {
		for _, x := range d[r*per : (r+1)*per] {
			if x != ign {
				n++
			}
		}
		s[r+1] = n
	}
}

// checkIDs returns the ids of d (those not ign) and fails on the first
// outside [0, rows), as Pack does.
func checkIDs[T integer](cp *colPlan, d []T, ign T, has bool) (int64, error) {
	var n int64
	rows := cp.rows
	for _, x := range d {
		if has && x == ign {
			continue
		}
		if v := int64(x); v < 0 || v >= rows {
			return 0, fmt.Errorf("column %q: id %d (value %d) is not in [0, %d)", cp.c.Name, v, n, rows)
		}
		n++
	}
	return n, nil
}

// putIDs writes the ids of d (not ign) as int32 words.
func putIDs[T integer](w []int32, d []T, ign T, has bool) {
	j := 0
	for _, x := range d {
		if has && x == ign {
			continue
		}
		w[j] = int32(x)
		j++
	}
}

// putI64 writes the integers of d (not ign) as little-endian pairs of words.
func putI64[T integer](w []int32, d []T, ign T, has bool) {
	if !has && littleEndian {
		if d64, ok := any(d).([]int64); ok && len(d64) > 0 {
			copy(w, unsafe.Slice((*int32)(unsafe.Pointer(&d64[0])), 2*len(d64)))
			return
		}
	}
	j := 0
	for _, x := range d {
		if has && x == ign {
			continue
		}
		v := uint64(int64(x))
		w[j], w[j+1] = int32(uint32(v)), int32(uint32(v>>32))
		j += 2
	}
}

// putF32 writes the floats of d (not ign) as their bits.
func putF32(w []int32, d []float32, ign float32, has bool) {
	if !has {
		if len(d) > 0 {
			copy(w, unsafe.Slice((*int32)(unsafe.Pointer(&d[0])), len(d)))
		}
		return
	}
	j := 0
	for _, x := range d {
		if x == ign {
			continue
		}
		w[j] = int32(math.Float32bits(x))
		j++
	}
}

// putF64 writes the doubles of d (not ign) as little-endian pairs of words.
func putF64(w []int32, d []float64, ign float64, has bool) {
	if !has && littleEndian {
		if len(d) > 0 {
			copy(w, unsafe.Slice((*int32)(unsafe.Pointer(&d[0])), 2*len(d)))
		}
		return
	}
	j := 0
	for _, x := range d {
		if has && x == ign {
			continue
		}
		u := math.Float64bits(x)
		w[j], w[j+1] = int32(uint32(u)), int32(uint32(u>>32))
		j += 2
	}
}

// strSize returns the strings of d (not ign) and the bytes of their
// strings region, refusing a string too long for its slot.
func strSize(cp *colPlan, d []string, ign string, has bool) (n, bytes int64, err error) {
	if !cp.slots {
		for _, s := range d {
			if has && s == ign {
				continue
			}
			n++
			bytes += int64(len(s))
		}
		return n, bytes, nil
	}
	for _, s := range d {
		if has && s == ign {
			continue
		}
		n++
		if len(s) >= 8 {
			if len(s) > abi.MaxSlotString {
				return 0, 0, cp.c.TooLong(len(s))
			}
			bytes += int64(len(s))
		}
	}
	return n, bytes, nil
}

// putStrs writes the strings of d (not ign): with s, the row splits of
// rows of per strings; their slots (with slots: Column.StrSlots) or byte
// offsets from word at; and their bytes (size: bytes) from word bytesAt,
// the region's last word padded with zeros.
func putStrs(slots bool, w, s []int32, per int64, at, bytesAt, bytes int64, d []string, ign string, has bool) {
	if !littleEndian {
		clear(w[bytesAt : bytesAt+(bytes+3)/4])
	}
	rows, rowLen := int64(1), int64(len(d))
	if s != nil {
		rows, rowLen = int64(len(s)-1), per
		s[0] = 0
	}
	var off int64
	j := at
	for r := range rows {
		row := d[r*rowLen : (r+1)*rowLen]
		if slots {
			for _, x := range row {
				if has && x == ign {
					continue
				}
				var u uint64
				if len(x) < 8 {
					u = shortSlot(x)
				} else {
					u = uint64(off) | uint64(len(x))<<32 | 0xff<<56
					putBytes(w, 4*bytesAt+off, x)
					off += int64(len(x))
				}
				w[j], w[j+1] = int32(uint32(u)), int32(uint32(u>>32))
				j += 2
			}
			if s != nil {
				s[r+1] = int32((j - at) / 2)
			}
			continue
		}
		for _, x := range row {
			if has && x == ign {
				continue
			}
			w[j] = int32(off)
			putBytes(w, 4*bytesAt+off, x)
			off += int64(len(x))
			j++
		}
		if s != nil {
			s[r+1] = int32(j - at)
		}
	}
	if !slots {
		w[j] = int32(off)
	}
	// The last word's bytes after the strings, and the region's padding.
	end := bytesAt + (off+3)/4
	if tail := (4 - off%4) % 4; tail > 0 {
		last := &w[end-1]
		*last &= int32(uint32(math.MaxUint32) >> (8 * tail))
	}
	pad(w, end)
}

// shortSlot is the slot of a string of at most 7 bytes: its bytes, its
// length in byte 7 (little-endian), read with two overlapping loads.
func shortSlot(x string) uint64 {
	n := len(x)
	var u uint64
	switch {
	case n >= 4:
		lo := uint32(x[0]) | uint32(x[1])<<8 | uint32(x[2])<<16 | uint32(x[3])<<24
		hi := uint32(x[n-4]) | uint32(x[n-3])<<8 | uint32(x[n-2])<<16 | uint32(x[n-1])<<24
		u = uint64(lo) | uint64(hi)<<(8*(n-4))
	case n > 0:
		u = uint64(x[0]) | uint64(x[n/2])<<(8*(n/2)) | uint64(x[n-1])<<(8*(n-1))
	}
	return u | uint64(n)<<56
}

// putBytes writes the bytes of s at byte b of the little-endian words w.
// On a big-endian host the words must hold zeros there.
func putBytes(w []int32, b int64, s string) {
	if len(s) == 0 {
		return
	}
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w))[b:], s)
		return
	}
	for k := 0; k < len(s); k++ {
		p := b + int64(k)
		w[p/4] |= int32(uint32(s[k]) << (8 * (p % 4)))
	}
}

func align4(n int64) int64 { return (n + 3) &^ 3 }

// pad writes zeros from word end to the next multiple of 4.
func pad(w []int32, end int64) { clear(w[end:align4(end)]) }

// directRows returns the rows of a direct column's feed t and its
// elements per row: [B, k] or [B] through emb.from_dense, else a vector
// (or a [B, 1] string tensor for source "split", StringSplitV2's input).
func directRows(cp *colPlan, t *interp.Tensor) (rows, per int64, err error) {
	d := cp.direct
	if d.from != nil {
		switch t.Rank() {
		case 1:
			return t.Dim(0), 1, nil
		case 2:
			return t.Dim(0), t.Dim(1), nil
		}
		return 0, 0, d.from.Errorf("input must have rank 1 or 2, got shape %s", interp.ShapeString(t.Shape()))
	}
	if t.Rank() == 1 || (cp.src == srcSplit && t.Rank() == 2 && t.Dim(1) == 1) {
		return t.Dim(0), 1, nil
	}
	return 0, 0, fmt.Errorf("column %q: values must be a vector, got shape %s", cp.c.Name, interp.ShapeString(t.Shape()))
}

// measureDirect measures column cp of a direct plan on its feed t.
func measureDirect(cp *colPlan, st *colState, t *interp.Tensor) error {
	c, d := cp.c, cp.direct
	rows, per, err := directRows(cp, t)
	if err != nil {
		return err
	}
	if cp.splits && rows > maxBatch {
		return errBatch(c.Name, rows)
	}
	st.rows, st.per = rows, per
	var s abi.ColumnSize
	switch cp.src {
	case srcIDs:
		switch x := t.Data().(type) {
		case []int64:
			s.N, err = checkIDsIgn(cp, x, d.ign)
		case []int32:
			s.N, err = checkIDsIgn(cp, x, d.ign)
		case []int16:
			s.N, err = checkIDsIgn(cp, x, d.ign)
		case []int8:
			s.N, err = checkIDsIgn(cp, x, d.ign)
		case []uint8:
			s.N, err = checkIDsIgn(cp, x, d.ign)
		default:
			err = fmt.Errorf("column %q: ids must be integers, got %v", c.Name, t.DType())
		}
	case srcStr, srcSplit:
		x := t.Strings()
		if x == nil && t.Len() > 0 {
			return fmt.Errorf("column %q: source %q cannot take values of %v", c.Name, c.Source, t.DType())
		}
		s.N, s.Bytes, err = strSize(cp, x, d.ign.s, d.ign.has)
	default:
		s.N, err = countFeed(cp, t, d.ign)
	}
	if err != nil {
		return err
	}
	st.size = s
	st.batch = s.N
	if cp.splits {
		st.batch = rows
	}
	return nil
}

func checkIDsIgn[T integer](cp *colPlan, d []T, ign ignore) (int64, error) {
	v, has := intIgnore[T](ign)
	return checkIDs(cp, d, v, has)
}

func countInts[T integer](d []T, ign ignore) int64 {
	v, has := intIgnore[T](ign)
	return count(d, v, has)
}

// countFeed returns the elements of the numeric feed t that are not the
// ignore value, checking that the column's source takes them.
func countFeed(cp *colPlan, t *interp.Tensor, ign ignore) (int64, error) {
	if !cp.src.takes(t.DType()) {
		return 0, fmt.Errorf("column %q: source %q cannot take values of %v", cp.c.Name, cp.c.Source, t.DType())
	}
	if !ign.has {
		return int64(t.Len()), nil
	}
	switch x := t.Data().(type) {
	case []int64:
		return countInts(x, ign), nil
	case []int32:
		return countInts(x, ign), nil
	case []int16:
		return countInts(x, ign), nil
	case []int8:
		return countInts(x, ign), nil
	case []uint8:
		return countInts(x, ign), nil
	case []float32:
		return count(x, ign.f32, ign.has), nil
	case []float64:
		return count(x, ign.f64, ign.has), nil
	}
	return 0, fmt.Errorf("column %q: source %q cannot take values of %v", cp.c.Name, cp.c.Source, t.DType())
}

// writeDirect writes column cp's regions (descriptor d) from its feed t.
func writeDirect(cp *colPlan, st *colState, t *interp.Tensor, w []int32, d []int64) {
	ign := cp.direct.ign
	n := st.size.N
	if cp.src.strings() {
		var s []int32
		if cp.splits {
			s = w[d[0] : d[0]+st.rows+1]
		}
		putStrs(cp.slots, w, s, st.per, d[1], d[6], st.size.Bytes, t.Strings(), ign.s, ign.has)
		if s != nil {
			pad(w, d[0]+st.rows+1)
		}
		if cp.slots {
			pad(w, d[1]+2*n)
		} else {
			pad(w, d[1]+n+1)
		}
		return
	}
	if cp.splits {
		s := w[d[0]:]
		switch x := t.Data().(type) {
		case []int64:
			splitsInts(s, x, st, ign)
		case []int32:
			splitsInts(s, x, st, ign)
		case []int16:
			splitsInts(s, x, st, ign)
		case []int8:
			splitsInts(s, x, st, ign)
		case []uint8:
			splitsInts(s, x, st, ign)
		case []float32:
			putSplits(s, x, st.rows, st.per, ign.f32, ign.has)
		case []float64:
			putSplits(s, x, st.rows, st.per, ign.f64, ign.has)
		}
		pad(w, d[0]+st.rows+1)
	}
	at := d[1]
	switch cp.src {
	case srcIDs:
		switch x := t.Data().(type) {
		case []int64:
			idsInts(w[at:], x, ign)
		case []int32:
			idsInts(w[at:], x, ign)
		case []int16:
			idsInts(w[at:], x, ign)
		case []int8:
			idsInts(w[at:], x, ign)
		case []uint8:
			idsInts(w[at:], x, ign)
		}
		pad(w, at+n)
	case srcI64:
		switch x := t.Data().(type) {
		case []int64:
			i64Ints(w[at:], x, ign)
		case []int32:
			i64Ints(w[at:], x, ign)
		case []int16:
			i64Ints(w[at:], x, ign)
		case []int8:
			i64Ints(w[at:], x, ign)
		case []uint8:
			i64Ints(w[at:], x, ign)
		}
		pad(w, at+2*n)
	case srcF32:
		putF32(w[at:at+n], t.Float32s(), ign.f32, ign.has)
		pad(w, at+n)
	case srcF64:
		putF64(w[at:at+2*n], t.Float64s(), ign.f64, ign.has)
		pad(w, at+2*n)
	}
}

func splitsInts[T integer](s []int32, d []T, st *colState, ign ignore) {
	v, has := intIgnore[T](ign)
	putSplits(s, d, st.rows, st.per, v, has)
}

func idsInts[T integer](w []int32, d []T, ign ignore) {
	v, has := intIgnore[T](ign)
	putIDs(w, d, v, has)
}

func i64Ints[T integer](w []int32, d []T, ign ignore) {
	v, has := intIgnore[T](ign)
	putI64(w, d, v, has)
}
