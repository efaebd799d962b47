package checkpoint

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// everyDType is one tensor of each dtype the interpreter holds, with the
// values that trip decoders: NaN, infinities, -0, extremes, empty strings,
// strings holding 0x00 and 0xff, a string longer than a one-byte varint.
func everyDType() map[string]*interp.Tensor {
	long := strings.Repeat("x", 300)
	return map[string]*interp.Tensor{
		"f32":       interp.Must(interp.New([]int64{2, 3}, []float32{1.5, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), math.MaxFloat32})),
		"f64":       interp.Vector(math.Pi, math.SmallestNonzeroFloat64, -1e300),
		"i8":        interp.Vector[int8](-128, 0, 127),
		"i16":       interp.Vector[int16](-32768, 1, 32767),
		"i32":       interp.Vector[int32](math.MinInt32, -1, math.MaxInt32),
		"i64":       interp.Vector[int64](math.MinInt64, 42, math.MaxInt64),
		"u8":        interp.Vector[uint8](0, 128, 255),
		"bool":      interp.Vector(true, false, true),
		"str":       interp.Must(interp.New([]int64{2, 2}, []string{"", "a\x00b", "\xff\xfe", long})),
		"scalar":    interp.Scalar(int64(7)),
		"empty":     interp.Must(interp.New([]int64{0, 4}, []float32{})),
		"emptystr":  interp.Must(interp.New([]int64{0}, []string{})),
		"dir/a/b:0": interp.Scalar("name with a slash and colon"),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards int
		order  binary.ByteOrder
		table  tableOpts
		align  int
	}{
		{"one shard", 1, binary.LittleEndian, tableOpts{}, 0},
		{"three shards, small blocks", 3, binary.LittleEndian, tableOpts{blockSize: 40, restartInterval: 3}, 0},
		{"a block per entry, every key a restart", 2, binary.LittleEndian, tableOpts{blockSize: 1, restartInterval: 1}, 0},
		{"aligned", 2, binary.LittleEndian, tableOpts{}, 8},
		{"big-endian", 2, binary.BigEndian, tableOpts{blockSize: 64}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := everyDType()
			tb := newTestBundle(tc.shards)
			tb.order, tb.table, tb.align = tc.order, tc.table, tc.align
			if tc.order == binary.BigEndian {
				tb.header.Endianness = tfpb.BundleHeaderProto_BIG
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range want {
					if !yield(k) {
						return
					}
				}
			})
			for i, k := range keys {
				tb.add(k, want[k], i%tc.shards)
			}
			prefix := tb.write(t, t.TempDir(), "model.ckpt-100")
			got, err := Read(prefix)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("read %d tensors, want %d", len(got), len(want))
			}
			for k, w := range want {
				if err := got[k].Equal(w); err != nil {
					t.Errorf("%q: %v", k, err)
				}
			}
			b, err := Open(prefix)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if !slices.Equal(b.Keys(), keys) || b.NumShards() != tc.shards {
				t.Fatalf("keys %q (%d shards), want %q (%d)", b.Keys(), b.NumShards(), keys, tc.shards)
			}
			if e, ok := b.Entry("f32"); !ok || e.DType != tfpb.DataType_DT_FLOAT || !slices.Equal(e.Shape, []int64{2, 3}) || e.Slices != nil {
				t.Fatalf("Entry(f32) = %+v, %v", e, ok)
			}
		})
	}
}

