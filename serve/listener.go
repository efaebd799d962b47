package serve

import "net"

// ReadBufferListener is ln with each accepted TCP connection's kernel
// receive buffer set to bytes (SO_RCVBUF, which Linux caps at
// net.core.rmem_max and which turns its autotuning off for the
// connection): a client then hands the kernel a request of that size in
// one write, and the handler reads its body in one go rather than as it
// trickles in (E's binary requests are ~250 KB). bytes <= 0: ln itself.
func ReadBufferListener(ln net.Listener, bytes int) net.Listener {
	if bytes <= 0 {
		return ln
	}
	return &readBufferListener{Listener: ln, bytes: bytes}
}

type readBufferListener struct {
	net.Listener
	bytes int
}

// Accept implements net.Listener; a connection whose buffer cannot be
// set is kept as it is.
func (l *readBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		_ = tc.SetReadBuffer(l.bytes)
	}
	return c, err
}
