package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// bundleVersion is the tensor bundle format version this reader implements
// (TensorFlow's kTensorBundleVersion); a bundle whose min_consumer is newer
// is refused.
const bundleVersion = 1

// IndexPath returns the index file of the bundle at prefix (PREFIX.index).
func IndexPath(prefix string) string { return prefix + ".index" }

// DataPath returns the name of data shard i of n of the bundle at prefix
// (PREFIX.data-00000-of-00001).
func DataPath(prefix string, i, n int) string {
	return fmt.Sprintf("%s.data-%05d-of-%05d", prefix, i, n)
}

// Bundle is an open tensor bundle: its index read and checked, its data
// shards opened when a tensor in them is first read. A Bundle is not safe
// for concurrent use.
type Bundle struct {
	prefix  string
	index   string // the index file's name, for errors
	header  *tfpb.BundleHeaderProto
	order   binary.ByteOrder
	entries map[string]*tfpb.BundleEntryProto // every key but the header's
	keys    []string                          // tensor keys, sorted (no slice entries)
	shards  []*shard
	open    func(i int) (*shard, error)
	full    map[string]*interp.Tensor // partitioned tensors reassembled
}

// shard is an open data file.
type shard struct {
	name string
	r    io.ReaderAt
	size int64
	c    io.Closer
}

// Entry describes a stored tensor: its dtype (TensorFlow's, which may be
// one recom's interpreter does not hold), its shape, and its slices if it
// is partitioned.
type Entry struct {
	DType  tfpb.DataType
	Shape  []int64
	Slices []Slice
}

// Open reads and checks the index of the bundle at prefix (PREFIX.index
// and PREFIX.data-*). Close releases the data files.
func Open(prefix string) (*Bundle, error) {
	name := IndexPath(prefix)
	data, err := inputfile.Read(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such checkpoint index (a checkpoint PREFIX is read from PREFIX.index and PREFIX.data-*)", name)
		}
		return nil, err
	}
	b, err := parseIndex(name, data)
	if err != nil {
		return nil, err
	}
	b.prefix = prefix
	n := int(b.header.GetNumShards())
	b.open = func(i int) (*shard, error) {
		path := DataPath(prefix, i, n)
		f, err := os.Open(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: data shard %d of %d is missing", path, i, n)
			}
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &shard{name: path, r: f, size: st.Size(), c: f}, nil
	}
	return b, nil
}

