// Package npz reads and writes NumPy's .npy and .npz files as interp
// tensors, so reference inputs and outputs can be exchanged with Python.
//
// Supported dtypes: little-endian <f4 <f8 <i1 <i2 <i4 <i8 |u1 |b1 (the
// byte-sized ones also with '|' or '<'), byte strings |S<n> (read and
// written; trailing NULs are stripped on reading as NumPy does) and Unicode
// strings <U<n> (read only, stored as UTF-8). Fortran-ordered and structured
// arrays are rejected with an error. Reading never panics on malformed
// input; writing is deterministic and, for files, atomic.
package npz

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// Array is one named array of an .npz archive.
type Array struct {
	Name   string
	Tensor *interp.Tensor
}

const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dictionary NumPy-style readers accept.
const maxHeaderLen = 1 << 20

// header is the parsed header dictionary of an .npy file.
type header struct {
	descr   string
	fortran bool
	shape   []int64
}

// ReadNPY decodes one .npy stream; the array may take at most MaxBytes.
func ReadNPY(r io.Reader) (*interp.Tensor, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	return readBody(r, h, newBudget(), -1)
}

// DecodeNPY decodes a complete .npy file held in memory; trailing bytes
// after the array data are an error, and an array that needs more bytes
// than b holds is refused before memory is taken for it.
func DecodeNPY(b []byte) (*interp.Tensor, error) {
	r := bytes.NewReader(b)
	h, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	t, err := readBody(r, h, newBudget(), int64(r.Len()))
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("npy: %d trailing bytes after array data", r.Len())
	}
	return t, nil
}

