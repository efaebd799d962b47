package npz

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func allDTypes(t *testing.T) []Array {
	t.Helper()
	m := interp.Must
	return []Array{
		{"f32", m(interp.New([]int64{2, 3}, []float32{1.5, -2, float32(math.Inf(1)), float32(math.NaN()), 0, 3.25}))},
		{"f64", m(interp.New([]int64{3}, []float64{math.Pi, -1e300, 0}))},
		{"i8", interp.Vector[int8](-128, 0, 127)},
		{"i16", interp.Vector[int16](-32768, 7)},
		{"i32", m(interp.New([]int64{1, 2}, []int32{math.MinInt32, math.MaxInt32}))},
		{"i64", interp.Vector[int64](math.MinInt64, -1, math.MaxInt64)},
		{"u8", interp.Vector[uint8](0, 255)},
		{"b", m(interp.New([]int64{2, 2}, []bool{true, false, false, true}))},
		{"s", interp.Vector("Hello", "", "TensorFlow", "2.x")},
		{"scalar", interp.Scalar[int64](42)},
		{"empty", m(interp.New([]int64{0, 4}, []float32{}))},
		{"empty_s", m(interp.New([]int64{0}, []string{}))},
	}
}

func TestRoundTripEveryDType(t *testing.T) {
	arrays := allDTypes(t)
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, arrays); err != nil {
		t.Fatal(err)
	}
	first := append([]byte{}, buf.Bytes()...)
	got, err := DecodeNPZ(first)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(arrays) {
		t.Fatalf("got %d arrays, want %d", len(got), len(arrays))
	}
	for i, a := range arrays {
		if got[i].Name != a.Name {
			t.Errorf("array %d: name %q, want %q (file order)", i, got[i].Name, a.Name)
		}
		if err := got[i].Tensor.Equal(a.Tensor); err != nil {
			t.Errorf("array %q: %v", a.Name, err)
		}
	}
	// Deterministic output.
	buf.Reset()
	if err := WriteNPZ(&buf, arrays); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, buf.Bytes()) {
		t.Error("two writes of the same arrays differ")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npz")
	arrays := allDTypes(t)
	if err := WriteFile(path, arrays[:3]); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, arrays); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(arrays) {
		t.Fatalf("got %d arrays, want %d", len(got), len(arrays))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	bad := []Array{{"a", interp.Scalar[int32](1)}, {"a", interp.Scalar[int32](2)}}
	if err := WriteFile(path, bad); err == nil {
		t.Error("duplicate names: want error")
	}
	if got, err := ReadFile(path); err != nil || len(got) != len(arrays) {
		t.Errorf("failed write clobbered the file: %v, %d arrays", err, len(got))
	}
}

// handNPY builds a version 1.0 .npy exactly as numpy.save lays it out:
// magic, version, little-endian header length, the dict padded with spaces
// and a final newline so that the data starts at a multiple of 64.
func handNPY(dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.Write([]byte{1, 0})
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	hlen := len(dict) + pad + 1
	binary.Write(&b, binary.LittleEndian, uint16(hlen))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	if b.Len()%64 != 0 {
		panic("bad padding")
	}
	b.Write(data)
	return b.Bytes()
}

func le32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func le64(vs ...uint64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

func TestReadHandBuiltNPZ(t *testing.T) {
	members := []struct {
		name    string
		npy     []byte
		deflate bool
	}{
		{"ids.npy", handNPY("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }",
			le64(1, 2, 3, 0xFFFFFFFFFFFFFFFF)), false},
		{"w.npy", handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
			le32(math.Float32bits(0.5), math.Float32bits(-1), math.Float32bits(2))), true},
		{"words.npy", handNPY("{'descr': '|S5', 'fortran_order': False, 'shape': (2,), }",
			[]byte("ab\x00\x00\x00hello")), false},
		{"uni.npy", handNPY("{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }",
			le32('h', 'é', 'x', 0)), true},
		{"flags.npy", handNPY("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", []byte{1}), false},
		{"n.npy", handNPY("{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", nil), false},
		{"d.npy", handNPY(`{"descr": "<f8", "fortran_order": False, "shape": (1L,)}`, le64(math.Float64bits(7))), false},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, m := range members {
		method := zip.Store
		if m.deflate {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.npy)
	}
	zw.Close()

	got, err := DecodeNPZ(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m := interp.Must
	want := []Array{
		{"ids", m(interp.New([]int64{2, 2}, []int64{1, 2, 3, -1}))},
		{"w", interp.Vector[float32](0.5, -1, 2)},
		{"words", interp.Vector("ab", "hello")},
		{"uni", interp.Vector("hé", "x")},
		{"flags", interp.Scalar(true)},
		{"n", m(interp.New([]int64{0}, []int32{}))},
		{"d", interp.Vector[float64](7)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d arrays, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name {
			t.Errorf("array %d named %q, want %q", i, got[i].Name, want[i].Name)
		}
		if err := got[i].Tensor.Equal(want[i].Tensor); err != nil {
			t.Errorf("%s: %v", want[i].Name, err)
		}
	}
}

func TestMalformed(t *testing.T) {
	good := handNPY("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", le32(1, 2))
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"magic", []byte("\x93NUMPZ\x01\x00\x00\x00"), "bad magic"},
		{"version", []byte("\x93NUMPY\x09\x00\x00\x00"), "version 9.0"},
		{"truncated header", good[:20], "header"},
		{"truncated data", good[:len(good)-1], "truncated"},
		{"trailing", append(append([]byte{}, good...), 0), "trailing"},
		{"descr", handNPY("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", le64(0)), "unsupported dtype"},
		{"big endian", handNPY("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", le32(0)), "byte order"},
		{"fortran", handNPY("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", le32(0)), "fortran"},
		{"structured", handNPY("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", le32(0)), "structured"},
		{"missing key", handNPY("{'descr': '<i4', 'shape': (1,), }", le32(0)), "missing key"},
		{"negative dim", handNPY("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", nil), "shape"},
		{"huge", handNPY("{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", nil), "elements"},
		{"bool byte", handNPY("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", []byte{2}), "bool"},
		{"bad unicode", handNPY("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", le32(0xD800)), "code point"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeNPY(c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := DecodeNPZ([]byte("PK\x03\x04garbage")); err == nil {
		t.Error("garbage zip: want error")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(handNPY("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", le32(1, 2)))
	f.Add(handNPY("{'descr': '|S3', 'fortran_order': False, 'shape': (1, 1), }", []byte("abc")))
	f.Add(handNPY("{'descr': '<U1', 'fortran_order': False, 'shape': (), }", le32('z')))
	var buf bytes.Buffer
	WriteNPZ(&buf, []Array{{"a", interp.Vector[float32](1, 2)}, {"s", interp.Vector("x")}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if tt, err := DecodeNPY(b); err == nil {
			var out bytes.Buffer
			if err := WriteNPY(&out, tt); err != nil {
				t.Fatalf("re-encoding a decoded array: %v", err)
			}
			back, err := DecodeNPY(out.Bytes())
			if err != nil {
				t.Fatalf("decoding a re-encoded array: %v", err)
			}
			if tt.DType() != interp.String { // trailing NULs of strings are not kept
				if err := back.Equal(tt); err != nil {
					t.Fatalf("round trip: %v", err)
				}
			}
		}
		DecodeNPZ(b)
	})
}