// Read reads every tensor of the bundle at prefix, by key. Slices of
// partitioned tensors are not listed: their full tensors are, reassembled.
func Read(prefix string) (map[string]*interp.Tensor, error) {
	b, err := Open(prefix)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	out := map[string]*interp.Tensor{}
	for _, k := range b.Keys() {
		t, err := b.Tensor(k)
		if err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

// parseIndex checks the table in data and decodes its header and entries.
func parseIndex(name string, data []byte) (*Bundle, error) {
	es, err := parseTable(name, data)
	if err != nil {
		return nil, err
	}
	if len(es) == 0 || len(es[0].key) != 0 {
		return nil, fmt.Errorf("%s: the table has no header entry (the empty key): not a tensor bundle index", name)
	}
	b := &Bundle{index: name, header: &tfpb.BundleHeaderProto{}, entries: map[string]*tfpb.BundleEntryProto{}, full: map[string]*interp.Tensor{}}
	if err := proto.Unmarshal(es[0].value, b.header); err != nil {
		return nil, fmt.Errorf("%s: header: %v", name, err)
	}
	h := b.header
	if n := h.GetNumShards(); n < 1 || n > MaxShards {
		return nil, fmt.Errorf("%s: header: %d data shards is out of range [1, %d] (MaxShards; see docs/LIMITS.md)", name, n, MaxShards)
	}
	switch h.GetEndianness() {
	case tfpb.BundleHeaderProto_LITTLE:
		b.order = binary.LittleEndian
	case tfpb.BundleHeaderProto_BIG:
		b.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: header: unknown endianness %d", name, h.GetEndianness())
	}
	if v := h.GetVersion(); v.GetMinConsumer() > bundleVersion {
		return nil, fmt.Errorf("%s: header: the bundle needs a reader of version %d or newer; this one is version %d", name, v.GetMinConsumer(), bundleVersion)
	} else {
		for _, bad := range v.GetBadConsumers() {
			if bad == bundleVersion {
				return nil, fmt.Errorf("%s: header: the bundle disallows readers of version %d, as this one", name, bundleVersion)
			}
		}
	}
	b.shards = make([]*shard, h.GetNumShards())
	for _, e := range es[1:] {
		key := string(e.key)
		ent := &tfpb.BundleEntryProto{}
		if err := proto.Unmarshal(e.value, ent); err != nil {
			return nil, fmt.Errorf("%s: entry %q: %v", name, key, err)
		}
		if err := b.checkEntry(key, ent); err != nil {
			return nil, fmt.Errorf("%s: entry %q: %v", name, displayKey(key), err)
		}
		b.entries[key] = ent
		if !isSliceKey(key) {
			b.keys = append(b.keys, key)
		}
	}
	sort.Strings(b.keys)
	return b, nil
}

// checkEntry checks what an entry declares without reading data.
func (b *Bundle) checkEntry(key string, e *tfpb.BundleEntryProto) error {
	if _, err := entryShape(e); err != nil {
		return err
	}
	if len(e.GetSlices()) > 0 {
		if isSliceKey(key) {
			return fmt.Errorf("a slice entry is itself partitioned")
		}
		if len(e.GetSlices()) > MaxSlices {
			return fmt.Errorf("%d slices exceed the limit of %d (MaxSlices; see docs/LIMITS.md)", len(e.GetSlices()), MaxSlices)
		}
		full, _ := entryShape(e)
		for i, p := range e.GetSlices() {
			if _, _, err := sliceFromProto(p).bounds(full); err != nil {
				return fmt.Errorf("slice %d: %v", i, err)
			}
		}
		return nil
	}
	if id := e.GetShardId(); id < 0 || id >= b.header.GetNumShards() {
		return fmt.Errorf("shard %d is out of range [0, %d)", id, b.header.GetNumShards())
	}
	if e.GetOffset() < 0 || e.GetSize() < 0 {
		return fmt.Errorf("negative offset %d or size %d", e.GetOffset(), e.GetSize())
	}
	return nil
}

// entryShape returns the shape of an entry after checking it is fully
// known, of rank at most interp.MaxRank, with no negative dimension.
func entryShape(e *tfpb.BundleEntryProto) ([]int64, error) {
	s := e.GetShape()
	if s.GetUnknownRank() {
		return nil, fmt.Errorf("the shape has unknown rank")
	}
	if len(s.GetDim()) > interp.MaxRank {
		return nil, fmt.Errorf("rank %d exceeds the maximum %d", len(s.GetDim()), interp.MaxRank)
	}
	shape := make([]int64, len(s.GetDim()))
	for i, d := range s.GetDim() {
		if d.GetSize() < 0 {
			return nil, fmt.Errorf("dimension %d of the shape is %d", i, d.GetSize())
		}
		shape[i] = d.GetSize()
	}
	return shape, nil
}

// isSliceKey reports whether key names a slice of a partitioned tensor:
// such keys are ordered codes starting with the number 0, a zero byte.
func isSliceKey(key string) bool { return len(key) > 0 && key[0] == 0 }

// displayKey returns key for messages: a slice entry's key is binary, and
// is shown decoded when it can be.
func displayKey(key string) string {
	if !isSliceKey(key) {
		return key
	}
	if name, s, ok := decodeSliceKey(key); ok {
		return name + "[" + s.String() + "]"
	}
	return key
}

// Close closes the data shards that were opened.
func (b *Bundle) Close() error {
	var first error
	for i, s := range b.shards {
		if s != nil && s.c != nil {
			if err := s.c.Close(); err != nil && first == nil {
				first = err
			}
		}
		b.shards[i] = nil
	}
	return first
}

// Prefix returns the bundle's prefix.
func (b *Bundle) Prefix() string { return b.prefix }

// NumShards returns the number of data shards the header declares.
func (b *Bundle) NumShards() int { return int(b.header.GetNumShards()) }

// Keys returns the keys of the stored tensors, sorted. The slices of a
// partitioned tensor are not keys of their own: its key names the full
// tensor.
func (b *Bundle) Keys() []string { return append([]string(nil), b.keys...) }

// Has reports whether key names a stored tensor.
func (b *Bundle) Has(key string) bool {
	_, ok := b.entries[key]
	return ok && !isSliceKey(key)
}

// Entry returns what the index says of the tensor key.
func (b *Bundle) Entry(key string) (Entry, bool) {
	e, ok := b.entries[key]
	if !ok || isSliceKey(key) {
		return Entry{}, false
	}
	shape, _ := entryShape(e) // checked by parseIndex
	out := Entry{DType: e.GetDtype(), Shape: shape}
	for _, p := range e.GetSlices() {
		out.Slices = append(out.Slices, sliceFromProto(p))
	}
	return out, true
}

// Tensor reads the tensor key, checking its CRC-32C; a partitioned tensor
// is reassembled from its slices, which must cover it exactly once.
func (b *Bundle) Tensor(key string) (*interp.Tensor, error) {
	e, ok := b.entries[key]
	if !ok || isSliceKey(key) {
		return nil, fmt.Errorf("%s: no tensor %q in the checkpoint", b.index, key)
	}
	if len(e.GetSlices()) > 0 {
		return b.assemble(key, e)
	}
	return b.read(key, e)
}

// TensorSlice reads the part s of the tensor key. When s is one of the
// stored slices of a partitioned tensor, only that slice is read;
// otherwise the full tensor is read (and kept for later slices) and s
// copied out of it.
func (b *Bundle) TensorSlice(key string, s Slice) (*interp.Tensor, error) {
	e, ok := b.entries[key]
	if !ok || isSliceKey(key) {
		return nil, fmt.Errorf("%s: no tensor %q in the checkpoint", b.index, key)
	}
	full, _ := entryShape(e)
	if _, _, err := s.bounds(full); err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", b.index, key, err)
	}
	for _, p := range e.GetSlices() {
		if stored := sliceFromProto(p); sameRegion(stored, s, full) {
			return b.readSlice(key, e, stored)
		}
	}
	t, ok := b.full[key]
	if !ok {
		var err error
		if t, err = b.Tensor(key); err != nil {
			return nil, err
		}
		if len(e.GetSlices()) > 0 {
			b.full[key] = t
		}
	}
	out, err := Extract(t, s)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", b.index, key, err)
	}
	return out, nil
}

