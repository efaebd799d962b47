package serve

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// DefaultShutdownTimeout is how long a shutdown waits for the requests in
// progress.
const DefaultShutdownTimeout = 30 * time.Second

// Serve serves HTTP on httpLn and gRPC on grpcLn (either may be nil) until
// ctx is done, then shuts down gracefully: the server says it is not
// ready, the listeners close (no new connections; idle ones close), every
// request already accepted runs to its response, then the batcher stops
// and the backend closes. Requests still running after timeout are cut
// off (and Serve says so). Serve closes the server.
func (s *Server) Serve(ctx context.Context, httpLn, grpcLn net.Listener, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	errc := make(chan error, 2)
	var hs *http.Server
	if httpLn != nil {
		hs = &http.Server{
			Handler:           s.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    1 << 20,
			ErrorLog:          log.New(slogWriter{s.log}, "", 0),
			BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		}
		go func() {
			if err := hs.Serve(httpLn); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		s.log.Info("serving HTTP", "addr", httpLn.Addr().String())
	}
	gs := s.GRPC()
	if grpcLn != nil {
		go func() {
			if err := gs.Serve(grpcLn); err != nil {
				errc <- err
			}
		}()
		s.log.Info("serving gRPC", "addr", grpcLn.Addr().String())
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		s.log.Error("a listener failed", "error", serveErr)
	}
	t0 := time.Now()
	acc, ans := s.Counts()
	s.log.Info("shutting down: finishing the requests in progress", "in_progress", acc-ans, "timeout", timeout)
	s.SetReady(false)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	forced := false
	done := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(done)
	}()
	if hs != nil {
		if err := hs.Shutdown(sctx); err != nil {
			forced = true
			hs.Close()
		}
	}
	select {
	case <-done:
	case <-sctx.Done():
		forced = true
		gs.Stop()
		<-done
	}
	err := s.Close()
	acc, ans = s.Counts()
	s.log.Info("shut down", "accepted", acc, "answered", ans, "duration", time.Since(t0), "forced", forced)
	if forced {
		return errors.Join(serveErr, errors.New("the shutdown timed out: requests in progress were cut off"), err)
	}
	return errors.Join(serveErr, err)
}

// slogWriter sends the http.Server's own log lines (TLS handshakes,
// panics in handlers, accept errors) to the structured log.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn("http server", "message", string(p))
	return len(p), nil
}
