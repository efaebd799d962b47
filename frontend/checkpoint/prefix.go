package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/textir/inputfile"
)

// ResolvePrefix turns what a user names as a checkpoint into its prefix:
// a prefix itself (PREFIX.index exists), an index file (PREFIX.index), a
// data shard (PREFIX.data-00000-of-00001), or a directory holding
// TensorFlow's "checkpoint" file (a CheckpointState in text form), whose
// model_checkpoint_path names the latest checkpoint, relative to the
// directory unless absolute.
func ResolvePrefix(path string) (string, error) {
	if strings.HasSuffix(path, ".index") {
		return strings.TrimSuffix(path, ".index"), nil
	}
	if i := strings.LastIndex(path, ".data-"); i > 0 {
		if _, err := os.Stat(path); err == nil {
			return path[:i], nil
		}
	}
	if _, err := os.Stat(IndexPath(path)); err == nil {
		return path, nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: no checkpoint: neither %s nor a directory with a checkpoint file", path, IndexPath(path))
	}
	state := filepath.Join(path, "checkpoint")
	data, err := inputfile.Read(state)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: a directory without a checkpoint file (name the checkpoint PREFIX, as in model.ckpt-1000)", path)
		}
		return "", err
	}
	latest, err := latestCheckpoint(state, data)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(latest) {
		latest = filepath.Join(path, latest)
	}
	return latest, nil
}

// latestCheckpoint reads the model_checkpoint_path field of a
// CheckpointState text file (TensorFlow's checkpoint_state.proto, field 1;
// the other fields list older checkpoints and timestamps).
func latestCheckpoint(name string, data []byte) (string, error) {
	for i, line := range strings.Split(string(data), "\n") {
		field, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || strings.TrimSpace(field) != "model_checkpoint_path" {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSpace(value))
		if err != nil || s == "" {
			return "", fmt.Errorf("%s:%d: model_checkpoint_path is not a quoted non-empty string", name, i+1)
		}
		return s, nil
	}
	return "", fmt.Errorf("%s: no model_checkpoint_path", name)
}
