package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"

	"github.com/recom-compiler/recom/interp"
)

// Limits bound what one request may ask of the server (docs/LIMITS.md).
type Limits struct {
	// MaxBodyBytes bounds an HTTP request body and a gRPC message.
	MaxBodyBytes int64
	// MaxRequestRows bounds the rows (the batch dimension) of one request.
	MaxRequestRows int
	// MaxBytesInFlight bounds the bodies being read, decoded and run at
	// once (by their size): a request that would pass it waits.
	MaxBytesInFlight int64
}

// Defaults of Limits (the flags of recom serve).
const (
	DefaultMaxBodyBytes     = 32 << 20
	DefaultMaxRequestRows   = 4096
	DefaultMaxBytesInFlight = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxRequestRows <= 0 {
		l.MaxRequestRows = DefaultMaxRequestRows
	}
	if l.MaxBytesInFlight <= 0 {
		l.MaxBytesInFlight = DefaultMaxBytesInFlight
	}
	l.MaxBytesInFlight = max(l.MaxBytesInFlight, l.MaxBodyBytes)
	return l
}

// Config configures a Server.
type Config struct {
	// Name and Version are the model's name and version in the URLs and
	// responses ("1" when empty).
	Name, Version string
	Signature     Signature
	Backend       Backend
	Batch         BatchOptions
	Limits        Limits
	// Logger gets the server's structured logs (nil: none).
	Logger *slog.Logger
	// Registry gets the metrics (nil: a registry of the server's own,
	// with the Go runtime's and the process's collectors).
	Registry *prometheus.Registry
	// ServerVersion is the server's version in the protocol's server
	// metadata.
	ServerVersion string
}

// Server serves one model over TensorFlow Serving's REST API and the Open
// Inference Protocol (HTTP and gRPC).
type Server struct {
	cfg     Config
	sig     *Signature
	batcher *Batcher
	met     *metrics
	log     *slog.Logger
	lim     Limits
	budget  *budget
	ready   atomic.Bool // the readiness endpoints' answer
	started atomic.Bool // SetReady(true) was called: inference runs (during a drain too)
	// Accepted and Answered count the inference requests whose bodies
	// were read and those answered (any status): what a shutdown must
	// keep equal.
	accepted, answered atomic.Int64
	closeOnce          sync.Once
	// noRaw reads every binary request with decodeInfer, into tensors
	// (the benchmarks' reference for decodeRaw).
	noRaw bool
	// rawTmpl is the template of the binary requests' inputs lists.
	rawTmpl rawCache
}

// New makes a server (not yet ready: SetReady once warmed up).
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("serve: no backend")
	}
	if cfg.Name == "" {
		return nil, errors.New("serve: the model has no name")
	}
	if strings.ContainsAny(cfg.Name, "/: ") {
		return nil, fmt.Errorf("serve: model name %q has a '/', ':' or space", cfg.Name)
	}
	if cfg.Version == "" {
		cfg.Version = "1"
	}
	if cfg.Signature.Name == "" {
		cfg.Signature.Name = DefaultSignature
	}
	if cfg.Signature.Method == "" {
		cfg.Signature.Method = PredictMethod
	}
	sig := &cfg.Signature
	if err := sig.check(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, sig: sig, log: log, lim: cfg.Limits.withDefaults()}
	s.met = newMetrics(cfg.Registry, cfg.Name)
	s.budget = newBudget(s.lim.MaxBytesInFlight)
	opts := cfg.Batch
	if ok, why := sig.Batched(); !ok {
		log.Info("requests run one at a time, not batched", "why", why)
		opts.Alone = true
	}
	s.batcher = NewBatcher(sig, cfg.Backend, opts, s.met, log)
	return s, nil
}

// SetReady says whether the model takes requests (readiness endpoints).
// Inference requests run once it was first called with true, and go on
// running (until Close) after it is called with false: a server that is
// draining says it is not ready, but finishes what it accepted.
func (s *Server) SetReady(ok bool) {
	if ok {
		s.started.Store(true)
	}
	s.ready.Store(ok)
	s.met.setReady(ok)
}

