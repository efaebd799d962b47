package fused

import (
	"fmt"

	"github.com/recom-compiler/recom/textir"
)

// Vocab is the device form of a vocabulary (see BuildVocab).
type Vocab struct {
	Words                    []uint32
	Strings                  bool
	Size, Capacity, MaxProbe int64
}

// BuildVocab lays out the keys of a vocabulary for the kernel.
func BuildVocab(keys *textir.DenseElementsAttr) (*Vocab, error) {
	return nil, fmt.Errorf("vocabulary lookups in the kernel are not available yet")
}
