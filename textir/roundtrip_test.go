package textir

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoundTrip reads each hand-written file of testdata/roundtrip, prints
// it (compared with NAME.golden), and checks that the printed text is a
// fixed point of parse+print in the custom and the generic form, with and
// without debug info.
func TestRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "roundtrip", "*.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no round-trip corpus")
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".mlir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			op, err := Parse(ptCtx(), path, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []PrintOptions{{}, {DebugInfo: true}} {
				var b bytes.Buffer
				if err := Print(&b, op, opts); err != nil {
					t.Fatal(err)
				}
				text := b.String()
				if !opts.DebugInfo {
					checkGolden(t, "roundtrip", name, text)
				}
				if strings.Contains(text, "//") {
					t.Errorf("printed text holds a comment:\n%s", text)
				}
				checkReparse(t, name, text, opts, false)
			}
		})
	}
}
