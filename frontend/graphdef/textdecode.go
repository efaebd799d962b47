package graphdef

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// UnmarshalText parses protobuf text format into m, which is reset first.
// It works for any message type: fields are found through m's descriptor.
//
// It accepts the language Go's prototext accepts, and decodes it to an equal
// message, with these deliberate differences:
//
//   - Extension fields and the expanded google.protobuf.Any form
//     ([type.googleapis.com/pkg.Msg] { ... }) are rejected with an error
//     saying so; the plain Any form (type_url: "..." value: "...") works.
//   - An Any's type_url must be valid UTF-8 (prototext does not check it).
//   - A value of a closed (proto2) enum outside the enum ends up among the
//     message's unknown fields, as binary decoding does, instead of in the
//     field.
//   - Values of reserved field names are skipped with a schema-less parse
//     whose errors are reported (prototext ignores some of them).
//
// Errors are *TextError values naming the line and column. Nesting deeper
// than 10,000 messages is an error, as in prototext.
//
// The decoder scans the input bytes once and emits the binary wire format,
// which proto.Unmarshal then turns into m; no token strings are built.
func UnmarshalText(data []byte, m proto.Message) error {
	chunk := 0
	if len(data) >= parallelMinInput && runtime.GOMAXPROCS(0) > 1 {
		chunk = parallelChunk
	}
	return decodeText(data, m, chunk)
}

// decodeText is UnmarshalText, in a pipeline with chunks of about chunk
// bytes of wire format when chunk > 0.
func decodeText(data []byte, m proto.Message, chunk int) error {
	proto.Reset(m)
	mi := messageInfoFor(m.ProtoReflect().Descriptor())
	if chunk > 0 {
		return unmarshalTextParallel(data, m, mi, chunk)
	}
	d := textDecoder{in: data, out: make([]byte, 0, len(data)/2+16)}
	if err := d.topLevel(mi); err != nil {
		return err
	}
	return unmarshalWire(d.out, m, false)
}

func unmarshalWire(b []byte, m proto.Message, partial bool) error {
	err := proto.UnmarshalOptions{RecursionLimit: math.MaxInt32, AllowPartial: partial}.Unmarshal(b, m)
	if err != nil {
		return &TextError{Line: 1, Col: 1, Msg: strings.TrimPrefix(err.Error(), "proto: ")}
	}
	return nil
}

// Large inputs are decoded in a pipeline: the scanner cuts the wire format
// into chunks at top-level field boundaries and workers unmarshal each chunk
// into its own message while the scanner goes on. The chunk messages are
// then merged in order, moving (not copying) their values: since the scanner
// rejects a repeated non-repeated field, this equals unmarshaling the whole.
const (
	parallelMinInput = 4 << 20
	parallelChunk    = 2 << 20
)

func unmarshalTextParallel(data []byte, m proto.Message, mi *messageInfo, size int) error {
	type chunk struct {
		wire []byte
		msg  proto.Message
		err  error
		done chan struct{}
	}
	var chunks []*chunk
	work := make(chan *chunk, 64)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				c.err = unmarshalWire(c.wire, c.msg, true)
				c.wire = nil
				close(c.done)
			}
		}()
	}
	mt := m.ProtoReflect().Type()
	d := textDecoder{in: data, out: make([]byte, 0, size+size/4), chunk: size}
	d.flush = func() {
		c := &chunk{wire: d.out, msg: mt.New().Interface(), done: make(chan struct{})}
		chunks = append(chunks, c)
		work <- c
		d.out = make([]byte, 0, size+size/4)
	}
	err := d.topLevel(mi)
	if err == nil {
		d.flush()
	}
	close(work)
	wg.Wait()
	if err != nil {
		return err
	}
	dst := m.ProtoReflect()
	for _, c := range chunks {
		if c.err != nil {
			return c.err
		}
		moveFields(dst, c.msg.ProtoReflect())
	}
	if err := proto.CheckInitialized(m); err != nil {
		return &TextError{Line: 1, Col: 1, Msg: strings.TrimPrefix(err.Error(), "proto: ")}
	}
	return nil
}

// moveFields merges src into dst as unmarshaling src's wire format after
// dst's would, for messages that share no non-repeated field: lists are
// appended, map entries set, other fields set. Values are shared, not copied.
func moveFields(dst, src protoreflect.Message) {
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			dl, sl := dst.Mutable(fd).List(), v.List()
			for i := range sl.Len() {
				dl.Append(sl.Get(i))
			}
		case fd.IsMap():
			dm := dst.Mutable(fd).Map()
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				dm.Set(k, mv)
				return true
			})
		default:
			dst.Set(fd, v)
		}
		return true
	})
}

// TextError is an error in protobuf text format input.
type TextError struct {
	Offset    int // byte offset of the error in the input
	Line, Col int // 1-based; Col counts runes, as prototext does
	Msg       string
	// unsupported marks input that prototext accepts but UnmarshalText
	// deliberately rejects (see UnmarshalText).
	unsupported bool
}

func (e *TextError) Error() string {
	return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
}

const msgBadUTF8 = "contains invalid UTF-8"

// maxTextDepth bounds message nesting, counted as prototext counts it: the
// top-level message is 1, a map field adds 1 besides its value message.
const maxTextDepth = 10000

