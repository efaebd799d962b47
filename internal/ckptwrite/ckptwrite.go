// Package ckptwrite writes TensorFlow tensor bundles (V2 checkpoints:
// PREFIX.index and PREFIX.data-NNNNN-of-MMMMM) and SavedModel directories
// for the tests of the packages that read them through frontend/checkpoint
// (compiler, cmd/recom): whole tensors of every dtype the interpreter holds,
// several shards, partitioned tensors stored as slices. It follows the
// layout frontend/checkpoint documents (table.go, bundle.go): a
// LevelDB-style table of BundleEntryProtos with masked CRC-32Cs, and raw
// little-endian tensor bytes.
package ckptwrite

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// mask is the CRC masking of LevelDB and TensorFlow.
func mask(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

// Bundle is a tensor bundle being built.
type Bundle struct {
	shards  [][]byte
	entries map[string]*tfpb.BundleEntryProto
}

// New starts a bundle of n data shards.
func New(n int) *Bundle {
	return &Bundle{shards: make([][]byte, n), entries: map[string]*tfpb.BundleEntryProto{}}
}

// DType is TensorFlow's dtype of an interpreter dtype.
func DType(d interp.DType) tfpb.DataType {
	switch d {
	case interp.Float32:
		return tfpb.DataType_DT_FLOAT
	case interp.Float64:
		return tfpb.DataType_DT_DOUBLE
	case interp.Int8:
		return tfpb.DataType_DT_INT8
	case interp.Int16:
		return tfpb.DataType_DT_INT16
	case interp.Int32:
		return tfpb.DataType_DT_INT32
	case interp.Int64:
		return tfpb.DataType_DT_INT64
	case interp.Uint8:
		return tfpb.DataType_DT_UINT8
	case interp.Bool:
		return tfpb.DataType_DT_BOOL
	case interp.String:
		return tfpb.DataType_DT_STRING
	}
	panic(fmt.Sprintf("ckptwrite: no TensorFlow dtype for %v", d))
}

// Shape is the TensorShapeProto of a shape.
func Shape(shape []int64) *tfpb.TensorShapeProto {
	p := &tfpb.TensorShapeProto{}
	for _, d := range shape {
		p.Dim = append(p.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return p
}

// encode lays out a tensor's bytes as a bundle stores them and returns
// them with their CRC-32C (for strings: lengths as varints, their masked
// checksum over each length as 4 little-endian bytes, then the bytes; the
// CRC extends over the lengths as checksummed, the checksum and the bytes).
func encode(t *interp.Tensor) ([]byte, uint32) {
	var b []byte
	switch v := t.Data().(type) {
	case []float32:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	case []float64:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	case []int8:
		for _, x := range v {
			b = append(b, byte(x))
		}
	case []int16:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
	case []int32:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
	case []int64:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
	case []uint8:
		b = append(b, v...)
	case []bool:
		for _, x := range v {
			if x {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	case []string:
		if len(v) == 0 {
			return nil, 0
		}
		var crc uint32
		for _, s := range v {
			b = binary.AppendUvarint(b, uint64(len(s)))
			crc = crc32.Update(crc, castagnoli, binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
		}
		sum := binary.LittleEndian.AppendUint32(nil, mask(crc))
		b = append(b, sum...)
		crc = crc32.Update(crc, castagnoli, sum)
		for _, s := range v {
			b = append(b, s...)
			crc = crc32.Update(crc, castagnoli, []byte(s))
		}
		return b, crc
	default:
		panic(fmt.Sprintf("ckptwrite: tensor data %T", v))
	}
	return b, crc32.Checksum(b, castagnoli)
}

// put appends a tensor's bytes to a shard and returns its entry.
func (b *Bundle) put(t *interp.Tensor, shard int) *tfpb.BundleEntryProto {
	data, crc := encode(t)
	e := &tfpb.BundleEntryProto{Dtype: DType(t.DType()), Shape: Shape(t.Shape()), ShardId: int32(shard),
		Offset: int64(len(b.shards[shard])), Size: int64(len(data)), Crc32C: mask(crc)}
	b.shards[shard] = append(b.shards[shard], data...)
	return e
}

// Add stores the whole tensor t under key in shard.
func (b *Bundle) Add(key string, t *interp.Tensor, shard int) *tfpb.BundleEntryProto {
	e := b.put(t, shard)
	b.entries[key] = e
	return e
}

// AddSlice stores part, the slice (start, length per dimension; length -1
// for a whole dimension) of the partitioned tensor key of shape full, in
// shard, as TensorFlow saves a partitioned variable's partitions: the
// slice under its own key, and the slice listed in key's entry.
func (b *Bundle) AddSlice(key string, full, start, length []int64, part *interp.Tensor, shard int) {
	e := b.put(part, shard)
	b.entries[SliceKey(key, start, length)] = e
	fe, ok := b.entries[key]
	if !ok {
		fe = &tfpb.BundleEntryProto{Dtype: DType(part.DType()), Shape: Shape(full)}
		b.entries[key] = fe
	}
	sp := &tfpb.TensorSliceProto{}
	for i := range start {
		x := &tfpb.TensorSliceProto_Extent{Start: start[i]}
		if length[i] >= 0 {
			x.HasLength = &tfpb.TensorSliceProto_Extent_Length{Length: length[i]}
		}
		sp.Extent = append(sp.Extent, x)
	}
	fe.Slices = append(fe.Slices, sp)
}

// Entry returns the entry of key (nil when absent), for tests that break
// what it declares.
func (b *Bundle) Entry(key string) *tfpb.BundleEntryProto { return b.entries[key] }

// Index returns the .index file: the header (key "") and the entries in
// key order, as a table with one data block, a restart point every 16 keys.
func (b *Bundle) Index() []byte {
	hdr, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: int32(len(b.shards)),
		Endianness: tfpb.BundleHeaderProto_LITTLE, Version: &tfpb.VersionDef{Producer: 1}})
	keys := make([]string, 0, len(b.entries))
	for k := range b.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kv := [][2][]byte{{nil, hdr}}
	for _, k := range keys {
		v, err := proto.Marshal(b.entries[k])
		if err != nil {
			panic(err)
		}
		kv = append(kv, [2][]byte{[]byte(k), v})
	}
	var file []byte
	block := func(contents []byte) []byte { // appends the block with its trailer, returns its handle
		h := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(len(file))), uint64(len(contents)))
		file = append(file, contents...)
		file = append(file, 0)
		file = binary.LittleEndian.AppendUint32(file, mask(crc32.Checksum(append(append([]byte(nil), contents...), 0), castagnoli)))
		return h
	}
	data := block(blockOf(kv, 16))
	meta := block(blockOf(nil, 16))
	index := block(blockOf([][2][]byte{{kv[len(kv)-1][0], data}}, 1))
	footer := append(meta, index...)
	footer = append(footer, make([]byte, 40-len(footer))...)
	footer = binary.LittleEndian.AppendUint64(footer, 0xdb4775248b80fb57)
	return append(file, footer...)
}

// blockOf lays out a block of key-value pairs with prefix-compressed keys
// and a restart point every interval keys.
func blockOf(kv [][2][]byte, interval int) []byte {
	var b []byte
	var restarts []uint32
	var prev []byte
	for i, e := range kv {
		shared := 0
		if i%interval == 0 {
			restarts = append(restarts, uint32(len(b)))
		} else {
			for shared < len(prev) && shared < len(e[0]) && prev[shared] == e[0][shared] {
				shared++
			}
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(e[0])-shared))
		b = binary.AppendUvarint(b, uint64(len(e[1])))
		b = append(append(b, e[0][shared:]...), e[1]...)
		prev = e[0]
	}
	if len(restarts) == 0 {
		restarts = []uint32{0}
	}
	for _, r := range restarts {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(len(restarts)))
}

// Write writes PREFIX.index and the data shards, and returns prefix.
func (b *Bundle) Write(prefix string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(prefix+".index", b.Index(), 0o644); err != nil {
		return "", err
	}
	for i, s := range b.shards {
		if err := os.WriteFile(fmt.Sprintf("%s.data-%05d-of-%05d", prefix, i, len(b.shards)), s, 0o644); err != nil {
			return "", err
		}
	}
	return prefix, nil
}

// SliceKey is the key of a slice's entry: TensorFlow's ordered code of the
// number 0, the tensor's name, the rank, and each dimension's start and
// length (-1: whole).
func SliceKey(name string, start, length []int64) string {
	b := orderedUint(nil, 0)
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case 0x00:
			b = append(b, 0x00, 0xff)
		case 0xff:
			b = append(b, 0xff, 0x00)
		default:
			b = append(b, c)
		}
	}
	b = append(b, 0x00, 0x01)
	b = orderedUint(b, uint64(len(start)))
	for i := range start {
		b = orderedInt(b, start[i])
		b = orderedInt(b, length[i])
	}
	return string(b)
}

