package graphdef

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Write writes g to path, as binary protobuf (deterministic marshal,
// unknown fields preserved) or as multiline text format in TensorFlow's own
// style ("node {", fields in field-number order, map entries sorted by key,
// non-printable bytes as octal escapes). The text is a pure function of g:
// unlike Go's prototext it never varies between builds. Unknown fields
// cannot be spelled in text and are left out of text output.
//
// The file is written atomically: to a temporary file in the same directory,
// synced, then renamed over path. On failure no file is left behind.
func Write(path string, g *tfpb.GraphDef, binary bool) error {
	if g == nil {
		return errors.New("write: nil GraphDef")
	}
	var data []byte
	if binary {
		var err error
		data, err = proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	} else {
		data = MarshalText(g)
	}
	return writeAtomic(path, data)
}

func writeAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// MarshalText returns m in protobuf text format, TensorFlow style (see Write).
func MarshalText(m proto.Message) []byte {
	var p textPrinter
	p.message(m.ProtoReflect(), 0)
	return p.buf.Bytes()
}

type textPrinter struct {
	buf bytes.Buffer
}

func (p *textPrinter) indent(depth int) {
	for range depth {
		p.buf.WriteString("  ")
	}
}

func (p *textPrinter) message(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	order := make([]protoreflect.FieldDescriptor, fields.Len())
	for i := range order {
		order[i] = fields.Get(i)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Number() < order[j].Number() })
	for _, fd := range order {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsMap():
			p.mapField(fd, v.Map(), depth)
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				p.field(fd, l.Get(i), depth)
			}
		default:
			p.field(fd, v, depth)
		}
	}
}

func (p *textPrinter) field(fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) {
	p.indent(depth)
	p.buf.WriteString(string(fd.Name()))
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		p.buf.WriteString(" {\n")
		p.message(v.Message(), depth+1)
		p.indent(depth)
		p.buf.WriteString("}\n")
		return
	}
	p.buf.WriteString(": ")
	p.scalar(fd, v)
	p.buf.WriteByte('\n')
}

func (p *textPrinter) mapField(fd protoreflect.FieldDescriptor, m protoreflect.Map, depth int) {
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	kd, vd := fd.MapKey(), fd.MapValue()
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i].Value(), keys[j].Value()
		switch kd.Kind() {
		case protoreflect.StringKind:
			return a.String() < b.String()
		case protoreflect.BoolKind:
			return !a.Bool() && b.Bool()
		case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
			return a.Uint() < b.Uint()
		default:
			return a.Int() < b.Int()
		}
	})
	for _, k := range keys {
		p.indent(depth)
		p.buf.WriteString(string(fd.Name()))
		p.buf.WriteString(" {\n")
		p.field(kd, k.Value(), depth+1)
		p.field(vd, m.Get(k), depth+1)
		p.indent(depth)
		p.buf.WriteString("}\n")
	}
}

func (p *textPrinter) scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	b := &p.buf
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			b.WriteString(string(ev.Name()))
		} else {
			b.WriteString(strconv.FormatInt(int64(v.Enum()), 10))
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind:
		b.WriteString(formatFloat(v.Float(), 32))
	case protoreflect.DoubleKind:
		b.WriteString(formatFloat(v.Float(), 64))
	case protoreflect.StringKind:
		writeQuoted(b, []byte(v.String()))
	case protoreflect.BytesKind:
		writeQuoted(b, v.Bytes())
	}
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// writeQuoted writes s as a double-quoted text-format string, escaping like
// TensorFlow's CEscape: \n \r \t \" \' \\ and octal for other bytes outside
// printable ASCII.
func writeQuoted(b *bytes.Buffer, s []byte) {
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + (c>>3)&7)
				b.WriteByte('0' + c&7)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
