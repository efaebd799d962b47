package checkpoint

import (
	"encoding/binary"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// fuzzLimit is interp.MaxElements during fuzzing, so that each input is
// cheap; it also bounds what an accepted input may allocate.
const fuzzLimit = 1 << 16

// FuzzIndex feeds parseIndex arbitrary index files (seeds: the bundles of
// the tests, with several blocks and restart intervals) and reads every
// tensor the accepted ones list from the seed bundle's shards. Neither may
// panic; errors name the index file or a shard. Every block of a table is
// checksummed, so most mutations of a whole file stop at a CRC; with wrap
// set the input is instead the contents of the one data block of a table
// with valid checksums, which lets the fuzzer reach the entries, restart
// points, key order, header and entry checks.
func FuzzIndex(f *testing.F) {
	tb, _ := partitioned()
	shards := tb.shards
	f.Add(tb.index(), false)
	f.Add(tb.blockContents(), true)
	tb.table = tableOpts{blockSize: 16, restartInterval: 2}
	f.Add(tb.index(), false)
	small := newTestBundle(3)
	for i, k := range []string{"f32", "str", "bool", "i64"} {
		small.add(k, everyDType()[k], i%3)
	}
	f.Add(small.index(), false)
	small.table.restartInterval = 3
	f.Add(small.blockContents(), true)
	f.Fuzz(func(t *testing.T, data []byte, wrap bool) {
		defer func(m int64) { interp.MaxElements = m }(interp.MaxElements)
		interp.MaxElements = fuzzLimit
		if wrap {
			data = tableWithBlock(data)
		}
		b, err := parseIndex("fuzz.index", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.index: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		b.open = func(i int) (*shard, error) {
			if i >= len(shards) {
				return memShards([][]byte{nil})(0)
			}
			return memShards(shards)(i)
		}
		for _, k := range b.Keys() {
			if v, err := b.Tensor(k); err == nil && int64(v.Len()) > fuzzLimit {
				t.Fatalf("%q: %d elements read past the limit", k, v.Len())
			}
			if e, ok := b.Entry(k); ok && len(e.Shape) > 0 {
				s := FullSlice(len(e.Shape))
				s.Length[0] = min(e.Shape[0], 1)
				_, _ = b.TensorSlice(k, s)
			}
		}
	})
}

// FuzzEntry decodes an arbitrary BundleEntryProto (seeds: entries of every
// dtype) over an arbitrary data shard, as the tensor "t" of a one-shard
// bundle. It must not panic, must not allocate past the element limit, and
// what it decodes must have the entry's shape.
func FuzzEntry(f *testing.F) {
	tb := newTestBundle(1)
	for k, v := range everyDType() {
		tb.add(k, v, 0)
	}
	for _, e := range tb.entries {
		b, _ := proto.Marshal(e)
		f.Add(b, tb.shards[0], false)
		f.Add(b, tb.shards[0], true)
	}
	f.Fuzz(func(t *testing.T, entry, data []byte, fixCRC bool) {
		defer func(m int64) { interp.MaxElements = m }(interp.MaxElements)
		interp.MaxElements = fuzzLimit
		e := &tfpb.BundleEntryProto{}
		if proto.Unmarshal(entry, e) != nil {
			return
		}
		b := &Bundle{index: "fuzz.index", header: &tfpb.BundleHeaderProto{NumShards: 1}, order: binary.LittleEndian,
			entries: map[string]*tfpb.BundleEntryProto{}, shards: make([]*shard, 1), open: memShards([][]byte{data}),
			full: map[string]*interp.Tensor{}}
		if err := b.checkEntry("t", e); err != nil {
			return
		}
		// A mutated entry rarely carries the CRC of its bytes; fixCRC gives
		// it the CRC-32C of its raw bytes (the stored CRC of every dtype
		// but strings).
		if off, size := e.GetOffset(), e.GetSize(); fixCRC && off <= int64(len(data)) && size <= int64(len(data))-off {
			e.Crc32C = maskCRC(crc32c(data[off : off+size]))
		}
		b.entries["t"], b.keys = e, []string{"t"}
		// Each slice's own entry is the whole shard, so that reassembly runs.
		for _, p := range e.GetSlices() {
			se := proto.CloneOf(e)
			se.Slices, se.ShardId, se.Offset = nil, 0, 0
			full, _ := entryShape(e)
			if shape, err := sliceFromProto(p).Shape(full); err == nil {
				se.Shape = shapeProto(shape)
			}
			b.entries[sliceKey("t", sliceFromProto(p))] = se
		}
		v, err := b.Tensor("t")
		if err != nil {
			return
		}
		want, _ := entryShape(e)
		if interp.ShapeString(v.Shape()) != interp.ShapeString(want) || int64(v.Len()) > fuzzLimit {
			t.Fatalf("decoded %s for shape %s", interp.ShapeString(v.Shape()), interp.ShapeString(want))
		}
	})
}
