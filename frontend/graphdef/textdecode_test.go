package graphdef

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// kindsFile declares test messages covering every field kind, built at run
// time (dynamicpb) so the decoder is tested beyond the TensorFlow schema:
//
//	syntax = "proto3";
//	enum Color { RED = 0; GREEN = 1; BLUE = -2; }
//	message Kinds {
//	  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4;
//	  sint32 s32 = 5; sint64 s64 = 6; fixed32 f32 = 7; fixed64 f64 = 8;
//	  sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;
//	  bool b = 13; string s = 14; bytes by = 15; Color color = 16; Kinds child = 17;
//	  repeated int32 ri32 = 21; ... (a repeated field of each kind above, number+20)
//	  map<string, int32> msi = 41; map<int64, Kinds> mik = 42; map<bool, string> mbs = 43;
//	  map<uint32, Color> muc = 44; map<string, bytes> msb = 45;
//	  oneof choice { string os = 51; Kinds om = 52; int64 oi = 53; }
//	  optional int32 opt = 54;
//	  google.protobuf.Any any = 55; repeated google.protobuf.Any rany = 56;
//	}
//	// proto2:
//	message Legacy { optional int32 a = 1; optional group G = 2 { optional string s = 3; }
//	                 repeated group R = 4 { optional int32 x = 5; } optional string raw = 6; }
var kindsFile = func() protoreflect.FileDescriptor {
	kinds := []descriptorpb.FieldDescriptorProto_Type{
		descriptorpb.FieldDescriptorProto_TYPE_INT32, descriptorpb.FieldDescriptorProto_TYPE_INT64,
		descriptorpb.FieldDescriptorProto_TYPE_UINT32, descriptorpb.FieldDescriptorProto_TYPE_UINT64,
		descriptorpb.FieldDescriptorProto_TYPE_SINT32, descriptorpb.FieldDescriptorProto_TYPE_SINT64,
		descriptorpb.FieldDescriptorProto_TYPE_FIXED32, descriptorpb.FieldDescriptorProto_TYPE_FIXED64,
		descriptorpb.FieldDescriptorProto_TYPE_SFIXED32, descriptorpb.FieldDescriptorProto_TYPE_SFIXED64,
		descriptorpb.FieldDescriptorProto_TYPE_FLOAT, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE,
		descriptorpb.FieldDescriptorProto_TYPE_BOOL, descriptorpb.FieldDescriptorProto_TYPE_STRING,
		descriptorpb.FieldDescriptorProto_TYPE_BYTES, descriptorpb.FieldDescriptorProto_TYPE_ENUM,
		descriptorpb.FieldDescriptorProto_TYPE_MESSAGE,
	}
	names := []string{"i32", "i64", "u32", "u64", "s32", "s64", "f32", "f64", "sf32", "sf64", "fl", "db", "b", "s", "by", "color", "child"}
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	typeName := func(t descriptorpb.FieldDescriptorProto_Type) *string {
		switch t {
		case descriptorpb.FieldDescriptorProto_TYPE_ENUM:
			return proto.String(".kt.Color")
		case descriptorpb.FieldDescriptorProto_TYPE_MESSAGE:
			return proto.String(".kt.Kinds")
		}
		return nil
	}
	field := func(name string, num int32, label *descriptorpb.FieldDescriptorProto_Label, t descriptorpb.FieldDescriptorProto_Type, tn *string) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Label: label, Type: t.Enum(), TypeName: tn, JsonName: proto.String(name)}
	}
	var fields []*descriptorpb.FieldDescriptorProto
	for i, k := range kinds {
		fields = append(fields, field(names[i], int32(i+1), opt, k, typeName(k)))
		fields = append(fields, field("r"+names[i], int32(i+21), rep, k, typeName(k)))
	}
	var entries []*descriptorpb.DescriptorProto
	mapField := func(name string, num int32, entry string, kt, vt descriptorpb.FieldDescriptorProto_Type) {
		entries = append(entries, &descriptorpb.DescriptorProto{
			Name:    proto.String(entry),
			Field:   []*descriptorpb.FieldDescriptorProto{field("key", 1, opt, kt, typeName(kt)), field("value", 2, opt, vt, typeName(vt))},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		})
		fields = append(fields, field(name, num, rep, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, proto.String(".kt.Kinds."+entry)))
	}
	mapField("msi", 41, "MsiEntry", descriptorpb.FieldDescriptorProto_TYPE_STRING, descriptorpb.FieldDescriptorProto_TYPE_INT32)
	mapField("mik", 42, "MikEntry", descriptorpb.FieldDescriptorProto_TYPE_INT64, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	mapField("mbs", 43, "MbsEntry", descriptorpb.FieldDescriptorProto_TYPE_BOOL, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	mapField("muc", 44, "MucEntry", descriptorpb.FieldDescriptorProto_TYPE_UINT32, descriptorpb.FieldDescriptorProto_TYPE_ENUM)
	mapField("msb", 45, "MsbEntry", descriptorpb.FieldDescriptorProto_TYPE_STRING, descriptorpb.FieldDescriptorProto_TYPE_BYTES)
	oneof := func(f *descriptorpb.FieldDescriptorProto, idx int32) *descriptorpb.FieldDescriptorProto {
		f.OneofIndex = proto.Int32(idx)
		return f
	}
	fields = append(fields,
		oneof(field("os", 51, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING, nil), 0),
		oneof(field("om", 52, opt, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, proto.String(".kt.Kinds")), 0),
		oneof(field("oi", 53, opt, descriptorpb.FieldDescriptorProto_TYPE_INT64, nil), 0),
	)
	o := oneof(field("opt", 54, opt, descriptorpb.FieldDescriptorProto_TYPE_INT32, nil), 1)
	o.Proto3Optional = proto.Bool(true)
	fields = append(fields, o,
		field("any", 55, opt, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, proto.String(".google.protobuf.Any")),
		field("rany", 56, rep, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, proto.String(".google.protobuf.Any")))
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("kinds_test.proto"),
		Package:    proto.String("kt"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/any.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("Color"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("RED"), Number: proto.Int32(0)}, {Name: proto.String("GREEN"), Number: proto.Int32(1)}, {Name: proto.String("BLUE"), Number: proto.Int32(-2)}}}},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Kinds"), Field: fields, NestedType: entries,
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice")}, {Name: proto.String("_opt")}},
		}},
	}
	var _ *anypb.Any // any.proto must be registered
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return fd
}()