// readSlice reads the stored slice s of the partitioned tensor key (entry
// e) from its own entry.
func (b *Bundle) readSlice(key string, e *tfpb.BundleEntryProto, s Slice) (*interp.Tensor, error) {
	full, _ := entryShape(e)
	sk := sliceKey(key, s)
	se, ok := b.entries[sk]
	if !ok {
		return nil, fmt.Errorf("%s: tensor %q: slice %s has no entry (missing shard index?)", b.index, key, s)
	}
	what := fmt.Sprintf("%s[%s]", key, s)
	if se.GetDtype() != e.GetDtype() {
		return nil, fmt.Errorf("%s: tensor %q: dtype %s, but the partitioned tensor's is %s", b.index, what, dtypeName(se.GetDtype()), dtypeName(e.GetDtype()))
	}
	want, _ := s.Shape(full)
	got, _ := entryShape(se)
	if interp.ShapeString(got) != interp.ShapeString(want) {
		return nil, fmt.Errorf("%s: tensor %q: shape %s, but the slice's is %s", b.index, what, interp.ShapeString(got), interp.ShapeString(want))
	}
	return b.read(what, se)
}

// assemble reads every slice of the partitioned tensor key into one tensor.
func (b *Bundle) assemble(key string, e *tfpb.BundleEntryProto) (*interp.Tensor, error) {
	dt, err := b.dtype(key, e)
	if err != nil {
		return nil, err
	}
	full, _ := entryShape(e)
	n, err := interp.NumElements(full)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", b.index, key, err)
	}
	buf, err := interp.MakeSlice(dt, int(n))
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", b.index, key, err)
	}
	covered := make([]uint64, (n+63)/64)
	count := int64(0)
	for _, p := range e.GetSlices() {
		s := sliceFromProto(p)
		part, err := b.readSlice(key, e, s)
		if err != nil {
			return nil, err
		}
		start, length, _ := s.bounds(full)
		overlap := false
		eachRun(full, start, length, func(at, _, m int64) {
			for i := at; i < at+m; i++ {
				if covered[i/64]&(1<<(i%64)) != 0 {
					overlap = true
				}
				covered[i/64] |= 1 << (i % 64)
			}
			count += m
		})
		if overlap {
			return nil, fmt.Errorf("%s: tensor %q: slice %s overlaps another slice", b.index, key, s)
		}
		copyRuns(buf, part.Data(), full, start, length, true)
	}
	if count != n {
		return nil, fmt.Errorf("%s: tensor %q: its %d slices cover %d of its %d elements", b.index, key, len(e.GetSlices()), count, n)
	}
	return interp.FromSlice(full, buf)
}

