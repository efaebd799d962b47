package serve

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// mixedRequest is a binary request of mixedSig's inputs of rows rows (x
// of width w): its JSON header and its binary data. sorted writes each
// input's keys sorted (Go's encoding/json: the size before the shape);
// edit, when set, rewrites an input's shape and size (their text).
func mixedRequest(rows, w int, sorted bool, edit func(name, shape, size string) (string, string)) (string, []byte) {
	var s, ids, x, b []byte
	for i := range rows {
		e := strings.Repeat("q", (i*7+3)%5)
		s = append(binary.LittleEndian.AppendUint32(s, uint32(len(e))), e...)
		ids = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(ids, uint64(i)), uint64(i*i))
		for j := range w {
			x = binary.LittleEndian.AppendUint32(x, math.Float32bits(float32(i)+float32(j)/8))
		}
		b = append(b, byte(i%2))
	}
	input := func(name, dt string, shape []int, n int) string {
		sh, size := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shape)), ","), "[]"), fmt.Sprint(n)
		if edit != nil {
			sh, size = edit(name, sh, size)
		}
		if sorted {
			return fmt.Sprintf(`{"datatype":%q,"name":%q,"parameters":{"binary_data_size":%s},"shape":[%s]}`, dt, name, size, sh)
		}
		return fmt.Sprintf(`{"name":%q,"datatype":%q,"shape":[%s],"parameters":{"binary_data_size":%s}}`, name, dt, sh, size)
	}
	hdr := `{"id":"r","inputs":[` + strings.Join([]string{
		input("s", "BYTES", []int{rows}, len(s)),
		input("ids", "INT64", []int{rows, 2}, len(ids)),
		input("x", "FP32", []int{rows, w}, len(x)),
		input("b", "BOOL", []int{rows}, len(b)),
	}, ",") + `],"outputs":[{"name":"y"}]}`
	return hdr, append(append(append(s, ids...), x...), b...)
}

// instOf is c's instantiation of its template for rows, or nil.
func instOf(c *rawCache, rows int64) *rawInst {
	t := c.load()
	for i := range c.insts {
		if in := c.insts[i].Load(); in != nil && in.t == t && in.rows == rows {
			return in
		}
	}
	return nil
}

// readRaw is decodeInferRaw of hdr and bin with c, checked against
// decodeInfer when it reads them; whether it did.
func readRaw(t *testing.T, sig *Signature, c *rawCache, hdr string, bin []byte, maxRows int) bool {
	t.Helper()
	body := append([]byte(hdr), bin...)
	req, f, ok := decodeInferRaw(body, len(hdr), sig, maxRows, c)
	if ok {
		sameAsDecodeInfer(t, body, len(hdr), sig, req, f)
		putRawFeeds(f)
	}
	return ok
}

