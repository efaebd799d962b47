package abi

import (
	"runtime"
	"testing"
	"time"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

func cachedVocabs() int {
	n := 0
	vocabs.Range(func(any, any) bool { n++; return true })
	return n
}

// BuildVocab's cache answers the same attribute from memory and lets an
// entry go once its attribute is unreachable.
func TestBuildVocabCacheIsWeak(t *testing.T) {
	before := cachedVocabs()
	keys := textir.DenseStrings(textir.TensorOf([]int64{3}, tfg.String()), []string{"a", "bb", "ccc"})
	v1, err := BuildVocab(keys)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := BuildVocab(keys)
	if v1 != v2 {
		t.Fatal("the same attribute built its vocabulary twice")
	}
	if got := cachedVocabs(); got != before+1 {
		t.Fatalf("%d cached vocabularies, want %d", got, before+1)
	}
	runtime.KeepAlive(keys)
	keys = nil
	deadline := time.Now().Add(10 * time.Second)
	for cachedVocabs() > before {
		if time.Now().After(deadline) {
			t.Fatalf("the entry of an unreachable attribute is still cached (%d entries)", cachedVocabs())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
