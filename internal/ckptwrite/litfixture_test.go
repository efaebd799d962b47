package ckptwrite

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef"
)

var update = flag.Bool("update", false, "rewrite the lit tests' tiny model under lit-tests/Driver/Inputs")

// litInputs is where the lit tests of the weights flags
// (lit-tests/Driver/checkpoint.pbtxt) find the tiny model: the SavedModel
// directory (its saved_model.pbtxt in text, for review) and the training
// graph's checkpoint.
var litInputs = filepath.Join("..", "..", "lit-tests", "Driver", "Inputs")

// TestLitFixture checks that the tiny model the lit tests read is what
// this package writes (go test -run TestLitFixture -update rewrites it).
func TestLitFixture(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "tiny_savedmodel")
	b := TinyBundle()
	if err := SavedModel(dir, TinySavedModel(), b, map[string]string{"vocab.txt": TinyVocab}); err != nil {
		t.Fatal(err)
	}
	// In text: saved_model.pbtxt instead of saved_model.pb.
	if err := os.Remove(filepath.Join(dir, "saved_model.pb")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "saved_model.pbtxt"), graphdef.MarshalText(TinySavedModel()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write(filepath.Join(tmp, "tiny.ckpt-2500")); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(tmp, p)
			files = append(files, rel)
		}
		return err
	})
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(litInputs, f)
		if *update {
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what ckptwrite writes (%v): go test ./internal/ckptwrite -run TestLitFixture -update", dst, err)
		}
	}
}