// dtype returns the interpreter's dtype for an entry, or an error naming
// the tensor when the interpreter has none.
func (b *Bundle) dtype(key string, e *tfpb.BundleEntryProto) (interp.DType, error) {
	dt, ok := dtypes[e.GetDtype()]
	if !ok {
		return 0, fmt.Errorf("%s: tensor %q has dtype %s, which recom's interpreter does not hold (it holds float, double, int8, int16, int32, int64, uint8, bool and string)", b.index, key, dtypeName(e.GetDtype()))
	}
	return dt, nil
}

// dtypes maps TensorFlow's dtypes to the interpreter's.
var dtypes = map[tfpb.DataType]interp.DType{
	tfpb.DataType_DT_FLOAT:  interp.Float32,
	tfpb.DataType_DT_DOUBLE: interp.Float64,
	tfpb.DataType_DT_INT8:   interp.Int8,
	tfpb.DataType_DT_INT16:  interp.Int16,
	tfpb.DataType_DT_INT32:  interp.Int32,
	tfpb.DataType_DT_INT64:  interp.Int64,
	tfpb.DataType_DT_UINT8:  interp.Uint8,
	tfpb.DataType_DT_BOOL:   interp.Bool,
	tfpb.DataType_DT_STRING: interp.String,
}

// elemBytes is the stored width of each fixed-width dtype.
var elemBytes = map[interp.DType]int64{
	interp.Float32: 4, interp.Float64: 8, interp.Int8: 1, interp.Int16: 2,
	interp.Int32: 4, interp.Int64: 8, interp.Uint8: 1, interp.Bool: 1,
}

func dtypeName(d tfpb.DataType) string {
	if n, ok := tfpb.DataType_name[int32(d)]; ok {
		return n
	}
	return fmt.Sprintf("DataType(%d)", d)
}

// shard returns data shard i, opening it on first use.
func (b *Bundle) shard(i int) (*shard, error) {
	if s := b.shards[i]; s != nil {
		return s, nil
	}
	s, err := b.open(i)
	if err != nil {
		return nil, err
	}
	b.shards[i] = s
	return s, nil
}

// read reads the stored bytes of the unpartitioned entry e (named what in
// errors) and decodes them.
func (b *Bundle) read(what string, e *tfpb.BundleEntryProto) (*interp.Tensor, error) {
	dt, err := b.dtype(what, e)
	if err != nil {
		return nil, err
	}
	shape, _ := entryShape(e)
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", b.index, what, err)
	}
	size := e.GetSize()
	if w, fixed := elemBytes[dt]; fixed {
		if n > math.MaxInt64/w || size != n*w {
			return nil, fmt.Errorf("%s: tensor %q: size %d bytes, but %d elements of %s take %d", b.index, what, size, n, dt, n*w)
		}
	} else if n > 0 && (n > math.MaxInt64-4 || size < n+4) {
		return nil, fmt.Errorf("%s: tensor %q: size %d bytes is too small for %d strings (at least one length byte each and a 4-byte checksum)", b.index, what, size, n)
	}
	s, err := b.shard(int(e.GetShardId()))
	if err != nil {
		return nil, err
	}
	off := e.GetOffset()
	if off > s.size || size > s.size-off {
		return nil, fmt.Errorf("%s: tensor %q: bytes [%d, %d) lie beyond the end of the %d-byte file (truncated?)", s.name, what, off, off+size, s.size)
	}
	raw := make([]byte, size)
	if _, err := s.r.ReadAt(raw, off); err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", s.name, what, err)
	}
	var data any
	var got uint32
	if dt == interp.String {
		data, got, err = decodeStrings(raw, n, b.order)
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %q at offset %d: %v", s.name, what, off, err)
		}
	} else {
		got = crc32c(raw)
	}
	if want := unmaskCRC(e.GetCrc32C()); got != want {
		return nil, fmt.Errorf("%s: tensor %q at offset %d: CRC-32C mismatch: stored %#08x, computed %#08x over its %d bytes (corrupt file)", s.name, what, off, want, got, size)
	}
	if dt != interp.String {
		if data, err = decodeFixed(raw, dt, n, b.order); err != nil {
			return nil, fmt.Errorf("%s: tensor %q at offset %d: %v", s.name, what, off, err)
		}
	}
	t, err := interp.FromSlice(shape, data)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", s.name, what, err)
	}
	return t, nil
}

