package abi

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"weak"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// BuildVocab is BuildGPUVocab of an emb.vocab_lookup's keys attribute,
// built once per attribute (the planner, the kernel builder and the
// runtime all ask for it). The cache holds the attribute weakly: an entry
// goes when its attribute (and so the context that uniqued it) is
// collected, so a process that compiles model after model does not keep
// every vocabulary it ever saw.
func BuildVocab(keys *textir.DenseElementsAttr) (*GPUVocab, error) {
	if keys == nil {
		return nil, fmt.Errorf("vocabulary: no keys")
	}
	wp := weak.Make(keys)
	if v, ok := vocabs.Load(wp); ok {
		r := v.(vocabResult)
		return r.v, r.err
	}
	t, err := tfg.TensorFromAttr(keys)
	var v *GPUVocab
	if err == nil {
		v, err = BuildGPUVocab(t)
	}
	if _, loaded := vocabs.LoadOrStore(wp, vocabResult{v, err}); !loaded {
		runtime.AddCleanup(keys, func(wp weak.Pointer[textir.DenseElementsAttr]) { vocabs.Delete(wp) }, wp)
	}
	return v, err
}

type vocabResult struct {
	v   *GPUVocab
	err error
}

var vocabs sync.Map // weak.Pointer[textir.DenseElementsAttr] -> vocabResult

// GPUVocab is the device form of an emb.vocab_lookup's keys: an
// open-addressing hash table (power-of-two capacity, load at most 1/2,
// linear probing, probe length bounded by MaxProbe) laid out as 32-bit
// words, to be placed in the kernel's static arena.
//
// The table is self-describing, so that the code of a class of columns can
// be shared by columns with different vocabularies. At word offset base
// (a multiple of 4: the header and the slots are read with 16-byte loads):
//
//	base+0                 header: [4*(Capacity-1), Shift, 4*MaxProbe, Seed]
//	base+4+4*s             slot s: [key lo, key hi, index, record]
//	base+4+4*Capacity ...  string keys only: records [len, bytes...]
//
// A slot's key is the key itself for integer keys and Fingerprint64 of the
// key for string keys (two words, little-endian); index is the key's
// position in the vocabulary, -1 for an empty slot (whose other words are
// 0). For string keys, record is the word offset from base of the key's
// record: its length in bytes, then its bytes packed little-endian into
// words (byte j at byte 4*(base+record+1)+j of the table).
//
// The home slot of key k is ((k ^ Seed) * 0x9E3779B97F4A7C15) >> Shift
// (unsigned, Shift = 64 - log2(Capacity)); a lookup inspects the slots from
// there on, wrapping around, until it finds the key or an empty slot, and
// never more than MaxProbe of them (the builder places keys Robin Hood
// style, which keeps MaxProbe small, and picks among a few seeds the one
// with the shortest longest probe).
type GPUVocab struct {
	Words    []uint32
	Strings  bool
	Size     int64 // distinct keys: the vocabulary size the OOV buckets follow
	Capacity int64 // slots, a power of two >= max(2, 2*Size)
	MaxProbe int64 // slots a lookup inspects at most (0 for no keys)
	Shift    int64 // 64 - log2(Capacity)
	Seed     int32
}

// The table's layout constants (the kernel's probe code uses them).
const (
	VocabHeaderWords = 4
	VocabSlotWords   = 4
	VocabMul         = 0x9E3779B97F4A7C15
	vcSeeds          = 8 // seeds the builder tries
)

// VocabHome is the home slot of key k.
func VocabHome(k int64, seed int32, shift int64) int64 {
	return int64((uint64(k^int64(seed)) * VocabMul) >> uint(shift))
}