func readHeader(r io.Reader) (*header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: reading magic: %w", unexpectedEOF(err))
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("npy: bad magic %q, want \"\\x93NUMPY\"", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", unexpectedEOF(err))
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", unexpectedEOF(err))
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxHeaderLen {
			return nil, fmt.Errorf("npy: header length %d exceeds %d", n, maxHeaderLen)
		}
		hlen = int(n)
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("npy: reading %d-byte header: %w", hlen, unexpectedEOF(err))
	}
	if major < 3 {
		for _, c := range hb {
			if c >= 0x80 {
				return nil, fmt.Errorf("npy: non-ASCII byte in version %d header", major)
			}
		}
	} else if !utf8.Valid(hb) {
		return nil, errors.New("npy: header is not valid UTF-8")
	}
	return parseHeader(string(hb))
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// elemKind describes how a descr maps to a tensor dtype.
type elemKind struct {
	dtype   interp.DType
	size    int  // bytes per element
	unicode bool // <U: size is 4*chars
}

func parseDescr(descr string) (elemKind, error) {
	if len(descr) < 2 {
		return elemKind{}, fmt.Errorf("npy: unsupported dtype descr %q", descr)
	}
	order, code, rest := descr[0], descr[1], descr[2:]
	switch code {
	case 'S', 'U':
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n > 1<<24 {
			return elemKind{}, fmt.Errorf("npy: bad string width in descr %q", descr)
		}
		if code == 'S' {
			if order != '|' && order != '<' && order != '>' && order != '=' {
				break
			}
			return elemKind{dtype: interp.String, size: n}, nil
		}
		if order != '<' && order != '=' && !(order == '|' && n == 0) {
			return elemKind{}, fmt.Errorf("npy: unsupported byte order in descr %q (only little-endian)", descr)
		}
		return elemKind{dtype: interp.String, size: 4 * n, unicode: true}, nil
	}
	var k elemKind
	switch code {
	case 'f':
		switch rest {
		case "4":
			k = elemKind{interp.Float32, 4, false}
		case "8":
			k = elemKind{interp.Float64, 8, false}
		}
	case 'i':
		switch rest {
		case "1":
			k = elemKind{interp.Int8, 1, false}
		case "2":
			k = elemKind{interp.Int16, 2, false}
		case "4":
			k = elemKind{interp.Int32, 4, false}
		case "8":
			k = elemKind{interp.Int64, 8, false}
		}
	case 'u':
		if rest == "1" {
			k = elemKind{interp.Uint8, 1, false}
		}
	case 'b':
		if rest == "1" {
			k = elemKind{interp.Bool, 1, false}
		}
	}
	if k.dtype == interp.Invalid {
		return k, fmt.Errorf("npy: unsupported dtype descr %q", descr)
	}
	switch {
	case k.size == 1 && (order == '|' || order == '<' || order == '>' || order == '='):
	case k.size > 1 && (order == '<' || order == '='):
	default:
		return k, fmt.Errorf("npy: unsupported byte order in descr %q (only little-endian)", descr)
	}
	return k, nil
}

// MaxBytes bounds the memory the arrays of one .npz file (or one .npy
// stream) take once read: each array's data at its item size, and 16 bytes
// more per string for its header. A member's size is checked, against what
// is left of the budget, before anything is allocated for it: first the
// uncompressed size the zip declares, then the size its .npy header gives
// its shape and dtype. So a small archive whose members expand far beyond it
// (many arrays of 2^28 elements, a deflated gigabyte of zeros, a <U1048576
// string array) is refused with a message naming the limit. It is read
// from RECOM_MAX_NPZ_BYTES when the program starts (see docs/LIMITS.md); a
// program may set it before reading (not concurrently).
var MaxBytes = envLimit(EnvMaxBytes, DefaultMaxBytes)

// The environment variable that sets MaxBytes, and its default (2 GiB:
// one tensor of interp.MaxElements 8-byte elements).
const (
	EnvMaxBytes     = "RECOM_MAX_NPZ_BYTES"
	DefaultMaxBytes = int64(1) << 31
)

// envLimit returns the positive integer in the environment variable name,
// or def when it is unset or not a positive integer.
func envLimit(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// TooLargeError reports arrays refused for taking more than MaxBytes
// bytes; its message names the limit and how to raise it.
type TooLargeError struct {
	What  string // what was too large, e.g. "array <U1048576 of shape [512]"
	Bytes uint64 // the bytes it needs (with what was read before it)
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s needs %d bytes: more than %d bytes (set %s to raise the limit; see docs/LIMITS.md)", e.What, e.Bytes, e.Limit, EnvMaxBytes)
}

// budget is what is left of MaxBytes for the arrays of one file.
type budget struct {
	used, limit int64
}

func newBudget() *budget { return &budget{limit: MaxBytes} }

// take charges n bytes for what, or refuses them.
func (b *budget) take(what string, n uint64) error {
	if n > uint64(b.limit-b.used) {
		total := n + uint64(b.used)
		if b.used > 0 {
			what += fmt.Sprintf(" (after %d bytes of arrays before it)", b.used)
		}
		return &TooLargeError{What: what, Bytes: total, Limit: b.limit}
	}
	b.used += int64(n)
	return nil
}

// stringHeader is the memory of a Go string's header, charged per element
// of a string array besides its bytes.
const stringHeader = 16

// chunkBytes is the size of the pieces array data is read and decoded in,
// so that reading an array holds the array and one piece, not its encoded
// bytes as well.
const chunkBytes = 1 << 20

// readBody reads the array data after the header h from r. avail is the
// number of bytes r is known to hold, or -1: an array that needs more is
// refused before anything is allocated for it. The array's memory is
// charged to b first.
func readBody(r io.Reader, h *header, b *budget, avail int64) (*interp.Tensor, error) {
	if h.fortran {
		return nil, errors.New("npy: fortran_order arrays are not supported")
	}
	k, err := parseDescr(h.descr)
	if err != nil {
		return nil, err
	}
	n, err := interp.NumElements(h.shape)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if k.size != 0 && n > math.MaxInt64/int64(k.size) {
		return nil, fmt.Errorf("npy: shape %s too large", interp.ShapeString(h.shape))
	}
	need := n * int64(k.size)
	if avail >= 0 && need > avail {
		return nil, fmt.Errorf("npy: data truncated: shape %s of %s needs %d bytes, got %d",
			interp.ShapeString(h.shape), h.descr, need, avail)
	}
	cost := uint64(need)
	if k.dtype == interp.String {
		cost += stringHeader * uint64(n)
	}
	if err := b.take(fmt.Sprintf("npy: array %s of shape %s", h.descr, interp.ShapeString(h.shape)), cost); err != nil {
		return nil, err
	}
	data, err := interp.MakeSlice(k.dtype, int(n))
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if k.size > 0 {
		per := max(1, chunkBytes/k.size) // elements per piece
		buf := make([]byte, min(int64(per), n)*int64(k.size))
		for i := 0; i < int(n); i += per {
			m := min(per, int(n)-i)
			piece := buf[:m*k.size]
			if got, err := io.ReadFull(r, piece); err != nil {
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					return nil, fmt.Errorf("npy: data truncated: shape %s of %s needs %d bytes, got %d",
						interp.ShapeString(h.shape), h.descr, need, int64(i*k.size+got))
				}
				return nil, fmt.Errorf("npy: reading data: %w", err)
			}
			if err := decodeData(data, i, piece, k); err != nil {
				return nil, err
			}
		}
	}
	return interp.FromSlice(h.shape, data)
}

// decodeData decodes the elements of b (whole elements of kind k) into
// data, a slice of k's dtype, from element start on.
func decodeData(data any, start int, b []byte, k elemKind) error {
	le := binary.LittleEndian
	switch d := data.(type) {
	case []float32:
		for i := range len(b) / 4 {
			d[start+i] = math.Float32frombits(le.Uint32(b[4*i:]))
		}
	case []float64:
		for i := range len(b) / 8 {
			d[start+i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
	case []int8:
		for i := range b {
			d[start+i] = int8(b[i])
		}
	case []int16:
		for i := range len(b) / 2 {
			d[start+i] = int16(le.Uint16(b[2*i:]))
		}
	case []int32:
		for i := range len(b) / 4 {
			d[start+i] = int32(le.Uint32(b[4*i:]))
		}
	case []int64:
		for i := range len(b) / 8 {
			d[start+i] = int64(le.Uint64(b[8*i:]))
		}
	case []uint8:
		copy(d[start:], b)
	case []bool:
		for i := range b {
			switch b[i] {
			case 0:
			case 1:
				d[start+i] = true
			default:
				return fmt.Errorf("npy: bool element %d has byte value %d, want 0 or 1", start+i, b[i])
			}
		}
	case []string:
		for i := range len(b) / k.size {
			cell := b[i*k.size : (i+1)*k.size]
			if !k.unicode {
				d[start+i] = string(bytes.TrimRight(cell, "\x00"))
				continue
			}
			var sb strings.Builder
			for j := 0; j+4 <= len(cell); j += 4 {
				c := le.Uint32(cell[j:])
				if c == 0 {
					// NumPy strips trailing NULs; an interior NUL ends the
					// visible string only if nothing but NULs follows.
					rest := cell[j:]
					if len(bytes.Trim(rest, "\x00")) == 0 {
						break
					}
				}
				if c > utf8.MaxRune || (c >= 0xD800 && c <= 0xDFFF) {
					return fmt.Errorf("npy: element %d holds invalid code point %#x", start+i, c)
				}
				sb.WriteRune(rune(c))
			}
			d[start+i] = sb.String()
		}
	default:
		return fmt.Errorf("npy: unsupported dtype %T", data)
	}
	return nil
}

// parseHeader parses the Python dict literal of an .npy header, such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func parseHeader(s string) (*header, error) {
	p := &litParser{s: s}
	fail := func(msg string) (*header, error) {
		return nil, fmt.Errorf("npy: malformed header at byte %d: %s (header %q)", p.i, msg, truncate(s, 120))
	}
	p.space()
	if !p.eat('{') {
		return fail("expected '{'")
	}
	h := &header{}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok {
			return fail("expected a quoted key")
		}
		p.space()
		if !p.eat(':') {
			return fail("expected ':'")
		}
		p.space()
		if seen[key] {
			return fail("duplicate key " + strconv.Quote(key))
		}
		seen[key] = true
		switch key {
		case "descr":
			v, ok := p.str()
			if !ok {
				return fail("descr must be a string (structured dtypes are not supported)")
			}
			h.descr = v
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return fail("fortran_order must be True or False")
			}
		case "shape":
			shape, ok := p.tuple()
			if !ok {
				return fail("shape must be a tuple of non-negative integers")
			}
			h.shape = shape
		default:
			return fail("unexpected key " + strconv.Quote(key))
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if p.eat('}') {
			break
		}
		return fail("expected ',' or '}'")
	}
	if rest := strings.TrimRight(s[p.i:], " \t\n\r\x00"); rest != "" {
		return fail("unexpected text after dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fail("missing key " + strconv.Quote(k))
		}
	}
	return h, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

type litParser struct {
	s string
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *litParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *litParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str parses a simple quoted string without escapes.
func (p *litParser) str() (string, bool) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	p.i += end + 2
	return v, true
}

func (p *litParser) tuple() ([]int64, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int64{}
	for {
		p.space()
		if p.eat(')') {
			return shape, true
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if start == p.i {
			return nil, false
		}
		// Python 2 NumPy wrote longs as 3L.
		v, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil {
			return nil, false
		}
		p.eat('L')
		shape = append(shape, v)
		if len(shape) > interp.MaxRank {
			return nil, false
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if p.eat(')') {
			return shape, true
		}
		return nil, false
	}
}

// descrOf returns the NumPy descr written for t.
func descrOf(t *interp.Tensor) (string, error) {
	switch t.DType() {
	case interp.Float32:
		return "<f4", nil
	case interp.Float64:
		return "<f8", nil
	case interp.Int8:
		return "|i1", nil
	case interp.Int16:
		return "<i2", nil
	case interp.Int32:
		return "<i4", nil
	case interp.Int64:
		return "<i8", nil
	case interp.Uint8:
		return "|u1", nil
	case interp.Bool:
		return "|b1", nil
	case interp.String:
		w := 1 // NumPy never makes a zero-width byte string dtype
		for _, s := range t.Strings() {
			w = max(w, len(s))
		}
		return "|S" + strconv.Itoa(w), nil
	}
	return "", fmt.Errorf("npy: cannot write dtype %v", t.DType())
}

// WriteNPY encodes t as a version 1.0 .npy stream (2.0 if the header does
// not fit), with the header padded so the data starts at a multiple of 64.
func WriteNPY(w io.Writer, t *interp.Tensor) error {
	if t == nil {
		return errors.New("npy: nil tensor")
	}
	descr, err := descrOf(t)
	if err != nil {
		return err
	}
	var shape strings.Builder
	shape.WriteByte('(')
	for i, d := range t.Shape() {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.FormatInt(d, 10))
	}
	if t.Rank() == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape.String())
	var buf bytes.Buffer
	buf.WriteString(magic)
	pre := 10
	if len(dict)+1+pre > math.MaxUint16 {
		pre = 12
	}
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hlen := total - pre
	hdr := dict + strings.Repeat(" ", hlen-len(dict)-1) + "\n"
	if pre == 10 {
		buf.Write([]byte{1, 0})
		_ = binary.Write(&buf, binary.LittleEndian, uint16(hlen))
	} else {
		buf.Write([]byte{2, 0})
		_ = binary.Write(&buf, binary.LittleEndian, uint32(hlen))
	}
	buf.WriteString(hdr)
	encodeData(&buf, t, descr)
	_, err = w.Write(buf.Bytes())
	return err
}

func encodeData(buf *bytes.Buffer, t *interp.Tensor, descr string) {
	le := binary.LittleEndian
	var b8 [8]byte
	switch d := t.Data().(type) {
	case []float32:
		for _, v := range d {
			le.PutUint32(b8[:], math.Float32bits(v))
			buf.Write(b8[:4])
		}
	case []float64:
		for _, v := range d {
			le.PutUint64(b8[:], math.Float64bits(v))
			buf.Write(b8[:])
		}
	case []int8:
		for _, v := range d {
			buf.WriteByte(byte(v))
		}
	case []int16:
		for _, v := range d {
			le.PutUint16(b8[:], uint16(v))
			buf.Write(b8[:2])
		}
	case []int32:
		for _, v := range d {
			le.PutUint32(b8[:], uint32(v))
			buf.Write(b8[:4])
		}
	case []int64:
		for _, v := range d {
			le.PutUint64(b8[:], uint64(v))
			buf.Write(b8[:])
		}
	case []uint8:
		buf.Write(d)
	case []bool:
		for _, v := range d {
			if v {
				buf.WriteByte(1)
			} else {
				buf.WriteByte(0)
			}
		}
	case []string:
		w, _ := strconv.Atoi(descr[2:])
		for _, s := range d {
			buf.WriteString(s)
			for i := len(s); i < w; i++ {
				buf.WriteByte(0)
			}
		}
	}
}

// maxMembers bounds the number of arrays in one archive.
const maxMembers = 1 << 16

// ReadNPZ decodes an .npz archive (stored or deflated members). Arrays are
// returned in the archive's file order, named without the ".npy" suffix.
// The arrays together may take at most MaxBytes.
func ReadNPZ(r io.ReaderAt, size int64) ([]Array, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	if len(zr.File) > maxMembers {
		return nil, fmt.Errorf("npz: %d members exceed the limit %d", len(zr.File), maxMembers)
	}
	var out []Array
	seen := map[string]bool{}
	b := newBudget()
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("npz: member %q is not an .npy file", f.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("npz: duplicate array name %q", name)
		}
		seen[name] = true
		t, err := readMember(f, b)
		if err != nil {
			return nil, fmt.Errorf("npz: member %q: %w", f.Name, err)
		}
		out = append(out, Array{Name: name, Tensor: t})
	}
	return out, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func readMember(f *zip.File, b *budget) (*interp.Tensor, error) {
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return nil, fmt.Errorf("unsupported compression method %d", f.Method)
	}
	// The zip reader refuses to read past the size a member declares, so
	// that size bounds what the member can hold: it must fit what is left
	// of the budget (the header is not charged, only the array's memory is).
	declared := f.UncompressedSize64
	if declared > uint64(b.limit-b.used)+maxHeaderLen+12 {
		return nil, b.take(fmt.Sprintf("a member declaring %d uncompressed bytes", declared), declared)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	cr := &countingReader{r: rc}
	h, err := readHeader(cr)
	if err != nil {
		return nil, err
	}
	t, err := readBody(cr, h, b, int64(declared)-cr.n)
	if err != nil {
		return nil, err
	}
	// Drain to the end so the zip reader verifies the CRC and size.
	var one [1]byte
	n, err := io.ReadFull(rc, one[:])
	if n != 0 {
		return nil, errors.New("trailing bytes after array data")
	}
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return t, nil
}

// DecodeNPZ decodes an .npz archive held in memory.
func DecodeNPZ(b []byte) ([]Array, error) {
	return ReadNPZ(bytes.NewReader(b), int64(len(b)))
}

// ReadFile reads the .npz archive at path, with inputfile's bound on the
// file's size and MaxBytes on the arrays it holds.
func ReadFile(path string) ([]Array, error) {
	b, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	arrays, err := DecodeNPZ(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return arrays, nil
}

// WriteNPZ writes arrays, in order, as an uncompressed .npz archive like
// numpy.savez. Names must be unique and non-empty.
func WriteNPZ(w io.Writer, arrays []Array) error {
	zw := zip.NewWriter(w)
	seen := map[string]bool{}
	for _, a := range arrays {
		if a.Name == "" || seen[a.Name] {
			return fmt.Errorf("npz: array name %q is empty or repeated", a.Name)
		}
		seen[a.Name] = true
		var buf bytes.Buffer
		if err := WriteNPY(&buf, a.Tensor); err != nil {
			return fmt.Errorf("npz: array %q: %w", a.Name, err)
		}
		fh := &zip.FileHeader{Name: a.Name + ".npy", Method: zip.Store, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)} // fixed time: deterministic output
		fw, err := zw.CreateHeader(fh)
		if err != nil {
			return err
		}
		if _, err := fw.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return zw.Close()
}

// WriteFile writes arrays to path atomically: to a temporary file in the
// same directory, synced, then renamed over path.
func WriteFile(path string, arrays []Array) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = WriteNPZ(f, arrays); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
