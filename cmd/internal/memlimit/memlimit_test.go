package memlimit

import "testing"

// The soft limit is half the address-space cap; a cap too small for a
// limit sets none.
func TestLimitFor(t *testing.T) {
	for _, c := range []struct {
		cap  uint64
		want int64
	}{
		{4 << 30, 2 << 30},
		{1, 0},
		{^uint64(0), 1<<63 - 1},
	} {
		if got := LimitFor(c.cap, false); got != c.want {
			t.Errorf("LimitFor(%d) = %d, want %d", c.cap, got, c.want)
		}
	}
}