var legacyFile = func() protoreflect.FileDescriptor {
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	f := func(name string, num int32, label *descriptorpb.FieldDescriptorProto_Label, t descriptorpb.FieldDescriptorProto_Type, tn string) *descriptorpb.FieldDescriptorProto {
		fd := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Label: label, Type: t.Enum()}
		if tn != "" {
			fd.TypeName = proto.String(tn)
		}
		return fd
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("legacy_test.proto"),
		Package: proto.String("kt"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Legacy"),
			Field: []*descriptorpb.FieldDescriptorProto{
				f("a", 1, opt, descriptorpb.FieldDescriptorProto_TYPE_INT32, ""),
				f("g", 2, opt, descriptorpb.FieldDescriptorProto_TYPE_GROUP, ".kt.Legacy.G"),
				f("r", 4, rep, descriptorpb.FieldDescriptorProto_TYPE_GROUP, ".kt.Legacy.R"),
				f("raw", 6, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING, ""),
			},
			NestedType: []*descriptorpb.DescriptorProto{
				{Name: proto.String("G"), Field: []*descriptorpb.FieldDescriptorProto{f("s", 3, opt, descriptorpb.FieldDescriptorProto_TYPE_STRING, "")}},
				{Name: proto.String("R"), Field: []*descriptorpb.FieldDescriptorProto{f("x", 5, opt, descriptorpb.FieldDescriptorProto_TYPE_INT32, "")}},
			},
			ReservedName: []string{"old_name"},
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return fd
}()

func newKinds() proto.Message {
	return dynamicpb.NewMessage(kindsFile.Messages().ByName("Kinds"))
}

func newLegacy() proto.Message {
	return dynamicpb.NewMessage(legacyFile.Messages().ByName("Legacy"))
}

func newGraphDef() proto.Message   { return &tfpb.GraphDef{} }
func newSavedModel() proto.Message { return &tfpb.SavedModel{} }

// decodeBoth decodes data with prototext and with UnmarshalText. A panic in
// prototext is reported as its error.
func decodeBoth(data []byte, newMsg func() proto.Message) (want, got proto.Message, errWant, errGot error) {
	want, got = newMsg(), newMsg()
	func() {
		defer func() {
			if r := recover(); r != nil {
				errWant = fmt.Errorf("prototext panicked: %v", r)
			}
		}()
		errWant = prototext.Unmarshal(data, want)
	}()
	errGot = UnmarshalText(data, got)
	// The pipelined decoder, with tiny chunks, must agree with the serial one.
	par := newMsg()
	errPar := decodeText(data, par, 16)
	if (errPar == nil) != (errGot == nil) || errGot == nil && !proto.Equal(par, got) {
		errGot = fmt.Errorf("pipelined decoding differs: serial %v, pipelined %v", errGot, errPar)
	}
	return want, got, errWant, errGot
}

// checkSame fails unless both decoders accept data with equal messages or
// both reject it. Input that UnmarshalText rejects as deliberately
// unsupported is skipped.
func checkSame(t *testing.T, data []byte, newMsg func() proto.Message) {
	t.Helper()
	want, got, errWant, errGot := decodeBoth(data, newMsg)
	var te *TextError
	if errGot != nil && errors.As(errGot, &te) && te.unsupported {
		return
	}
	switch {
	case errWant != nil && errGot != nil:
	case errWant != nil:
		t.Fatalf("prototext rejects, UnmarshalText accepts %q\nprototext: %v\ngot: %v", data, errWant, prototext.Format(got))
	case errGot != nil:
		t.Fatalf("prototext accepts, UnmarshalText rejects %q: %v\nprototext: %v", data, errGot, prototext.Format(want))
	case !proto.Equal(want, got):
		t.Fatalf("messages differ for %q\nprototext: %v\ngot:       %v", data, prototext.Format(want), prototext.Format(got))
	}
}

func TestUnmarshalTextRealGraphs(t *testing.T) {
	dir := graphdefsDir(t)
	for _, g := range realGraphs {
		t.Run(g.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, g.file))
			if err != nil {
				t.Fatal(err)
			}
			want, got, errWant, errGot := decodeBoth(data, newGraphDef)
			if errWant != nil || errGot != nil {
				t.Fatalf("prototext: %v; UnmarshalText: %v", errWant, errGot)
			}
			if !proto.Equal(want, got) {
				t.Fatal("UnmarshalText and prototext decode differently")
			}
			if n := len(got.(*tfpb.GraphDef).GetNode()); n != g.nodes {
				t.Errorf("%d nodes, want %d", n, g.nodes)
			}
			// Our own printer's output decodes back to the same graph.
			back := &tfpb.GraphDef{}
			if err := UnmarshalText(MarshalText(got), back); err != nil || !proto.Equal(back, got) {
				t.Errorf("MarshalText round trip: %v", err)
			}
		})
	}
}

