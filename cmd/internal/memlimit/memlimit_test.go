package memlimit

import "testing"

// The soft limit is 3/5 of the address space the cap leaves beside what
// the process has mapped, half the cap when that is unknown; a cap too
// small for a limit sets none.
func TestLimitFor(t *testing.T) {
	for _, c := range []struct {
		cap, base uint64
		want      int64
	}{
		{4 << 30, 0, 2 << 30},
		{4 << 30, 1 << 30, 3 << 30 / 5 * 3},
		{4 << 30, 4 << 30, 0},
		{4 << 30, 5 << 30, 0},
		{1, 0, 0},
		{^uint64(0), 0, 1<<63 - 1},
	} {
		if got := LimitFor(c.cap, c.base, false); got != c.want {
			t.Errorf("LimitFor(%d, %d) = %d, want %d", c.cap, c.base, got, c.want)
		}
	}
}

func TestVmSize(t *testing.T) {
	status := "Name:\trecom\nVmPeak:\t 1300000 kB\nVmSize:\t 1227180 kB\nVmRSS:\t 10 kB\n"
	if got := vmSize(status); got != 1227180<<10 {
		t.Errorf("vmSize = %d", got)
	}
	if got := vmSize("Name:\tx\n"); got != 0 {
		t.Errorf("vmSize without VmSize = %d", got)
	}
	if mappedNow() == 0 {
		t.Log("no /proc/self/status here")
	}
}