// partitioned builds a bundle holding partitioned tensors over three
// shards: a float matrix split by rows, an int64 matrix split in both
// dimensions, a string vector, and one unpartitioned tensor.
func partitioned() (*testBundle, map[string]*interp.Tensor) {
	tb := newTestBundle(3)
	emb := make([]float32, 10*4)
	for i := range emb {
		emb[i] = float32(i) * 0.5
	}
	full := map[string]*interp.Tensor{
		"emb":   interp.Must(interp.New([]int64{10, 4}, emb)),
		"grid":  interp.Must(interp.New([]int64{4, 6}, []int64{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35})),
		"vocab": interp.Vector("a", "bb", "", "dddd", "e"),
		"plain": interp.Vector[int32](1, 2, 3),
	}
	rows := []Slice{{Start: []int64{0, 0}, Length: []int64{3, -1}}, {Start: []int64{3, 0}, Length: []int64{4, -1}}, {Start: []int64{7, 0}, Length: []int64{3, 4}}}
	for i, s := range rows {
		part, _ := Extract(full["emb"], s)
		tb.addSlice("emb", []int64{10, 4}, s, part, i%3)
	}
	for i, s := range []Slice{
		{Start: []int64{0, 0}, Length: []int64{2, 3}}, {Start: []int64{0, 3}, Length: []int64{2, 3}},
		{Start: []int64{2, 0}, Length: []int64{2, 2}}, {Start: []int64{2, 2}, Length: []int64{2, 4}},
	} {
		part, _ := Extract(full["grid"], s)
		tb.addSlice("grid", []int64{4, 6}, s, part, (i+1)%3)
	}
	for i, s := range []Slice{{Start: []int64{0}, Length: []int64{2}}, {Start: []int64{2}, Length: []int64{3}}} {
		part, _ := Extract(full["vocab"], s)
		tb.addSlice("vocab", []int64{5}, s, part, 2-i)
	}
	tb.add("plain", full["plain"], 1)
	return tb, full
}

