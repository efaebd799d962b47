package textir

import (
	"fmt"
	"os"
	"strconv"
)

// Resource limits. They keep a small hostile input from making recom use
// unbounded memory, time or stack: an input beyond a limit is refused with a
// diagnostic that names the limit and the environment variable that raises
// it. docs/LIMITS.md lists every limit, its default and the memory bound it
// gives. The variables are read once, when the program starts; a tool or test
// may also set them directly (before parsing, not concurrently with it).
var (
	// MaxNesting bounds how deeply regions, attributes, types and locations
	// nest in textual IR (and the attribute nesting the GraphDef importer
	// produces, so that what it prints parses back). The parser recurses
	// once per level, so the bound is also a bound on its stack.
	MaxNesting = envLimit(EnvMaxNesting, DefaultMaxNesting)

	// MaxDenseElements bounds the number of elements materialised for a
	// dense tensor that its input does not spell out element by element: a
	// TensorProto with fewer values than its shape has elements (TensorFlow
	// repeats the last value). Splats (one value, or all values equal) are
	// never expanded and have no limit.
	MaxDenseElements = envLimit(EnvMaxDenseElements, DefaultMaxDenseElements)
)

// Environment variables that raise the limits, and the defaults.
const (
	EnvMaxNesting       = "RECOM_MAX_NESTING"
	EnvMaxDenseElements = "RECOM_MAX_DENSE_ELEMENTS"

	DefaultMaxNesting       = 512
	DefaultMaxDenseElements = 1 << 24
)

// envLimit returns the positive integer in the environment variable name, or
// def when it is unset or not a positive integer.
func envLimit(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// LimitError reports an input refused because it goes beyond a resource
// limit. Its message says what went beyond which limit and how to raise it.
type LimitError struct {
	What  string // what went wrong, e.g. "nesting too deep"
	Limit int64  // the limit in force
	Unit  string // what the limit counts, e.g. "elements"
	Env   string // the environment variable that raises it
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: more than %d %s (set %s to raise the limit; see docs/LIMITS.md)", e.What, e.Limit, e.Unit, e.Env)
}

// nestingLimit is the error for input nested deeper than MaxNesting.
func nestingLimit() *LimitError {
	return &LimitError{What: "nesting too deep", Limit: MaxNesting, Unit: "nested regions, attributes, types or locations", Env: EnvMaxNesting}
}