// messageInfo is what the decoder needs of a message descriptor, built once
// per descriptor.
type messageInfo struct {
	desc     protoreflect.MessageDescriptor
	fields   map[string]*fieldInfo // by text name
	names    []namedField          // the same, for small messages (nil if large)
	reserved protoreflect.Names
	isAny    bool
	words    int // uint64 words of the seen-field bitset
	typeURL  *fieldInfo
	anyValue *fieldInfo
}

type namedField struct {
	name string
	fi   *fieldInfo
}

// lookup finds a field by text name.
func (mi *messageInfo) lookup(name []byte) *fieldInfo {
	if mi.names == nil {
		return mi.fields[string(name)]
	}
	for i := range mi.names {
		nf := &mi.names[i]
		if len(nf.name) == len(name) && nf.name == string(name) {
			return nf.fi
		}
	}
	return nil
}

type fieldInfo struct {
	fd       protoreflect.FieldDescriptor
	kind     protoreflect.Kind
	tag      []byte // tag of one value (start-group tag for groups)
	endTag   []byte // end-group tag for groups
	list     bool
	isMap    bool
	isMsg    bool // message or group kind (for maps: the entry)
	utf8     bool // string value must be valid UTF-8
	seenBit  int  // bit in the seen set: the field index
	oneofBit int  // bit of the containing oneof, or -1
	key, val *fieldInfo
	msg      atomic.Pointer[messageInfo]
}

var messageInfos sync.Map // protoreflect.MessageDescriptor -> *messageInfo

func messageInfoFor(md protoreflect.MessageDescriptor) *messageInfo {
	if mi, ok := messageInfos.Load(md); ok {
		return mi.(*messageInfo)
	}
	mi, _ := messageInfos.LoadOrStore(md, newMessageInfo(md))
	return mi.(*messageInfo)
}

func newMessageInfo(md protoreflect.MessageDescriptor) *messageInfo {
	fields := md.Fields()
	mi := &messageInfo{
		desc:     md,
		fields:   make(map[string]*fieldInfo, fields.Len()),
		reserved: md.ReservedNames(),
		isAny:    md.FullName() == "google.protobuf.Any",
		words:    (fields.Len() + md.Oneofs().Len() + 63) / 64,
	}
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		fi := newFieldInfo(fd)
		fi.seenBit = fd.Index()
		if od := fd.ContainingOneof(); od != nil {
			fi.oneofBit = fields.Len() + od.Index()
		}
		// The descriptor decides which names mean fd: its text name, and
		// for a group also the lower-cased one.
		for _, name := range []string{fd.TextName(), strings.ToLower(fd.TextName())} {
			if fields.ByTextName(name) == fd {
				mi.fields[name] = fi
			}
		}
	}
	if len(mi.fields) <= 16 {
		mi.names = make([]namedField, 0, len(mi.fields))
		for i := 0; i < fields.Len(); i++ {
			for name, fi := range mi.fields {
				if fi.fd == fields.Get(i) {
					mi.names = append(mi.names, namedField{name, fi})
				}
			}
		}
	}
	if mi.isAny {
		mi.typeURL = newFieldInfo(fields.ByNumber(1))
		mi.anyValue = newFieldInfo(fields.ByNumber(2))
	}
	return mi
}

func newFieldInfo(fd protoreflect.FieldDescriptor) *fieldInfo {
	fi := &fieldInfo{fd: fd, kind: fd.Kind(), list: fd.IsList(), isMap: fd.IsMap(), oneofBit: -1}
	num := fd.Number()
	switch fi.kind {
	case protoreflect.MessageKind:
		fi.isMsg = true
		fi.tag = protowire.AppendTag(nil, num, protowire.BytesType)
	case protoreflect.GroupKind:
		fi.isMsg = true
		fi.tag = protowire.AppendTag(nil, num, protowire.StartGroupType)
		fi.endTag = protowire.AppendTag(nil, num, protowire.EndGroupType)
	case protoreflect.StringKind, protoreflect.BytesKind:
		fi.tag = protowire.AppendTag(nil, num, protowire.BytesType)
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		fi.tag = protowire.AppendTag(nil, num, protowire.Fixed32Type)
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		fi.tag = protowire.AppendTag(nil, num, protowire.Fixed64Type)
	default:
		fi.tag = protowire.AppendTag(nil, num, protowire.VarintType)
	}
	fi.utf8 = fi.kind == protoreflect.StringKind && enforceUTF8(fd)
	if fi.isMap {
		fi.key = newFieldInfo(fd.MapKey())
		fi.val = newFieldInfo(fd.MapValue())
	}
	return fi
}

