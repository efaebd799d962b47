package serve

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics (all named recom_serve_*),
// registered on one registry with the Go runtime's and the process's.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // protocol, endpoint, code
	latency   *prometheus.HistogramVec // protocol, endpoint
	reqRows   *prometheus.HistogramVec // protocol
	batchRows prometheus.Histogram
	padRows   prometheus.Counter
	batchReqs prometheus.Histogram
	batchTime prometheus.Histogram
	batchErrs prometheus.Counter
	queueTime prometheus.Histogram
	queueLen  prometheus.Gauge
	inFlight  prometheus.Gauge
	ready     prometheus.Gauge
	overheads *prometheus.HistogramVec // protocol
	stageTime *prometheus.HistogramVec // protocol, stage
}

// latencyBuckets run from 50 µs to 10 s.
var latencyBuckets = prometheus.ExponentialBucketsRange(50e-6, 10, 24)

// overheadBuckets run from 5 µs to 1 s, 26% apart: fine enough for a
// median read from them (bench/serve.sh) to be within a few percent.
var overheadBuckets = prometheus.ExponentialBucketsRange(5e-6, 1, 54)

func newMetrics(reg *prometheus.Registry, model string) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	labels := prometheus.Labels{"model": model}
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recom_serve_requests_total", ConstLabels: labels,
			Help: "Requests answered, by protocol (tfserving, oip-http, oip-grpc, http), endpoint and status code (HTTP status, or the gRPC code's name).",
		}, []string{"protocol", "endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "recom_serve_request_duration_seconds", ConstLabels: labels, Buckets: latencyBuckets,
			Help: "Time from a request's arrival at its handler to its response written, by protocol and endpoint.",
		}, []string{"protocol", "endpoint"}),
		reqRows: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "recom_serve_request_rows", ConstLabels: labels, Buckets: prometheus.ExponentialBuckets(1, 2, 14),
			Help: "Rows (instances) per inference request, by protocol.",
		}, []string{"protocol"}),
		batchRows: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recom_serve_batch_rows", ConstLabels: labels, Buckets: prometheus.ExponentialBuckets(1, 2, 14),
			Help: "Rows of the requests in each batch run on the backend (before padding).",
		}),
		padRows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recom_serve_batch_padding_rows_total", ConstLabels: labels,
			Help: "Rows added to batches to reach an allowed batch size (--batch-sizes).",
		}),
		batchReqs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recom_serve_batch_requests", ConstLabels: labels, Buckets: prometheus.ExponentialBuckets(1, 2, 12),
			Help: "Requests put together in each batch.",
		}),
		batchTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recom_serve_batch_duration_seconds", ConstLabels: labels, Buckets: latencyBuckets,
			Help: "Time the backend took to run each batch.",
		}),
		batchErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recom_serve_batch_errors_total", ConstLabels: labels,
			Help: "Batches the backend failed (a failed batch of several requests is run again one request at a time).",
		}),
		queueTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recom_serve_queue_duration_seconds", ConstLabels: labels, Buckets: latencyBuckets,
			Help: "Time each request waited for its batch to start.",
		}),
		queueLen: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "recom_serve_queue_requests", ConstLabels: labels,
			Help: "Requests waiting for a batch.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "recom_serve_batches_in_flight", ConstLabels: labels,
			Help: "Batches running on the backend.",
		}),
		ready: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "recom_serve_ready", ConstLabels: labels,
			Help: "1 while the model takes requests, 0 while it loads or the server shuts down.",
		}),
	}
	m.overheads = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "recom_serve_overhead_seconds", ConstLabels: labels, Buckets: overheadBuckets,
		Help: "The server's own time on each answered inference request, by protocol: from its arrival (HTTP: its handler, after the headers; gRPC: the call's start) to its response written (gRPC: sent), less the backend's time on the batch it ran in. Reading, decoding, checking, queueing and batching, splitting, encoding and writing.",
	}, []string{"protocol"})
	m.stageTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "recom_serve_overhead_stage_seconds", ConstLabels: labels, Buckets: overheadBuckets,
		Help: "The server's own time on each answered inference request by stage: read (HTTP: from the handler's start to the body read; gRPC: from the call's start to the handler's, the message received and unmarshaled), decode (the body decoded and checked), queue (from then to its batch's start: the wait for a backend slot and the hand-offs to the collector and a worker; near zero for a request run inline), join (the batch's inputs joined, or viewed, up to the backend's call), split (from the backend's return to the outputs split back and handed to the request), respond (the response encoded and written, or sent). They add up to recom_serve_overhead_seconds but for the routing.",
	}, []string{"protocol", "stage"})
	reg.MustRegister(m.overheads, m.stageTime)
	reg.MustRegister(m.requests, m.latency, m.reqRows, m.batchRows, m.padRows, m.batchReqs, m.batchTime, m.batchErrs, m.queueTime, m.queueLen, m.inFlight, m.ready)
	return m
}

// The methods are nil-safe: a Batcher made without metrics records none.

func (m *metrics) request(protocol, endpoint string, code string, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(protocol, endpoint, code).Inc()
	m.latency.WithLabelValues(protocol, endpoint).Observe(d.Seconds())
}

func (m *metrics) overhead(protocol string, d time.Duration) {
	if m != nil {
		m.overheads.WithLabelValues(protocol).Observe(max(d, 0).Seconds())
	}
}

// stages observes an HTTP inference request's stages from its start t0,
// the marks (statusWriter.marks), where its time in the batcher went (rt)
// and its end. A stage whose mark is missing is not observed.
func (m *metrics) stages(protocol string, t0 time.Time, marks [numStages]time.Time, end time.Time, rt runTime) {
	if m == nil {
		return
	}
	for _, t := range marks {
		if t.IsZero() {
			return
		}
	}
	ob := func(stage string, d time.Duration) {
		m.stageTime.WithLabelValues(protocol, stage).Observe(max(d, 0).Seconds())
	}
	ob("read", marks[stageRead].Sub(t0))
	ob("decode", marks[stageDecode].Sub(marks[stageRead]))
	if rt.start.IsZero() || rt.call.IsZero() {
		return
	}
	ob("queue", rt.start.Sub(marks[stageDecode]))
	ob("join", rt.call.Sub(rt.start))
	ob("split", marks[stageRun].Sub(rt.call)-rt.backend)
	ob("respond", end.Sub(marks[stageRun]))
}

func (m *metrics) rows(protocol string, rows int) {
	if m != nil {
		m.reqRows.WithLabelValues(protocol).Observe(float64(rows))
	}
}

func (m *metrics) observeBatch(rows, size, requests int, d time.Duration, err error) {
	if m == nil {
		return
	}
	m.batchRows.Observe(float64(rows))
	m.padRows.Add(float64(size - rows))
	m.batchReqs.Observe(float64(requests))
	m.batchTime.Observe(d.Seconds())
	if err != nil {
		m.batchErrs.Inc()
	}
}

func (m *metrics) observeQueue(d time.Duration) {
	if m != nil {
		m.queueTime.Observe(d.Seconds())
	}
}

func (m *metrics) setQueue(n int64) {
	if m != nil {
		m.queueLen.Set(float64(n))
	}
}

func (m *metrics) inflight(d int) {
	if m != nil {
		m.inFlight.Add(float64(d))
	}
}

func (m *metrics) setReady(ok bool) {
	if m == nil {
		return
	}
	if ok {
		m.ready.Set(1)
	} else {
		m.ready.Set(0)
	}
}

// httpCode is the label of an HTTP status.
func httpCode(status int) string { return strconv.Itoa(status) }
