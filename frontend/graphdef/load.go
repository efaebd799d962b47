package graphdef

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// Format is the encoding of a file that Parse read.
type Format int

const (
	BinaryGraphDef Format = iota + 1
	TextGraphDef
	BinarySavedModel
	TextSavedModel
)

func (f Format) String() string {
	switch f {
	case BinaryGraphDef:
		return "binary GraphDef"
	case TextGraphDef:
		return "text GraphDef"
	case BinarySavedModel:
		return "binary SavedModel"
	case TextSavedModel:
		return "text SavedModel"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// File is a parsed graph file.
type File struct {
	Name   string
	Format Format
	// Graph is the GraphDef: the file itself, or the selected MetaGraph's graph_def.
	Graph *tfpb.GraphDef
	// SavedModel and MetaGraph are set for SavedModel files only.
	SavedModel *tfpb.SavedModel
	MetaGraph  *tfpb.MetaGraphDef
	// Signature is the selected SignatureDef, or nil (see WithSignature).
	Signature *ServingSignature
	// Signatures are the keys of the MetaGraph's SignatureDefs, sorted.
	Signatures []string
}

// NoSignatureError says why a SavedModel whose Signature is nil cannot be
// cut at a signature, and how to choose one: it names the signatures the
// MetaGraph has, or says it has none. It is nil for a GraphDef file and
// when a signature was selected.
func (f *File) NoSignatureError() error {
	if f.SavedModel == nil || f.Signature != nil {
		return nil
	}
	if len(f.Signatures) == 0 {
		return fmt.Errorf("%s: the SavedModel's MetaGraph has no signature to cut the graph at (the whole graph holds its savers and initializers): name the inputs and outputs to compute (--inputs, --outputs)", f.Name)
	}
	keys := make([]string, len(f.Signatures))
	for i, k := range f.Signatures {
		keys[i] = strconv.Quote(k)
	}
	return fmt.Errorf("%s: the SavedModel has no %q signature and %d others (%s): choose one with --signature, or cut the graph with --inputs and --outputs", f.Name, "serving_default", len(keys), strings.Join(keys, ", "))
}

// ServingSignature is a SignatureDef of a SavedModel, flattened and sorted by key.
type ServingSignature struct {
	Key        string
	MethodName string
	Inputs     []SignatureTensor
	Outputs    []SignatureTensor
}

// SignatureTensor is one input or output of a signature. Name is the graph
// tensor ("node:0"); for a sparse tensor it is the values tensor and Sparse
// holds all three.
type SignatureTensor struct {
	Key    string
	Name   string
	DType  tfpb.DataType
	Shape  *tfpb.TensorShapeProto
	Sparse *tfpb.TensorInfo_CooSparse
}

// InputNames returns the graph tensor names of the signature's inputs.
func (s *ServingSignature) InputNames() []string { return tensorNames(s.Inputs) }

// OutputNames returns the graph tensor names of the signature's outputs.
func (s *ServingSignature) OutputNames() []string { return tensorNames(s.Outputs) }

func tensorNames(ts []SignatureTensor) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// Option configures Load and Parse.
type Option func(*options)

type options struct {
	tags         []string
	signature    string
	sigExplicit  bool
	tagsExplicit bool
}

// WithTags selects the SavedModel MetaGraph whose tag set equals tags
// (default: "serve"). It does not apply to GraphDef files.
func WithTags(tags ...string) Option {
	return func(o *options) { o.tags = slices.Clone(tags); o.tagsExplicit = true }
}

// WithSignature selects the SavedModel SignatureDef by key (default:
// "serving_default"). A signature asked for explicitly must exist. When the
// default is absent, the MetaGraph's only signature is selected if it has
// exactly one; otherwise File.Signature is nil (File.NoSignatureError says
// why).
func WithSignature(key string) Option {
	return func(o *options) { o.signature = key; o.sigExplicit = true }
}

// Load reads and parses the graph file at path (see Parse). The file is read
// with inputfile's bound on its size (a device such as /dev/zero included).
func Load(path string, opts ...Option) (*File, error) {
	data, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path, opts...)
}

// Parse parses a binary or text GraphDef or SavedModel, telling which from
// the content. name is used in error messages. Parsed graphs are checked for
// DataType values outside the enum; Validate does the structural checks.
func Parse(data []byte, name string, opts ...Option) (*File, error) {
	o := options{tags: []string{"serve"}, signature: "serving_default"}
	for _, opt := range opts {
		opt(&o)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty input", name)
	}
	f := &File{Name: name}
	if looksLikeText(data) {
		if isSavedModelText(data) {
			f.Format = TextSavedModel
			f.SavedModel = &tfpb.SavedModel{}
			if err := unmarshalText(data, name, f.SavedModel); err != nil {
				return nil, err
			}
		} else {
			f.Format = TextGraphDef
			f.Graph = &tfpb.GraphDef{}
			if err := unmarshalText(data, name, f.Graph); err != nil {
				return nil, err
			}
		}
	} else {
		if isSavedModelBinary(data) {
			f.Format = BinarySavedModel
			f.SavedModel = &tfpb.SavedModel{}
			if err := unmarshalBinary(data, name, f.SavedModel); err != nil {
				return nil, err
			}
		} else {
			f.Format = BinaryGraphDef
			f.Graph = &tfpb.GraphDef{}
			if err := unmarshalBinary(data, name, f.Graph); err != nil {
				if line, col, c, ok := textWithControlByte(data); ok {
					// A text file with a stray NUL or other control byte:
					// say so where it is, not where binary decoding failed.
					return nil, fmt.Errorf("%s:%d:%d: text format: control character %#02x in a text GraphDef (a text file holds none; read as binary, the file is malformed too)", name, line, col, c)
				}
				return nil, err
			}
		}
	}
	if f.Format == BinarySavedModel && len(f.SavedModel.GetMetaGraphs()) == 0 {
		// A varint in field 1 is a SavedModel's schema version, and the
		// wrong wire type for a GraphDef's nodes: it is neither.
		err := unmarshalBinary(data, name, &tfpb.GraphDef{})
		if err == nil {
			return nil, fmt.Errorf("%s: neither a GraphDef (its field 1, a GraphDef's nodes, holds a number) nor a SavedModel with a graph (read as one, that number its schema version, it has no meta graphs)", name)
		}
		return nil, fmt.Errorf("%w (nor is it a SavedModel: read as one, it has no meta graphs)", err)
	}
	if f.SavedModel != nil {
		if err := f.selectMetaGraph(&o); err != nil {
			return nil, err
		}
	}
	if err := checkDTypes(f.Graph); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

func (f *File) selectMetaGraph(o *options) error {
	mgs := f.SavedModel.GetMetaGraphs()
	if len(mgs) == 0 {
		return fmt.Errorf("%s: SavedModel has no meta graphs", f.Name)
	}
	want := slices.Clone(o.tags)
	sort.Strings(want)
	var have []string
	for _, mg := range mgs {
		tags := slices.Clone(mg.GetMetaInfoDef().GetTags())
		sort.Strings(tags)
		if slices.Equal(compactTags(tags), compactTags(want)) {
			f.MetaGraph = mg
			break
		}
		have = append(have, "["+strings.Join(tags, ",")+"]")
	}
	if f.MetaGraph == nil {
		return fmt.Errorf("%s: no meta graph has tags [%s]; available: %s", f.Name, strings.Join(want, ","), strings.Join(have, " "))
	}
	f.Graph = f.MetaGraph.GetGraphDef()
	if f.Graph == nil {
		f.Graph = &tfpb.GraphDef{}
	}
	for k := range f.MetaGraph.GetSignatureDef() {
		f.Signatures = append(f.Signatures, k)
	}
	sort.Strings(f.Signatures)
	key := o.signature
	sd, ok := f.MetaGraph.GetSignatureDef()[key]
	if !ok {
		if o.sigExplicit {
			keys := make([]string, len(f.Signatures))
			for i, k := range f.Signatures {
				keys[i] = strconv.Quote(k)
			}
			if len(keys) == 0 {
				keys = []string{"none"}
			}
			return fmt.Errorf("%s: meta graph has no signature %q; available: %s", f.Name, o.signature, strings.Join(keys, ", "))
		}
		if len(f.Signatures) != 1 {
			return nil
		}
		// An export without serving_default and with one signature
		// (an Estimator's "predict", a hand-built "serving") is served
		// through that one.
		key = f.Signatures[0]
		sd = f.MetaGraph.GetSignatureDef()[key]
	}
	f.Signature = &ServingSignature{Key: key, MethodName: sd.GetMethodName(),
		Inputs: flattenTensorInfos(sd.GetInputs()), Outputs: flattenTensorInfos(sd.GetOutputs())}
	return nil
}

func compactTags(t []string) []string { return slices.Compact(t) }

func flattenTensorInfos(m map[string]*tfpb.TensorInfo) []SignatureTensor {
	var out []SignatureTensor
	for k, ti := range m {
		st := SignatureTensor{Key: k, Name: ti.GetName(), DType: ti.GetDtype(), Shape: ti.GetTensorShape()}
		if sp := ti.GetCooSparse(); sp != nil {
			st.Sparse = sp
			st.Name = sp.GetValuesTensorName()
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// looksLikeText reports whether data is protobuf text format rather than
// binary: no control bytes in its first 4 KiB, and its first token (after
// whitespace and # comments) starts a field name. Binary GraphDefs start with
// tag 0x0a (a newline) but soon contain length bytes below 0x20.
func looksLikeText(data []byte) bool {
	head := data[:min(len(data), 4096)]
	for i := 0; i < len(head); i++ {
		c := head[i]
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' {
			return false
		}
		if c == 0x7f {
			return false
		}
	}
	tok := firstToken(head)
	return tok != "" && (tok[0] == '_' || tok[0] == '[' || (tok[0]|0x20 >= 'a' && tok[0]|0x20 <= 'z'))
}

// textWithControlByte reports the 1-based line and column of the first
// control byte of data, and the byte, when data otherwise reads as protobuf
// text: its first token starts a field name, the bytes before the control
// byte are printable text, and control bytes are rare (at most one in 64).
// Binary protobuf has length and tag bytes below 0x20 throughout.
func textWithControlByte(data []byte) (line, col int, c byte, ok bool) {
	isCtl := func(c byte) bool {
		return (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') || c == 0x7f
	}
	at, n := -1, 0
	for i, b := range data {
		if isCtl(b) {
			if at < 0 {
				at = i
			}
			n++
		}
	}
	if at < 0 || n > 1+len(data)/64 {
		return 0, 0, 0, false
	}
	tok := firstToken(data[:at])
	if tok == "" || !(tok[0] == '_' || (tok[0]|0x20 >= 'a' && tok[0]|0x20 <= 'z')) {
		return 0, 0, 0, false
	}
	line = 1 + bytes.Count(data[:at], []byte("\n"))
	col = at - bytes.LastIndexByte(data[:at], '\n')
	return line, col, data[at], true
}

// firstToken returns the first identifier-like token of text, skipping
// whitespace and # comments.
func firstToken(b []byte) string {
	for len(b) > 0 {
		switch {
		case b[0] == '#':
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				b = b[i+1:]
			} else {
				return ""
			}
		case b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r' || b[0] == '\f' || b[0] == '\v':
			b = b[1:]
		default:
			end := 0
			for end < len(b) && (b[end] == '_' || b[end] == '[' || b[end] == '.' || b[end] == '/' ||
				(b[end] >= '0' && b[end] <= '9') || (b[end]|0x20 >= 'a' && b[end]|0x20 <= 'z')) {
				end++
			}
			if end == 0 {
				return string(b[:1])
			}
			return string(b[:end])
		}
	}
	return ""
}

func isSavedModelText(data []byte) bool {
	switch firstToken(data[:min(len(data), 4096)]) {
	case "saved_model_schema_version", "meta_graphs":
		return true
	}
	return false
}

// isSavedModelBinary tells a SavedModel from a GraphDef by their top-level
// fields: SavedModel has 1 = varint schema version and 2 = meta graphs;
// GraphDef has 1 = nodes (length-delimited), 2 = library, 3, 4, 5. A message
// made only of field 2 is a SavedModel when it decodes as one whose meta
// graphs carry a graph or tags.
func isSavedModelBinary(data []byte) bool {
	b := data
	only2 := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		switch {
		case num == 1 && typ == protowire.VarintType:
			return true
		case num == 1 || num >= 3:
			return false
		case num == 2 && typ == protowire.BytesType:
			only2 = true
		default:
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		b = b[n+m:]
	}
	if !only2 {
		return false
	}
	sm := &tfpb.SavedModel{}
	if proto.Unmarshal(data, sm) != nil {
		return false
	}
	for _, mg := range sm.GetMetaGraphs() {
		if mg.GetGraphDef() == nil && len(mg.GetMetaInfoDef().GetTags()) == 0 {
			return false
		}
	}
	return len(sm.GetMetaGraphs()) > 0
}

// unmarshalText parses text format (see UnmarshalText); errors are reported
// as name:line:col, naming the enclosing node when there is one.
func unmarshalText(data []byte, name string, m proto.Message) error {
	err := UnmarshalText(data, m)
	if err == nil {
		return nil
	}
	var te *TextError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: text format: %v", name, err)
	}
	loc := fmt.Sprintf("%s:%d:%d", name, te.Line, te.Col)
	if node := enclosingNode(data, te.Line); node != "" {
		return fmt.Errorf("%s: text format: in node %q: %s", loc, node, te.Msg)
	}
	return fmt.Errorf("%s: text format: %s", loc, te.Msg)
}

// enclosingNode finds the name of the top-level node block that contains
// the 1-based line, by scanning for the last "node {" before it at column 1
// and the first `name:` after that.
func enclosingNode(data []byte, line int) string {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return ""
	}
	for i := line - 1; i >= 0; i-- {
		l, ok := bytes.CutPrefix(lines[i], []byte("node"))
		if !ok {
			continue
		}
		l = bytes.TrimSpace(l)
		l = bytes.TrimPrefix(l, []byte(":"))
		l, ok = bytes.CutPrefix(bytes.TrimSpace(l), []byte("{"))
		if !ok {
			continue
		}
		for j := i; j < len(lines) && j < i+8; j++ {
			t := bytes.TrimSpace(lines[j])
			if j == i {
				t = bytes.TrimSpace(l)
			}
			if v, ok := bytes.CutPrefix(t, []byte("name:")); ok {
				v = bytes.TrimSpace(v)
				if k := bytes.LastIndexByte(v, '"'); k > 0 {
					if s, err := strconv.Unquote(string(v[:k+1])); err == nil {
						return s
					}
				}
				return ""
			}
		}
		return ""
	}
	return ""
}

// unmarshalBinary parses binary protobuf; on failure it locates the first
// malformed byte by walking the wire format against the message schema.
func unmarshalBinary(data []byte, name string, m proto.Message) error {
	err := proto.Unmarshal(data, m)
	if err == nil {
		return nil
	}
	if off, why := findMalformed(data, m.ProtoReflect().Descriptor(), 0, 0); off >= 0 {
		return fmt.Errorf("%s: truncated or malformed binary protobuf at byte offset %d: %s", name, off, why)
	}
	return fmt.Errorf("%s: truncated or malformed binary protobuf: %v", name, strings.TrimPrefix(err.Error(), "proto: "))
}

// findMalformed walks b as message md and returns the absolute offset of the
// first wire-format error and a description, or -1.
func findMalformed(b []byte, md protoreflect.MessageDescriptor, base, depth int) (int, string) {
	if depth > 100 {
		return base, "nesting too deep"
	}
	pos := 0
	for pos < len(b) {
		num, typ, n := protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return base + pos, "bad field tag: " + protowire.ParseError(n).Error()
		}
		if num == 0 {
			return base + pos, "field number 0"
		}
		fieldStart := pos
		pos += n
		m := protowire.ConsumeFieldValue(num, typ, b[pos:])
		if m < 0 {
			fd := md.Fields().ByNumber(num)
			what := fmt.Sprintf("field %d", num)
			if fd != nil {
				what = fmt.Sprintf("field %s (%d)", fd.Name(), num)
			}
			return base + fieldStart, fmt.Sprintf("%s of %s: %v", what, md.FullName(), protowire.ParseError(m))
		}
		val := b[pos : pos+m]
		fd := md.Fields().ByNumber(num)
		if fd != nil {
			if off, why := checkField(fd, typ, val, base+pos, depth); off >= 0 {
				return off, why
			}
		}
		pos += m
	}
	return -1, ""
}

func checkField(fd protoreflect.FieldDescriptor, typ protowire.Type, val []byte, base, depth int) (int, string) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if typ != protowire.BytesType {
			return -1, ""
		}
		v, n := protowire.ConsumeBytes(val)
		return findMalformed(v, fd.Message(), base+n-len(v), depth+1)
	case protoreflect.StringKind:
		if typ != protowire.BytesType {
			return -1, ""
		}
		s, n := protowire.ConsumeBytes(val)
		if !utf8.Valid(s) {
			return base + n - len(s), fmt.Sprintf("field %s of %s is not valid UTF-8", fd.Name(), fd.ContainingMessage().FullName())
		}
	}
	if fd.IsList() && typ == protowire.BytesType && fd.Kind() != protoreflect.BytesKind && fd.Kind() != protoreflect.StringKind {
		// A packed list: its elements must decode exactly.
		p, n := protowire.ConsumeBytes(val)
		off := n - len(p)
		for len(p) > 0 {
			var k int
			switch fd.Kind() {
			case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
				_, k = protowire.ConsumeFixed32(p)
			case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
				_, k = protowire.ConsumeFixed64(p)
			default:
				_, k = protowire.ConsumeVarint(p)
			}
			if k < 0 {
				return base + off, fmt.Sprintf("packed field %s of %s: %v", fd.Name(), fd.ContainingMessage().FullName(), protowire.ParseError(k))
			}
			p = p[k:]
			off += k
		}
	}
	return -1, ""
}