// Ready reports whether the model takes requests.
func (s *Server) Ready() bool { return s.ready.Load() }

// Counts returns the inference requests accepted (body read) and answered
// so far.
func (s *Server) Counts() (accepted, answered int64) {
	return s.accepted.Load(), s.answered.Load()
}

// Signature returns the served signature.
func (s *Server) Signature() *Signature { return s.sig }

// Close stops taking inference requests, finishes those queued and
// running, and closes the backend.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.SetReady(false)
		s.batcher.Close()
		err = s.cfg.Backend.Close()
	})
	return err
}

// Predict runs one request given by input key (the Go API the protocols
// share): its tensors checked against the signature, batched with the
// others, and every output returned by key.
func (s *Server) Predict(ctx context.Context, inputs map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	feeds := make([]*interp.Tensor, len(s.sig.Inputs))
	for k, t := range inputs {
		i, ok := s.sig.input(k)
		if !ok {
			return nil, badRequest("%q is not an input of the signature (%s)", k, inputList(s.sig))
		}
		feeds[i] = t
	}
	for i, t := range feeds {
		if t == nil {
			return nil, badRequest("input %q is missing", s.sig.Inputs[i].Key)
		}
	}
	outs, _, err := s.run(ctx, "go", feeds)
	if err != nil {
		return nil, err
	}
	res := make(map[string]*interp.Tensor, len(outs))
	for i, t := range outs {
		res[s.sig.Outputs[i].Key] = t
	}
	return res, nil
}

// run checks a request's tensors (in signature order) and runs it; rt
// is where its time in the batcher went.
func (s *Server) run(ctx context.Context, protocol string, feeds []*interp.Tensor) (outs []*interp.Tensor, rt runTime, err error) {
	if !s.started.Load() {
		return nil, rt, errorf(codes.Unavailable, "the model %q is not ready", s.cfg.Name)
	}
	rows, err := s.checkFeeds(feeds)
	if err != nil {
		return nil, rt, err
	}
	s.met.rows(protocol, rows)
	return s.batcher.doChecked(ctx, feeds, rows)
}

// decodeRaw is decodeInferRaw for this server's model and limits: a
// binary request's inputs kept as the body holds them (false: decodeInfer
// reads it); lazy: decodeRawHeader's, on a body still arriving.
func (s *Server) decodeRaw(body []byte, jsonLen int, lazy bool) (*inferRequest, *rawFeeds, bool) {
	if s.batcher.alone() || s.noRaw {
		return nil, nil, false
	}
	return decodeRawHeader(body, jsonLen, s.sig, s.lim.MaxRequestRows, &s.rawTmpl, lazy)
}

// runRaw is run for a binary request's inputs read by decodeRaw (checked
// there as checkFeeds checks tensors).
func (s *Server) runRaw(ctx context.Context, protocol string, f *rawFeeds) (outs []*interp.Tensor, rt runTime, err error) {
	if !s.started.Load() {
		return nil, rt, errorf(codes.Unavailable, "the model %q is not ready", s.cfg.Name)
	}
	s.met.rows(protocol, int(f.rows))
	return s.batcher.doRaw(ctx, f)
}

// checkFeeds checks dtypes and shapes and returns the request's rows.
func (s *Server) checkFeeds(feeds []*interp.Tensor) (int, error) {
	rows := int64(-1)
	for i, t := range feeds {
		spec := &s.sig.Inputs[i]
		if t.DType() != spec.DType {
			return 0, badRequest("input %q has dtype %v, the model wants %v", spec.Key, t.DType(), spec.DType)
		}
		if err := spec.checkShape(t.ShapeView()); err != nil {
			return 0, badRequest("%v", err)
		}
		if s.batcher.opts.Alone {
			continue // no batch dimension to check
		}
		switch d := t.Dim(0); {
		case rows < 0:
			rows = d
		case d != rows:
			return 0, badRequest("input %q has %d rows (its first dimension), input %q has %d: every input needs one row per instance", spec.Key, d, s.sig.Inputs[0].Key, rows)
		}
	}
	if s.batcher.opts.Alone {
		return 1, nil
	}
	if rows == 0 {
		return 0, badRequest("the request has no rows")
	}
	if rows > int64(s.lim.MaxRequestRows) {
		return 0, errorf(codes.InvalidArgument, "the request has %d rows, more than the server's limit of %d (recom serve --max-request-rows)", rows, s.lim.MaxRequestRows)
	}
	return int(rows), nil
}

