package checkpoint

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// This file is a checkpoint writer for the tests, written from the format
// description in table.go and bundle.go (as TensorFlow's BundleWriter and
// TableBuilder lay files out), so that the reader is tested on files with
// several shards, partitioned tensors, every dtype, and on corruptions of
// each part.

// tableOpts shapes the table the writer builds.
type tableOpts struct {
	blockSize       int  // start a new data block after this many bytes (0: 4096)
	restartInterval int  // keys between restart points in data blocks (0: 16)
	compression     byte // the trailer's type byte
}

// buildTable lays out entries (in the order given) as a table file.
func buildTable(entries []tableEntry, o tableOpts) []byte {
	if o.blockSize == 0 {
		o.blockSize = 4096
	}
	if o.restartInterval == 0 {
		o.restartInterval = 16
	}
	var file []byte
	writeBlock := func(contents []byte) blockHandle {
		h := blockHandle{uint64(len(file)), uint64(len(contents))}
		file = append(file, contents...)
		file = append(file, o.compression)
		var crc [4]byte
		binary.LittleEndian.PutUint32(crc[:], maskCRC(crc32c(append(append([]byte(nil), contents...), o.compression))))
		file = append(file, crc[:]...)
		return h
	}
	var index []tableEntry
	var block []tableEntry
	size := 0
	flush := func() {
		if len(block) == 0 {
			return
		}
		h := writeBlock(buildBlock(block, o.restartInterval))
		index = append(index, tableEntry{key: block[len(block)-1].key, value: encodeHandle(h)})
		block, size = nil, 0
	}
	for _, e := range entries {
		block = append(block, e)
		size += len(e.key) + len(e.value) + 3
		if size >= o.blockSize {
			flush()
		}
	}
	flush()
	meta := writeBlock(buildBlock(nil, 16))
	idx := writeBlock(buildBlock(index, 1))
	footer := append(encodeHandle(meta), encodeHandle(idx)...)
	footer = append(footer, make([]byte, footerLen-8-len(footer))...)
	footer = binary.LittleEndian.AppendUint64(footer, tableMagic)
	return append(file, footer...)
}

// buildBlock lays out one block with a restart point every interval keys.
func buildBlock(entries []tableEntry, interval int) []byte {
	var b []byte
	var restarts []uint32
	var prev []byte
	for i, e := range entries {
		shared := 0
		if i%interval == 0 {
			restarts = append(restarts, uint32(len(b)))
		} else {
			for shared < len(prev) && shared < len(e.key) && prev[shared] == e.key[shared] {
				shared++
			}
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(e.key)-shared))
		b = binary.AppendUvarint(b, uint64(len(e.value)))
		b = append(b, e.key[shared:]...)
		b = append(b, e.value...)
		prev = e.key
	}
	if len(restarts) == 0 {
		restarts = []uint32{0}
	}
	for _, r := range restarts {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(len(restarts)))
}

func encodeHandle(h blockHandle) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(nil, h.offset), h.size)
}

// testBundle builds a tensor bundle in memory.
type testBundle struct {
	header  *tfpb.BundleHeaderProto
	order   binary.ByteOrder
	shards  [][]byte
	entries map[string]*tfpb.BundleEntryProto
	align   int // pad each tensor's bytes to a multiple of this (0: none)
	table   tableOpts
}

func newTestBundle(shards int) *testBundle {
	return &testBundle{
		header:  &tfpb.BundleHeaderProto{NumShards: int32(shards), Version: &tfpb.VersionDef{Producer: 1}},
		order:   binary.LittleEndian,
		shards:  make([][]byte, shards),
		entries: map[string]*tfpb.BundleEntryProto{},
	}
}

// tfDType is the TensorFlow dtype of an interpreter dtype.
func tfDType(d interp.DType) tfpb.DataType {
	for k, v := range dtypes {
		if v == d {
			return k
		}
	}
	return tfpb.DataType_DT_INVALID
}

