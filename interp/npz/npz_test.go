package npz

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
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
	// Hostile seeds: headers promising far more than the input holds (a
	// wide unicode array, 2^28 elements), members that expand far beyond
	// the archive, a member declaring 8 GiB. Each input may take 1 MiB of
	// arrays.
	saved := MaxBytes
	MaxBytes = 1 << 20
	f.Cleanup(func() { MaxBytes = saved })
	f.Add(handNPY("{'descr': '<U1048576', 'fortran_order': False, 'shape': (1000,), }", le32('a')))
	f.Add(handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (268435456,), }", nil))
	zeros := handNPY("{'descr': '<f4', 'fortran_order': False, 'shape': (300000,), }", make([]byte, 1200000))
	members := map[string][]byte{}
	var names []string
	for i := range 8 {
		name := fmt.Sprintf("m%d.npy", i)
		members[name] = zeros
		names = append(names, name)
	}
	f.Add(zipOf(f, members, names...))
	buf.Reset()
	zw := zip.NewWriter(&buf)
	if w, err := zw.CreateRaw(&zip.FileHeader{Name: "big.npy", Method: zip.Store, UncompressedSize64: 8 << 30, CompressedSize64: 4}); err == nil {
		w.Write([]byte("\x93NUM"))
	}
	zw.Close()
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

// zipOf builds an archive of .npy members; deflated ones use the best
// compression, so that runs of zeros expand far beyond the archive.
func zipOf(t testing.TB, members map[string][]byte, order ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, name := range order {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func withMaxBytes(t *testing.T, n int64) {
	t.Helper()
	saved := MaxBytes
	MaxBytes = n
	t.Cleanup(func() { MaxBytes = saved })
}

// The arrays of one archive share one budget of MaxBytes, checked before
// memory is taken for each member: a small archive of members that expand
// far beyond it is refused with a message that names the limit.
func TestBudget(t *testing.T) {
	withMaxBytes(t, 1<<20)
	zeros := func(descr, shape string, n int) []byte {
		return handNPY("{'descr': '"+descr+"', 'fortran_order': False, 'shape': "+shape+", }", make([]byte, n))
	}
	// Three members of 400,000 bytes: the third goes past 1 MiB.
	m := map[string][]byte{"a.npy": zeros("<f4", "(100000,)", 400000), "b.npy": zeros("<f4", "(100000,)", 400000), "c.npy": zeros("<f4", "(100000,)", 400000)}
	b := zipOf(t, m, "a.npy", "b.npy", "c.npy")
	if len(b) > 20000 {
		t.Fatalf("the archive is %d bytes, want a small one", len(b))
	}
	_, err := DecodeNPZ(b)
	want := `npz: member "c.npy": npy: array <f4 of shape [100000] (after 800000 bytes of arrays before it) needs 1200000 bytes: more than 1048576 bytes (set RECOM_MAX_NPZ_BYTES to raise the limit; see docs/LIMITS.md)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if arrays, err := DecodeNPZ(zipOf(t, m, "a.npy", "b.npy")); err != nil || len(arrays) != 2 {
		t.Errorf("two members within the budget: %v", err)
	}
	// Strings are charged a header each: 50,000 one-byte strings take
	// 850,000 bytes, two such arrays more than the budget.
	s := map[string][]byte{"s.npy": zeros("|S1", "(50000,)", 50000), "t.npy": zeros("|S1", "(50000,)", 50000)}
	if _, err := DecodeNPZ(zipOf(t, s, "s.npy", "t.npy")); err == nil || !strings.Contains(err.Error(), `member "t.npy": npy: array |S1 of shape [50000] (after 850000 bytes of arrays before it) needs 1700000 bytes: more than 1048576 bytes`) {
		t.Errorf("string headers: got %v", err)
	}
	// One wide unicode array is refused by its header's size, before its
	// data is read or memory taken for it.
	if _, err := DecodeNPY(handNPY("{'descr': '<U1048576', 'fortran_order': False, 'shape': (1,), }", make([]byte, 4<<20))); err == nil || !strings.Contains(err.Error(), "npy: array <U1048576 of shape [1] needs 4194320 bytes: more than 1048576 bytes (set RECOM_MAX_NPZ_BYTES") {
		t.Errorf("<U1048576: got %v", err)
	}
	MaxBytes = 5 << 20
	u, err := DecodeNPY(handNPY("{'descr': '<U1048576', 'fortran_order': False, 'shape': (1,), }", le32(0x1F600)))
	if err == nil || !strings.Contains(err.Error(), "data truncated: shape [1] of <U1048576 needs 4194304 bytes, got 4") {
		t.Errorf("a header that promises more than the file holds: got %v, %v", u, err)
	}
}

// A member whose zip entry declares more uncompressed bytes than the
// budget is refused before it is opened.
func TestBudgetDeclaredSize(t *testing.T) {
	withMaxBytes(t, 1<<20)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "big.npy", Method: zip.Store, UncompressedSize64: 8 << 30, CompressedSize64: 4})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("\x93NUM"))
	zw.Close()
	_, err = DecodeNPZ(buf.Bytes())
	if err == nil || !strings.Contains(err.Error(), `member "big.npy": a member declaring 8589934592 uncompressed bytes needs 8589934592 bytes: more than 1048576 bytes`) {
		t.Errorf("got %v", err)
	}
}

// Arrays larger than one piece of the streaming decoder come back whole,
// and a truncated one names how many bytes it had.
func TestReadInPieces(t *testing.T) {
	n := chunkBytes/4*3 + 5
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*2654435761) ^ 0x5a5a
	}
	want := interp.Must(interp.New([]int64{int64(n)}, vals))
	var npy bytes.Buffer
	if err := WriteNPY(&npy, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNPY(bytes.NewReader(npy.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Equal(want); err != nil {
		t.Error(err)
	}
	cut := npy.Bytes()[:npy.Len()-7]
	if _, err := ReadNPY(bytes.NewReader(cut)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs %d bytes, got %d", 4*n, 4*n-7)) {
		t.Errorf("truncated: got %v", err)
	}
	b := make([]byte, 3*chunkBytes)
	b[2*chunkBytes+9] = 2
	if _, err := DecodeNPY(handNPY("{'descr': '|b1', 'fortran_order': False, 'shape': (3145728,), }", b)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("bool element %d has byte value 2", 2*chunkBytes+9)) {
		t.Errorf("bad bool in the third piece: got %v", err)
	}
}

// ReadFile reads with inputfile's bound: /dev/zero is refused, not read
// until memory runs out.
func TestReadFileDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	saved := inputfile.MaxBytes
	defer func() { inputfile.MaxBytes = saved }()
	inputfile.MaxBytes = 1 << 20
	if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: input is too large: more than 1048576 bytes (set RECOM_MAX_INPUT_BYTES") {
		t.Errorf("got %v", err)
	}
}