// Handler is the HTTP API: TensorFlow Serving's REST API under /v1/, the
// Open Inference Protocol under /v2/, Prometheus metrics at /metrics and
// health at /healthz and /readyz.
func (s *Server) Handler() http.Handler {
	metricsHandler := promhttp.HandlerFor(s.met.reg, promhttp.HandlerOpts{Registry: s.met.reg})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		rw := &statusWriter{ResponseWriter: w}
		protocol, endpoint := "http", "unknown"
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("a request panicked", "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if rw.status == 0 {
					writeError(rw, &Error{Code: codes.Internal, Msg: fmt.Sprintf("internal error: %v", p)})
				}
				s.met.request(protocol, endpoint, httpCode(http.StatusInternalServerError), time.Since(t0))
			}
		}()
		protocol, endpoint = s.route(rw, r, metricsHandler)
		code := rw.status
		if code == 0 {
			code = http.StatusOK
		}
		d := time.Since(t0)
		s.met.request(protocol, endpoint, httpCode(code), d)
		if rw.rt.backend > 0 && code == http.StatusOK {
			s.met.overhead(protocol, d-rw.rt.backend)
			s.met.stages(protocol, t0, rw.marks, t0.Add(d), rw.rt)
		}
		level := slog.LevelDebug
		if code >= 500 {
			level = slog.LevelWarn
		}
		s.log.Log(r.Context(), level, "request", "protocol", protocol, "endpoint", endpoint, "method", r.Method, "path", r.URL.Path, "status", code, "duration", d, "remote", r.RemoteAddr)
	})
}

// route dispatches one request and names its protocol and endpoint.
func (s *Server) route(w http.ResponseWriter, r *http.Request, metricsHandler http.Handler) (protocol, endpoint string) {
	p := r.URL.Path
	switch {
	case p == "/metrics":
		metricsHandler.ServeHTTP(w, r)
		return "http", "metrics"
	case p == "/healthz" || p == "/livez":
		writeJSON(w, http.StatusOK, []byte("{\"live\":true}\n"))
		return "http", "live"
	case p == "/readyz":
		s.writeReady(w, s.Ready())
		return "http", "ready"
	case strings.HasPrefix(p, "/v1/"):
		return "tfserving", s.serveV1(w, r)
	case p == "/v2" || strings.HasPrefix(p, "/v2/"):
		return "oip-http", s.serveV2(w, r)
	}
	writeError(w, &Error{Code: codes.NotFound, Msg: fmt.Sprintf("no endpoint %s (TensorFlow Serving's REST API is under /v1/models/, the Open Inference Protocol's under /v2/)", p)})
	return "http", "unknown"
}

func (s *Server) writeReady(w http.ResponseWriter, ok bool) {
	if ok {
		writeJSON(w, http.StatusOK, []byte("{\"ready\":true}\n"))
	} else {
		writeJSON(w, http.StatusServiceUnavailable, []byte("{\"ready\":false}\n"))
	}
}

// readBody reads a request body within the limits: its size, and the
// bytes in flight (it waits for them; release gives them back). With
// alignAt >= 0 (the JSON header's length before binary tensor data), the
// body's byte at alignAt is 8-aligned when its length is declared.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, alignAt int) (body []byte, release func(), err error) {
	return s.readBodyEarly(w, r, alignAt, nil)
}

