package tfops

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir/inputfile"
)

// HashTable models TensorFlow's HashTableV2: an immutable map from string,
// int32 or int64 keys to values of one dtype, filled once by
// LookupTableImportV2, InitializeTableV2 or InitializeTableFromTextFileV2
// and read by LookupTableFindV2.
type HashTable struct {
	keyType, valueType interp.DType
	strKeys            map[string]int
	intKeys            map[int64]int
	values             *interp.Tensor // flat, indexed by the maps
	initialized        bool
}

// NewHashTable returns an empty, uninitialized table (HashTableV2).
func NewHashTable(keyType, valueType interp.DType) (*HashTable, error) {
	switch keyType {
	case interp.String, interp.Int32, interp.Int64:
	default:
		return nil, errorf("HashTableV2", "unsupported key dtype %v", keyType)
	}
	if !valueType.Valid() {
		return nil, errorf("HashTableV2", "unsupported value dtype %v", valueType)
	}
	return &HashTable{keyType: keyType, valueType: valueType}, nil
}

// KeyType returns the key dtype.
func (h *HashTable) KeyType() interp.DType { return h.keyType }

// ValueType returns the value dtype.
func (h *HashTable) ValueType() interp.DType { return h.valueType }

// Size returns the number of entries (LookupTableSizeV2).
func (h *HashTable) Size() int64 { return int64(len(h.strKeys) + len(h.intKeys)) }

// Initialize fills the table from keys and values of equal shape
// (InitializeTableV2). A key repeated with a different value is an error.
// Initializing an initialized table is a no-op if the data is the same and
// an error otherwise.
func (h *HashTable) Initialize(keys, values *interp.Tensor) error {
	return h.fill("InitializeTableV2", keys, values)
}

// Import is LookupTableImportV2 on a HashTable, which initializes it with
// the same rules as Initialize.
func (h *HashTable) Import(keys, values *interp.Tensor) error {
	return h.fill("LookupTableImportV2", keys, values)
}

func (h *HashTable) fill(op string, keys, values *interp.Tensor) error {
	if err := checkDType(op, "keys", keys, h.keyType); err != nil {
		return err
	}
	if err := checkDType(op, "values", values, h.valueType); err != nil {
		return err
	}
	if !equalShape(keys.Shape(), values.Shape()) {
		return errorf(op, "expected shape %s for values, got %s", shapeStr(keys.Shape()), shapeStr(values.Shape()))
	}
	fresh := &HashTable{keyType: h.keyType, valueType: h.valueType}
	if h.keyType == interp.String {
		fresh.strKeys = make(map[string]int, keys.Len())
	} else {
		fresh.intKeys = make(map[int64]int, keys.Len())
	}
	var keep []int
	for i := 0; i < keys.Len(); i++ {
		j, dup := fresh.lookup(keys, i)
		if dup {
			if values.ElemString(keep[j]) != values.ElemString(i) {
				return errorf(op, "HashTable has different value for same key. Key %s has %s and trying to add value %s",
					keys.ElemString(i), values.ElemString(keep[j]), values.ElemString(i))
			}
			continue
		}
		fresh.insert(keys, i, len(keep))
		keep = append(keep, i)
	}
	flat, err := values.Reshaped([]int64{int64(values.Len())})
	if err != nil {
		return err
	}
	if fresh.values, err = Take(flat, keep, []int64{int64(len(keep))}); err != nil {
		return err
	}
	if h.initialized {
		if !h.same(fresh) {
			return errorf(op, "table was already initialized with different data")
		}
		return nil
	}
	*h = *fresh
	h.initialized = true
	return nil
}

func (h *HashTable) lookup(keys *interp.Tensor, i int) (int, bool) {
	switch h.keyType {
	case interp.String:
		j, ok := h.strKeys[keys.Strings()[i]]
		return j, ok
	default:
		k, _ := keys.Int64At(i)
		j, ok := h.intKeys[k]
		return j, ok
	}
}

func (h *HashTable) insert(keys *interp.Tensor, i, slot int) {
	if h.keyType == interp.String {
		h.strKeys[keys.Strings()[i]] = slot
		return
	}
	k, _ := keys.Int64At(i)
	h.intKeys[k] = slot
}

func (h *HashTable) same(o *HashTable) bool {
	if h.Size() != o.Size() {
		return false
	}
	for k, i := range o.strKeys {
		j, ok := h.strKeys[k]
		if !ok || h.values.ElemString(j) != o.values.ElemString(i) {
			return false
		}
	}
	for k, i := range o.intKeys {
		j, ok := h.intKeys[k]
		if !ok || h.values.ElemString(j) != o.values.ElemString(i) {
			return false
		}
	}
	return true
}

