package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/interp/npz"
)

func runGen(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"gen"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String() + errb.String()
}

// TestGenModelAndFeeds: a preset is written with its side file, feeds
// cover every placeholder, and the same seed gives the same bytes.
func TestGenModelAndFeeds(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.pbtxt")
	if code, msg := runGen(t, "--preset", "small", "--seed", "3", "-o", model); code != 0 {
		t.Fatalf("gen: %d %s", code, msg)
	}
	f, err := graphdef.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := graphdef.Validate(f.Graph); err != nil {
		t.Fatal(err)
	}
	tables, err := npz.ReadFile(filepath.Join(dir, "m.tables.npz"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("side file: %v (%d arrays)", err, len(tables))
	}
	first, _ := os.ReadFile(model)
	if code, msg := runGen(t, "--preset", "small", "--seed", "3", "-o", model); code != 0 {
		t.Fatalf("gen again: %s", msg)
	}
	second, _ := os.ReadFile(model)
	if !bytes.Equal(first, second) {
		t.Fatal("same seed, different graph bytes")
	}
	feeds := filepath.Join(dir, "feeds.npz")
	if code, msg := runGen(t, "--feeds", "--batch", "32", model, "-o", feeds); code != 0 {
		t.Fatalf("feeds: %s", msg)
	}
	arrays, err := npz.ReadFile(feeds)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, a := range arrays {
		have[a.Name] = true
		if a.Tensor.Dim(0) != 32 {
			t.Errorf("feed %s: batch %d", a.Name, a.Tensor.Dim(0))
		}
	}
	for _, n := range f.Graph.Node {
		if n.Op == "Placeholder" && !have[n.Name] {
			t.Errorf("no feed for %s", n.Name)
		}
	}
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "E"}, "no output file"},
		{[]string{"-o", filepath.Join(dir, "x.pbtxt")}, "no model"},
		{[]string{"--preset", "nope", "-o", filepath.Join(dir, "x.pbtxt")}, `unknown preset "nope"`},
		{[]string{"--preset", "probe", "--tables=const", "-o", filepath.Join(dir, "x.pbtxt")}, "const tables need 6.0 GiB"},
		{[]string{"--preset", "micro", "--columns", "-3", "-o", filepath.Join(dir, "x.pbtxt")}, "columns: must be positive"},
		{[]string{"--feeds", "-o", filepath.Join(dir, "f.npz")}, "one model file"},
	}
	for _, c := range cases {
		code, msg := runGen(t, c.args...)
		if code == 0 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: status %d, %q; want an error with %q", c.args, code, msg, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.pbtxt")); err == nil {
			t.Errorf("%v: a failed run left its output", c.args)
		}
	}
}
