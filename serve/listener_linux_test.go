package serve

import (
	"net"
	"syscall"
	"testing"
)

// TestReadBufferListener: an accepted connection has the receive buffer
// asked for (Linux reports twice what was set, for its bookkeeping; the
// request is small enough to pass net.core.rmem_max), and 0 leaves the
// listener as it is.
func TestReadBufferListener(t *testing.T) {
	base, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if ReadBufferListener(base, 0) != base {
		t.Fatal("0 wrapped the listener")
	}
	ln := ReadBufferListener(base, 64<<10)
	defer ln.Close()
	done := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- -1
			return
		}
		defer c.Close()
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			done <- -1
			return
		}
		size := -1
		_ = rc.Control(func(fd uintptr) { size, _ = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF) })
		done <- size
	}()
	c, err := net.Dial("tcp", base.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if size := <-done; size != 2*(64<<10) {
		t.Fatalf("SO_RCVBUF %d, want %d", size, 2*(64<<10))
	}
}
