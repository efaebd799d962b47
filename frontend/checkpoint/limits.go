package checkpoint

import (
	"os"
	"strconv"
)

// The limits on what a checkpoint may declare (docs/LIMITS.md, "Checkpoints").
// Sizes that a file declares are checked against them, or against the real
// size of the file they point into, before any memory is taken for them:
//
//   - a block of the index must lie inside the index file, and its keys
//     decode to at most maxKeyExpansion times its size;
//   - a tensor's bytes [offset, offset+size) must lie inside its data
//     shard, and size must be what its dtype and shape need (exactly for
//     fixed-width dtypes; for strings, at least one length byte per element
//     and the 4-byte length checksum, every length within what is left);
//   - a tensor's element count must be at most interp.MaxElements
//     (RECOM_MAX_TENSOR_ELEMENTS), its rank at most interp.MaxRank;
//   - the shard count and the number of slices of a partitioned tensor are
//     bounded by the constants below;
//   - the stored bytes of the variables one Restore reads (each tensor
//     once) are at most MaxReadBytes, checked from the index before any is
//     read: entries may share bytes, so the shards' sizes alone do not bound
//     what an index makes a reader read.
const (
	// MaxShards is the largest num_shards a bundle header may declare.
	// TensorFlow names shards with five digits (data-00000-of-00001); a
	// sharded save writes one shard per device, so real bundles have a few.
	MaxShards = 1 << 16
	// MaxSlices is the largest number of slices of one partitioned tensor.
	// Partitioned variables have one slice per partition, a few to a few
	// thousand in real models.
	MaxSlices = 1 << 16
)

// MaxReadBytes bounds the stored bytes of the variables one Restore reads
// (RECOM_MAX_CHECKPOINT_BYTES; default 2^34, 16 GiB). A program may set it
// before it restores.
var MaxReadBytes = envBytes(EnvMaxReadBytes, DefaultMaxReadBytes)

// The environment variable that sets MaxReadBytes, and its default.
const (
	EnvMaxReadBytes     = "RECOM_MAX_CHECKPOINT_BYTES"
	DefaultMaxReadBytes = int64(1) << 34
)

// envBytes returns the positive integer in the environment variable name,
// or def when it is unset or not a positive integer.
func envBytes(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}