// orderedUint appends an unsigned number: its byte count, then its
// big-endian bytes without leading zeros.
func orderedUint(b []byte, v uint64) []byte {
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], v)
	n := 8
	for n > 0 && be[8-n] == 0 {
		n--
	}
	return append(append(b, byte(n)), be[8-n:]...)
}

// orderedInt appends a signed number in n bytes (1 to 10): the two's
// complement in the low 7n-1 bits, the top n bits set for v >= 0 (clear
// for v < 0) and the bit after them the opposite.
func orderedInt(b []byte, v int64) []byte {
	x := uint64(v)
	if v < 0 {
		x = ^x
	}
	n := 1
	for x>>(7*n-1) != 0 {
		n++
	}
	var buf [10]byte
	fill := byte(0)
	if v < 0 {
		fill = 0xff
	}
	buf[0], buf[1] = fill, fill
	binary.BigEndian.PutUint64(buf[2:], uint64(v))
	out := buf[10-n:]
	hdr := ^uint16(0) << (16 - n)
	out[0] ^= byte(hdr >> 8)
	if n > 1 {
		out[1] ^= byte(hdr)
	}
	return append(b, out...)
}

// SavedModel writes a SavedModel directory: dir/saved_model.pb (sm), the
// bundle (nil: none) as dir/variables/variables, and the asset files
// (name -> contents) under dir/assets.
func SavedModel(dir string, sm *tfpb.SavedModel, b *Bundle, assets map[string]string) error {
	data, err := proto.Marshal(sm)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "saved_model.pb"), data, 0o644); err != nil {
		return err
	}
	if b != nil {
		if _, err := b.Write(filepath.Join(dir, "variables", "variables")); err != nil {
			return err
		}
	}
	for name, text := range assets {
		path := filepath.Join(dir, "assets", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
