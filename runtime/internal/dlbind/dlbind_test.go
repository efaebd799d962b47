package dlbind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestBind: the first name a library has is bound, an optional symbol it
// lacks stays nil, a required one is missing's error, and a Go signature
// purego cannot call is an error, not a panic.
func TestBind(t *testing.T) {
	lookup := func(have ...string) func(string) (uintptr, error) {
		return func(n string) (uintptr, error) {
			for _, h := range have {
				if n == h {
					return 0x1000, nil // never called
				}
			}
			return 0, errors.New("undefined symbol: " + n)
		}
	}
	missing := func(name string, err error) error { return fmt.Errorf("no %s (%v)", name, err) }
	var f, old, opt func() int32
	syms := []Symbol{
		{Names: []string{"f"}, Fptr: &f},
		{Names: []string{"g_v2", "g"}, Fptr: &old},
		{Names: []string{"h"}, Fptr: &opt, Optional: true},
	}
	if err := Bind(lookup("f", "g"), syms, missing); err != nil {
		t.Fatal(err)
	}
	if f == nil || old == nil || opt != nil {
		t.Errorf("bound: f %v, g by its older name %v, optional h left nil %v", f != nil, old != nil, opt == nil)
	}
	err := Bind(lookup("g"), syms, missing)
	if err == nil || err.Error() != "no f (undefined symbol: f)" {
		t.Errorf("missing f: %v", err)
	}
	var bad func(chan int)
	err = Bind(lookup("bad"), []Symbol{{Names: []string{"bad"}, Fptr: &bad}}, missing)
	if err == nil || !strings.HasPrefix(err.Error(), "binding bad: purego: ") {
		t.Errorf("bad signature: %v", err)
	}
}
