package tfops

import (
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestHashTable(t *testing.T) {
	h, err := NewHashTable(interp.String, interp.Int64)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Find(vec("a"), sc[int64](-1))
	check(t, "find before init", nil, err, nil, "not initialized")
	if err := h.Import(vec("emerson", "lake", "palmer", "lake"), vec[int64](0, 1, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if h.Size() != 3 {
		t.Errorf("Size = %d, want 3", h.Size())
	}
	got, err := h.Find(tn(sh(2, 2), "lake", "tarkus", "palmer", ""), sc[int64](-1))
	check(t, "find", got, err, tn[int64](sh(2, 2), 1, -1, 2, -1), "")
	_, err = h.Find(vec("a"), vec[int64](-1))
	check(t, "non-scalar default", nil, err, nil, "default value")
	_, err = h.Find(vec[int64](1), sc[int64](-1))
	check(t, "key dtype", nil, err, nil, "keys")
	if err := h.Initialize(vec("palmer", "lake", "emerson"), vec[int64](2, 1, 0)); err != nil {
		t.Errorf("re-initialize with the same data: %v", err)
	}
	err = h.Initialize(vec("emerson"), vec[int64](0))
	check(t, "re-initialize with different data", nil, err, nil, "already initialized")

	h2, _ := NewHashTable(interp.Int64, interp.Int64)
	err = h2.Initialize(vec[int64](1, 1), vec[int64](2, 3))
	check(t, "conflicting duplicate", nil, err, nil, "different value for same key")
	if err := h2.Initialize(vec[int64](10, 20), vec[int64](0, 1)); err != nil {
		t.Fatal(err)
	}
	got, err = h2.Find(vec[int64](20, 30, 10), sc[int64](7))
	check(t, "int keys", got, err, vec[int64](1, 7, 0), "")
	err = h2.Initialize(vec[int64](1), vec[int64](2, 3))
	check(t, "shape mismatch", nil, err, nil, "expected shape")

	h3, _ := NewHashTable(interp.Int64, interp.String)
	h3.Import(vec[int64](0, 1), vec("zero", "one"))
	got, err = h3.Find(vec[int64](1, 2), sc("UNK"))
	check(t, "index to string", got, err, vec("one", "UNK"), "")
	if _, err := NewHashTable(interp.Float32, interp.Int64); err == nil {
		t.Error("float keys: want error")
	}
}