// TestRawInst: requests of the template's form are read by its
// instantiation for their rows, whatever the integers it leaves open (a
// BYTES size, a dimension the spec leaves open) hold, into what
// decodeInfer reads; a request that misses it (a wrong integer at any
// hole or at one the rows fix) misses the template too and is left to the
// input reader. Instantiations are kept for at most rawInsts row counts of
// at most the server's limit, one replaced once every rawInstEvery
// requests that found none, and none of an older template is used.
func TestRawInst(t *testing.T) {
	sig := mixedSig
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	const maxRows = 2 * rawInsts
	for _, sorted := range []bool{false, true} {
		var c rawCache
		req := func(rows, w int) (string, []byte) { return mixedRequest(rows, w, sorted, nil) }
		if !readRaw(t, &sig, &c, "", nil, maxRows) && c.load() != nil {
			t.Fatal("an empty body left a template")
		}
		if h, b := req(1, 1); !readRaw(t, &sig, &c, h, b, maxRows) || c.load() == nil {
			t.Fatalf("sorted %v: the first request left no template", sorted)
		}
		if c.load().ins[0].sizeFirst != sorted {
			t.Fatalf("sorted %v: the template's size comes first: %v", sorted, c.load().ins[0].sizeFirst)
		}
		// byInst reads a request that is to be read by its rows'
		// instantiation.
		byInst := func(rows, w int) {
			t.Helper()
			h, b := req(rows, w)
			if !readRaw(t, &sig, &c, h, b, maxRows) || c.misses.Load() != 0 {
				t.Fatalf("sorted %v, %d rows of width %d: not read by the template (%d misses)", sorted, rows, w, c.misses.Load())
			}
			if in := instOf(&c, int64(rows)); in == nil || !in.ok {
				t.Fatalf("sorted %v, %d rows: no instantiation", sorted, rows)
			}
		}
		for _, rows := range []int{1, 2, 3, 7, 64, 2} {
			byInst(rows, 1)
		}
		byInst(3, 4) // x's width is a hole
		// misses reads a request to be refused, with one miss; the
		// template alone (noInst) misses it too.
		misses := func(what string, h string, b []byte) {
			t.Helper()
			for _, cc := range []*rawCache{&c, {noInst: true}} {
				if cc.noInst {
					cc.t.Store(c.load())
				}
				cc.misses.Store(0)
				if readRaw(t, &sig, cc, h, b, maxRows) || cc.misses.Load() != 1 {
					t.Fatalf("sorted %v, %s (noInst %v): read, or %d misses", sorted, what, cc.noInst, cc.misses.Load())
				}
			}
			c.misses.Store(0)
		}
		// Three rows of width 2: s has 17 bytes, ids 48, x 24, b 3.
		h, b := req(3, 2)
		for what, e := range map[string]struct{ name, shape, size string }{
			"a BYTES size too large":     {"s", "", "18"},
			"a BYTES size too small":     {"s", "", "16"},
			"a BYTES size not plain":     {"s", "", "017"},
			"an open dimension":          {"x", "3,3", ""},
			"an open dimension of 0":     {"x", "3,0", ""},
			"an open dimension too big":  {"x", "3,99999999999999999999", ""},
			"a fixed dimension":          {"ids", "3,1", ""},
			"an INT64 size":              {"ids", "", "40"},
			"rows that differ":           {"b", "2", ""},
			"rows not plain":             {"b", "03", ""},
			"a BOOL size":                {"b", "", "2"},
			"the first rows differ":      {"s", "2", ""},
			"the first rows not plain":   {"s", "03", ""},
			"the first rows 0":           {"s", "0", ""},
			"the first rows beyond rows": {"s", "65", ""},
		} {
			eh, _ := mixedRequest(3, 2, sorted, func(name, shape, size string) (string, string) {
				if name == e.name && e.shape != "" {
					shape = e.shape
				}
				if name == e.name && e.size != "" {
					size = e.size
				}
				return shape, size
			})
			if eh == h {
				t.Fatalf("%s: no edit", what)
			}
			misses(what, eh, b)
		}
		misses("the data cut", h, b[:len(b)-1])
		bad := append([]byte{}, b...)
		bad[0] = 9 // the first string's length
		misses("a BYTES element's length", h, bad)
		// Rows past the server's limit: not read, nothing instantiated.
		h, b = req(maxRows+1, 1)
		if readRaw(t, &sig, &c, h, b, maxRows) || instOf(&c, maxRows+1) != nil {
			t.Fatalf("sorted %v: %d rows read or instantiated", sorted, maxRows+1)
		}
		// Every slot taken: another row count is read by the template
		// alone until rawInstEvery requests found no instantiation.
		for rows := 8; instCount(&c) < rawInsts; rows++ {
			byInst(rows, 1)
		}
		c.instMiss.Store(0)
		const extra = maxRows // above every row count instantiated so far
		for i := 1; i <= rawInstEvery; i++ {
			h, b := req(extra, 1)
			if !readRaw(t, &sig, &c, h, b, maxRows) || c.misses.Load() != 0 {
				t.Fatalf("sorted %v: %d rows not read by the template", sorted, extra)
			}
			if got := instOf(&c, extra) != nil; got != (i == rawInstEvery) {
				t.Fatalf("sorted %v: after %d requests of %d rows, instantiated %v", sorted, i, extra, got)
			}
		}
		if n := instCount(&c); n != rawInsts {
			t.Fatalf("sorted %v: %d instantiations, want %d", sorted, n, rawInsts)
		}
		// Another form (spaces after the colons) relearned: the old
		// template's instantiations are gone, the new one's used.
		old := c.load()
		spaced := func(rows int) (string, []byte) {
			h, b := req(rows, 1)
			return strings.ReplaceAll(h, `":`, `": `), b
		}
		for range rawRelearn {
			if h, b := spaced(2); !readRaw(t, &sig, &c, h, b, maxRows) {
				t.Fatal("the spaced form not read")
			}
		}
		if c.load() == old {
			t.Fatalf("sorted %v: not relearned", sorted)
		}
		for i := range c.insts {
			if in := c.insts[i].Load(); in != nil && in.t == old {
				t.Fatalf("sorted %v: an instantiation of the old template kept", sorted)
			}
		}
		if h, b := spaced(2); !readRaw(t, &sig, &c, h, b, maxRows) || c.misses.Load() != 0 || instOf(&c, 2) == nil {
			t.Fatalf("sorted %v: the new template's instantiation not used", sorted)
		}
		// An instantiation of the old template is not used by the new.
		c.insts[0].Store(old.instantiate(&sig, 5))
		if in := c.inst(c.load(), &sig, 5, maxRows); in == nil || in.t != c.load() {
			t.Fatalf("sorted %v: the old template's instantiation used", sorted)
		}
	}
}

