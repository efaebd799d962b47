package checkpoint

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The table format of a bundle's .index file is LevelDB's, as TensorFlow's
// core/lib/io/table forked it:
//
//	[data block 0] ... [data block N-1] [metaindex block] [index block] [footer]
//
// Every block is followed by a 5-byte trailer: a compression type byte
// (0: none; 1: Snappy, which TensorFlow's bundle writer never uses) and the
// masked CRC-32C of the block contents and the type byte. A block is a run
// of entries, then an array of restart offsets (uint32, little-endian), then
// their count (uint32). An entry is three varint32s — the number of key
// bytes shared with the previous key, the number of further key bytes, the
// value length — then those key bytes and the value; at a restart point no
// bytes are shared. The index block has one entry per data block: a key
// at or after the block's last key and before the next block's first, and
// the block's handle as value. The metaindex block is empty in bundles. The
// footer is the metaindex and index handles (each two varint64s: offset
// and size), zero padding to 40 bytes, and the 8-byte magic number.

const (
	// footerLen is the length of the footer: two block handles of at most
	// 20 bytes each, padded, and the magic number.
	footerLen = 48
	// tableMagic ends every table (LevelDB's kTableMagicNumber).
	tableMagic = 0xdb4775248b80fb57
	// trailerLen is the length of a block trailer: type byte and CRC.
	trailerLen = 5
	// maxKeyExpansion bounds the decoded keys of a block: at most this many
	// times the block's size. A key shares bytes only with keys since the
	// last restart point, so a writer restarting every n keys (16 in
	// TensorFlow and LevelDB) decodes to at most n times what it stored;
	// without the bound a small hostile block could denote quadratically
	// many key bytes.
	maxKeyExpansion = 16
)

// blockHandle locates a block: its contents are file[offset, offset+size),
// its trailer the trailerLen bytes after them.
type blockHandle struct{ offset, size uint64 }

// tableEntry is one key and value of a table, both sub-slices of the file.
type tableEntry struct{ key, value []byte }

// parseTable checks the table in data (the whole file, named name in
// errors) and returns its entries in key order. The entries alias data; no
// size the file declares is allocated: every block lies inside data, and
// every key and value inside its block.
func parseTable(name string, data []byte) ([]tableEntry, error) {
	if len(data) < footerLen {
		return nil, fmt.Errorf("%s: %d bytes is too short for a table, whose footer alone is %d bytes (truncated?)", name, len(data), footerLen)
	}
	footer := data[len(data)-footerLen:]
	if m := binary.LittleEndian.Uint64(footer[footerLen-8:]); m != tableMagic {
		return nil, fmt.Errorf("%s: not a table: the footer's magic number is %#016x, want %#016x (truncated or not a checkpoint index?)", name, m, uint64(tableMagic))
	}
	rest := footer[:footerLen-8]
	meta, n, err := decodeHandle(rest)
	if err != nil {
		return nil, fmt.Errorf("%s: footer: metaindex handle: %v", name, err)
	}
	index, _, err := decodeHandle(rest[n:])
	if err != nil {
		return nil, fmt.Errorf("%s: footer: index handle: %v", name, err)
	}
	t := &table{name: name, data: data, end: uint64(len(data) - footerLen)}
	// The metaindex holds nothing a bundle uses, but it must be intact.
	mb, err := t.block(meta, "metaindex block")
	if err != nil {
		return nil, err
	}
	if _, err := t.entries(mb, meta, "metaindex block"); err != nil {
		return nil, err
	}
	ib, err := t.block(index, "index block")
	if err != nil {
		return nil, err
	}
	idx, err := t.entries(ib, index, "index block")
	if err != nil {
		return nil, err
	}
	var out []tableEntry
	var last []byte
	for i, ie := range idx {
		h, n, err := decodeHandle(ie.value)
		if err != nil || n != len(ie.value) {
			if err == nil {
				err = fmt.Errorf("%d bytes after the handle", len(ie.value)-n)
			}
			return nil, fmt.Errorf("%s: index block entry %d: bad data block handle: %v", name, i, err)
		}
		what := fmt.Sprintf("data block %d", i)
		b, err := t.block(h, what)
		if err != nil {
			return nil, err
		}
		es, err := t.entries(b, h, what)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if len(out) > 0 && bytes.Compare(e.key, last) <= 0 {
				return nil, fmt.Errorf("%s: %s: key %q is not after the previous key %q: keys must be unique and sorted", name, what, e.key, last)
			}
			if bytes.Compare(e.key, ie.key) > 0 {
				return nil, fmt.Errorf("%s: %s: key %q is after the index key %q of its block", name, what, e.key, ie.key)
			}
			last = e.key
			out = append(out, e)
		}
	}
	return out, nil
}

// table is a table file being parsed; end is where the footer starts.
type table struct {
	name string
	data []byte
	end  uint64
}