func shapeProto(shape []int64) *tfpb.TensorShapeProto {
	s := &tfpb.TensorShapeProto{}
	for _, d := range shape {
		s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

// encode returns the stored bytes of t and their CRC-32C.
func (tb *testBundle) encode(t *interp.Tensor) ([]byte, uint32) {
	var b []byte
	o := tb.order.(binary.AppendByteOrder)
	switch d := t.Data().(type) {
	case []float32:
		for _, v := range d {
			b = o.AppendUint32(b, math.Float32bits(v))
		}
	case []float64:
		for _, v := range d {
			b = o.AppendUint64(b, math.Float64bits(v))
		}
	case []int8:
		for _, v := range d {
			b = append(b, byte(v))
		}
	case []int16:
		for _, v := range d {
			b = o.AppendUint16(b, uint16(v))
		}
	case []int32:
		for _, v := range d {
			b = o.AppendUint32(b, uint32(v))
		}
	case []int64:
		for _, v := range d {
			b = o.AppendUint64(b, uint64(v))
		}
	case []uint8:
		b = append(b, d...)
	case []bool:
		for _, v := range d {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	case []string:
		var crc uint32
		for _, s := range d {
			b = binary.AppendUvarint(b, uint64(len(s)))
			crc = extendCRC(crc, o.AppendUint32(nil, uint32(len(s))))
		}
		sum := o.AppendUint32(nil, maskCRC(crc))
		b = append(b, sum...)
		crc = extendCRC(crc, sum)
		for _, s := range d {
			b = append(b, s...)
			crc = extendCRC(crc, []byte(s))
		}
		return b, crc
	}
	return b, crc32c(b)
}

// add stores t under key in shard.
func (tb *testBundle) add(key string, t *interp.Tensor, shard int) *tfpb.BundleEntryProto {
	data, crc := tb.encode(t)
	e := &tfpb.BundleEntryProto{
		Dtype: tfDType(t.DType()), Shape: shapeProto(t.Shape()), ShardId: int32(shard),
		Offset: int64(len(tb.shards[shard])), Size: int64(len(data)), Crc32C: maskCRC(crc),
	}
	tb.shards[shard] = append(tb.shards[shard], data...)
	if tb.align > 1 {
		for len(tb.shards[shard])%tb.align != 0 {
			tb.shards[shard] = append(tb.shards[shard], 0)
		}
	}
	tb.entries[key] = e
	return e
}

// addSlice stores part as the slice s of the partitioned tensor key of
// shape full, in shard.
func (tb *testBundle) addSlice(key string, full []int64, s Slice, part *interp.Tensor, shard int) {
	e, ok := tb.entries[key]
	if !ok {
		e = &tfpb.BundleEntryProto{Dtype: tfDType(part.DType()), Shape: shapeProto(full)}
		tb.entries[key] = e
	}
	e.Slices = append(e.Slices, sliceProto(s))
	tb.add(sliceKey(key, s), part, shard)
}

// index returns the index file's bytes.
func (tb *testBundle) index() []byte {
	keys := make([]string, 0, len(tb.entries))
	for k := range tb.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h, _ := proto.Marshal(tb.header)
	es := []tableEntry{{key: []byte{}, value: h}}
	for _, k := range keys {
		v, _ := proto.Marshal(tb.entries[k])
		es = append(es, tableEntry{key: []byte(k), value: v})
	}
	return buildTable(es, tb.table)
}

// blockContents returns the contents of the index as one block: the
// header and entries, restarting every tb.table.restartInterval keys.
func (tb *testBundle) blockContents() []byte {
	keys := slices.Sorted(mapKeys(tb.entries))
	h, _ := proto.Marshal(tb.header)
	es := []tableEntry{{key: []byte{}, value: h}}
	for _, k := range keys {
		v, _ := proto.Marshal(tb.entries[k])
		es = append(es, tableEntry{key: []byte(k), value: v})
	}
	return buildBlock(es, max(tb.table.restartInterval, 1))
}

// write writes the bundle under dir/name and returns its prefix.
func (tb *testBundle) write(t testing.TB, dir, name string) string {
	t.Helper()
	prefix := filepath.Join(dir, name)
	if err := os.WriteFile(IndexPath(prefix), tb.index(), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, s := range tb.shards {
		if err := os.WriteFile(DataPath(prefix, i, len(tb.shards)), s, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

// memShards opens shards held in memory.
func memShards(shards [][]byte) func(int) (*shard, error) {
	return func(i int) (*shard, error) {
		return &shard{name: "mem.data", r: bytes.NewReader(shards[i]), size: int64(len(shards[i]))}, nil
	}
}

// TestWriterBlocks checks the test writer's blocks against the layout that
// table.go documents, byte for byte, so that the reader and the writer
// cannot agree on a mistake in the entry encoding.
func TestWriterBlocks(t *testing.T) {
	got := buildBlock([]tableEntry{{[]byte("abc"), []byte("1")}, {[]byte("abd"), []byte("22")}}, 16)
	want := []byte{
		0, 3, 1, 'a', 'b', 'c', '1', // shared 0, 3 key bytes, 1 value byte
		2, 1, 2, 'd', '2', '2', // shares "ab"
		0, 0, 0, 0, // restart point 0
		1, 0, 0, 0, // one restart point
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("block\n got %v\nwant %v", got, want)
	}
	// An empty block is its restart array of one zero offset.
	if got := buildBlock(nil, 16); !bytes.Equal(got, []byte{0, 0, 0, 0, 1, 0, 0, 0}) {
		t.Fatalf("empty block: %v", got)
	}
	// A masked CRC as TensorFlow computes it (crc32c::Mask).
	if got, want := maskCRC(0), uint32(crcMaskDelta); got != want {
		t.Fatalf("maskCRC(0) = %#x, want %#x", got, want)
	}
	for _, c := range []uint32{0, 1, 0xdeadbeef, 0xffffffff} {
		if unmaskCRC(maskCRC(c)) != c {
			t.Fatalf("unmask(mask(%#x)) != itself", c)
		}
	}
}