// instCount is how many of c's slots hold an instantiation of its template.
func instCount(c *rawCache) int {
	n := 0
	for i := range c.insts {
		if in := c.insts[i].Load(); in != nil && in.t == c.load() {
			n++
		}
	}
	return n
}

// TestRawInstShapes: an instantiation where the rows leave no request
// valid (a spec's fixed first dimension) reads none, as the template
// does; one of a spec of unknown rank leaves its dimensions past the
// first open; the inputs' shapes of equal specs are one slice.
func TestRawInstShapes(t *testing.T) {
	sig := Signature{Inputs: []TensorSpec{
		{Key: "a", Name: "a", DType: interp.Float32, Shape: []int64{-1, 3}},
		{Key: "u", Name: "u", DType: interp.Float32, UnknownRank: true},
		{Key: "c", Name: "c", DType: interp.Float32, Shape: []int64{-1, 3}},
		{Key: "f", Name: "f", DType: interp.Int32, Shape: []int64{2}},
	}, Outputs: mixedSig.Outputs}
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	req := func(rows int, u []int) (string, []byte) {
		nu := 1
		for _, d := range u {
			nu *= d
		}
		us := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(u)), ","), "[]")
		hdr := fmt.Sprintf(`{"inputs":[{"name":"a","datatype":"FP32","shape":[%d,3],"parameters":{"binary_data_size":%d}},`+
			`{"name":"u","datatype":"FP32","shape":[%s],"parameters":{"binary_data_size":%d}},`+
			`{"name":"c","datatype":"FP32","shape":[%d,3],"parameters":{"binary_data_size":%d}},`+
			`{"name":"f","datatype":"INT32","shape":[%d],"parameters":{"binary_data_size":%d}}]}`, rows, 12*rows, us, 4*nu, rows, 12*rows, rows, 4*rows)
		bin := make([]byte, 12*rows+4*nu+12*rows+4*rows)
		for i := range bin {
			bin[i] = byte(i * 5)
		}
		return hdr, bin
	}
	var c rawCache
	for _, rows := range []int{2, 2} {
		if h, b := req(rows, []int{rows, 4, 1}); !readRaw(t, &sig, &c, h, b, 8) || c.misses.Load() != 0 {
			t.Fatalf("%d rows: not read", rows)
		}
	}
	in := instOf(&c, 2)
	if in == nil || !in.ok || len(in.ends) != 3 || in.shapes[1] != nil || &in.shapes[0][0] != &in.shapes[2][0] {
		t.Fatalf("the instantiation for 2 rows: %+v", in)
	}
	if h, b := req(2, []int{2, 3, 5}); !readRaw(t, &sig, &c, h, b, 8) || c.misses.Load() != 0 {
		t.Fatal("u of another shape: not read by the instantiation")
	}
	// Three rows: f's first dimension is 2 for every request.
	h, b := req(3, []int{3, 4, 1})
	for _, noInst := range []bool{false, true} {
		cc := rawCache{noInst: noInst}
		cc.t.Store(c.load())
		if readRaw(t, &sig, &cc, h, b, 8) || cc.misses.Load() != 1 {
			t.Fatalf("3 rows (noInst %v): read, or %d misses", noInst, cc.misses.Load())
		}
	}
	if in := instOf(&c, 3); in != nil || c.load().instantiate(&sig, 3).ok {
		t.Fatal("an instantiation for 3 rows reads requests")
	}
}

