package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
)

// The session checks the feeds it reads itself (here the dense features,
// uploaded for the bottom MLP) and leaves the columns' feeds to the
// packer, which looks them up and checks them as it packs: either way a
// feed of the wrong dtype or shape, or missing, is an error, a feed may
// be given as "name:0", and a slot used by a failed batch runs the next
// one right.
func TestSimFeedChecks(t *testing.T) {
	m := loadSmall(t)
	for _, packer := range []struct {
		name string
		f    PackerFactory
	}{{"hostpack", NativePacker}, {"interp", InterpPacker}} {
		t.Run(packer.name, func(t *testing.T) {
			s, sim := simSession(t, m, Options{Slots: 1, Packer: packer.f})
			if n := len(s.plan.ownFeeds); n != 1 || s.plan.ownFeeds[0].feed != gen.DenseInput {
				t.Fatalf("the session checks %d feeds itself, want only %q", n, gen.DenseInput)
			}
			good := m.feeds(t, 9, 41)
			want := m.reference(t, good)
			with := func(name string, x *interp.Tensor) map[string]*interp.Tensor {
				f := map[string]*interp.Tensor{}
				for k, v := range good {
					f[k] = v
				}
				if x == nil {
					delete(f, name)
				} else {
					f[name] = x
				}
				return f
			}
			var column string
			for k := range good {
				if strings.HasPrefix(k, "str_") {
					column = k
					break
				}
			}
			for _, c := range []struct {
				what  string
				feeds map[string]*interp.Tensor
				want  []string // the error names the feed and the fault
			}{
				{"a column's feed missing", with(column, nil), []string{column}},
				{"a column's feed of the wrong dtype", with(column, interp.Vector[float64](1, 2, 3)), []string{column, "float64"}},
				{"the dense features missing", with(gen.DenseInput, nil), []string{`session: feed "` + gen.DenseInput + `" is missing`}},
				{"the dense features of the wrong shape", with(gen.DenseInput, interp.Vector[float32](1, 2)),
					[]string{"session: ", "shape [2]"}},
				{"the dense features of the wrong dtype", with(gen.DenseInput, interp.Vector[int64](1, 2)),
					[]string{`session: feed "` + gen.DenseInput + `" has dtype int64`}},
			} {
				_, err := s.Run(c.feeds)
				if err == nil {
					t.Errorf("%s: the batch runs", c.what)
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %v, want it to name %q", c.what, err, w)
					}
				}
				// The slot runs the next batch right.
				got, err := s.Run(good)
				if err != nil {
					t.Fatalf("after %s: %v", c.what, simErr(sim, err))
				}
				check(t, "after "+c.what, got, want)
			}
			// Every feed under its "name:0", and (hostpack) feeds of
			// other names; the interpreter refuses those.
			alias := map[string]*interp.Tensor{}
			if packer.name == "hostpack" {
				alias["not_a_feed"] = interp.Vector[int64](1)
			}
			for k, v := range good {
				alias[k+":0"] = v
			}
			got, err := s.Run(alias)
			if err != nil {
				t.Fatalf("feeds named name:0: %v", simErr(sim, err))
			}
			check(t, "feeds named name:0", got, want)
			text := s.Summary().String()
			if want := fmt.Sprintf("check the feeds the session reads (1 of %d placeholders", len(s.plan.feeds)); !strings.Contains(text, want) {
				t.Errorf("the summary lacks %q:\n%s", want, text)
			}
		})
	}
}