// enforceUTF8 reports whether string field fd must hold valid UTF-8: proto3
// fields, and editions fields whose features say so.
func enforceUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Syntax() == protoreflect.Editions {
		if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return e.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

func (fi *fieldInfo) message() *messageInfo {
	if mi := fi.msg.Load(); mi != nil {
		return mi
	}
	mi := messageInfoFor(fi.fd.Message())
	fi.msg.Store(mi)
	return mi
}

type textDecoder struct {
	in      []byte
	pos     int
	out     []byte   // wire format
	seen    []uint64 // stack of per-message seen-field bitsets
	scratch []byte
	// flush, when set, takes d.out between top-level fields once it has
	// grown past chunk bytes.
	flush func()
	chunk int
}

// Character classes.
const (
	clDelimNot = 1 << iota // - + . _ letters digits: not a delimiter
	clIdent                // _ letters digits
	clPlain                // string bytes copied as they are (ASCII)
)

var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			t[c] |= clDelimNot | clIdent
		case c == '-' || c == '+' || c == '.':
			t[c] |= clDelimNot
		}
		if c != 0 && c != '\n' && c != '"' && c != '\'' && c != '\\' && c < utf8.RuneSelf {
			t[c] |= clPlain
		}
	}
	return t
}()

func isDelim(c byte) bool { return charClass[c]&clDelimNot == 0 }

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// skip skips whitespace (space, tab, CR, LF) and # comments.
func (d *textDecoder) skip() {
	in, p := d.in, d.pos
	for p < len(in) {
		switch in[p] {
		case ' ', '\n', '\t', '\r':
			p++
		case '#':
			for p < len(in) && in[p] != '\n' {
				p++
			}
		default:
			d.pos = p
			return
		}
	}
	d.pos = p
}

// skipFrom returns the offset after whitespace and comments from p.
func (d *textDecoder) skipFrom(p int) int {
	save := d.pos
	d.pos = p
	d.skip()
	p, d.pos = d.pos, save
	return p
}

func (d *textDecoder) errAt(off int, format string, args ...any) *TextError {
	off = min(max(off, 0), len(d.in))
	b := d.in[:off]
	line := 1
	start := 0
	for i, c := range b {
		if c == '\n' {
			line++
			start = i + 1
		}
	}
	return &TextError{Offset: off, Line: line, Col: utf8.RuneCount(b[start:]) + 1, Msg: fmt.Sprintf(format, args...)}
}

func (d *textDecoder) errEOF() error { return d.errAt(len(d.in), "unexpected EOF") }

// errToken reports an unexpected token at the current position.
func (d *textDecoder) errToken() error {
	if d.pos >= len(d.in) {
		return d.errEOF()
	}
	return d.errAt(d.pos, "unexpected token: %s", d.tokenText(d.pos))
}

// tokenText is the text of the token at p, for messages: up to the next
// delimiter, at least one rune, at most about 32 bytes.
func (d *textDecoder) tokenText(p int) string {
	s := d.in[p:]
	i := 0
	for i < len(s) && i <= 32 {
		c := s[i]
		if c >= utf8.RuneSelf || (c != '/' && isDelim(c)) {
			break
		}
		i++
	}
	if i == 0 {
		_, n := utf8.DecodeRune(s)
		return string(s[:n])
	}
	if i > 32 && i < len(s) {
		return string(s[:i]) + "…"
	}
	return string(s[:i])
}

func (d *textDecoder) topLevel(mi *messageInfo) error {
	return d.messageBody(mi, 0, maxTextDepth-1)
}

func closeFor(open byte) byte {
	if open == '<' {
		return '>'
	}
	return '}'
}

func otherClose(c byte) byte {
	if c == '}' {
		return '>'
	}
	return '}'
}

// identLen returns the length of the identifier at the start of s (with an
// optional leading '-' when neg), or 0 if there is none or it is not
// followed by a delimiter.
func identLen(s []byte, neg bool) int {
	i := 0
	if neg && len(s) > 0 && s[0] == '-' {
		i = 1
	}
	if i >= len(s) || !isLetter(s[i]) {
		return 0
	}
	i++
	for i < len(s) && charClass[s[i]]&clIdent != 0 {
		i++
	}
	if i < len(s) && !isDelim(s[i]) {
		return 0
	}
	return i
}

// messageBody parses the fields of a message up to its close character
// (0 at top level: up to EOF). budget is the nesting still allowed.
func (d *textDecoder) messageBody(mi *messageInfo, closeCh byte, budget int) error {
	if mi.isAny {
		return d.anyBody(mi, closeCh)
	}
	base := len(d.seen)
	for range mi.words {
		d.seen = append(d.seen, 0)
	}
	defer func() { d.seen = d.seen[:base] }()
	for afterField := false; ; afterField = true {
		if done, err := d.nextField(closeCh, afterField); done || err != nil {
			return err
		}
		start := d.pos
		fi, hasSep, err := d.fieldName(mi)
		if err != nil {
			return err
		}
		if fi == nil {
			if err := d.skipValue(budget); err != nil {
				return err
			}
		} else if err := d.field(fi, hasSep, start, base, budget); err != nil {
			return err
		}
		if closeCh == 0 && d.flush != nil && len(d.out) >= d.chunk {
			d.flush()
		}
	}
}

// nextField skips to the start of the next field of a message body that
// closeCh closes (0 at top level: EOF), past one ',' or ';' if afterField
// (a field has just been read). done reports the end of the body, its close
// character consumed.
func (d *textDecoder) nextField(closeCh byte, afterField bool) (done bool, err error) {
	for {
		d.skip()
		if d.pos >= len(d.in) {
			if closeCh == 0 {
				return true, nil
			}
			return false, d.errEOF()
		}
		c := d.in[d.pos]
		if closeCh != 0 {
			if c == closeCh {
				d.pos++
				return true, nil
			}
			if c == otherClose(closeCh) {
				return false, d.errAt(d.pos, "syntax error: mismatched close character %q", c)
			}
		}
		if afterField && (c == ',' || c == ';') {
			d.pos++
			afterField = false
			continue
		}
		return false, nil
	}
}