// TestRawStrings4: rawStrings says whether nextBytes takes a view's n
// elements and nothing is left, and four views walked at once say what
// rawStrings says of each, whatever their elements (short, long, cut,
// left over).
func TestRawStrings4(t *testing.T) {
	elems := func(lens ...int) []byte {
		var b []byte
		for _, l := range lens {
			b = append(binary.LittleEndian.AppendUint32(b, uint32(l)), strings.Repeat("v", l)...)
		}
		return b
	}
	views := []struct {
		raw []byte
		n   int64
	}{
		{elems(), 0}, {elems(0), 1}, {elems(3, 0, 5), 3}, {elems(3, 0, 5), 2}, {elems(3, 0, 5), 4},
		{elems(3, 0, 5)[:12], 3}, {append(elems(1, 1), 0), 2}, {[]byte{0xff, 0xff, 0xff, 0xff}, 1},
		{elems(1, 2, 3, 4, 5, 6), 6}, {elems(2, 2), 2}, {[]byte{1, 0, 0}, 1},
	}
	for _, v := range views {
		for n := range v.n + 2 {
			raw, want := v.raw, true
			for range n {
				_, raw, want = nextBytes(raw)
				if !want {
					break
				}
			}
			if want = want && len(raw) == 0; rawStrings(v.raw, n) != want {
				t.Fatalf("%q, %d elements: %v", v.raw, n, !want)
			}
		}
	}
	for i := range views {
		for j := range views {
			for _, k := range []int{0, 4, 8} {
				v := [4]int{i, j, k, (i + j) % len(views)}
				var raws [4][]byte
				var ns [4]int64
				want := true
				for l, x := range v {
					raws[l], ns[l] = views[x].raw, views[x].n
					want = want && rawStrings(raws[l], ns[l])
				}
				if got := rawStrings4(&raws, &ns); got != want {
					t.Fatalf("views %v: %v, rawStrings %v", v, got, want)
				}
			}
		}
	}
}

