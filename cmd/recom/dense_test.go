package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/compiler"
)

// recom compile runs --fuse-dense by default: the dense layers' IR is
// written as 4-dense.mlir and the PTX holds the embedding layer's kernel
// and one per dense layer (the long top layer also its split-K reduce
// kernel, which --fuse-dense=split-k=1 leaves out); --dense=cpu leaves them
// out; another value is an error.
func TestCompileDense(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args    []string
		entries []string
	}{
		{nil, []string{"layer", "bottom_mlp_dense", "bottom_mlp_dense_1", "top_mlp_dense", "top_mlp_dense_reduce", "top_mlp_dense_1", "top_mlp_dense_2"}},
		{[]string{"--dense=cpu"}, []string{"layer"}},
		{[]string{"--dense=gpu", "--fuse-dense=accumulate=f32"}, []string{"layer", "bottom_mlp_dense", "bottom_mlp_dense_1", "top_mlp_dense", "top_mlp_dense_reduce", "top_mlp_dense_1", "top_mlp_dense_2"}},
		{[]string{"--fuse-dense=split-k=1"}, []string{"layer", "bottom_mlp_dense", "bottom_mlp_dense_1", "top_mlp_dense", "top_mlp_dense_1", "top_mlp_dense_2"}},
	} {
		out := filepath.Join(dir, "out")
		os.RemoveAll(out)
		status, _, stderr := runTool(append([]string{"compile", compileSmallModel, "-o", out, "-q", "--no-cubin"}, c.args...)...)
		if status != 0 {
			t.Fatalf("%v: status %d: %s", c.args, status, stderr)
		}
		_, err := os.Stat(filepath.Join(out, "4-dense.mlir"))
		if (err == nil) != (len(c.entries) > 1) {
			t.Errorf("%v: 4-dense.mlir: %v", c.args, err)
		}
		ptx, err := os.ReadFile(filepath.Join(out, "model.ptx"))
		if err != nil {
			t.Fatal(err)
		}
		if got := compiler.PTXEntries(ptx); !slices.Equal(got, c.entries) {
			t.Errorf("%v: PTX entries %v, want %v", c.args, got, c.entries)
		}
	}
	if status, _, _ := runTool("compile", compileSmallModel, "-o", filepath.Join(dir, "bad"), "--dense=tpu"); status == 0 {
		t.Error("--dense=tpu accepted")
	}
}