// decodeFixed decodes n elements of a fixed-width dtype.
func decodeFixed(raw []byte, dt interp.DType, n int64, order binary.ByteOrder) (any, error) {
	switch dt {
	case interp.Float32:
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(order.Uint32(raw[4*i:]))
		}
		return out, nil
	case interp.Float64:
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Float64frombits(order.Uint64(raw[8*i:]))
		}
		return out, nil
	case interp.Int8:
		out := make([]int8, n)
		for i := range out {
			out[i] = int8(raw[i])
		}
		return out, nil
	case interp.Int16:
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(order.Uint16(raw[2*i:]))
		}
		return out, nil
	case interp.Int32:
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(order.Uint32(raw[4*i:]))
		}
		return out, nil
	case interp.Int64:
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(order.Uint64(raw[8*i:]))
		}
		return out, nil
	case interp.Uint8:
		return append([]uint8(nil), raw...), nil
	case interp.Bool:
		out := make([]bool, n)
		for i, c := range raw {
			if c > 1 {
				return nil, fmt.Errorf("bool element %d is the byte %d, not 0 or 1", i, c)
			}
			out[i] = c == 1
		}
		return out, nil
	}
	return nil, fmt.Errorf("dtype %s is not fixed-width", dt)
}

// decodeStrings decodes n strings stored as TensorFlow does: n varint64
// lengths, the masked CRC-32C of the lengths (each as a 4-byte integer, or
// 8 bytes past 2^32-1), then the bytes of each string. It returns the
// CRC-32C of the whole, as the entry stores it: lengths, length checksum,
// bytes. raw must be exactly the entry's bytes. The caller has checked that
// raw holds at least n+4 bytes, so n strings fit in memory beside it.
func decodeStrings(raw []byte, n int64, order binary.ByteOrder) ([]string, uint32, error) {
	if n == 0 {
		if len(raw) != 0 && len(raw) != 4 {
			return nil, 0, fmt.Errorf("%d bytes for no strings (want 0, or the 4-byte checksum)", len(raw))
		}
		if len(raw) == 0 {
			return []string{}, 0, nil
		}
	}
	lengths := make([]uint64, n)
	var crc uint32
	p := 0
	var w [8]byte
	for i := range lengths {
		l, k := binary.Uvarint(raw[p:])
		if k <= 0 {
			return nil, 0, fmt.Errorf("string %d: bad varint length", i)
		}
		p += k
		if l > uint64(len(raw)) {
			return nil, 0, fmt.Errorf("string %d: length %d exceeds the tensor's %d bytes", i, l, len(raw))
		}
		lengths[i] = l
		if l <= math.MaxUint32 {
			order.PutUint32(w[:4], uint32(l))
			crc = extendCRC(crc, w[:4])
		} else {
			order.PutUint64(w[:], l)
			crc = extendCRC(crc, w[:])
		}
	}
	if len(raw)-p < 4 {
		return nil, 0, fmt.Errorf("the lengths leave no room for their 4-byte checksum")
	}
	stored := order.Uint32(raw[p:])
	if unmaskCRC(stored) != crc {
		return nil, 0, fmt.Errorf("CRC-32C mismatch of the string lengths: stored %#08x, computed %#08x (corrupt file)", unmaskCRC(stored), crc)
	}
	crc = extendCRC(crc, raw[p:p+4])
	p += 4
	out := make([]string, n)
	for i, l := range lengths {
		if l > uint64(len(raw)-p) {
			return nil, 0, fmt.Errorf("string %d of length %d overruns the tensor's bytes (%d left)", i, l, len(raw)-p)
		}
		out[i] = string(raw[p : p+int(l)])
		crc = extendCRC(crc, raw[p:p+int(l)])
		p += int(l)
	}
	if p != len(raw) {
		return nil, 0, fmt.Errorf("%d bytes are left after the strings", len(raw)-p)
	}
	return out, crc, nil
}

// sliceKey is the key of the entry holding slice s of the tensor name:
// TensorFlow's EncodeTensorNameSlice, an ordered code of the number 0, the
// name, the rank, and each dimension's start and length (-1 for a whole
// dimension).
func sliceKey(name string, s Slice) string {
	var b []byte
	b = appendOrderedUint(b, 0)
	b = appendOrderedString(b, name)
	b = appendOrderedUint(b, uint64(len(s.Start)))
	for i := range s.Start {
		b = appendOrderedInt(b, s.Start[i])
		b = appendOrderedInt(b, s.Length[i])
	}
	return string(b)
}