// TestUnmarshalTextSyntax checks each piece of the text format: accepted
// forms decode to what prototext decodes (and, where given, to an explicit
// message); rejected forms fail in both, with the error expected here.
func TestUnmarshalTextSyntax(t *testing.T) {
	type tc struct {
		name string
		in   string
		msg  func() proto.Message // default newKinds
		want string               // accepted: expected message in prototext form ("" to skip); rejected: ""
		err  string               // regexp the error must match; "" when accepted
	}
	cases := []tc{
		// Structure.
		{name: "empty", in: "", want: ""},
		{name: "comments only", in: "# a\n  # b", want: ""},
		{name: "message braces", in: "child { i32: 1 }", want: "child:{i32:1}"},
		{name: "message colon braces", in: "child: { i32: 1 }", want: "child:{i32:1}"},
		{name: "message angle", in: "child < i32: 1 >", want: "child:{i32:1}"},
		{name: "message colon angle", in: "child: <i32: 1>", want: "child:{i32:1}"},
		{name: "nested", in: "child { child { s: 'x' } }", want: `child:{child:{s:"x"}}`},
		{name: "separators", in: "i32: 1, i64: 2; u32: 3 child { b: t; }, s: ''", want: "i32:1 i64:2 u32:3 child:{b:true}"},
		{name: "no space", in: `s:"a"by:"b"child{i32:1}`, want: `s:"a" by:"b" child:{i32:1}`},
		{name: "trailing separator", in: "i32: 1,", want: "i32:1"},
		{name: "comment between", in: "i32 # c\n : # d\n 5", want: "i32:5"},
		{name: "double separator", in: "i32: 1,, i64: 2", err: `^line 1:8: syntax error: invalid field name: ,`},
		{name: "leading separator", in: ", i32: 1", err: `^line 1:1: syntax error: invalid field name`},
		{name: "separator after open", in: "child { ; i32: 1 }", err: `invalid field name`},
		{name: "mismatched close", in: "child { i32: 1 >", err: `^line 1:16: syntax error: mismatched close character '>'`},
		{name: "mismatched close angle", in: "child < i32: 1 }", err: `mismatched close character '}'`},
		{name: "unclosed", in: "child { i32: 1", err: `^line 1:15: unexpected EOF`},
		{name: "stray close", in: "i32: 1 }", err: `invalid field name: }`},
		{name: "missing value", in: "i32:", err: `unexpected EOF`},
		{name: "missing separator", in: "i32 1", err: `^line 1:1: syntax error: missing field separator :`},
		{name: "message without braces", in: "child: 1", err: `unexpected token: 1`},
		{name: "scalar with braces", in: "i32 { }", err: `missing field separator`},
		{name: "scalar with colon braces", in: "i32: { }", err: `unexpected token: {`},
		{name: "unknown field", in: "i32: 1\n  bogus: 2", err: `^line 2:3: unknown field: bogus`},
		{name: "field by number", in: "1: 2", err: `^line 1:1: cannot specify field by number: 1`},
		{name: "bad field name", in: "a.b: 1", err: `invalid field name`},
		{name: "repeated singular", in: "i32: 1 i32: 2", err: `^line 1:8: non-repeated field "i32" is repeated`},
		{name: "repeated singular message", in: "child {} child {}", err: `non-repeated field "child" is repeated`},
		{name: "oneof", in: "oi: 5", want: "oi:5"},
		{name: "oneof twice", in: "os: 'a' oi: 5", err: `oneof kt.Kinds.choice is already set`},
		{name: "oneof message", in: "om {}", want: "om:{}"},
		{name: "proto3 optional zero", in: "opt: 0", want: "opt:0"},
		{name: "implicit zero", in: "i32: 0 s: ''", want: ""},

		// Lists and repeated fields.
		{name: "repeated scalars", in: "ri32: 1 ri32: 2", want: "ri32:[1,2]"},
		{name: "list", in: "ri32: [1, 2, 3] ri32: 4", want: "ri32:[1,2,3,4]"},
		{name: "empty list", in: "ri32: [] rchild: []", want: ""},
		{name: "list of strings", in: `rs: ["a" "b", 'c']`, want: `rs:["ab","c"]`},
		{name: "list of messages", in: "rchild [{i32: 1}, <i32: 2>] rchild: {i32: 3}", want: "rchild:[{i32:1},{i32:2},{i32:3}]"},
		{name: "list trailing comma", in: "ri32: [1,]", err: `invalid scalar value: ]`},
		{name: "list without commas", in: "ri32: [1 2]", err: `unexpected character '2'`},
		{name: "list semicolon", in: "ri32: [1; 2]", err: `unexpected character ';'`},
		{name: "messages without commas", in: "rchild: [{} {}]", err: `unexpected character '{'`},
		{name: "list of lists", in: "ri32: [[1]]", err: `unexpected token: \[`},
		{name: "list needs colon", in: "ri32 [1]", err: `missing field separator`},
		{name: "list for singular", in: "i32: [1]", err: `unexpected token: \[`},
		{name: "scalar in message list", in: "rchild: [1]", err: `unexpected token: 1`},
		{name: "repeated enums", in: "rcolor: [RED, 1, BLUE, 7]", want: "rcolor:[RED,GREEN,BLUE,7]"},

		// Maps.
		{name: "map", in: `msi { key: "a" value: 1 } msi { key: "b" value: 2 }`, want: `msi:{key:"a" value:1} msi:{key:"b" value:2}`},
		{name: "map colon and angle", in: `msi: < key: "a", value: 1 >`, want: `msi:{key:"a" value:1}`},
		{name: "map value first", in: `msi { value: 1 key: "a" }`, want: `msi:{key:"a" value:1}`},
		{name: "map list", in: `msi: [{key: "a" value: 1}, {key: "b"}]`, want: `msi:{key:"a" value:1} msi:{key:"b" value:0}`},
		{name: "map duplicate key wins last", in: `msi { key: "a" value: 1 } msi { key: "a" value: 2 }`, want: `msi:{key:"a" value:2}`},
		{name: "map missing key", in: `msi { value: 3 }`, want: `msi:{key:"" value:3}`},
		{name: "map message value", in: `mik { key: -5 value { s: "x" } }`, want: `mik:{key:-5 value:{s:"x"}}`},
		{name: "map message value missing", in: `mik { key: 7 }`, want: `mik:{key:7 value:{}}`},
		{name: "map bool key", in: `mbs { key: t value: "y" } mbs { key: 0 }`, want: `mbs:{key:false value:""} mbs:{key:true value:"y"}`},
		{name: "map enum value", in: `muc { key: 0x10 value: BLUE }`, want: `muc:{key:16 value:BLUE}`},
		{name: "map bytes value", in: `msb { key: "k" value: "\377" }`, want: `msb:{key:"k" value:"\xff"}`},
		{name: "map unknown entry field", in: `msi { key: "a" other: 1 }`, err: `unknown map entry field "other"`},
		{name: "map repeated key", in: `msi { key: "a" key: "b" }`, err: `map entry "key" cannot be repeated`},
		{name: "map key needs colon", in: `msi { key "a" }`, err: `missing field separator`},
		{name: "map scalar value needs colon", in: `msi { value 1 }`, err: `missing field separator`},
		{name: "map scalar", in: `msi: 1`, err: `unexpected token: 1`},
		{name: "map key UTF-8", in: `msi { key: "\377" }`, err: `contains invalid UTF-8`},

		// Enums.
		{name: "enum by name", in: "color: BLUE", want: "color:BLUE"},
		{name: "enum by number", in: "color: 1", want: "color:GREEN"},
		{name: "enum negative number", in: "color: -2", want: "color:BLUE"},
		{name: "enum unknown number", in: "color: 99", want: "color:99"},
		{name: "enum hex", in: "color: 0x1", want: "color:GREEN"},
		{name: "enum unknown name", in: "color: PURPLE", err: `^line 1:8: invalid value for enum type: PURPLE`},
		{name: "enum negative name", in: "color: -RED", err: `invalid value for enum type: -RED`},
		{name: "enum float", in: "color: 1.0", err: `invalid value for enum type`},
		{name: "enum out of int32", in: "color: 2147483648", err: `invalid value for enum type`},
		{name: "tf dtype", in: "node { name: 'p' attr { key: 'dtype' value { type: DT_FLOAT } } }", msg: newGraphDef,
			want: `node:{name:"p" attr:{key:"dtype" value:{type:DT_FLOAT}}}`},

		// Integers.
		{name: "int32 range", in: "i32: 2147483647 ri32: -2147483648", want: "i32:2147483647 ri32:-2147483648"},
		{name: "int32 overflow", in: "i32: 2147483648", err: `invalid value for int32 type: 2147483648`},
		{name: "int32 underflow", in: "i32: -2147483649", err: `invalid value for int32 type`},
		{name: "int64 range", in: "i64: -9223372036854775808 ri64: 9223372036854775807", want: "i64:-9223372036854775808 ri64:9223372036854775807"},
		{name: "int64 overflow", in: "i64: 9223372036854775808", err: `invalid value for int64 type`},
		{name: "hex", in: "i32: 0x7fffffff i64: -0X10 u64: 0xFFFFFFFFFFFFFFFF", want: "i32:2147483647 i64:-16 u64:18446744073709551615"},
		{name: "octal", in: "i32: 017 u32: 00 ri32: -010", want: "i32:15 ri32:-8"},
		{name: "bad octal", in: "i32: 08", err: `invalid scalar value: 08`},
		{name: "bad hex", in: "i32: 0x", err: `invalid scalar value`},
		{name: "minus space", in: "i32: - 5 ri64: -# c\n7", want: "i32:-5 ri64:-7"},
		{name: "uint32", in: "u32: 4294967295 f32: 4294967295", want: "u32:4294967295 f32:4294967295"},
		{name: "uint32 overflow", in: "u32: 4294967296", err: `invalid value for uint32 type`},
		{name: "uint negative", in: "u64: -1", err: `invalid value for uint64 type: -1`},
		{name: "uint negative zero", in: "u32: -0", err: `invalid value for uint32 type`},
		{name: "sint", in: "s32: -2147483648 s64: -9223372036854775808 rs32: [1, -1]", want: "s32:-2147483648 s64:-9223372036854775808 rs32:[1,-1]"},
		{name: "fixed", in: "f32: 7 f64: 18446744073709551615 sf32: -7 sf64: -9223372036854775808", want: "f32:7 f64:18446744073709551615 sf32:-7 sf64:-9223372036854775808"},
		{name: "int from float", in: "i64: 1.0", err: `invalid value for int64 type: 1.0`},
		{name: "int with f", in: "i64: 1f", err: `invalid value for int64 type: 1f`},
		{name: "int exponent", in: "i64: 1e3", err: `invalid value for int64 type`},
		{name: "number then letters", in: "i32: 12ab", err: `invalid scalar value`},
		{name: "int from string", in: `i32: "1"`, err: `invalid value for int32 type: "1"`},

		// Floats.
		{name: "floats", in: "db: 1.5 fl: 1e-3 rdb: [.5, 5., 1E+2, -2.5e-1, 7]", want: "db:1.5 fl:0.001 rdb:[0.5,5,100,-0.25,7]"},
		{name: "float suffix", in: "db: 1.5f fl: 2F rdb: 3f", want: "db:1.5 fl:2 rdb:3"},
		{name: "inf nan", in: "rdb: [inf, -inf, Infinity, -INFINITY, nan, NaN] rfl: [inf, -inf, nan]"},
		{name: "float from octal", in: "db: 017", want: "db:17"},
		{name: "float from hex", in: "db: 0x10", err: `invalid value for double type: 0x10`},
		{name: "float overflow", in: "db: 1e400 fl: 1e39", want: "db:inf fl:inf"},
		{name: "float32 rounding", in: "fl: 0.1 rfl: 3.4028235e38", want: "fl:0.1 rfl:3.4028235e+38"},
		{name: "negative nan", in: "db: -nan", err: `invalid value for double type: -nan`},
		{name: "dot alone", in: "db: .", err: `invalid scalar value`},
		{name: "dangling exponent", in: "db: 1e+", err: `invalid scalar value`},
		{name: "bad exponent", in: "db: 1e ", err: `invalid value for double type: 1e`},

		// Bools.
		{name: "bools", in: "rb: [true, false, t, f, True, False, 1, 0, 0x1, 01, 1f]", want: "rb:[true,false,true,false,true,false,true,false,true,true,true]"},
		{name: "bool 2", in: "b: 2", err: `invalid value for bool type: 2`},
		{name: "bool TRUE", in: "b: TRUE", err: `invalid value for bool type: TRUE`},
		{name: "bool negative", in: "b: -1", err: `invalid value for bool type`},

		// Strings and bytes.
		{name: "concatenation", in: `s: "a" 'b' # c` + "\n" + ` "c"`, want: `s:"abc"`},
		{name: "single quotes", in: `s: 'it"s'`, want: `s:"it\"s"`},
		{name: "simple escapes", in: `by: "\a\b\f\n\r\t\v\\\'\"\?"`, want: `by:"\x07\x08\x0c\n\r\t\x0b\\'\"?"`},
		{name: "octal escapes", in: `by: "\101\0\1234\7"`, want: `by:"A\x00S4\x07"`},
		{name: "hex escapes", in: `by: "\x41\x4a\xf\x1234"`, want: `by:"AJ\x0f\x1234"`},
		{name: "unicode escapes", in: `s: "\u00e9\U0001F600\ud83d\ude00"`, want: `s:"é😀😀"`},
		{name: "raw UTF-8", in: "s: \"héllo\tx\r\"", want: `s:"héllo\tx\r"`},
		{name: "bytes keep raw bytes", in: `by: "\377\000\x80"`, want: `by:"\xff\x00\x80"`},
		{name: "string octal UTF-8", in: `s: "\303\251"`, want: `s:"é"`},
		{name: "string invalid UTF-8", in: `s: "\377"`, err: `^line 1:4: contains invalid UTF-8`},
		{name: "string invalid split", in: `s: "\303" "x"`, err: `contains invalid UTF-8`},
		{name: "raw invalid UTF-8 in bytes", in: "by: \"\xff\"", err: `invalid UTF-8 detected`},
		{name: "newline in string", in: "s: \"a\nb\"", err: `invalid character '\\n' in string`},
		{name: "NUL in string", in: "s: \"a\x00b\"", err: `invalid character`},
		{name: "unterminated", in: `s: "abc`, err: `unexpected EOF`},
		{name: "mixed quotes", in: `s: "abc'`, err: `unexpected EOF`},
		{name: "bad escape", in: `s: "\q"`, err: `invalid escape code "\\\\q"`},
		{name: "octal escape too big", in: `by: "\400"`, err: `invalid octal escape code`},
		{name: "empty hex escape", in: `by: "\xg"`, err: `invalid hex escape code`},
		{name: "short unicode escape", in: `s: "\u12zz"`, err: `invalid Unicode escape code`},
		{name: "big unicode escape", in: `s: "\U00110000"`, err: `invalid Unicode escape code`},
		{name: "lone surrogate", in: `s: "\ud83d" "abcdef"`, err: `invalid Unicode escape code`},
		{name: "string for bytes ok, literal not", in: `by: abc`, err: `invalid value for bytes type: abc`},
		{name: "trailing backslash", in: `s: "\`, err: `unexpected EOF`},

		// Any and extensions.
		{name: "any plain", in: `any { type_url: "type.googleapis.com/kt.Kinds" value: "\010\001" }`, want: `any:{type_url:"type.googleapis.com/kt.Kinds" value:"\010\001"}`},
		{name: "any list", in: `rany: [{type_url: "a"}, {value: "b"}]`},
		{name: "any duplicate", in: `any { type_url: "a" type_url: "b" }`, err: `duplicate google.protobuf.Any.type_url field`},
		{name: "any unknown field", in: `any { foo: 1 }`, err: `unknown field: foo`},
		{name: "any missing colon", in: `any { type_url "a" }`, err: `missing field separator`},
		{name: "extension", in: `[kt.ext]: 1`, err: `extension field syntax \(\[name\]\): kt.Kinds has no extensions`},

		// Groups (proto2).
		{name: "group", in: "G { s: 'x' } R { x: 1 } R: < x: 2 >", msg: newLegacy, want: `G:{s:"x"} R:{x:1} R:{x:2}`},
		{name: "group by lower-case name", in: "g { s: 'x' }", msg: newLegacy, want: `G:{s:"x"}`},
		{name: "group by other name", in: "gg { s: 'x' }", msg: newLegacy, err: `unknown field: gg`},
		{name: "proto2 string not validated", in: `raw: "\377"`, msg: newLegacy},
		{name: "proto2 zero has presence", in: `a: 0`, msg: newLegacy, want: "a:0"},
		{name: "reserved name skipped", in: "old_name: 5 a: 1 old_name { x: [1, 2] y < z: 'q' > } old_name: [1, 2]", msg: newLegacy, want: "a:1"},

		// GraphDef specifics.
		{name: "graph node forms", msg: newGraphDef,
			in:   "node { name: \"a\" op: \"NoOp\" }\nnode: { name: \"b\" op: \"NoOp\" input: \"^a\" }\nnode < name: 'c' >\nversions { producer: 27 }",
			want: `node:{name:"a" op:"NoOp"} node:{name:"b" op:"NoOp" input:"^a"} node:{name:"c"} versions:{producer:27}`},
		{name: "graph attr list", msg: newGraphDef,
			in:   `node { name: "c" attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } } int64_val: -1 } } } attr { key: "l" value { list { i: [1, 2] type: [DT_FLOAT, DT_INT32] s: "x" } } } }`,
			want: `node:{name:"c" attr:{key:"l" value:{list:{s:"x" i:[1,2] type:[DT_FLOAT,DT_INT32]}}} attr:{key:"value" value:{tensor:{dtype:DT_INT64 tensor_shape:{dim:{size:1}} int64_val:-1}}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newMsg := c.msg
			if newMsg == nil {
				newMsg = newKinds
			}
			checkSame(t, []byte(c.in), newMsg)
			got := newMsg()
			err := UnmarshalText([]byte(c.in), got)
			if c.err != "" {
				if err == nil {
					t.Fatalf("accepted, want error matching %q", c.err)
				}
				if !regexp.MustCompile(c.err).MatchString(err.Error()) {
					t.Fatalf("error %q does not match %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want != "" {
				want := newMsg()
				if err := prototext.Unmarshal([]byte(c.want), want); err != nil {
					t.Fatalf("bad want: %v", err)
				}
				if !proto.Equal(got, want) {
					t.Fatalf("got %v\nwant %v", prototext.Format(got), prototext.Format(want))
				}
			}
		})
	}
}

