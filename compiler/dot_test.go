package compiler

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/internal/realgraphs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(go test -update rewrites it)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: got %d lines, want %d (go test -update rewrites it)", path, len(gl), len(wl))
	}
}

// The column structure of the bundled model and of a real graph, drawn
// after --fuse, is the same on every run and matches the golden files.
func TestWriteDot(t *testing.T) {
	census := filepath.Join(realgraphs.Dir(t), realGraphs[0].file)
	for _, c := range []struct {
		golden string
		run    func() (*Result, error)
	}{
		{"small.dot", func() (*Result, error) {
			return CompileBytes(context.Background(), "small.pbtxt", small(t), Options{StopAfter: StageFuse})
		}},
		{"census_wide_deep_tf1.dot", func() (*Result, error) {
			var ins []string
			for i := range 15 {
				ins = append(ins, "IteratorGetNext:"+itoa(i))
			}
			return Compile(context.Background(), census, Options{Inputs: ins, Outputs: realGraphs[0].outputs[:1], StopAfter: StageFuse})
		}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			var outs [2][]byte
			for i := range outs {
				r, err := c.run()
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := r.WriteDot(&b); err != nil {
					t.Fatal(err)
				}
				outs[i] = b.Bytes()
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatal("two runs drew different graphs")
			}
			golden(t, c.golden, outs[0])
		})
	}
}

// Before --fuse the columns are drawn without kernels, each going to the
// dense part as not fused.
func TestWriteDotBeforeFuse(t *testing.T) {
	r := compileSmall(t, Options{StopAfter: StageSimplifyShapes})
	if len(r.Columns) != 24 {
		t.Fatalf("%d columns, want 24", len(r.Columns))
	}
	var b bytes.Buffer
	if err := r.WriteDot(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "subgraph cluster_"); n != 24 {
		t.Errorf("%d clusters, want 24", n)
	}
	if n := strings.Count(b.String(), `-> dense [label="not fused"`); n != 24 {
		t.Errorf("%d unfused edges, want 24", n)
	}
	if strings.Contains(b.String(), "box3d") {
		t.Errorf("a kernel node before --fuse")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