// checkDTypes rejects DataType values that are not in the enum (binary and
// text both accept any number for an open enum), naming the node and attr.
func checkDTypes(g *tfpb.GraphDef) error {
	var errs []error
	check := func(where string, n *tfpb.NodeDef) {
		keys := make([]string, 0, len(n.GetAttr()))
		for k := range n.GetAttr() {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if bad, ok := badDType(n.GetAttr()[k]); ok && len(errs) < maxErrors {
				errs = append(errs, &NodeError{Node: n.GetName(), Where: where,
					Err: fmt.Errorf("attr %q: unknown DataType enum value %d", k, bad)})
			}
		}
	}
	for _, n := range g.GetNode() {
		check("", n)
	}
	for _, fn := range g.GetLibrary().GetFunction() {
		for _, n := range fn.GetNodeDef() {
			check("function "+strconv.Quote(fn.GetSignature().GetName()), n)
		}
	}
	return errors.Join(errs...)
}

func knownDType(t tfpb.DataType) bool {
	_, ok := tfpb.DataType_name[int32(t)]
	return ok
}

func badDType(v *tfpb.AttrValue) (int32, bool) {
	switch x := v.GetValue().(type) {
	case *tfpb.AttrValue_Type:
		if !knownDType(x.Type) {
			return int32(x.Type), true
		}
	case *tfpb.AttrValue_Tensor:
		if !knownDType(x.Tensor.GetDtype()) {
			return int32(x.Tensor.GetDtype()), true
		}
	case *tfpb.AttrValue_List:
		for _, t := range x.List.GetType() {
			if !knownDType(t) {
				return int32(t), true
			}
		}
		for _, t := range x.List.GetTensor() {
			if !knownDType(t.GetDtype()) {
				return int32(t.GetDtype()), true
			}
		}
	}
	return 0, false
}