// TestRawInstStrings: a request of many BYTES inputs (walked four at a
// time) is read by the instantiation; one element's length wrong in any
// of them misses it, and the template.
func TestRawInstStrings(t *testing.T) {
	var sig Signature
	for i := range 6 {
		k := fmt.Sprint("s", i)
		sig.Inputs = append(sig.Inputs, TensorSpec{Key: k, Name: k, DType: interp.String, Shape: []int64{-1, 1}})
	}
	sig.Outputs = mixedSig.Outputs
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	req := func(rows int) (string, []byte, []int) {
		var ins []string
		var bin []byte
		var at []int // where each input's first element's length is
		for i := range sig.Inputs {
			at = append(at, len(bin))
			var s []byte
			for r := range rows {
				e := strings.Repeat("w", (r*3+i)%7)
				s = append(binary.LittleEndian.AppendUint32(s, uint32(len(e))), e...)
			}
			ins = append(ins, fmt.Sprintf(`{"name":"s%d","datatype":"BYTES","shape":[%d,1],"parameters":{"binary_data_size":%d}}`, i, rows, len(s)))
			bin = append(bin, s...)
		}
		return `{"inputs":[` + strings.Join(ins, ",") + `]}`, bin, at
	}
	var c rawCache
	for _, rows := range []int{3, 3, 1, 9} {
		if h, b, _ := req(rows); !readRaw(t, &sig, &c, h, b, 16) || c.misses.Load() != 0 {
			t.Fatalf("%d rows: not read", rows)
		}
	}
	if in := instOf(&c, 9); in == nil || len(in.strs) != len(sig.Inputs) {
		t.Fatalf("9 rows: instantiation %+v", in)
	}
	h, b, at := req(9)
	for i, a := range at {
		for _, d := range []int{-1, 1} {
			bad := append([]byte{}, b...)
			bad[a] = byte(int(bad[a]) + d)
			for _, noInst := range []bool{false, true} {
				cc := rawCache{noInst: noInst}
				cc.t.Store(c.load())
				if readRaw(t, &sig, &cc, h, bad, 16) || cc.misses.Load() != 1 {
					t.Fatalf("input %d's first length %+d (noInst %v): read, or %d misses", i, d, noInst, cc.misses.Load())
				}
			}
		}
	}
}

// TestRawInstParallel: goroutines reading requests of more row counts
// than there are slots with one cache (as a server's handlers do) read
// each as decodeInfer does, and the cache keeps at most rawInsts
// instantiations of its template (go test -race checks the rest).
func TestRawInstParallel(t *testing.T) {
	sig := mixedSig
	if err := sig.check(); err != nil {
		t.Fatal(err)
	}
	var c rawCache
	if h, b := mixedRequest(1, 1, false, nil); !readRaw(t, &sig, &c, h, b, 64) {
		t.Fatal("the first request not read")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 150 {
				rows := 1 + (g*37+i*11)%(rawInsts+8)
				h, b := mixedRequest(rows, 1+i%2, false, nil)
				body := append([]byte(h), b...)
				req, f, ok := decodeInferRaw(body, len(h), &sig, 2*rawInsts, &c)
				if !ok {
					t.Errorf("%d rows: not read", rows)
					return
				}
				gen, err := decodeInfer(body, len(h), &sig)
				if err != nil || req.id != gen.id || f.rows != int64(rows) {
					t.Errorf("%d rows: %v, %d rows read", rows, err, f.rows)
					return
				}
				for k, g := range gen.feeds {
					if got, err := f.tensor(&sig, k); err != nil || fmt.Sprint(got.Shape(), got.Data()) != fmt.Sprint(g.Shape(), g.Data()) {
						t.Errorf("%d rows, input %d: %v %v, decodeInfer %v", rows, k, got, err, g)
						return
					}
				}
				putRawFeeds(f)
			}
		})
	}
	wg.Wait()
	if n := instCount(&c); n == 0 || n > rawInsts {
		t.Fatalf("%d instantiations", n)
	}
}

// TestInstSlots: a server keeps rawInsts instantiations of a template
// of E's size, fewer of a longer one (within rawInstBytes), at least one.
func TestInstSlots(t *testing.T) {
	for _, tc := range []struct{ text, inputs, want int }{
		{90 << 10, 1001, rawInsts}, // E: 0.14 MB each
		{1 << 20, 10000, rawInstBytes / (1<<20 + 480000 + 1)},
		{64 << 20, 1, 1},
	} {
		if got := instSlots(tc.text, tc.inputs); got != tc.want || got*(tc.text+48*tc.inputs) > max(rawInstBytes, tc.text+48*tc.inputs) {
			t.Errorf("instSlots(%d, %d) = %d, want %d", tc.text, tc.inputs, got, tc.want)
		}
	}
}
