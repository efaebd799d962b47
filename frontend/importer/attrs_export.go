package importer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/proto"
)

// AttrToProto converts a tfg attribute back into a TensorFlow AttrValue.
func AttrToProto(ctx *textir.Context, a textir.Attribute) (*tfpb.AttrValue, error) {
	switch a := a.(type) {
	case textir.UnitAttr:
		return &tfpb.AttrValue{}, nil
	case textir.ArrayAttr:
		l := &tfpb.AttrValue_ListValue{}
		for _, e := range a.Elems {
			if err := appendListElem(ctx, l, e); err != nil {
				return nil, err
			}
		}
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: l}}, nil
	}
	if o, ok := a.(textir.OpaqueAttr); ok && o.Dialect == tfg.Name && o.Name == "placeholder" {
		s, err := tfg.Unquote(o.Params)
		if err != nil {
			return nil, fmt.Errorf("bad #tfg.placeholder<%s>", o.Params)
		}
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Placeholder{Placeholder: s}}, nil
	}
	l := &tfpb.AttrValue_ListValue{}
	if err := appendListElem(ctx, l, a); err != nil {
		return nil, err
	}
	switch {
	case len(l.S) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: l.S[0]}}, nil
	case len(l.I) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: l.I[0]}}, nil
	case len(l.F) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_F{F: l.F[0]}}, nil
	case len(l.B) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: l.B[0]}}, nil
	case len(l.Type) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: l.Type[0]}}, nil
	case len(l.Shape) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: l.Shape[0]}}, nil
	case len(l.Tensor) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: l.Tensor[0]}}, nil
	case len(l.Func) == 1:
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: l.Func[0]}}, nil
	}
	return nil, fmt.Errorf("attribute %s has no TensorFlow equivalent", textir.AttrString(a))
}

var errPlaceholder = fmt.Errorf("a #tfg.placeholder attribute cannot be a list element")

// appendListElem adds one element to a list value, by kind.
func appendListElem(ctx *textir.Context, l *tfpb.AttrValue_ListValue, a textir.Attribute) error {
	switch a := a.(type) {
	case textir.StringAttr:
		l.S = append(l.S, []byte(a.Value))
	case textir.IntegerAttr:
		l.I = append(l.I, a.Value)
	case textir.FloatAttr:
		l.F = append(l.F, float32(a.Value))
	case textir.BoolAttr:
		l.B = append(l.B, a.Value)
	case textir.TypeAttr:
		dt, err := DType(a.Type)
		if err != nil {
			return err
		}
		l.Type = append(l.Type, dt)
	case *textir.DenseElementsAttr:
		t, err := TensorProto(a)
		if err != nil {
			return err
		}
		l.Tensor = append(l.Tensor, t)
	case textir.OpaqueAttr:
		if a.Dialect != tfg.Name {
			return fmt.Errorf("attribute %s has no TensorFlow equivalent", textir.AttrString(a))
		}
		switch a.Name {
		case "shape":
			s, err := tfg.ParseShape(a.Params)
			if err != nil {
				return err
			}
			l.Shape = append(l.Shape, shapeProto(s))
		case "tensor_proto":
			t, err := decodeOpaqueTensor(a.Params)
			if err != nil {
				return err
			}
			l.Tensor = append(l.Tensor, t)
		case "func":
			f, err := decodeFunc(ctx, a.Params)
			if err != nil {
				return err
			}
			l.Func = append(l.Func, f)
		case "placeholder":
			return errPlaceholder
		default:
			return fmt.Errorf("attribute %s has no TensorFlow equivalent", textir.AttrString(a))
		}
	default:
		return fmt.Errorf("attribute %s has no TensorFlow equivalent", textir.AttrString(a))
	}
	return nil
}

