package abi

import (
	"fmt"
	"math"
	"strings"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// Sources: how a column's ids operand is laid out in the packed inputs.
// A column without transforms has source "ids": integer ids computed
// before the layer, checked against the table on the host and packed as
// int32 words. A column with transforms gets the raw feature values and
// the kernel computes the ids itself.
const (
	SourceIDs = "ids" // int32 words, ids in [0, rows) (checked by Pack)
	SourceI64 = "i64" // integers of any width, as two words (little-endian i64)
	SourceF32 = "f32" // float32 words
	SourceF64 = "f64" // float64, two words each
	SourceStr = "str" // strings: nnz+1 byte offsets (int32 words), then the bytes; or slots (Column.StrSlots)
	// SourceSplit: one string per bag (StringSplitV2's input), laid out
	// as "str"; the kernel splits it at the one-byte separator Sep (every
	// occurrence, empty tokens kept: count(sep)+1 tokens) and hashes each
	// token. No row splits.
	SourceSplit = "split"
)

// Transform ops (the kernel's id computation, applied in order to the raw
// value of each id position).
const (
	TransformHash       = "hash"        // Fingerprint64(s) mod num_buckets (StringToHashBucketFast)
	TransformAsString   = "as_string"   // integer to its decimal string (only before hash)
	TransformBucketize  = "bucketize"   // the number of boundaries <= x
	TransformVocab      = "vocab"       // index in keys, else size + hash mod num_oov_buckets, else default
	TransformCheckRange = "check_range" // ids outside [0, num_buckets) become default
	TransformCast       = "cast"        // wrap to a bits-wide signed integer
	TransformAddOffset  = "add_offset"  // + stride * (position in the bag)
	// TransformDrop drops the ids outside [min, max] from their bag
	// (emb.filter with min or max: the pruning of the ids a vocabulary's
	// default_value = -1 gives); the last transform of a chain. The
	// kernel marks a dropped id -1 and leaves it out of the bag's sum and
	// of its count (mean, sqrtn) and weights.
	TransformDrop = "drop"
)

// Transform is one step of a column's id computation in the kernel.
type Transform struct {
	Op         string
	NumBuckets int64     // hash, check_range; num_oov_buckets for vocab
	Default    int64     // check_range, vocab
	Boundaries []float32 // bucketize
	Keys       *textir.DenseElementsAttr
	Stride     int64 // add_offset
	Bits       int64 // cast: the result's width (8, 16, 32 or 64)
	Min, Max   int64 // drop: the ids kept (math.MinInt64, math.MaxInt64: no bound)
	HashKey    int64 // cross (NumBuckets: its buckets, 0 for 2^63 - 1)
}

// ParamWords is the number of i64 words t takes in its column's parameter
// block: the per-column values the shared code of a class reads
// (paramsStub lists them).
func (t *Transform) ParamWords() int64 { return int64(len(t.paramsStub())) }

// Attr encodes t as a dictionary.
func (t *Transform) Attr() textir.DictAttr {
	i := textir.I64Attr
	attrs := []textir.NamedAttribute{{Name: "op", Value: textir.Str(t.Op)}}
	switch t.Op {
	case TransformHash:
		attrs = append(attrs, textir.NamedAttribute{Name: "num_buckets", Value: i(t.NumBuckets)})
	case TransformCheckRange:
		attrs = append(attrs, textir.NamedAttribute{Name: "num_buckets", Value: i(t.NumBuckets)},
			textir.NamedAttribute{Name: "default", Value: i(t.Default)})
	case TransformBucketize:
		bs := make([]textir.Attribute, len(t.Boundaries))
		for k, b := range t.Boundaries {
			bs[k] = textir.FloatAttr{Value: float64(b), Type: textir.F32()}
		}
		attrs = append(attrs, textir.NamedAttribute{Name: "boundaries", Value: textir.ArrayAttr{Elems: bs}})
	case TransformVocab:
		attrs = append(attrs, textir.NamedAttribute{Name: "keys", Value: t.Keys},
			textir.NamedAttribute{Name: "num_oov_buckets", Value: i(t.NumBuckets)},
			textir.NamedAttribute{Name: "default", Value: i(t.Default)})
	case TransformCast:
		attrs = append(attrs, textir.NamedAttribute{Name: "bits", Value: i(t.Bits)})
	case TransformAddOffset:
		attrs = append(attrs, textir.NamedAttribute{Name: "stride", Value: i(t.Stride)})
	case TransformDrop:
		attrs = append(attrs, textir.NamedAttribute{Name: "min", Value: i(t.Min)},
			textir.NamedAttribute{Name: "max", Value: i(t.Max)})
	case TransformCross:
		attrs = append(attrs, textir.NamedAttribute{Name: "num_buckets", Value: i(t.NumBuckets)},
			textir.NamedAttribute{Name: "hash_key", Value: i(t.HashKey)})
	}
	return textir.NewDictAttr(attrs)
}

func transformOf(a textir.Attribute) (Transform, error) {
	d, ok := a.(textir.DictAttr)
	if !ok {
		return Transform{}, fmt.Errorf("a transform must be a dictionary")
	}
	var t Transform
	var err error
	if t.Op, err = getStr(d, "op"); err != nil {
		return t, err
	}
	switch t.Op {
	case TransformHash:
		t.NumBuckets, err = getInt(d, "num_buckets")
		if err == nil && t.NumBuckets < 1 {
			err = fmt.Errorf("hash: num_buckets must be positive")
		}
	case TransformAsString:
	case TransformCheckRange:
		if t.NumBuckets, err = getInt(d, "num_buckets"); err == nil {
			t.Default, err = getInt(d, "default")
		}
	case TransformBucketize:
		arr, ok := d.Get("boundaries").(textir.ArrayAttr)
		if !ok {
			return t, fmt.Errorf("bucketize: requires array attribute 'boundaries'")
		}
		t.Boundaries = make([]float32, len(arr.Elems))
		for k, e := range arr.Elems {
			f, ok := e.(textir.FloatAttr)
			if !ok {
				return t, fmt.Errorf("bucketize: boundaries must be floats")
			}
			t.Boundaries[k] = float32(f.Value)
			if k > 0 && !(t.Boundaries[k-1] <= t.Boundaries[k]) {
				return t, fmt.Errorf("bucketize: boundaries must be sorted")
			}
		}
	case TransformVocab:
		k, ok := d.Get("keys").(*textir.DenseElementsAttr)
		if !ok || len(k.Type.Shape) != 1 {
			return t, fmt.Errorf("vocab: requires a dense vector attribute 'keys'")
		}
		t.Keys = k
		if t.NumBuckets, err = getInt(d, "num_oov_buckets"); err == nil {
			t.Default, err = getInt(d, "default")
		}
		if err == nil && t.NumBuckets < 0 {
			err = fmt.Errorf("vocab: num_oov_buckets must not be negative")
		}
	case TransformCast:
		t.Bits, err = getInt(d, "bits")
		if err == nil && t.Bits != 8 && t.Bits != 16 && t.Bits != 32 && t.Bits != 64 {
			err = fmt.Errorf("cast: bits must be 8, 16, 32 or 64, got %d", t.Bits)
		}
	case TransformAddOffset:
		t.Stride, err = getInt(d, "stride")
	case TransformDrop:
		if t.Min, err = getInt(d, "min"); err == nil {
			t.Max, err = getInt(d, "max")
		}
		if err == nil && t.Min > t.Max {
			err = fmt.Errorf("drop: min %d is above max %d", t.Min, t.Max)
		}
	case TransformCross:
		if t.NumBuckets, err = getInt(d, "num_buckets"); err == nil {
			t.HashKey, err = getInt(d, "hash_key")
		}
		if err == nil && t.NumBuckets < 0 {
			err = fmt.Errorf("cross: num_buckets must not be negative")
		}
	default:
		err = fmt.Errorf("unknown transform %q", t.Op)
	}
	return t, err
}

// Signature is the part of a column's id computation that is code (not
// parameters): columns of one class share it.
func (c *Column) Signature() string {
	var sb strings.Builder
	sb.WriteString(c.Source)
	if c.Source == SourceSplit {
		fmt.Fprintf(&sb, ":%q", c.Sep)
	}
	if c.InlineIDs {
		sb.WriteString(":inline")
	}
	if c.IsCross() {
		sb.WriteString(c.crossSignature())
	}
	for i := range c.Transforms {
		t := &c.Transforms[i]
		sb.WriteString("|" + t.Op)
		switch t.Op {
		case TransformCast:
			fmt.Fprintf(&sb, ":%d", t.Bits)
		case TransformBucketize:
			_, _, u := t.Uniform()
			fmt.Fprintf(&sb, ":%d:uniform=%v", BucketizeSteps(int64(len(t.Boundaries))), u)
		case TransformVocab:
			// The table describes itself (capacity, probe bound, seed):
			// only the key kind and whether misses hash are code.
			fmt.Fprintf(&sb, ":str=%v:oov=%v", t.Keys.IsString(), t.NumBuckets > 0)
		}
	}
	return sb.String()
}

// Uniform reports whether the boundaries are close to evenly spaced (at
// least two, each within a quarter step of b0 + i*step), and then b0 and
// 1/step: the kernel guesses the bucket from them and checks the guess
// against the two boundaries around it, falling back to the binary search
// when the guess is wrong (rounding near a boundary, NaN).
func (t *Transform) Uniform() (b0, inv float64, ok bool) {
	n := len(t.Boundaries)
	if n < 2 {
		return 0, 0, false
	}
	b0 = float64(t.Boundaries[0])
	step := (float64(t.Boundaries[n-1]) - b0) / float64(n-1)
	if !(step > 0) || math.IsInf(step, 0) {
		return 0, 0, false
	}
	for i, b := range t.Boundaries {
		if math.Abs(float64(b)-(b0+float64(i)*step)) > step/4 {
			return 0, 0, false
		}
	}
	return b0, 1 / step, true
}

// bucketizeGuessFloats is the space before the boundaries in the data
// region: b0 and 1/step (f32, or f64 for f64 values), 16-byte aligned.
const bucketizeGuessFloats = 4

// BucketizeSteps is the binary search's step count for n boundaries: the
// smallest s with n <= 2^s - 1.
func BucketizeSteps(n int64) int64 {
	s := int64(0)
	for (int64(1)<<s)-1 < n {
		s++
	}
	return s
}

// CheckChain checks that the transforms of c apply to its source in order.
func (c *Column) CheckChain() error {
	if c.IsCross() {
		return c.checkCross()
	}
	if c.Source == SourceIDs {
		if len(c.Transforms) > 0 {
			return fmt.Errorf("source \"ids\" takes no transforms")
		}
		return nil
	}
	kind := map[string]string{SourceI64: "int", SourceF32: "float", SourceF64: "float", SourceStr: "str", SourceSplit: "str"}[c.Source]
	if kind == "" {
		return fmt.Errorf("unknown source %q", c.Source)
	}
	if c.Source == SourceSplit {
		switch {
		case len(c.Sep) != 1:
			return fmt.Errorf("source \"split\" needs a one-byte separator, got %q", c.Sep)
		case len(c.Transforms) != 1 || c.Transforms[0].Op != TransformHash:
			return fmt.Errorf("source \"split\" takes exactly one hash transform")
		case c.Kind != KindLookup || c.Weighted:
			return fmt.Errorf("source \"split\" is an unweighted lookup")
		}
	}
	for i := range c.Transforms {
		t := &c.Transforms[i]
		want := "int"
		switch t.Op {
		case TransformHash:
			want = "str|intstr"
		case TransformBucketize:
			want = "float|int"
		case TransformVocab:
			if t.Keys.IsString() {
				want = "str"
			}
		}
		if !strings.Contains("|"+want+"|", "|"+kind+"|") {
			return fmt.Errorf("transform #%d (%s) does not apply to a %s value", i, t.Op, kind)
		}
		kind = "int"
		if t.Op == TransformAsString {
			kind = "intstr"
		}
	}
	if kind != "int" {
		return fmt.Errorf("the transforms must end in integer ids")
	}
	for i := range c.Transforms {
		if c.Transforms[i].Op != TransformDrop {
			continue
		}
		switch {
		case i != len(c.Transforms)-1:
			return fmt.Errorf("transform #%d (drop) must be the last", i)
		case c.Kind != KindLookup && c.Kind != "":
			return fmt.Errorf("drop needs bags: a %s column has exactly one id per row", c.Kind)
		}
	}
	return nil
}

// Drops reports whether the kernel drops some of c's ids from their bags
// (its last transform is TransformDrop).
func (c *Column) Drops() bool {
	n := len(c.Transforms)
	return n > 0 && c.Transforms[n-1].Op == TransformDrop
}

// ClassParams returns, for each transform of the columns cols (one
// class: the same Signature), its parameter words, each the value every
// column of cols has, or nil where the columns differ or the word is an
// offset into the arena (filled per column by writeStatic): the kernel
// then uses the constant and does not load the word.
func ClassParams(cols []Column) [][]*int64 {
	if len(cols) == 0 {
		return nil
	}
	out := make([][]*int64, len(cols[0].Transforms))
	for i := range cols[0].Transforms {
		stub := cols[0].Transforms[i].paramsStub()
		out[i] = make([]*int64, len(stub))
		for j, v := range stub {
			if cols[0].Transforms[i].paramIsOffset(j) {
				continue
			}
			same := true
			for c := range cols[1:] {
				if i >= len(cols[1+c].Transforms) || cols[1+c].Transforms[i].paramsStub()[j] != v {
					same = false
					break
				}
			}
			if same {
				out[i][j] = &v
			}
		}
	}
	return out
}

// paramIsOffset reports whether parameter word j of t is an offset into
// the arena (paramsStub leaves those 0).
func (t *Transform) paramIsOffset(j int) bool {
	return (t.Op == TransformBucketize && j == 1) || (t.Op == TransformVocab && j == 0)
}

// DataOffset returns where transform i's data (bucketize: b0 and 1/step,
// then the boundaries) starts, in floats from c.ParamsOffset, when that
// is the same for every column of c's class: when no transform before i
// has data (their sizes vary within a class). ok is false otherwise.
func (c *Column) DataOffset(i int) (off int64, ok bool) {
	var words int64
	for j := range c.Transforms {
		words += c.Transforms[j].ParamWords()
	}
	for j := range i {
		if op := c.Transforms[j].Op; op == TransformBucketize || op == TransformVocab {
			return 0, false
		}
	}
	return alignTable(2 * words), true
}

// StaticFloats is the size in floats of c's parameter block and data
// (bucketize boundaries, vocabulary tables), each region TableAlign
// aligned; 0 without transforms.
func (c *Column) StaticFloats() (int64, error) {
	if len(c.Transforms) == 0 {
		return 0, nil
	}
	var words int64
	for i := range c.Transforms {
		words += c.Transforms[i].ParamWords()
	}
	n := alignTable(2 * words)
	for i := range c.Transforms {
		t := &c.Transforms[i]
		switch t.Op {
		case TransformBucketize:
			n += alignTable(c.boundaryFloats(t, i))
		case TransformVocab:
			v, err := BuildVocab(t.Keys)
			if err != nil {
				return 0, err
			}
			n += alignTable(int64(len(v.Words)))
		}
	}
	return n, nil
}

// boundaryFloats is the arena size of t's boundaries (transform i of c):
// f64 for f64 values (Bucketize compares doubles with the widened
// boundaries).
func (c *Column) boundaryFloats(t *Transform, i int) int64 {
	if c.transformSource(i) == SourceF64 {
		return bucketizeGuessFloats + 2*int64(len(t.Boundaries))
	}
	return bucketizeGuessFloats + int64(len(t.Boundaries))
}

func alignTable(n int64) int64 { return (n + TableAlign - 1) / TableAlign * TableAlign }

// writeStatic writes c's parameter block and data at c.ParamsOffset of
// the arena.
func (c *Column) writeStatic(arena []float32) error {
	if len(c.Transforms) == 0 {
		return nil
	}
	var params []int64
	for i := range c.Transforms {
		params = append(params, c.Transforms[i].paramsStub()...)
	}
	data := c.ParamsOffset + alignTable(2*int64(len(params)))
	k := 0
	for i := range c.Transforms {
		t := &c.Transforms[i]
		switch t.Op {
		case TransformBucketize:
			b0, inv, _ := t.Uniform()
			f64 := func(at int64, v float64) {
				u := math.Float64bits(v)
				arena[at], arena[at+1] = math.Float32frombits(uint32(u)), math.Float32frombits(uint32(u>>32))
			}
			bs := data + bucketizeGuessFloats
			params[k+1] = bs
			if c.transformSource(i) == SourceF64 {
				f64(data, b0)
				f64(data+2, inv)
				for j, b := range t.Boundaries {
					f64(bs+2*int64(j), float64(b))
				}
			} else {
				arena[data], arena[data+1] = float32(b0), float32(inv)
				copy(arena[bs:], t.Boundaries)
			}
			data += alignTable(c.boundaryFloats(t, i))
		case TransformVocab:
			v, err := BuildVocab(t.Keys)
			if err != nil {
				return err
			}
			params[k] = data
			for j, w := range v.Words {
				arena[data+int64(j)] = math.Float32frombits(w)
			}
			data += alignTable(int64(len(v.Words)))
		}
		k += int(t.ParamWords())
	}
	for j, p := range params {
		u := uint64(p)
		arena[c.ParamsOffset+2*int64(j)] = math.Float32frombits(uint32(u))
		arena[c.ParamsOffset+2*int64(j)+1] = math.Float32frombits(uint32(u >> 32))
	}
	return nil
}

// paramsStub returns t's parameter words, offsets left 0 (writeStatic
// fills them): hash [num_buckets]; add_offset [stride]; check_range
// [num_buckets, default]; bucketize [count, boundaries' offset in floats];
// vocab [table's offset in floats, vocabulary size, num_oov_buckets,
// default] (capacity, probe bound and seed are in the table's header).
func (t *Transform) paramsStub() []int64 {
	switch t.Op {
	case TransformHash:
		return []int64{t.NumBuckets}
	case TransformAddOffset:
		return []int64{t.Stride}
	case TransformDrop:
		return []int64{t.Min, t.Max}
	case TransformCheckRange:
		return []int64{t.NumBuckets, t.Default}
	case TransformBucketize:
		return []int64{int64(len(t.Boundaries)), 0}
	case TransformCross:
		return []int64{t.crossBuckets(), t.HashKey}
	case TransformVocab:
		p := []int64{0, 0, t.NumBuckets, t.Default}
		if v, err := BuildVocab(t.Keys); err == nil {
			p[1] = v.Size
		}
		return p
	}
	return nil
}

// HostIDs computes on the CPU the ids the kernel computes for column c
// from its raw values (x.Values; x.Ids for source "ids"), with TensorFlow's
// semantics, one per position: -1 where the kernel drops the id
// (TransformDrop; HostBags leaves those out). For benchmark dumps and
// checks, not on the hot path.
func (c *Column) HostIDs(x *ColumnInput) ([]int64, error) {
	if c.Source == SourceIDs {
		return x.Ids, nil
	}
	if c.IsCross() {
		return c.hostCrossIDs(x)
	}
	v := x.Values
	if v == nil {
		return nil, fmt.Errorf("column %q: no values", c.Name)
	}
	var err error
	if c.Source == SourceSplit {
		if v, _, err = c.splitTokens(v); err != nil {
			return nil, err
		}
	}
	for i := range c.Transforms {
		t := &c.Transforms[i]
		switch t.Op {
		case TransformHash:
			v, err = tfops.StringToHashBucketFast(v, t.NumBuckets)
		case TransformAsString:
			v, err = tfops.AsString(v)
		case TransformBucketize:
			v, err = tfops.Bucketize(v, t.Boundaries)
		case TransformVocab:
			var ids []int64
			if ids, err = emb.NewVocab(t.Keys).Lookup(v, t.NumBuckets, t.Default); err == nil {
				v = interp.Vector(ids...)
			}
		default:
			ids := make([]int64, v.Len())
			for j := range ids {
				ids[j], _ = v.Int64At(j)
			}
			switch t.Op {
			case TransformCheckRange:
				for j, id := range ids {
					if id < 0 || id >= t.NumBuckets {
						ids[j] = t.Default
					}
				}
			case TransformCast:
				sh := 64 - t.Bits
				for j, id := range ids {
					ids[j] = id << sh >> sh
				}
			case TransformAddOffset:
				for b := 0; b+1 < len(x.Splits); b++ {
					for j := x.Splits[b]; j < x.Splits[b+1]; j++ {
						ids[j] += t.Stride * (j - x.Splits[b])
					}
				}
			case TransformDrop:
				for j, id := range ids {
					if id < t.Min || id > t.Max {
						ids[j] = -1
					}
				}
			}
			v = interp.Vector(ids...)
		}
		if err != nil {
			return nil, fmt.Errorf("column %q: %v", c.Name, err)
		}
	}
	ids := make([]int64, v.Len())
	for j := range ids {
		ids[j], _ = v.Int64At(j)
	}
	return ids, nil
}

// checkSource checks that x carries what c's source needs.
func (x *ColumnInput) checkSource(c *Column) error {
	if c.Source == SourceIDs || c.Source == "" {
		if x.Values != nil {
			return fmt.Errorf("column %q: source \"ids\" takes ids, not values", c.Name)
		}
		return nil
	}
	v := x.Values
	if v == nil {
		return fmt.Errorf("column %q: source %q needs the raw values", c.Name, c.Source)
	}
	if v.Rank() != 1 {
		return fmt.Errorf("column %q: values must be a vector, got shape %s", c.Name, interp.ShapeString(v.Shape()))
	}
	ok := false
	switch c.Source {
	case SourceI64:
		ok = v.DType().IsInteger()
	case SourceF32:
		ok = v.DType() == interp.Float32
	case SourceF64:
		ok = v.DType() == interp.Float64
	case SourceStr, SourceSplit:
		ok = v.DType() == interp.String
	}
	if !ok {
		return fmt.Errorf("column %q: source %q cannot take values of %v", c.Name, c.Source, v.DType())
	}
	return nil
}

// packValues writes x's ids or values at words d[1] (and the bytes of
// strings at word d[6]).
func (x *ColumnInput) packValues(c *Column, words []int32, d []int64) {
	at := d[1]
	switch c.Source {
	case SourceI64:
		for j := range x.Len() {
			v, _ := x.Values.Int64At(j)
			words[at+2*int64(j)], words[at+2*int64(j)+1] = int32(uint32(v)), int32(uint32(uint64(v)>>32))
		}
	case SourceF32:
		for j, f := range x.Values.Float32s() {
			words[at+int64(j)] = int32(math.Float32bits(f))
		}
	case SourceF64:
		for j, f := range x.Values.Float64s() {
			u := math.Float64bits(f)
			words[at+2*int64(j)], words[at+2*int64(j)+1] = int32(uint32(u)), int32(uint32(u>>32))
		}
	case SourceStr, SourceSplit:
		var off int64
		b := 4 * d[6]
		if c.StrSlots() {
			for j, s := range x.Values.Strings() {
				var u uint64
				if len(s) < 8 {
					for k := 0; k < len(s); k++ {
						u |= uint64(s[k]) << (8 * k)
					}
					u |= uint64(len(s)) << 56
				} else {
					u = uint64(off) | uint64(len(s))<<32 | 0xff<<56
					for k := 0; k < len(s); k++ {
						p := b + off + int64(k)
						words[p/4] |= int32(uint32(s[k]) << (8 * (p % 4)))
					}
					off += int64(len(s))
				}
				words[at+2*int64(j)], words[at+2*int64(j)+1] = int32(uint32(u)), int32(uint32(u>>32))
			}
			break
		}
		for j, s := range x.Values.Strings() {
			words[at+int64(j)] = int32(off)
			for k := 0; k < len(s); k++ {
				p := b + off + int64(k)
				words[p/4] |= int32(uint32(s[k]) << (8 * (p % 4)))
			}
			off += int64(len(s))
		}
		words[at+int64(x.Len())] = int32(off)
	default:
		for j, id := range x.Ids {
			words[at+int64(j)] = int32(id)
		}
	}
}

// splitTokens splits the strings of a "split" column as the kernel does
// (StringSplitV2 with a one-byte separator): the tokens and their bags'
// row splits.
func (c *Column) splitTokens(v *interp.Tensor) (*interp.Tensor, []int64, error) {
	strs := v.Strings()
	if strs == nil && v.Len() > 0 {
		return nil, nil, fmt.Errorf("column %q: source \"split\" takes strings, got %v", c.Name, v.DType())
	}
	splits := []int64{0}
	toks := []string{}
	for _, s := range strs {
		parts := strings.Split(s, c.Sep)
		toks = append(toks, parts...)
		splits = append(splits, int64(len(toks)))
	}
	t, err := interp.New([]int64{int64(len(toks))}, toks)
	return t, splits, err
}

// HostBags returns the ids, row splits and weights (nil for an
// unweighted column) of column c for x: HostIDs, with the bags a "split"
// column's kernel makes of its strings, and without the ids the kernel
// drops (TransformDrop) and their weights.
func (c *Column) HostBags(x *ColumnInput) (ids, splits []int64, weights []float32, err error) {
	if ids, err = c.HostIDs(x); err != nil {
		return nil, nil, nil, err
	}
	splits, weights = x.Splits, x.Weights
	if c.Source == SourceSplit {
		if _, splits, err = c.splitTokens(x.Values); err != nil {
			return nil, nil, nil, err
		}
	}
	if !c.Drops() {
		return ids, splits, weights, nil
	}
	if len(splits) == 0 || splits[len(splits)-1] != int64(len(ids)) || (weights != nil && len(weights) != len(ids)) {
		return nil, nil, nil, fmt.Errorf("column %q: its row splits and weights do not match its %d ids", c.Name, len(ids))
	}
	kept := make([]int64, 0, len(ids))
	ns := make([]int64, len(splits))
	var kw []float32
	for b := 0; b+1 < len(splits); b++ {
		for j := splits[b]; j < splits[b+1]; j++ {
			if ids[j] < 0 {
				continue
			}
			kept = append(kept, ids[j])
			if weights != nil {
				kw = append(kw, weights[j])
			}
		}
		ns[b+1] = int64(len(kept))
	}
	return kept, ns, kw, nil
}

// StrSlots reports whether c's strings are packed as 8-byte slots, one
// per position (two int32 words, a little-endian u64): a string of at
// most 7 bytes in the slot itself (bytes 0..6, its length in byte 7),
// a longer one as its byte offset in the column's bytes (bits 0..31),
// its length (bits 32..55) and 0xff in byte 7, its bytes in the bytes
// region (which holds only those). Source "str" columns whose first
// transform is a hash: the kernel reads a short string with the one load
// that finds it. (Vocabularies compare keys with bytes in memory and
// keep the offsets layout.)
func (c *Column) StrSlots() bool {
	return c.Source == SourceStr && len(c.Transforms) > 0 && c.Transforms[0].Op == TransformHash
}

// MaxSlotString is the longest string a slot can describe.
const MaxSlotString = 1<<24 - 1

// HashesStrings reports whether c's id computation hashes or looks up
// strings (the expensive transforms: hash, vocabularies of strings, split).
func (c *Column) HashesStrings() bool {
	if c.Source == SourceStr || c.Source == SourceSplit || c.IsCross() {
		return true
	}
	for i := range c.Transforms {
		if c.Transforms[i].Op == TransformHash {
			return true
		}
	}
	return false
}