// colon skips the optional ':' after a field name, and the space around it,
// and reports whether it was there.
func (d *textDecoder) colon() bool {
	d.skip()
	if d.pos < len(d.in) && d.in[d.pos] == ':' {
		d.pos++
		d.skip()
		return true
	}
	return false
}

// fieldName reads a field name and the optional ':' after it. It returns a
// nil fieldInfo for a reserved name, whose value is to be skipped.
func (d *textDecoder) fieldName(mi *messageInfo) (*fieldInfo, bool, error) {
	start := d.pos
	c := d.in[start]
	if c == '[' {
		if mi.isAny {
			return nil, false, d.unsupported(start, "expanded google.protobuf.Any syntax ([type_url] {...}) is not supported; use type_url and value")
		}
		if mi.desc.ExtensionRanges().Len() == 0 {
			return nil, false, d.errAt(start, "extension field syntax ([name]): %v has no extensions", mi.desc.FullName())
		}
		return nil, false, d.unsupported(start, "extension field syntax ([name]) is not supported in %v", mi.desc.FullName())
	}
	n := identLen(d.in[start:], false)
	if n == 0 {
		if c == '-' || c >= '0' && c <= '9' {
			return nil, false, d.errAt(start, "cannot specify field by number: %s", d.tokenText(start))
		}
		return nil, false, d.errAt(start, "syntax error: invalid field name: %s", d.tokenText(start))
	}
	name := d.in[start : start+n]
	d.pos += n
	hasSep := d.colon()
	fi := mi.lookup(name)
	if fi == nil {
		if mi.isAny || !mi.reserved.Has(protoreflect.Name(name)) {
			return nil, false, d.errAt(start, "unknown field: %s", name)
		}
	}
	return fi, hasSep, nil
}

func (d *textDecoder) unsupported(off int, format string, args ...any) error {
	e := d.errAt(off, format, args...)
	e.unsupported = true
	return e
}

func (d *textDecoder) missingSep(start int) error {
	return d.errAt(start, "syntax error: missing field separator :")
}

func (d *textDecoder) depthError() error {
	return d.errAt(d.pos, "exceeded maximum recursion depth (%d)", maxTextDepth)
}

// field parses the value of field fi, whose name starts at start.
func (d *textDecoder) field(fi *fieldInfo, hasSep bool, start, seenBase, budget int) error {
	switch {
	case fi.isMap:
		if budget--; budget < 0 {
			return d.depthError()
		}
		if d.pos >= len(d.in) {
			return d.errEOF()
		}
		switch d.in[d.pos] {
		case '{', '<':
			return d.mapEntry(fi, budget)
		case '[':
			return d.list(fi, budget, d.mapEntry)
		}
		return d.errToken()
	case fi.list:
		if !fi.isMsg && !hasSep {
			return d.missingSep(start)
		}
		if d.pos >= len(d.in) {
			return d.errEOF()
		}
		c := d.in[d.pos]
		if c == '[' {
			if fi.isMsg {
				return d.list(fi, budget, d.message)
			}
			return d.list(fi, budget, d.scalarElem)
		}
		if fi.isMsg {
			return d.message(fi, budget)
		}
		return d.scalarElem(fi, budget)
	}
	if !fi.isMsg && !hasSep {
		return d.missingSep(start)
	}
	if fi.oneofBit >= 0 {
		w, b := seenBase+fi.oneofBit/64, uint64(1)<<(fi.oneofBit%64)
		if d.seen[w]&b != 0 {
			return d.errAt(start, "error parsing %q, oneof %v is already set", fi.fd.TextName(), fi.fd.ContainingOneof().FullName())
		}
		d.seen[w] |= b
	}
	w, b := seenBase+fi.seenBit/64, uint64(1)<<(fi.seenBit%64)
	if d.seen[w]&b != 0 {
		return d.errAt(start, "non-repeated field %q is repeated", fi.fd.TextName())
	}
	d.seen[w] |= b
	if fi.isMsg {
		return d.message(fi, budget)
	}
	return d.scalarElem(fi, budget)
}

// list parses [ elem, elem, ... ] with elem parsing one element.
func (d *textDecoder) list(fi *fieldInfo, budget int, elem func(*fieldInfo, int) error) error {
	d.pos++ // [
	d.skip()
	if d.pos < len(d.in) && d.in[d.pos] == ']' {
		d.pos++
		return nil
	}
	for {
		if d.pos >= len(d.in) {
			return d.errEOF()
		}
		if err := elem(fi, budget); err != nil {
			return err
		}
		d.skip()
		if d.pos >= len(d.in) {
			return d.errEOF()
		}
		switch c := d.in[d.pos]; c {
		case ']':
			d.pos++
			return nil
		case ',':
			d.pos++
			d.skip()
		default:
			return d.errAt(d.pos, "syntax error: unexpected character %q", c)
		}
	}
}