func TestPartitioned(t *testing.T) {
	tb, full := partitioned()
	prefix := tb.write(t, t.TempDir(), "variables")
	got, err := Read(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(full) {
		t.Fatalf("read %d tensors (%v), want %d", len(got), slices.Sorted(mapKeys(got)), len(full))
	}
	for k, w := range full {
		if err := got[k].Equal(w); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	b, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if e, _ := b.Entry("emb"); len(e.Slices) != 3 || e.Slices[0].String() != "0,3:-" {
		t.Fatalf("Entry(emb).Slices = %v", e.Slices)
	}
	// Stored slices, regions equal to stored slices written differently,
	// and regions across slices.
	for _, tc := range []struct {
		key string
		s   Slice
	}{
		{"emb", Slice{Start: []int64{3, 0}, Length: []int64{4, -1}}},
		{"emb", Slice{Start: []int64{3, 0}, Length: []int64{4, 4}}},
		{"emb", Slice{Start: []int64{7, 0}, Length: []int64{3, -1}}},
		{"emb", Slice{Start: []int64{2, 1}, Length: []int64{6, 2}}},
		{"grid", Slice{Start: []int64{1, 2}, Length: []int64{2, 3}}},
		{"grid", FullSlice(2)},
		{"vocab", Slice{Start: []int64{1}, Length: []int64{3}}},
		{"plain", Slice{Start: []int64{1}, Length: []int64{2}}},
	} {
		want, err := Extract(full[tc.key], tc.s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.TensorSlice(tc.key, tc.s)
		if err != nil {
			t.Fatalf("%s[%s]: %v", tc.key, tc.s, err)
		}
		if err := got.Equal(want); err != nil {
			t.Errorf("%s[%s]: %v", tc.key, tc.s, err)
		}
	}
	if _, err := b.TensorSlice("emb", Slice{Start: []int64{8, 0}, Length: []int64{3, -1}}); err == nil || !strings.Contains(err.Error(), "does not lie inside") {
		t.Errorf("a region past the end: %v", err)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestExtract checks Extract, and so eachRun, against element-by-element
// indexing on a rank-3 tensor, for every region.
func TestExtract(t *testing.T) {
	shape := []int64{3, 4, 5}
	data := make([]int32, 60)
	for i := range data {
		data[i] = int32(i)
	}
	src := interp.Must(interp.New(shape, data))
	n := 0
	for b0 := int64(0); b0 <= 3; b0++ {
		for l0 := int64(0); b0+l0 <= 3; l0++ {
			for b1 := int64(0); b1 <= 4; b1++ {
				for l1 := int64(0); b1+l1 <= 4; l1++ {
					for _, r2 := range [][2]int64{{0, 5}, {1, 3}, {4, 1}, {2, 0}} {
						s := Slice{Start: []int64{b0, b1, r2[0]}, Length: []int64{l0, l1, r2[1]}}
						got, err := Extract(src, s)
						if err != nil {
							t.Fatal(err)
						}
						var want []int32
						for i := b0; i < b0+l0; i++ {
							for j := b1; j < b1+l1; j++ {
								for k := r2[0]; k < r2[0]+r2[1]; k++ {
									want = append(want, int32(i*20+j*5+k))
								}
							}
						}
						if !slices.Equal(got.Int32s(), want) || !slices.Equal(got.Shape(), []int64{l0, l1, r2[1]}) {
							t.Fatalf("%s: got %v %v, want %v", s, got.Shape(), got.Int32s(), want)
						}
						n++
					}
				}
			}
		}
	}
	if n < 400 {
		t.Fatalf("only %d regions tried", n)
	}
	if got, err := Extract(interp.Scalar(float32(2)), FullSlice(0)); err != nil || got.Float32s()[0] != 2 {
		t.Fatalf("scalar: %v %v", got, err)
	}
}

// TestOrderedCode checks the key encoding of slices against the examples
// of TensorFlow's ordered_code.cc and the layout of EncodeTensorNameSlice.
func TestOrderedCode(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x80}},
		{-1, []byte{0x7f}},
		{63, []byte{0xbf}},
		{-64, []byte{0x40}},
		{64, []byte{0xc0, 0x40}},
		{0x424242, []byte{0xf0, 0x42, 0x42, 0x42}}, // ordered_code.cc, example 1
		{-0x800, []byte{0x38, 0x00}},               // ordered_code.cc, example 2
		{math.MaxInt64, []byte{0xff, 0xc0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{math.MinInt64, []byte{0x00, 0x3f, 0x80, 0, 0, 0, 0, 0, 0, 0}},
	} {
		got := appendOrderedInt(nil, tc.v)
		if string(got) != string(tc.want) {
			t.Errorf("signed %d: % x, want % x", tc.v, got, tc.want)
		}
		back, rest, ok := readOrderedInt(append(got, 0x99))
		if !ok || back != tc.v || len(rest) != 1 {
			t.Errorf("signed %d read back as %d (ok %v, %d left)", tc.v, back, ok, len(rest))
		}
	}
	// Every length boundary, both signs, keeps the order of the numbers.
	var prev []byte
	for _, v := range orderedSamples() {
		got := appendOrderedInt(nil, v)
		if prev != nil && string(prev) >= string(got) {
			t.Fatalf("encoding of %d does not sort after its predecessor", v)
		}
		if back, _, ok := readOrderedInt(got); !ok || back != v {
			t.Fatalf("%d read back as %d", v, back)
		}
		prev = got
	}
	if got := appendOrderedUint(nil, 0x0102); string(got) != "\x02\x01\x02" {
		t.Errorf("unsigned 0x102: % x", got)
	}
	if got := appendOrderedString(nil, "a\x00\xffb"); string(got) != "a\x00\xff\xff\x00b\x00\x01" {
		t.Errorf("string: % x", got)
	}
	key := sliceKey("emb", Slice{Start: []int64{0, 0}, Length: []int64{50, -1}})
	if want := "\x00emb\x00\x01\x01\x02\x80\xb2\x80\x7f"; key != want {
		t.Errorf("slice key % x, want % x", key, want)
	}
	if name, s, ok := decodeSliceKey(key); !ok || name != "emb" || s.String() != "0,50:-" {
		t.Errorf("decoded %q %s %v", name, s, ok)
	}
	for _, bad := range []string{"", "\x00", "\x01", "\x00emb", "\x00emb\x00\x01\x01\x01\x80", "\x00emb\x00\x01\x01\x01\x80\x7f\x00"} {
		if _, _, ok := decodeSliceKey(bad); ok {
			t.Errorf("decodeSliceKey(% x) accepted", bad)
		}
	}
}

// orderedSamples returns int64s around every power of two, sorted.
func orderedSamples() []int64 {
	var vs []int64
	for i := 0; i < 63; i++ {
		p := int64(1) << i
		vs = append(vs, p-1, p, p+1, -p-1, -p, -p+1)
	}
	vs = append(vs, math.MinInt64, math.MaxInt64)
	slices.Sort(vs)
	return slices.Compact(vs)
}

func TestParseShapeAndSlice(t *testing.T) {
	for _, tc := range []struct {
		spec, full, slice, err string
	}{
		{spec: "", full: "[]", slice: ""},
		{spec: "100 8 0,50:-", full: "[100,8]", slice: "0,50:-"},
		{spec: "10 4 5,5:0,4", full: "[10,4]", slice: "5,5:0,4"},
		{spec: "7 -", full: "[7]", slice: "-"},
		{spec: "10", err: "want the dimensions and a slice"},
		{spec: "10 4 0,5", err: "1 extents for 2 dimensions"},
		{spec: "x 0,5", err: "bad dimension"},
		{spec: "10 0,11", err: "does not lie inside"},
		{spec: "10 -1,2", err: "does not lie inside"},
		{spec: "10 3", err: "bad extent"},
	} {
		full, s, whole, err := ParseShapeAndSlice(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || interp.ShapeString(full) != tc.full || s.String() != tc.slice || whole != (tc.spec == "") {
			t.Errorf("%q: %v %s %v %v", tc.spec, full, s, whole, err)
		}
	}
}

// TestCorrupt breaks each part of a bundle and checks the error names the
// file and what is wrong.
func TestCorrupt(t *testing.T) {
	defer func(m int64) { interp.MaxElements = m }(interp.MaxElements)
	type files struct {
		index  []byte
		shards [][]byte
	}
	good := func() (*testBundle, map[string]*interp.Tensor) {
		tb, full := partitioned()
		tb.add("str", interp.Vector("abc", "de"), 0)
		tb.add("flags", interp.Vector(true, false), 1)
		return tb, full
	}
	// locate returns the offset of an entry's bytes in its shard.
	locate := func(tb *testBundle, key string) (int, int) {
		e := tb.entries[key]
		return int(e.GetShardId()), int(e.GetOffset())
	}
	for _, tc := range []struct {
		name   string
		edit   func(tb *testBundle) // before the files are laid out
		break_ func(f *files)       // after
		read   string               // the tensor to read; "" reads everything
		want   []string             // substrings of the error
	}{
		{name: "index truncated", break_: func(f *files) { f.index = f.index[:len(f.index)-1] }, want: []string{".index:", "magic number"}},
		{name: "index too short", break_: func(f *files) { f.index = f.index[:20] }, want: []string{".index:", "too short"}},
		{name: "index empty", break_: func(f *files) { f.index = nil }, want: []string{".index:", "too short"}},
		{name: "index block byte flipped", break_: func(f *files) { f.index[3] ^= 0x10 }, want: []string{".index:", "data block 0", "CRC-32C mismatch"}},
		{name: "index footer handle out of range", break_: func(f *files) {
			n := len(f.index) - footerLen
			copy(f.index[n:], encodeHandle(blockHandle{1 << 40, 10}))
		}, want: []string{".index:", "metaindex block", "does not lie within"}},
		{name: "snappy block", edit: func(tb *testBundle) { tb.table.compression = 1 }, want: []string{".index:", "Snappy"}},
		{name: "unknown compression", edit: func(tb *testBundle) { tb.table.compression = 7 }, want: []string{"unknown compression type 7"}},
		{name: "no header", edit: func(tb *testBundle) {}, break_: func(f *files) {
			f.index = buildTable([]tableEntry{{key: []byte("x"), value: nil}}, tableOpts{})
		}, want: []string{"no header entry"}},
		{name: "keys out of order", break_: func(f *files) {
			h, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: 1})
			f.index = buildTable([]tableEntry{{key: []byte{}, value: h}, {key: []byte("b")}, {key: []byte("a")}}, tableOpts{blockSize: 1})
		}, want: []string{"key \"a\" is not after the previous key \"b\""}},
		{name: "restart point inside an entry", break_: func(f *files) {
			h, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: 1})
			blk := buildBlock([]tableEntry{{key: []byte{}, value: h}, {key: []byte("a")}}, 1)
			binary.LittleEndian.PutUint32(blk[len(blk)-8:], 1)
			f.index = tableWithBlock(blk)
		}, want: []string{"restart point 1", "not the start of an entry"}},
		{name: "too many restart points", break_: func(f *files) {
			blk := buildBlock(nil, 1)
			binary.LittleEndian.PutUint32(blk[len(blk)-4:], 1000)
			f.index = tableWithBlock(blk)
		}, want: []string{"1000 restart points do not fit"}},
		{name: "entry overruns its block", break_: func(f *files) {
			blk := []byte{0, 1, 200, 'k', 0, 0, 0, 0, 1, 0, 0, 0}
			f.index = tableWithBlock(blk)
		}, want: []string{"overrun"}},
		{name: "keys expand too much", break_: func(f *files) {
			var blk []byte
			blk = append(blk, 0, 20, 0)
			blk = append(blk, strings.Repeat("k", 20)...)
			for i := 0; i < 200; i++ {
				blk = binary.AppendUvarint(blk, uint64(20+i))
				blk = append(blk, 1, 0, 'k')
			}
			blk = binary.LittleEndian.AppendUint32(blk, 0)
			blk = binary.LittleEndian.AppendUint32(blk, 1)
			f.index = tableWithBlock(blk)
		}, want: []string{"keys decode to more than 16 times"}},
		{name: "zero shards", edit: func(tb *testBundle) { tb.header.NumShards = 0 }, want: []string{"0 data shards is out of range"}},
		{name: "too many shards", edit: func(tb *testBundle) { tb.header.NumShards = MaxShards + 1 }, want: []string{"65537 data shards is out of range", "MaxShards"}},
		{name: "newer format", edit: func(tb *testBundle) { tb.header.Version.MinConsumer = 2 }, want: []string{"needs a reader of version 2"}},
		{name: "bad consumer", edit: func(tb *testBundle) { tb.header.Version.BadConsumers = []int32{1} }, want: []string{"disallows readers of version 1"}},
		{name: "entry not a proto", edit: func(tb *testBundle) {}, break_: func(f *files) {
			h, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: 1})
			f.index = buildTable([]tableEntry{{key: []byte{}, value: h}, {key: []byte("t"), value: []byte{0xff, 0xff}}}, tableOpts{})
		}, want: []string{"entry \"t\""}},
		{name: "shard id out of range", edit: func(tb *testBundle) { tb.entries["plain"].ShardId = 3 }, want: []string{"entry \"plain\"", "shard 3 is out of range [0, 3)"}},
		{name: "negative dimension", edit: func(tb *testBundle) { tb.entries["plain"].Shape.Dim[0].Size = -1 }, want: []string{"entry \"plain\"", "dimension 0 of the shape is -1"}},
		{name: "unknown rank", edit: func(tb *testBundle) { tb.entries["plain"].Shape.UnknownRank = true }, want: []string{"unknown rank"}},
		{name: "slice outside the tensor", edit: func(tb *testBundle) {
			tb.entries["emb"].Slices[0].Extent[0].Start = 9
		}, want: []string{"entry \"emb\"", "slice 0", "does not lie inside"}},
		{name: "too many slices", edit: func(tb *testBundle) {
			e := tb.entries["vocab"]
			for len(e.Slices) <= MaxSlices {
				e.Slices = append(e.Slices, e.Slices[0])
			}
		}, want: []string{"exceed the limit of 65536", "MaxSlices"}},
		{name: "data byte flipped", edit: func(tb *testBundle) {
			s, off := locate(tb, "plain")
			tb.shards[s][off] ^= 1
		}, read: "plain", want: []string{"variables.data-00001-of-00003", "tensor \"plain\"", "CRC-32C mismatch"}},
		{name: "slice byte flipped", edit: func(tb *testBundle) {}, break_: func(f *files) { f.shards[0][0] ^= 1 }, read: "emb", want: []string{"variables.data-00000-of-00003", "tensor \"emb[0,3:-]\"", "CRC-32C mismatch"}},
		{name: "stored crc wrong", edit: func(tb *testBundle) { tb.entries["plain"].Crc32C++ }, read: "plain", want: []string{"CRC-32C mismatch"}},
		{name: "shard truncated", break_: func(f *files) { f.shards[1] = f.shards[1][:5] }, read: "plain", want: []string{"variables.data-00001-of-00003", "beyond the end", "truncated"}},
		{name: "shard missing", break_: func(f *files) { f.shards[1] = nil }, read: "plain", want: []string{"variables.data-00001-of-00003", "data shard 1 of 3 is missing"}},
		{name: "size wrong", edit: func(tb *testBundle) { tb.entries["plain"].Size = 11 }, read: "plain", want: []string{"tensor \"plain\"", "size 11 bytes, but 3 elements of int32 take 12"}},
		{name: "intact strings (control)", read: "str", want: nil},
		{name: "string length corrupted", edit: func(tb *testBundle) {
			s, off := locate(tb, "str")
			tb.shards[s][off] = 4 // "abc" now claims 4 bytes; the lengths' checksum catches it
		}, read: "str", want: []string{"tensor \"str\"", "CRC-32C mismatch of the string lengths"}},
		{name: "string length overrun", edit: func(tb *testBundle) {
			s, off := locate(tb, "str")
			tb.shards[s][off] = 100
		}, read: "str", want: []string{"tensor \"str\"", "string 0: length 100 exceeds"}},
		{name: "string size too small", edit: func(tb *testBundle) { tb.entries["str"].Size = 3 }, read: "str", want: []string{"too small for 2 strings"}},
		{name: "bool not 0 or 1", edit: func(tb *testBundle) {
			s, off := locate(tb, "flags")
			tb.shards[s][off] = 2
			tb.entries["flags"].Crc32C = maskCRC(crc32c(tb.shards[s][off : off+2]))
		}, read: "flags", want: []string{"tensor \"flags\"", "bool element 0 is the byte 2"}},
		{name: "unsupported dtype", edit: func(tb *testBundle) { tb.entries["plain"].Dtype = tfpb.DataType_DT_HALF }, read: "plain", want: []string{"tensor \"plain\" has dtype DT_HALF", "does not hold"}},
		{name: "too many elements", edit: func(tb *testBundle) { tb.entries["plain"].Shape.Dim[0].Size = 1 << 40 }, read: "plain", want: []string{"tensor \"plain\"", "RECOM_MAX_TENSOR_ELEMENTS"}},
		{name: "slice missing", edit: func(tb *testBundle) {
			delete(tb.entries, sliceKey("emb", Slice{Start: []int64{3, 0}, Length: []int64{4, -1}}))
		}, read: "emb", want: []string{"tensor \"emb\"", "slice 3,4:- has no entry"}},
		{name: "slices overlap", edit: func(tb *testBundle) {
			tb.entries["emb"].Slices[1].Extent[0].Start = 2
			tb.entries[sliceKey("emb", Slice{Start: []int64{2, 0}, Length: []int64{4, -1}})] = tb.entries[sliceKey("emb", Slice{Start: []int64{3, 0}, Length: []int64{4, -1}})]
		}, read: "emb", want: []string{"tensor \"emb\"", "slice 2,4:- overlaps another slice"}},
		{name: "slices leave a gap", edit: func(tb *testBundle) {
			tb.entries["vocab"].Slices = tb.entries["vocab"].Slices[:1]
		}, read: "vocab", want: []string{"tensor \"vocab\"", "its 1 slices cover 2 of its 5 elements"}},
		{name: "slice of another dtype", edit: func(tb *testBundle) {
			tb.entries[sliceKey("grid", Slice{Start: []int64{0, 0}, Length: []int64{2, 3}})].Dtype = tfpb.DataType_DT_INT32
		}, read: "grid", want: []string{"grid[0,2:0,3]", "dtype DT_INT32, but the partitioned tensor's is DT_INT64"}},
		{name: "slice of another shape", edit: func(tb *testBundle) {
			tb.entries[sliceKey("grid", Slice{Start: []int64{0, 0}, Length: []int64{2, 3}})].Shape = shapeProto([]int64{3, 2})
		}, read: "grid", want: []string{"shape [3,2], but the slice's is [2,3]"}},
		{name: "no such tensor", read: "nope", want: []string{"no tensor \"nope\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			interp.MaxElements = 1 << 20
			tb, _ := good()
			if tc.edit != nil {
				tc.edit(tb)
			}
			f := &files{index: tb.index(), shards: tb.shards}
			if tc.break_ != nil {
				tc.break_(f)
			}
			dir := t.TempDir()
			prefix := filepath.Join(dir, "variables")
			if err := os.WriteFile(IndexPath(prefix), f.index, 0o644); err != nil {
				t.Fatal(err)
			}
			for i, s := range f.shards {
				if s != nil {
					if err := os.WriteFile(DataPath(prefix, i, len(f.shards)), s, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var err error
			if tc.read == "" {
				_, err = Read(prefix)
			} else {
				var b *Bundle
				if b, err = Open(prefix); err == nil {
					_, err = b.Tensor(tc.read)
					b.Close()
				}
			}
			if tc.want == nil { // an intact control case
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) && !strings.Contains(err.Error(), "variables") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// tableWithBlock returns a table whose only data block has the contents
// blk, and an index pointing at it.
func tableWithBlock(blk []byte) []byte {
	var file []byte
	put := func(c []byte) blockHandle {
		h := blockHandle{uint64(len(file)), uint64(len(c))}
		file = append(file, c...)
		file = append(file, 0)
		file = binary.LittleEndian.AppendUint32(file, maskCRC(crc32c(append(append([]byte(nil), c...), 0))))
		return h
	}
	data := put(blk)
	meta := put(buildBlock(nil, 1))
	idx := put(buildBlock([]tableEntry{{key: []byte("\xff\xff"), value: encodeHandle(data)}}, 1))
	footer := append(encodeHandle(meta), encodeHandle(idx)...)
	footer = append(footer, make([]byte, footerLen-8-len(footer))...)
	return append(file, binary.LittleEndian.AppendUint64(footer, tableMagic)...)
}

// TestRealSavedModel reads the checkpoint of the real TensorFlow export in
// ../shared/testdata/savedmodels (see its SOURCES.md): every tensor, with
// its dtype and shape, finite values, and its CRC checked (a copy with one
// data byte flipped must fail).
func TestRealSavedModel(t *testing.T) {
	dir := realModelDir(t)
	prefix := filepath.Join(dir, "variables", "variables")
	b, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := map[string]struct {
		dt    tfpb.DataType
		shape []int64
	}{"global_step": {tfpb.DataType_DT_INT64, []int64{}}}
	if !slices.Equal(b.Keys(), []string{"global_step"}) {
		t.Fatalf("keys %q", b.Keys())
	}
	for _, k := range b.Keys() {
		e, _ := b.Entry(k)
		if w := want[k]; e.DType != w.dt || !slices.Equal(e.Shape, w.shape) {
			t.Errorf("%q: %s %v, want %s %v", k, e.DType, e.Shape, w.dt, w.shape)
		}
		v, err := b.Tensor(k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range v.Len() {
			if f := v.Float64At(i); math.IsNaN(f) || math.IsInf(f, 0) {
				t.Errorf("%q[%d] = %v", k, i, f)
			}
		}
		if v.Int64s()[0] != 1 {
			t.Errorf("global_step = %v, want 1", v)
		}
	}
	// The CRC is checked: flip the one data byte that holds the value.
	tmp := filepath.Join(t.TempDir(), "variables")
	idx, _ := os.ReadFile(IndexPath(prefix))
	data, _ := os.ReadFile(DataPath(prefix, 0, 1))
	data[0] ^= 0x40
	os.WriteFile(IndexPath(tmp), idx, 0o644)
	os.WriteFile(DataPath(tmp, 0, 1), data, 0o644)
	if _, err := Read(tmp); err == nil || !strings.Contains(err.Error(), "CRC-32C mismatch") {
		t.Fatalf("flipped data byte: %v", err)
	}
}

// realModelDir returns the real export's directory; the test fails
// without ../shared.
func realModelDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "testdata", "savedmodels", "fast_serving_tutorial")
	if _, err := os.Stat(filepath.Join(dir, "saved_model.pb")); err != nil {
		t.Fatalf("the real SavedModel is missing (../shared/testdata/savedmodels beside the checkout): %v", err)
	}
	return dir
}
