package tfops

import (
	"github.com/recom-compiler/recom/interp"
)

// HashTable models TensorFlow's HashTableV2: an immutable map from string,
// int32 or int64 keys to values of one dtype, filled once by
// LookupTableImportV2 or InitializeTableV2 and read by LookupTableFindV2.
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