// message parses { fields } or < fields > as a value of fi.
func (d *textDecoder) message(fi *fieldInfo, budget int) error {
	if budget--; budget < 0 {
		return d.depthError()
	}
	if d.pos >= len(d.in) {
		return d.errEOF()
	}
	open := d.in[d.pos]
	if open != '{' && open != '<' {
		return d.errToken()
	}
	d.pos++
	d.out = append(d.out, fi.tag...)
	if fi.endTag != nil {
		if err := d.messageBody(fi.message(), closeFor(open), budget); err != nil {
			return err
		}
		d.out = append(d.out, fi.endTag...)
		return nil
	}
	at := d.beginLen()
	if err := d.messageBody(fi.message(), closeFor(open), budget); err != nil {
		return err
	}
	d.endLen(at)
	return nil
}

// beginLen reserves one byte for a length prefix and returns its offset.
func (d *textDecoder) beginLen() int {
	d.out = append(d.out, 0)
	return len(d.out) - 1
}

// endLen writes the length of what follows the prefix at at, widening the
// prefix when the length needs more than one byte.
func (d *textDecoder) endLen(at int) {
	n := len(d.out) - at - 1
	if n < 0x80 {
		d.out[at] = byte(n)
		return
	}
	k := protowire.SizeVarint(uint64(n))
	for range k - 1 {
		d.out = append(d.out, 0)
	}
	copy(d.out[at+k:], d.out[at+1:at+1+n])
	protowire.AppendVarint(d.out[at:at], uint64(n))
}

// mapEntry parses one { key: k value: v } entry of map field fi.
func (d *textDecoder) mapEntry(fi *fieldInfo, budget int) error {
	if d.pos >= len(d.in) {
		return d.errEOF()
	}
	open := d.in[d.pos]
	if open != '{' && open != '<' {
		return d.errToken()
	}
	closeCh := closeFor(open)
	d.pos++
	d.out = append(d.out, fi.tag...)
	at := d.beginLen()
	var haveKey, haveVal bool
	for afterField := false; ; afterField = true {
		done, err := d.nextField(closeCh, afterField)
		if err != nil {
			return err
		}
		if done {
			break
		}
		start := d.pos
		c := d.in[start]
		n := identLen(d.in[start:], false)
		if n == 0 {
			if c == '[' || c == '-' || c >= '0' && c <= '9' {
				return d.errAt(start, "unknown map entry field %q", d.tokenText(start))
			}
			return d.errAt(start, "syntax error: invalid field name: %s", d.tokenText(start))
		}
		name := string(d.in[start : start+n])
		d.pos += n
		hasSep := d.colon()
		var sub *fieldInfo
		switch name {
		case "key":
			if !hasSep {
				return d.missingSep(start)
			}
			if haveKey {
				return d.errAt(start, "map entry %q cannot be repeated", name)
			}
			haveKey = true
			sub = fi.key
		case "value":
			if !fi.val.isMsg && !hasSep {
				return d.missingSep(start)
			}
			if haveVal {
				return d.errAt(start, "map entry %q cannot be repeated", name)
			}
			haveVal = true
			sub = fi.val
		default:
			return d.errAt(start, "unknown map entry field %q", name)
		}
		if sub.isMsg {
			err = d.message(sub, budget)
		} else {
			err = d.scalarElem(sub, budget)
		}
		if err != nil {
			return err
		}
	}
	d.endLen(at)
	return nil
}

// anyBody parses the fields of a google.protobuf.Any in its plain form.
func (d *textDecoder) anyBody(mi *messageInfo, closeCh byte) error {
	var seenURL, seenValue bool
	for afterField := false; ; afterField = true {
		if done, err := d.nextField(closeCh, afterField); done || err != nil {
			return err
		}
		start := d.pos
		fi, hasSep, err := d.fieldName(mi)
		if err != nil {
			return err
		}
		if !hasSep {
			return d.missingSep(start)
		}
		switch fi.fd.Number() {
		case 1:
			if seenURL {
				return d.errAt(start, "duplicate google.protobuf.Any.type_url field")
			}
			seenURL = true
			fi = mi.typeURL
		default:
			if seenValue {
				return d.errAt(start, "duplicate google.protobuf.Any.value field")
			}
			seenValue = true
			fi = mi.anyValue
		}
		if d.pos >= len(d.in) {
			return d.errEOF()
		}
		if err := d.scalarElem(fi, 0); err != nil {
			if te, ok := err.(*TextError); ok && fi == mi.typeURL && te.Msg == msgBadUTF8 {
				te.unsupported = true
			}
			return err
		}
	}
}