// TestUnmarshalTextDifferences pins the inputs that prototext accepts and
// UnmarshalText deliberately rejects.
func TestUnmarshalTextDifferences(t *testing.T) {
	for _, c := range []struct {
		name, in string
		msg      func() proto.Message
		err      string
	}{
		{"expanded Any", `any { [type.googleapis.com/tensorflow.GraphDef] { node { name: "a" } } }`, newKinds, `expanded google.protobuf.Any syntax`},
		{"expanded Any in a SavedModel", `meta_graphs { collection_def { key: "c" value { any_list { value { [type.googleapis.com/tensorflow.GraphDef] {} } } } } }`, newSavedModel, `expanded google.protobuf.Any`},
		{"Any type_url not UTF-8", `any { type_url: "\377" }`, newKinds, `contains invalid UTF-8`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, errWant, errGot := decodeBoth([]byte(c.in), c.msg)
			if errWant != nil {
				t.Fatalf("prototext rejects: %v", errWant)
			}
			var te *TextError
			if !errors.As(errGot, &te) || !te.unsupported || !strings.Contains(te.Msg, c.err) {
				t.Fatalf("got %v, want an unsupported-input error containing %q", errGot, c.err)
			}
		})
	}
}

// nestedAttr returns an AttrValue text nested through func.attr n times:
// each level adds 3 to prototext's depth count (message, map, message).
func nestedAttr(n int) []byte {
	var b strings.Builder
	for range n {
		b.WriteString("func{attr{key:'k' value{")
	}
	b.WriteString("i:1")
	for range n {
		b.WriteString("}}}")
	}
	return []byte(b.String())
}