// Find looks up every key (LookupTableFindV2); missing keys get the scalar
// defaultValue. The output has keys' shape and the value dtype.
func (h *HashTable) Find(keys, defaultValue *interp.Tensor) (*interp.Tensor, error) {
	const op = "LookupTableFindV2"
	if !h.initialized {
		return nil, errorf(op, "table not initialized")
	}
	if err := checkDType(op, "keys", keys, h.keyType); err != nil {
		return nil, err
	}
	if err := checkDType(op, "default_value", defaultValue, h.valueType); err != nil {
		return nil, err
	}
	if defaultValue.Rank() != 0 {
		return nil, errorf(op, "expected shape [] for default value, got %s", shapeStr(defaultValue.Shape()))
	}
	idx := make([]int, keys.Len())
	for i := range idx {
		j, ok := h.lookup(keys, i)
		if !ok {
			j = -1
		}
		idx[i] = j
	}
	return takeOr(h.values, defaultValue, idx, keys.Shape())
}

// TextFileInit is the configuration of InitializeTableFromTextFileV2: where
// each line's key and value come from (WholeLine, LineNumber, or a column
// index of the line split at Delimiter), how many lines to read
// (VocabSize, -1 for all) and the Offset added to line numbers.
type TextFileInit struct {
	KeyIndex, ValueIndex int64
	VocabSize            int64
	Delimiter            string
	Offset               int64
}

// The special key and value indices of TextFileInit.
const (
	WholeLine  = -2
	LineNumber = -1
)

// readTextFile reads a table's text file through inputfile, within its
// bound on input files (RECOM_MAX_INPUT_BYTES, see docs/LIMITS.md). The
// name comes from the program, so only a regular file is opened: a device
// or a pipe (which may block on opening) is refused.
func readTextFile(op, path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, errorf(op, "%v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errorf(op, "%s is not a regular file", path)
	}
	b, err := inputfile.Read(path)
	if err != nil {
		return nil, errorf(op, "%v", err)
	}
	return b, nil
}

// ReadTextFileTable reads the keys and values that
// InitializeTableFromTextFileV2 puts into a table of the given key and
// value dtypes, with the rules of TensorFlow's TextFileLineIterator
// (core/kernels/lookup_util.cc): lines end at "\n", a trailing "\r" is
// dropped, the end of the file ends the last line (so a final newline
// makes no empty line); an empty line is an error; a line split at the
// delimiter (empty fields kept) must have the columns the indices name;
// WholeLine is the line, LineNumber the line's number plus the offset (an
// int64); an int32 field also gets the offset added, as TensorFlow's does,
// an int64 one does not; numbers may have surrounding white space. With a
// VocabSize, reading stops after that many lines, and a file with fewer
// lines is an error. A file that yields no line is an error, as in
// TensorFlow, whose reader fails on its first record. The file must be
// regular and within inputfile's bound.
func ReadTextFileTable(path string, c TextFileInit, keyType, valueType interp.DType) (keys, values *interp.Tensor, err error) {
	const op = "InitializeTableFromTextFileV2"
	if len(c.Delimiter) != 1 {
		return nil, nil, errorf(op, "delimiter should be only 1 char")
	}
	if c.KeyIndex < WholeLine || c.ValueIndex < WholeLine {
		return nil, nil, errorf(op, "key_index and value_index must be >= -2, got %d and %d", c.KeyIndex, c.ValueIndex)
	}
	if path == "" {
		return nil, nil, errorf(op, "filename cannot be empty.")
	}
	switch {
	case c.KeyIndex == LineNumber && keyType != interp.Int64:
		return nil, nil, errorf(op, "Key index for line number requires table key dtype of int64, got %s", tfTypeName(keyType))
	case c.KeyIndex == WholeLine && !keyType.IsInteger() && keyType != interp.String:
		return nil, nil, errorf(op, "Key index for whole line requires string or integer table key, got %s", tfTypeName(keyType))
	case c.ValueIndex == LineNumber && valueType != interp.Int64:
		return nil, nil, errorf(op, "Value index for line number requires table value dtype of int64, got %s", tfTypeName(valueType))
	case c.ValueIndex == WholeLine && !valueType.IsInteger() && valueType != interp.String:
		return nil, nil, errorf(op, "Value index for whole line requires table value dtype of integer or string, got %s", tfTypeName(valueType))
	}
	data, err := readTextFile(op, path)
	if err != nil {
		return nil, nil, err
	}
	kb, err := newColumn(op, keyType)
	if err != nil {
		return nil, nil, err
	}
	vb, err := newColumn(op, valueType)
	if err != nil {
		return nil, nil, err
	}
	split := max(c.KeyIndex, c.ValueIndex) >= 0
	pos, id := 0, int64(0)
	for {
		line, next, ok := readLine(data, pos)
		if !ok {
			if c.VocabSize != -1 && id != c.VocabSize {
				return nil, nil, errorf(op, "Invalid vocab_size in %s: expected %d but got %d", path, c.VocabSize, id)
			}
			if id == 0 {
				return nil, nil, errorf(op, "%s has no lines (TensorFlow's reader fails at the end of the file before the first record)", path)
			}
			break
		}
		if c.VocabSize != -1 && id >= c.VocabSize {
			if id == 0 {
				return nil, nil, errorf(op, "Finished reading 0 of lines from %s", path)
			}
			break
		}
		pos = next
		if id >= interp.MaxElements {
			return nil, nil, errorf(op, "%v", &interp.TooLargeError{What: "the table of " + path, Limit: interp.MaxElements})
		}
		if line == "" {
			return nil, nil, errorf(op, "Invalid content in %s: empty line found at position %d.", path, pos)
		}
		var tokens []string
		if split {
			tokens = strings.Split(line, c.Delimiter)
			if want := max(c.KeyIndex, c.ValueIndex) + 1; int64(len(tokens)) < want {
				return nil, nil, errorf(op, "Invalid number of columns in %s line %d (%s) : expected at least %d got %d", path, id, line, want, len(tokens))
			}
		}
		if err := kb.set(op, line, tokens, c.KeyIndex, id, c.Offset); err != nil {
			return nil, nil, err
		}
		if err := vb.set(op, line, tokens, c.ValueIndex, id, c.Offset); err != nil {
			return nil, nil, err
		}
		id++
	}
	if keys, err = kb.tensor(); err != nil {
		return nil, nil, err
	}
	if values, err = vb.tensor(); err != nil {
		return nil, nil, err
	}
	return keys, values, nil
}