// decodeSliceKey decodes a key made by sliceKey.
func decodeSliceKey(key string) (string, Slice, bool) {
	b := []byte(key)
	v, b, ok := readOrderedUint(b)
	if !ok || v != 0 {
		return "", Slice{}, false
	}
	name, b, ok := readOrderedString(b)
	if !ok {
		return "", Slice{}, false
	}
	rank, b, ok := readOrderedUint(b)
	if !ok || rank > interp.MaxRank {
		return "", Slice{}, false
	}
	s := Slice{Start: make([]int64, rank), Length: make([]int64, rank)}
	for i := range s.Start {
		if s.Start[i], b, ok = readOrderedInt(b); !ok {
			return "", Slice{}, false
		}
		if s.Length[i], b, ok = readOrderedInt(b); !ok {
			return "", Slice{}, false
		}
	}
	if len(b) != 0 {
		return "", Slice{}, false
	}
	return name, s, true
}

// ordered codes (TensorFlow's strings::OrderedCode, increasing order):
//
//   - an unsigned number is a length byte and that many big-endian bytes
//     (no leading zero bytes; 0 is the length byte 0 alone);
//   - a string is its bytes with 0x00 written 0x00 0xff and 0xff written
//     0xff 0x00, then the separator 0x00 0x01;
//   - a signed number of n bytes (1 to 10) holds its two's complement in
//     its low 7n-1 bits; its top n bits are set for a number >= 0 and
//     clear for a negative one, and the bit after them is the opposite.

func appendOrderedUint(b []byte, v uint64) []byte {
	var buf [8]byte
	n := 0
	for x := v; x > 0; x >>= 8 {
		n++
	}
	for i := 0; i < n; i++ {
		buf[i] = byte(v >> (8 * (n - 1 - i)))
	}
	return append(append(b, byte(n)), buf[:n]...)
}

func readOrderedUint(b []byte) (uint64, []byte, bool) {
	if len(b) == 0 || int(b[0]) > 8 || len(b) < 1+int(b[0]) {
		return 0, nil, false
	}
	var v uint64
	for _, c := range b[1 : 1+int(b[0])] {
		v = v<<8 | uint64(c)
	}
	return v, b[1+int(b[0]):], true
}

func appendOrderedString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0x00:
			b = append(b, 0x00, 0xff)
		case 0xff:
			b = append(b, 0xff, 0x00)
		default:
			b = append(b, c)
		}
	}
	return append(b, 0x00, 0x01)
}

func readOrderedString(b []byte) (string, []byte, bool) {
	var out []byte
	for i := 0; i+1 < len(b); i++ {
		switch c := b[i]; {
		case c == 0x00 && b[i+1] == 0x01:
			return string(out), b[i+2:], true
		case c == 0x00 && b[i+1] == 0xff:
			out = append(out, 0x00)
			i++
		case c == 0xff && b[i+1] == 0x00:
			out = append(out, 0xff)
			i++
		case c == 0x00 || c == 0xff:
			return "", nil, false
		default:
			out = append(out, c)
		}
	}
	return "", nil, false
}

func appendOrderedInt(b []byte, v int64) []byte {
	x := uint64(v)
	if v < 0 {
		x = ^x
	}
	bits := 0
	for ; x > 0; x >>= 1 {
		bits++
	}
	n := (bits + 7) / 7 // n bytes hold 7n-1 bits of magnitude and the sign
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

func readOrderedInt(b []byte) (int64, []byte, bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	neg := b[0]&0x80 == 0
	inv := byte(0)
	if neg {
		inv = 0xff
	}
	// The length is the number of leading bits equal to the sign bit,
	// counted over the first two bytes.
	hdr := uint16(b[0]^inv) << 8
	if len(b) > 1 {
		hdr |= uint16(b[1] ^ inv)
	}
	n := 0
	for n < 16 && hdr&(0x8000>>n) != 0 {
		n++
	}
	if n < 1 || n > 10 || len(b) < n {
		return 0, nil, false
	}
	var buf [10]byte
	copy(buf[10-n:], b[:n])
	for i := 0; i < 10-n; i++ {
		buf[i] = inv
	}
	// Clear the header bits back to the sign.
	h := ^uint16(0) << (16 - n)
	buf[10-n] ^= byte(h >> 8)
	if n > 1 {
		buf[10-n+1] ^= byte(h)
	}
	v := int64(binary.BigEndian.Uint64(buf[2:]))
	// Only the canonical encoding of v is accepted (that also refuses
	// header bits that disagree with the sign).
	if string(appendOrderedInt(nil, v)) != string(b[:n]) {
		return 0, nil, false
	}
	return v, b[n:], true
}
