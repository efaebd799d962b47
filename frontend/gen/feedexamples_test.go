package gen

import (
	"math/rand/v2"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// TestExampleDrawEmpty: a record whose every feature is left out (its
// features message empty, serialized as 0x0a 0x00) is drawn again or
// ended by a skipped field, never rotated (it has no entries) and never
// left ending in a zero byte.
func TestExampleDrawEmpty(t *testing.T) {
	ex := &exampleDomain{features: []*featureDomain{{f: &exampleFeature{key: "k", dtype: interp.Int64}, d: &domain{dtype: interp.Int64, empty: 1}}}}
	r := rand.New(rand.NewPCG(1, 2))
	s, err := ex.draw(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) == 0 || s[len(s)-1] == 0 {
		t.Fatalf("drew %x", s)
	}
}