func TestUnmarshalTextDepth(t *testing.T) {
	newAttr := func() proto.Message { return &tfpb.AttrValue{} }
	// 1 + 3n levels: 3333 levels of func reach 10000 exactly.
	for _, n := range []int{3332, 3333, 3334} {
		data := nestedAttr(n)
		checkSame(t, data, newAttr)
		err := UnmarshalText(data, newAttr())
		if (err == nil) != (1+3*n <= maxTextDepth) {
			t.Errorf("depth %d: err = %v", 1+3*n, err)
		}
	}
	// Far deeper input fails cleanly.
	deep := []byte(strings.Repeat("child{", 100000) + strings.Repeat("}", 100000))
	err := UnmarshalText(deep, newKinds())
	if err == nil || !strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		t.Fatalf("100000 levels: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "line 1:60000:") {
		t.Errorf("depth error position: %v", err)
	}
}

func TestUnmarshalTextErrorPosition(t *testing.T) {
	// Columns count runes, as prototext's do.
	err := UnmarshalText([]byte("s: \"é\"\nrs: 'ü' bogus: 1"), newKinds())
	var te *TextError
	if !errors.As(err, &te) || te.Line != 2 || te.Col != 9 || te.Offset != 17 {
		t.Fatalf("got %#v", err)
	}
	// Parse names the enclosing node.
	_, err = Parse([]byte("node {\n  name: \"a\"\n  op: \"NoOp\"\n  attr { key: \"x\" value { i: 1.5 } }\n}\n"), "g.pbtxt")
	if err == nil || err.Error() != `g.pbtxt:4:30: text format: in node "a": invalid value for int64 type: 1.5` {
		t.Fatalf("got %v", err)
	}
}