// decodeHandle reads a block handle (two varint64s) from b and returns it
// with the number of bytes read.
func decodeHandle(b []byte) (blockHandle, int, error) {
	off, n := binary.Uvarint(b)
	if n <= 0 {
		return blockHandle{}, 0, fmt.Errorf("bad varint for the offset")
	}
	size, m := binary.Uvarint(b[n:])
	if m <= 0 {
		return blockHandle{}, 0, fmt.Errorf("bad varint for the size")
	}
	return blockHandle{off, size}, n + m, nil
}

// block returns the contents of the block at h after checking that it and
// its trailer lie before the footer, that it is not compressed and that its
// CRC matches.
func (t *table) block(h blockHandle, what string) ([]byte, error) {
	if h.offset > t.end || h.size > t.end-h.offset || trailerLen > t.end-h.offset-h.size {
		return nil, fmt.Errorf("%s: %s at offset %d with size %d (and a %d-byte trailer) does not lie within the %d bytes before the footer (truncated?)", t.name, what, h.offset, h.size, trailerLen, t.end)
	}
	b := t.data[h.offset : h.offset+h.size+trailerLen]
	contents, typ := b[:h.size], b[h.size]
	stored := binary.LittleEndian.Uint32(b[h.size+1:])
	if got := crc32c(b[:h.size+1]); got != unmaskCRC(stored) {
		return nil, fmt.Errorf("%s: %s at offset %d: CRC-32C mismatch: stored %#08x (masked %#08x), computed %#08x (corrupt file)", t.name, what, h.offset, unmaskCRC(stored), stored, got)
	}
	switch typ {
	case 0:
	case 1:
		return nil, fmt.Errorf("%s: %s at offset %d is Snappy-compressed, which TensorFlow's bundle writer never does; not supported", t.name, what, h.offset)
	default:
		return nil, fmt.Errorf("%s: %s at offset %d: unknown compression type %d", t.name, what, h.offset, typ)
	}
	return contents, nil
}

// entries decodes the entries of block b and checks its restart array.
func (t *table) entries(b []byte, h blockHandle, what string) ([]tableEntry, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s at offset %d: %s", t.name, what, h.offset, fmt.Sprintf(format, args...))
	}
	if len(b) < 4 {
		return nil, fail("%d bytes is too short for a block (at least the 4-byte restart count)", len(b))
	}
	numRestarts := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if maxRestarts := uint64(len(b)-4) / 4; numRestarts > maxRestarts {
		return nil, fail("%d restart points do not fit in its %d bytes (at most %d)", numRestarts, len(b), maxRestarts)
	}
	limit := len(b) - 4 - 4*int(numRestarts)
	restarts := b[limit : len(b)-4]
	var out []tableEntry
	var key []byte
	var decoded uint64       // bytes of the keys decoded so far
	starts := map[int]bool{} // entry offset -> shares no key bytes
	for p := 0; p < limit; {
		start := p
		var hdr [3]uint64
		for i := range hdr {
			v, n := binary.Uvarint(b[p:limit])
			if n <= 0 || v > 0xffffffff {
				return nil, fail("entry at block offset %d: bad varint32 header", start)
			}
			hdr[i], p = v, p+n
		}
		shared, unshared, vlen := hdr[0], hdr[1], hdr[2]
		if shared > uint64(len(key)) {
			return nil, fail("entry at block offset %d shares %d key bytes with a previous key of %d bytes", start, shared, len(key))
		}
		if unshared > uint64(limit-p) || vlen > uint64(limit-p)-unshared {
			return nil, fail("entry at block offset %d: key suffix of %d bytes and value of %d bytes overrun the %d bytes left before the restart array", start, unshared, vlen, limit-p)
		}
		decoded += shared + unshared
		if decoded > maxKeyExpansion*uint64(len(b)) {
			return nil, fail("its keys decode to more than %d times its %d bytes (the most a writer restarting every %d keys produces)", maxKeyExpansion, len(b), maxKeyExpansion)
		}
		k := make([]byte, 0, int(shared)+int(unshared))
		k = append(append(k, key[:shared]...), b[p:p+int(unshared)]...)
		p += int(unshared)
		out = append(out, tableEntry{key: k, value: b[p : p+int(vlen)]})
		p += int(vlen)
		key = k
		starts[start] = shared == 0
	}
	prev := -1
	for i := 0; i < len(restarts); i += 4 {
		r := int(binary.LittleEndian.Uint32(restarts[i:]))
		if len(out) == 0 {
			if r != 0 {
				return nil, fail("restart point %d is at %d in a block with no entries", i/4, r)
			}
			continue
		}
		if r <= prev {
			return nil, fail("restart points are not increasing (%d after %d)", r, prev)
		}
		if fresh, ok := starts[r]; !ok || !fresh {
			return nil, fail("restart point %d (block offset %d) is not the start of an entry sharing no key bytes", i/4, r)
		}
		prev = r
	}
	if len(out) > 0 && (numRestarts == 0 || binary.LittleEndian.Uint32(restarts) != 0) {
		return nil, fail("the first entry is not a restart point")
	}
	return out, nil
}