// skipValue skips the value of a reserved field: a scalar, a message or a
// list of either, without a schema.
func (d *textDecoder) skipValue(budget int) error {
	if budget--; budget < 0 {
		return d.depthError()
	}
	if d.pos >= len(d.in) {
		return d.errEOF()
	}
	switch c := d.in[d.pos]; c {
	case '{', '<':
		closeCh := closeFor(c)
		d.pos++
		for {
			d.skip()
			if d.pos >= len(d.in) {
				return d.errEOF()
			}
			c := d.in[d.pos]
			if c == closeCh {
				d.pos++
				return nil
			}
			switch {
			case c == ',' || c == ';':
				d.pos++
				continue
			case c == '[':
				i := d.pos
				for i < len(d.in) && d.in[i] != ']' {
					i++
				}
				if i == len(d.in) {
					return d.errEOF()
				}
				d.pos = i + 1
			default:
				n := identLen(d.in[d.pos:], false)
				if n == 0 {
					return d.errAt(d.pos, "syntax error: invalid field name: %s", d.tokenText(d.pos))
				}
				d.pos += n
			}
			d.colon()
			if err := d.skipValue(budget); err != nil {
				return err
			}
		}
	case '[':
		d.pos++
		for {
			d.skip()
			if d.pos >= len(d.in) {
				return d.errEOF()
			}
			switch d.in[d.pos] {
			case ']':
				d.pos++
				return nil
			case ',':
				d.pos++
				continue
			}
			if err := d.skipValue(budget); err != nil {
				return err
			}
		}
	}
	start := len(d.out)
	defer func() { d.out = d.out[:start] }()
	if c := d.in[d.pos]; c == '"' || c == '\'' {
		_, err := d.strings()
		return err
	}
	if n := identLen(d.in[d.pos:], true); n > 0 {
		d.pos += n
		return nil
	}
	if num := scanNumber(d.in, d.pos, d); num.size > 0 {
		d.pos += num.size
		return nil
	}
	return d.errAt(d.pos, "syntax error: invalid scalar value: %s", d.tokenText(d.pos))
}

// scalarElem parses one scalar value of fi and emits it, tagged.
func (d *textDecoder) scalarElem(fi *fieldInfo, _ int) error {
	if d.pos >= len(d.in) {
		return d.errEOF()
	}
	start := d.pos
	c := d.in[start]
	if fi.kind == protoreflect.StringKind || fi.kind == protoreflect.BytesKind {
		if c != '"' && c != '\'' {
			return d.badScalar(fi, start)
		}
		d.out = append(d.out, fi.tag...)
		at := d.beginLen()
		rawBytes, err := d.strings()
		if err != nil {
			return err
		}
		if fi.utf8 && rawBytes && !utf8.Valid(d.out[at+1:]) {
			return d.errAt(start, msgBadUTF8)
		}
		d.endLen(at)
		return nil
	}
	if c == '"' || c == '\'' {
		if _, err := d.strings(); err != nil {
			return err
		}
		return d.invalidValue(fi, start)
	}
	if c == '{' || c == '<' || c == '[' {
		return d.errToken()
	}
	// A literal (identifier) or a number.
	if n := identLen(d.in[start:], true); n > 0 {
		d.pos += n
		return d.literal(fi, start, d.in[start:start+n])
	}
	num := scanNumber(d.in, start, d)
	if num.size == 0 {
		return d.errAt(start, "syntax error: invalid scalar value: %s", d.tokenText(start))
	}
	d.pos += num.size
	return d.number(fi, start, num)
}

func (d *textDecoder) badScalar(fi *fieldInfo, start int) error {
	c := d.in[start]
	if c == '{' || c == '<' || c == '[' {
		return d.errToken()
	}
	if n := identLen(d.in[start:], true); n > 0 {
		d.pos += n
		return d.invalidValue(fi, start)
	}
	if num := scanNumber(d.in, start, d); num.size > 0 {
		d.pos += num.size
		return d.invalidValue(fi, start)
	}
	return d.errAt(start, "syntax error: invalid scalar value: %s", d.tokenText(start))
}

func (d *textDecoder) invalidValue(fi *fieldInfo, start int) error {
	raw := d.in[start:d.pos]
	if len(raw) > 64 {
		raw = append(raw[:64:64], "…"...)
	}
	return d.errAt(start, "invalid value for %v type: %s", fi.kind, raw)
}