// BuildGPUVocab builds the table of keys, a tensor of strings or of
// integers (as emb.vocab_lookup's keys). As in the interpreter (which
// fills a map in key order), the last of duplicate keys gives the index,
// and Size counts distinct keys.
func BuildGPUVocab(keys *interp.Tensor) (*GPUVocab, error) {
	if keys == nil {
		return nil, fmt.Errorf("vocabulary: no keys")
	}
	v := &GPUVocab{Strings: keys.DType() == interp.String}
	if !v.Strings && !keys.DType().IsInteger() {
		return nil, fmt.Errorf("vocabulary: keys must be strings or integers, got %v", keys.DType())
	}
	// The distinct keys in order of first appearance, each with its last
	// index.
	var hashes, index []int64
	var strs []string
	if v.Strings {
		pos := map[string]int{}
		for i, s := range keys.Strings() {
			if p, ok := pos[s]; ok {
				index[p] = int64(i)
				continue
			}
			pos[s] = len(strs)
			strs = append(strs, s)
			hashes = append(hashes, int64(farm.Fingerprint64([]byte(s))))
			index = append(index, int64(i))
		}
	} else {
		pos := map[int64]int{}
		for i := range keys.Len() {
			k, _ := keys.Int64At(i)
			if p, ok := pos[k]; ok {
				index[p] = int64(i)
				continue
			}
			pos[k] = len(hashes)
			hashes = append(hashes, k)
			index = append(index, int64(i))
		}
	}
	n := int64(len(hashes))
	if n >= math.MaxInt32 {
		return nil, fmt.Errorf("vocabulary: %d keys do not fit 32-bit indices", n)
	}
	v.Size = n
	v.Capacity, v.Shift = 2, 63
	for v.Capacity < 2*n {
		v.Capacity, v.Shift = 2*v.Capacity, v.Shift-1
	}
	words := VocabHeaderWords + VocabSlotWords*v.Capacity
	for _, s := range strs {
		words += 1 + (int64(len(s))+3)/4
	}
	if words > math.MaxInt32 {
		return nil, fmt.Errorf("vocabulary: the table takes %d words, more than 2^31-1", words)
	}
	var slots []int32
	v.MaxProbe = -1
	for t := range vcSeeds {
		seed := vcSeed(t)
		s, probe := vcPlace(hashes, seed, v.Capacity, v.Shift)
		if v.MaxProbe < 0 || probe < v.MaxProbe {
			slots, v.MaxProbe, v.Seed = s, probe, seed
		}
		if probe <= 1 {
			break
		}
	}
	w := make([]uint32, words)
	w[0], w[1], w[2], w[3] = uint32(4*(v.Capacity-1)), uint32(v.Shift), uint32(4*v.MaxProbe), uint32(v.Seed)
	rec := VocabHeaderWords + VocabSlotWords*v.Capacity
	recOf := make([]int64, len(strs))
	for e, s := range strs {
		recOf[e] = rec
		w[rec] = uint32(len(s))
		for j := range len(s) {
			w[rec+1+int64(j/4)] |= uint32(s[j]) << (8 * (j % 4))
		}
		rec += 1 + (int64(len(s))+3)/4
	}
	for s, e := range slots {
		at := VocabHeaderWords + VocabSlotWords*int64(s)
		if e < 0 {
			w[at+2] = math.MaxUint32
			continue
		}
		h := uint64(hashes[e])
		w[at], w[at+1], w[at+2] = uint32(h), uint32(h>>32), uint32(index[e])
		if v.Strings {
			w[at+3] = uint32(recOf[e])
		}
	}
	v.Words = w
	return v, nil
}

// vcSeed is the t-th seed the builder tries (0 first).
func vcSeed(t int) int32 {
	x := uint64(t) * 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return int32(uint32(x >> 32))
}

// vcPlace places the keys by Robin Hood linear probing: slots[s] is the
// key at slot s (-1 empty); probe is the longest probe of a key (its
// distance from home + 1).
func vcPlace(hashes []int64, seed int32, capacity, shift int64) (slots []int32, probe int64) {
	mask := capacity - 1
	slots = make([]int32, capacity)
	for i := range slots {
		slots[i] = -1
	}
	for e := range hashes {
		cur := int32(e)
		pos := VocabHome(hashes[cur], seed, shift)
		d := int64(0)
		for {
			o := slots[pos]
			if o < 0 {
				slots[pos] = cur
				probe = max(probe, d+1)
				break
			}
			if od := (pos - VocabHome(hashes[o], seed, shift)) & mask; od < d {
				slots[pos] = cur
				probe = max(probe, d+1)
				cur, d = o, od
			}
			pos, d = (pos+1)&mask, d+1
		}
	}
	return slots, probe
}