// readLine returns the line that starts at pos and where the next one
// starts, as TensorFlow's InputBuffer::ReadLine: without its "\n" and a
// trailing "\r"; at the end of data, ok is false when nothing (or only
// "\r") is left.
func readLine(data []byte, pos int) (line string, next int, ok bool) {
	rest := data[pos:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return string(bytes.TrimSuffix(rest[:i], []byte("\r"))), pos + i + 1, true
	}
	l := bytes.TrimSuffix(rest, []byte("\r"))
	if len(l) == 0 {
		return "", len(data), false
	}
	return string(l), len(data), true
}

// column accumulates the keys or the values of a text-file table.
type column struct {
	dt     interp.DType
	ints   []int64
	floats []float64
	strs   []string
}

func newColumn(op string, dt interp.DType) (*column, error) {
	switch dt {
	case interp.Int32, interp.Int64, interp.Float32, interp.Float64, interp.String:
	default:
		return nil, errorf(op, "Data type %s not supported.", tfTypeName(dt))
	}
	return &column{dt: dt}, nil
}

// set appends the field of line for index, as TextFileLineIterator's
// SetValue.
func (c *column) set(op, line string, tokens []string, index, id, offset int64) error {
	if index == LineNumber {
		c.ints = append(c.ints, id+offset)
		return nil
	}
	tok := line
	if index != WholeLine {
		tok = tokens[index]
	}
	bad := func(what string) error {
		return errorf(op, "Field %s in line %d is not a valid %s.", tok, id, what)
	}
	num := strings.Trim(tok, " \t\n\v\f\r")
	switch c.dt {
	case interp.Int32:
		v, err := strconv.ParseInt(num, 10, 32)
		if err != nil {
			return bad("int32")
		}
		c.ints = append(c.ints, int64(int32(v+offset)))
	case interp.Int64:
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return bad("int64")
		}
		c.ints = append(c.ints, v)
	case interp.Float32:
		v, err := strconv.ParseFloat(num, 32)
		if err != nil && !isRangeErr(err) {
			return bad("float")
		}
		c.floats = append(c.floats, v)
	case interp.Float64:
		v, err := strconv.ParseFloat(num, 64)
		if err != nil && !isRangeErr(err) {
			return bad("double")
		}
		c.floats = append(c.floats, v)
	default:
		c.strs = append(c.strs, tok)
	}
	return nil
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

func (c *column) tensor() (*interp.Tensor, error) {
	switch c.dt {
	case interp.Int32:
		v := make([]int32, len(c.ints))
		for i, x := range c.ints {
			v[i] = int32(x)
		}
		return interp.New([]int64{int64(len(v))}, v)
	case interp.Int64:
		return interp.New([]int64{int64(len(c.ints))}, c.ints)
	case interp.Float32:
		v := make([]float32, len(c.floats))
		for i, x := range c.floats {
			v[i] = float32(x)
		}
		return interp.New([]int64{int64(len(v))}, v)
	case interp.Float64:
		return interp.New([]int64{int64(len(c.floats))}, c.floats)
	}
	return interp.New([]int64{int64(len(c.strs))}, c.strs)
}

// InitializeFromTextFile fills the table from a text file
// (InitializeTableFromTextFileV2; ReadTextFileTable says how). As in
// TensorFlow, a table already initialized stays as it is (after the file
// was read without error), and a key repeated with a different value is
// an error.
func (h *HashTable) InitializeFromTextFile(path string, c TextFileInit) error {
	keys, values, err := ReadTextFileTable(path, c, h.keyType, h.valueType)
	if err != nil {
		return err
	}
	if h.initialized {
		return nil
	}
	return h.fill("InitializeTableFromTextFileV2", keys, values)
}
