package gen

import (
	"fmt"
	"os"
	"strconv"

	"github.com/recom-compiler/recom/textir"
)

// Resource limits of the generator. A spec or a flag of a few bytes
// (recom gen --columns 2000000000, --feeds --batch 2000000000) would
// otherwise make gen allocate until it runs out of memory; sizes beyond them
// are refused before anything is built or drawn, with a message that names
// the limit and the environment variable that raises it (docs/LIMITS.md).
// The variables are read once, when the program starts; a tool or test may
// also set them directly.
var (
	// MaxColumns bounds the columns of a spec: its groups' counts together,
	// and Spec.Scale's target (recom gen --columns).
	MaxColumns = envLimit(EnvMaxColumns, DefaultMaxColumns)

	// MaxRows bounds the rows of the feeds drawn: the batch of Feeds and
	// GraphFeeds (recom gen --feeds --batch) and a FeedSpec's rows.
	MaxRows = envLimit(EnvMaxRows, DefaultMaxRows)
)

// Environment variables that raise the limits, and the defaults.
const (
	EnvMaxColumns = "RECOM_MAX_GEN_COLUMNS"
	EnvMaxRows    = "RECOM_MAX_GEN_ROWS"

	// DefaultMaxColumns is 2^16 columns: about 100 nodes each, a graph of
	// 6.5 million nodes (a few GiB to build and write); the bundled presets
	// have at most a few thousand, and issue #19's largest model 10,000.
	DefaultMaxColumns = 1 << 16
	// DefaultMaxRows is 2^20 rows: sixteen times the largest batch a real
	// recommendation model serves (65,536), far below the kernel's 2^31-2.
	DefaultMaxRows = 1 << 20
)

// envLimit returns the positive integer in the environment variable name,
// or def when it is unset or not a positive integer.
func envLimit(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// CheckColumns reports a number of columns that is not positive or is
// beyond MaxColumns.
func CheckColumns(n int64) error {
	if n <= 0 {
		return fmt.Errorf("must be positive (got %d)", n)
	}
	if n > MaxColumns {
		return &textir.LimitError{What: "too many columns", Limit: MaxColumns, Unit: "columns", Env: EnvMaxColumns}
	}
	return nil
}

// CheckSize reports a spec whose groups' counts add up to more than
// MaxColumns (summed so that no count overflows the total). Generate and
// Feeds check it before they build or draw anything; Validate does not, so
// that a large spec can still be loaded and scaled down.
func (s *Spec) CheckSize() error {
	var columns int64
	for _, g := range s.Groups {
		if g.Count > 0 && columns <= MaxColumns {
			columns += min(int64(g.Count), MaxColumns+1)
		}
	}
	if columns > MaxColumns {
		return &FieldError{Field: "groups", Msg: (&textir.LimitError{What: "the groups' counts add up to too many columns", Limit: MaxColumns, Unit: "columns", Env: EnvMaxColumns}).Error()}
	}
	return nil
}

// CheckRows reports a number of feed rows (a batch) that is not positive or
// is beyond MaxRows.
func CheckRows(n int64) error {
	if n <= 0 {
		return fmt.Errorf("must be positive (got %d)", n)
	}
	if n > MaxRows {
		return &textir.LimitError{What: "too many rows", Limit: MaxRows, Unit: "rows", Env: EnvMaxRows}
	}
	return nil
}
