package serve

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recom-compiler/recom/interp"
)

// appendNested writes the part of t from dimension level on, starting at
// flat element off, as nested lists (a scalar at the last level).
// String elements are JSON strings, or {"b64": ...} when the tensor's
// key ends in "_bytes" (TensorFlow Serving's rule) or the bytes are not
// UTF-8.
func appendNested(b []byte, t *interp.Tensor, key string, level int, off int64) []byte {
	shape := t.Shape()
	bin := strings.HasSuffix(key, "_bytes")
	var rec func(b []byte, level int, off int64) []byte
	rec = func(b []byte, level int, off int64) []byte {
		if level == len(shape) {
			return appendElem(b, t, int(off), bin)
		}
		stride := int64(1)
		for _, d := range shape[level+1:] {
			stride *= d
		}
		b = append(b, '[')
		for i := range shape[level] {
			if i > 0 {
				b = append(b, ',')
			}
			b = rec(b, level+1, off+i*stride)
		}
		return append(b, ']')
	}
	return rec(b, level, off)
}

// appendFlat writes t's elements as one flat list (the Open Inference
// Protocol's row-major "data").
func appendFlat(b []byte, t *interp.Tensor) []byte {
	b = append(b, '[')
	switch d := t.Data().(type) {
	case []float32:
		for i, v := range d {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, float64(v), 32)
		}
	case []int64:
		for i, v := range d {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
	default:
		for i := range t.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendElem(b, t, i, false)
		}
	}
	return append(b, ']')
}

// appendElem writes element i of t.
func appendElem(b []byte, t *interp.Tensor, i int, bin bool) []byte {
	switch d := t.Data().(type) {
	case []float32:
		return appendFloat(b, float64(d[i]), 32)
	case []float64:
		return appendFloat(b, d[i], 64)
	case []int8:
		return strconv.AppendInt(b, int64(d[i]), 10)
	case []int16:
		return strconv.AppendInt(b, int64(d[i]), 10)
	case []int32:
		return strconv.AppendInt(b, int64(d[i]), 10)
	case []int64:
		return strconv.AppendInt(b, d[i], 10)
	case []uint8:
		return strconv.AppendUint(b, uint64(d[i]), 10)
	case []bool:
		return strconv.AppendBool(b, d[i])
	case []string:
		if bin || !utf8.ValidString(d[i]) {
			b = append(b, `{"b64":"`...)
			b = base64.StdEncoding.AppendEncode(b, []byte(d[i]))
			return append(b, `"}`...)
		}
		return appendString(b, d[i])
	}
	return append(b, "null"...)
}

// appendFloat writes a float in the shortest form that reads back to the
// same value; NaN and ±Infinity as TensorFlow Serving writes them.
func appendFloat(b []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "Infinity"...)
	case math.IsInf(v, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, bits)
}

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size - 1
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c >= 0x80 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendError writes {"error": msg}.
func appendError(b []byte, msg string) []byte {
	b = append(b, `{"error":`...)
	b = appendString(b, msg)
	return append(b, "}\n"...)
}