// FuzzTextDecode checks UnmarshalText against prototext on arbitrary input,
// for a GraphDef, a SavedModel and the all-kinds test message: both accept
// with equal messages, or both reject (see checkSame for the exceptions).
func FuzzTextDecode(f *testing.F) {
	f.Add(MarshalText(small()))
	f.Add(MarshalText(savedModel()))
	f.Add([]byte("node: { name: \"a\" op: \"NoOp\" input: \"^b\" }\nnode < name: 'b' op: \"NoOp\" >"))
	f.Add([]byte(`i32: -0x10 rdb: [1e-3, inf, -nan, 1.5f] s: "\u00e9" 'x' by: "\377\x41" color: BLUE rb: [t, 0]`))
	f.Add([]byte(`msi [{key: "a" value: 1}, <key: 'b'>] mik { key: 3 value { om {} } } muc: {value: 1}`))
	f.Add([]byte(`any { type_url: "x" value: "\001" } opt: 0; oi: 4, G { s: "q" } R: <x: -1>`))
	f.Add([]byte("meta_graphs { meta_info_def { tags: 'serve' } signature_def { key: 'k' value { inputs { key: 'x' value { name: 'x:0' dtype: DT_FLOAT } } } } }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, data, newGraphDef)
		checkSame(t, data, newSavedModel)
		checkSame(t, data, newKinds)
		checkSame(t, data, newLegacy)
	})
}

// BenchmarkUnmarshalText compares UnmarshalText with prototext on a real
// graph.
func BenchmarkUnmarshalText(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(graphdefsDir(b), realGraphs[0].file))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		fn   func([]byte, proto.Message) error
	}{
		{"UnmarshalText", UnmarshalText},
		{"prototext", prototext.Unmarshal},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.fn(data, &tfpb.GraphDef{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