func decodeOpaqueTensor(params string) (*tfpb.TensorProto, error) {
	s, err := tfg.Unquote(params)
	if err != nil || !strings.HasPrefix(s, "0x") {
		return nil, fmt.Errorf("bad #tfg.tensor_proto<%s>", params)
	}
	raw := make([]byte, (len(s)-2)/2)
	for i := range raw {
		v, err := strconv.ParseUint(s[2+2*i:4+2*i], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("bad #tfg.tensor_proto: %v", err)
		}
		raw[i] = byte(v)
	}
	t := &tfpb.TensorProto{}
	if err := proto.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("bad #tfg.tensor_proto: %v", err)
	}
	return t, nil
}

// decodeFunc reads "@name, {attrs}" from a #tfg.func attribute.
func decodeFunc(ctx *textir.Context, params string) (*tfpb.NameAttrList, error) {
	a, err := textir.ParseAttribute(ctx, "["+params+"]")
	if err != nil {
		return nil, fmt.Errorf("bad #tfg.func<%s>: %v", params, err)
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok || len(arr.Elems) != 2 {
		return nil, fmt.Errorf("bad #tfg.func<%s>", params)
	}
	sym, ok1 := arr.Elems[0].(textir.SymbolRefAttr)
	dict, ok2 := arr.Elems[1].(textir.DictAttr)
	if !ok1 || !ok2 || len(sym.Nested) != 0 {
		return nil, fmt.Errorf("bad #tfg.func<%s>: want @name, {attrs}", params)
	}
	f := &tfpb.NameAttrList{Name: sym.Root, Attr: map[string]*tfpb.AttrValue{}}
	for _, e := range dict.Entries {
		v, err := AttrToProto(ctx, e.Value)
		if err != nil {
			return nil, fmt.Errorf("function %q attribute %q: %w", sym.Root, e.Name, err)
		}
		f.Attr[e.Name] = v
	}
	return f, nil
}

// FullType converts a FullTypeDef into a dictionary attribute.
func FullType(f *tfpb.FullTypeDef) textir.DictAttr {
	es := []textir.NamedAttribute{{Name: "type_id", Value: textir.IntegerAttr{Value: int64(f.TypeId), Type: textir.I32()}}}
	if len(f.Args) > 0 {
		var args []textir.Attribute
		for _, a := range f.Args {
			args = append(args, FullType(a))
		}
		es = append(es, textir.NamedAttribute{Name: "args", Value: textir.ArrayAttr{Elems: args}})
	}
	switch x := f.Attr.(type) {
	case *tfpb.FullTypeDef_S:
		es = append(es, textir.NamedAttribute{Name: "s", Value: textir.Str(x.S)})
	case *tfpb.FullTypeDef_I:
		es = append(es, textir.NamedAttribute{Name: "i", Value: textir.I64Attr(x.I)})
	}
	return textir.NewDictAttr(es)
}

// FullTypeProto converts the dictionary made by FullType back.
func FullTypeProto(a textir.Attribute) (*tfpb.FullTypeDef, error) {
	d, ok := a.(textir.DictAttr)
	if !ok {
		return nil, fmt.Errorf("full type must be a dictionary, got %s", textir.AttrString(a))
	}
	f := &tfpb.FullTypeDef{}
	for _, e := range d.Entries {
		switch v := e.Value.(type) {
		case textir.IntegerAttr:
			switch e.Name {
			case "type_id":
				f.TypeId = tfpb.FullTypeId(v.Value)
			case "i":
				f.Attr = &tfpb.FullTypeDef_I{I: v.Value}
			default:
				return nil, fmt.Errorf("full type: unknown field %q", e.Name)
			}
		case textir.StringAttr:
			if e.Name != "s" {
				return nil, fmt.Errorf("full type: unknown field %q", e.Name)
			}
			f.Attr = &tfpb.FullTypeDef_S{S: v.Value}
		case textir.ArrayAttr:
			if e.Name != "args" {
				return nil, fmt.Errorf("full type: unknown field %q", e.Name)
			}
			for _, x := range v.Elems {
				arg, err := FullTypeProto(x)
				if err != nil {
					return nil, err
				}
				f.Args = append(f.Args, arg)
			}
		default:
			return nil, fmt.Errorf("full type: bad field %q", e.Name)
		}
	}
	return f, nil
}