// readBodyEarly is readBody that calls early, when it is not nil and the
// body's length is declared, as soon as the body's first alignAt bytes
// are in: with the body at its declared length, of which the bytes from
// alignAt on may still be arriving (a binary request's header is decoded
// while its binary data are on their way). early is called at most once,
// and not for a body that fails to read.
func (s *Server) readBodyEarly(w http.ResponseWriter, r *http.Request, alignAt int, early func(body []byte)) (body []byte, release func(), err error) {
	n := r.ContentLength
	if n > s.lim.MaxBodyBytes {
		return nil, nil, s.tooLarge(n)
	}
	if n < 0 {
		n = s.lim.MaxBodyBytes // unknown: the most it may be
	}
	if err := s.budget.acquire(r.Context(), n); err != nil {
		return nil, nil, err
	}
	free := func() { s.budget.release(n) }
	rd := http.MaxBytesReader(w, r.Body, s.lim.MaxBodyBytes)
	// One byte more than declared: the read that finds the end of the
	// body finds room, rather than growing the buffer.
	size := int(max(min(r.ContentLength, s.lim.MaxBodyBytes), 511)) + 1
	if alignAt > size {
		alignAt = -1
	}
	buf, pooled := getBody(size, alignAt)
	if r.ContentLength < 0 || r.ContentLength > int64(cap(buf)) || alignAt < 0 {
		early = nil
	}
	for {
		if early != nil && len(buf) >= alignAt {
			early(buf[:r.ContentLength])
			early = nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			free()
			putBody(pooled)
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, nil, s.tooLarge(-1)
			}
			return nil, nil, errorf(codes.InvalidArgument, "reading the request body: %v", err)
		}
	}
	s.accepted.Add(1)
	return buf, func() { s.answered.Add(1); free(); putBody(pooled) }, nil
}

func (s *Server) tooLarge(n int64) *Error {
	what := "the request body is larger"
	if n >= 0 {
		what = fmt.Sprintf("the request body (%d bytes) is larger", n)
	}
	return &Error{Code: codes.ResourceExhausted, HTTP: http.StatusRequestEntityTooLarge,
		Msg: fmt.Sprintf("%s than the server's limit of %d bytes (recom serve --max-body-bytes)", what, s.lim.MaxBodyBytes)}
}

// statusWriter records the status written, and where an inference
// request's time in the batcher went (noteRun).
type statusWriter struct {
	http.ResponseWriter
	status int
	rt     runTime
	// marks are when an inference request's stages ended (markStage).
	marks [numStages]time.Time
}

// The stages of an HTTP inference request that end at a mark: its body
// read, decoded and checked, run (queued, joined into its batch, run,
// split back); the response written ends the last.
const (
	stageRead = iota
	stageDecode
	stageRun
	numStages
)

// markStage notes that stage st of the request answered on w ended now.
func markStage(w http.ResponseWriter, st int) {
	if sw, ok := w.(*statusWriter); ok {
		sw.marks[st] = time.Now()
	}
}

// noteRun records where the time of the request answered on w went in
// the batcher.
func noteRun(w http.ResponseWriter, rt runTime) {
	if sw, ok := w.(*statusWriter); ok {
		sw.rt = rt
	}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes an Error as {"error": "..."} with its HTTP status.
func writeError(w http.ResponseWriter, err error) {
	e := asError(err)
	writeJSON(w, e.httpStatus(), appendError(nil, e.Msg))
}

// methodNotAllowed answers a request of the wrong HTTP method.
func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeJSON(w, http.StatusMethodNotAllowed, appendError(nil, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, allow)))
}

// budget is a weighted semaphore over the bytes of request bodies.
type budget struct {
	mu      sync.Mutex
	free    int64
	total   int64
	waiters []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(total int64) *budget { return &budget{free: total, total: total} }

// acquire takes n bytes (at most the total), waiting in order for them.
func (b *budget) acquire(ctx context.Context, n int64) error {
	n = min(n, b.total)
	b.mu.Lock()
	if len(b.waiters) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.free += n
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
		}
		b.grant()
		b.mu.Unlock()
		return ctx.Err()
	}
}

// tryAcquire takes n bytes (at most the total) if they are free and no
// one waits for bytes before it, and reports whether it did.
func (b *budget) tryAcquire(n int64) bool {
	n = min(n, b.total)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) > 0 || b.free < n {
		return false
	}
	b.free -= n
	return true
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	n = min(n, b.total)
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant wakes the waiters at the head of the line that now fit.
func (b *budget) grant() {
	for len(b.waiters) > 0 && b.free >= b.waiters[0].n {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.free -= w.n
		close(w.ready)
	}
}
