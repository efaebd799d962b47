package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePrefix(t *testing.T) {
	dir := t.TempDir()
	prefix, _ := tf1Checkpoint(t, dir)
	state := "model_checkpoint_path: \"model.ckpt-1234\"\nall_model_checkpoint_paths: \"model.ckpt-1000\"\nall_model_checkpoint_paths: \"model.ckpt-1234\"\n"
	os.WriteFile(filepath.Join(dir, "checkpoint"), []byte(state), 0o644)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "checkpoint"), []byte("model_checkpoint_path: \""+prefix+"\"\n"), 0o644)
	empty := t.TempDir()
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "checkpoint"), []byte("model_checkpoint_path: model\n"), 0o644)
	for _, tc := range []struct{ in, want, err string }{
		{in: prefix, want: prefix},
		{in: prefix + ".index", want: prefix},
		{in: DataPath(prefix, 1, 2), want: prefix},
		{in: dir, want: prefix},
		{in: other, want: prefix},
		{in: empty, err: "a directory without a checkpoint file"},
		{in: bad, err: "checkpoint:1: model_checkpoint_path is not a quoted non-empty string"},
		{in: filepath.Join(dir, "nope"), err: "no checkpoint"},
	} {
		got, err := ResolvePrefix(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