// literal decodes an identifier value: a bool, a float name or an enum name.
func (d *textDecoder) literal(fi *fieldInfo, start int, lit []byte) error {
	switch fi.kind {
	case protoreflect.BoolKind:
		switch string(lit) {
		case "t", "true", "True":
			d.out = append(append(d.out, fi.tag...), 1)
			return nil
		case "f", "false", "False":
			d.out = append(append(d.out, fi.tag...), 0)
			return nil
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if f, ok := floatLiteral(lit); ok {
			d.emitFloat(fi, f)
			return nil
		}
	case protoreflect.EnumKind:
		if lit[0] != '-' {
			if ev := fi.fd.Enum().Values().ByName(protoreflect.Name(lit)); ev != nil {
				d.out = protowire.AppendVarint(append(d.out, fi.tag...), uint64(int64(ev.Number())))
				return nil
			}
		}
	}
	return d.invalidValue(fi, start)
}

func floatLiteral(lit []byte) (float64, bool) {
	neg := lit[0] == '-'
	s := lit
	if neg {
		s = s[1:]
	}
	var f float64
	switch {
	case asciiEqualFold(s, "inf"), asciiEqualFold(s, "infinity"):
		f = math.Inf(1)
		if neg {
			f = math.Inf(-1)
		}
	case asciiEqualFold(s, "nan") && !neg:
		f = math.NaN()
	default:
		return 0, false
	}
	return f, true
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if b[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

func (d *textDecoder) emitFloat(fi *fieldInfo, f float64) {
	d.out = append(d.out, fi.tag...)
	if fi.kind == protoreflect.FloatKind {
		d.out = protowire.AppendFixed32(d.out, math.Float32bits(float32(f)))
	} else {
		d.out = protowire.AppendFixed64(d.out, math.Float64bits(f))
	}
}

// Number forms.
const (
	numDec = iota
	numHex
	numOct
	numFloat
)

// numToken is a number scanned at some offset: size bytes in all, a minus
// sign, then (after optional whitespace and comments) the digits at
// digits:end, where end excludes a float's f suffix.
type numToken struct {
	size        int
	neg         bool
	kind        int
	digits, end int // absolute offsets
}

// scanNumber scans a number at in[p:] as prototext does: -? (0x hex+ |
// 0 octal+ | dec? (. dec*)? (e [+-]? dec*)? f?) followed by a delimiter.
// It returns size 0 when there is no number.
func scanNumber(in []byte, p int, d *textDecoder) numToken {
	start := p
	var t numToken
	if p < len(in) && in[p] == '-' {
		t.neg = true
		p = d.skipFrom(p + 1)
	}
	if p >= len(in) {
		return numToken{}
	}
	t.digits = p
	s := in[p:]
	i := 0
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	switch c := s[0]; {
	case c == '0' && len(s) > 1 && (s[1] == 'x' || s[1] == 'X'):
		i = 2
		for i < len(s) && (isDigit(s[i]) || s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f') {
			i++
		}
		if i == 2 || i < len(s) && !isDelim(s[i]) {
			return numToken{}
		}
		t.kind = numHex
		t.end = p + i
		t.size = t.end - start
		return t
	case c == '0' && len(s) > 1 && s[1] >= '0' && s[1] <= '7':
		i = 2
		for i < len(s) && s[i] >= '0' && s[i] <= '7' {
			i++
		}
		if i < len(s) && !isDelim(s[i]) {
			return numToken{}
		}
		t.kind = numOct
		t.end = p + i
		t.size = t.end - start
		return t
	case c == '0':
		i = 1
	case c >= '1' && c <= '9':
		i = 1
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	case c == '.':
		t.kind = numFloat
	default:
		return numToken{}
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) && t.kind == numFloat {
			return numToken{}
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		t.kind = numFloat
	}
	if len(s)-i >= 2 && (s[i] == 'e' || s[i] == 'E') {
		t.kind = numFloat
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
			if i == len(s) {
				return numToken{}
			}
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	t.end = p + i
	if i < len(s) && (s[i] == 'f' || s[i] == 'F') {
		t.kind = numFloat
		i++
	}
	if i < len(s) && !isDelim(s[i]) {
		return numToken{}
	}
	t.size = p + i - start
	return t
}

// numString is the number's text as strconv reads it: sign and digits,
// without whitespace between them or a float suffix. It aliases the input
// or the decoder's scratch buffer.
func (d *textDecoder) numString(t numToken) string {
	digits := d.in[t.digits:t.end]
	if t.neg {
		if t.digits > 0 && d.in[t.digits-1] == '-' {
			digits = d.in[t.digits-1 : t.end]
		} else {
			d.scratch = append(append(d.scratch[:0], '-'), digits...)
			digits = d.scratch
		}
	}
	return unsafe.String(unsafe.SliceData(digits), len(digits))
}

// number decodes a numeric value for fi and emits it.
func (d *textDecoder) number(fi *fieldInfo, start int, t numToken) error {
	s := d.numString(t)
	isFloat := t.kind == numFloat
	var v uint64
	switch fi.kind {
	case protoreflect.BoolKind:
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil || n > 1 {
			return d.invalidValue(fi, start)
		}
		v = n
	case protoreflect.Int32Kind, protoreflect.EnumKind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if isFloat {
			return d.invalidValue(fi, start)
		}
		n, err := strconv.ParseInt(s, 0, 32)
		if err != nil {
			return d.invalidValue(fi, start)
		}
		switch fi.kind {
		case protoreflect.Sint32Kind:
			v = protowire.EncodeZigZag(n)
		case protoreflect.Sfixed32Kind:
			d.out = protowire.AppendFixed32(append(d.out, fi.tag...), uint32(int32(n)))
			return nil
		default:
			v = uint64(n)
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if isFloat {
			return d.invalidValue(fi, start)
		}
		n, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return d.invalidValue(fi, start)
		}
		switch fi.kind {
		case protoreflect.Sint64Kind:
			v = protowire.EncodeZigZag(n)
		case protoreflect.Sfixed64Kind:
			d.out = protowire.AppendFixed64(append(d.out, fi.tag...), uint64(n))
			return nil
		default:
			v = uint64(n)
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if isFloat || t.neg {
			return d.invalidValue(fi, start)
		}
		n, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return d.invalidValue(fi, start)
		}
		if fi.kind == protoreflect.Fixed32Kind {
			d.out = protowire.AppendFixed32(append(d.out, fi.tag...), uint32(n))
			return nil
		}
		v = n
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if isFloat || t.neg {
			return d.invalidValue(fi, start)
		}
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return d.invalidValue(fi, start)
		}
		if fi.kind == protoreflect.Fixed64Kind {
			d.out = protowire.AppendFixed64(append(d.out, fi.tag...), n)
			return nil
		}
		v = n
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return d.invalidValue(fi, start)
		}
		d.emitFloat(fi, f)
		return nil
	default:
		return d.invalidValue(fi, start)
	}
	d.out = protowire.AppendVarint(append(d.out, fi.tag...), v)
	return nil
}

// strings decodes one or more adjacent quoted strings ("a" 'b' ...) at the
// current position, appending their bytes to d.out. It reports whether an
// escape produced a byte outside ASCII (so the result may not be UTF-8).
func (d *textDecoder) strings() (rawBytes bool, err error) {
	in := d.in
	for {
		start := d.pos
		quote := in[start]
		p := start + 1
		for {
			q := p
			for q < len(in) && charClass[in[q]]&clPlain != 0 {
				q++
			}
			d.out = append(d.out, in[p:q]...)
			p = q
			if p >= len(in) {
				d.pos = p
				return false, d.errEOF()
			}
			c := in[p]
			if c == quote {
				p++
				break
			}
			switch {
			case c == '\\':
				n, raw, err := d.escape(p)
				if err != nil {
					return false, err
				}
				rawBytes = rawBytes || raw
				p += n
			case c >= utf8.RuneSelf:
				r, n := utf8.DecodeRune(in[p:])
				if r == utf8.RuneError && n == 1 {
					return false, d.errAt(p, "syntax error: invalid UTF-8 detected")
				}
				d.out = append(d.out, in[p:p+n]...)
				p += n
			case c == 0 || c == '\n':
				return false, d.errAt(p, "syntax error: invalid character %q in string", c)
			default: // the other quote
				d.out = append(d.out, c)
				p++
			}
		}
		d.pos = p
		d.skip()
		if d.pos >= len(in) || in[d.pos] != '"' && in[d.pos] != '\'' {
			return rawBytes, nil
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func hexVal(c byte) uint32 {
	if c <= '9' {
		return uint32(c - '0')
	}
	return uint32(c|0x20-'a') + 10
}

// hexN parses exactly n hex digits at s, or reports false.
func hexN(s []byte, n int) (uint32, bool) {
	if len(s) < n {
		return 0, false
	}
	var v uint32
	for _, c := range s[:n] {
		if !isHex(c) {
			return 0, false
		}
		v = v<<4 | hexVal(c)
	}
	return v, true
}

// escape decodes the escape sequence at in[p] == '\\', appending its bytes,
// and returns its length and whether it produced a raw non-ASCII byte.
func (d *textDecoder) escape(p int) (int, bool, error) {
	in := d.in[p:]
	if len(in) < 2 {
		return 0, false, d.errAt(len(d.in), "unexpected EOF")
	}
	switch c := in[1]; c {
	case '"', '\'', '\\', '?':
		d.out = append(d.out, c)
	case 'a':
		d.out = append(d.out, '\a')
	case 'b':
		d.out = append(d.out, '\b')
	case 'n':
		d.out = append(d.out, '\n')
	case 'r':
		d.out = append(d.out, '\r')
	case 't':
		d.out = append(d.out, '\t')
	case 'v':
		d.out = append(d.out, '\v')
	case 'f':
		d.out = append(d.out, '\f')
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, v := 0, uint32(0)
		for n < 3 && 1+n < len(in) && in[1+n] >= '0' && in[1+n] <= '7' {
			v = v<<3 | uint32(in[1+n]-'0')
			n++
		}
		if v > 0xff {
			return 0, false, d.errAt(p, "syntax error: invalid octal escape code %q in string", in[:1+n])
		}
		d.out = append(d.out, byte(v))
		return 1 + n, v >= utf8.RuneSelf, nil
	case 'x':
		n, v := 0, uint32(0)
		for n < 2 && 2+n < len(in) && isHex(in[2+n]) {
			v = v<<4 | hexVal(in[2+n])
			n++
		}
		if n == 0 {
			return 0, false, d.errAt(p, "syntax error: invalid hex escape code %q in string", in[:2])
		}
		d.out = append(d.out, byte(v))
		return 2 + n, v >= utf8.RuneSelf, nil
	case 'u', 'U':
		n := 6
		if c == 'U' {
			n = 10
		}
		if len(in) < n {
			return 0, false, d.errAt(len(d.in), "unexpected EOF")
		}
		v, ok := hexN(in[2:], n-2)
		if !ok || v > utf8.MaxRune {
			return 0, false, d.errAt(p, "syntax error: invalid Unicode escape code %q in string", in[:n])
		}
		r := rune(v)
		if utf16.IsSurrogate(r) {
			rest := in[n:]
			if len(rest) < 6 {
				return 0, false, d.errAt(len(d.in), "unexpected EOF")
			}
			lo, ok := hexN(rest[2:], 4)
			r = utf16.DecodeRune(r, rune(lo))
			if rest[0] != '\\' || rest[1] != 'u' || r == utf8.RuneError || !ok {
				return 0, false, d.errAt(p+n, "syntax error: invalid Unicode escape code %q in string", rest[:6])
			}
			n += 6
		}
		d.out = utf8.AppendRune(d.out, r)
		return n, false, nil
	default:
		return 0, false, d.errAt(p, "syntax error: invalid escape code %q in string", in[:2])
	}
	return 2, false, nil
}
