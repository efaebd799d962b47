package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/compiler"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/serve"
)

func init() { subcommands = append(subcommands, newLoadtestCmd) }

const loadtestHelp = `Drives a model server (recom serve, or any server of TensorFlow Serving's
REST API or the Open Inference Protocol over HTTP) at fixed request rates
and reports, per rate, the throughput (answered requests and rows per
second) and the latency of the answered requests (p50, p99, p999, max;
exact quantiles of every request).

The requests are --bodies bodies, cycled: each of a random number of
rows between --min-rows and --max-rows (uniform, from --seed), with
inputs drawn for MODEL as recom gen --feeds draws them (MODEL is the
served model's file: its signature gives the inputs' names); in the
--protocol's form: tfserving ({"instances": [...]}, POST
/v1/models/NAME:predict), oip (JSON, POST /v2/models/NAME/infer),
oip-binary (the binary tensor data extension) or grpc (the Open Inference
Protocol's ModelInfer over gRPC, the inputs in raw_input_contents; --url
is then the gRPC address, http://HOST:8500, and the calls are spread over
--grpc-connections HTTP/2 connections; a call that ends with a gRPC
status other than OK counts as a 500).

The load comes from vegeta (github.com/tsenart/vegeta): requests leave at
the rate whatever the answers, so latency includes queueing in the server.
Each connection writes a request whole (its write buffer holds the
largest body), not in net/http's default pieces of 4 KB.

--rates R1,R2,... runs each rate for --duration. --max-p99 D searches
for the highest rate whose p99 is at most D with every request answered
(200) and at least 95% of the rate answered per second: from the first
rate, doubling until a rate fails, then bisecting --search-steps times
(a rate stops as soon as it cannot meet D: one request failed, or more
than 1% of those it is to send took longer);
the last line says the rate found. --json FILE writes one JSON object per
rate run.`

type loadtestFlags struct {
	url, name, protocol, jsonOut, tables string
	rates                                []float64
	duration, maxP99, timeout            time.Duration
	minRows, maxRows, bodies, steps      int
	seed                                 uint64
	outputs                              []string
	workers                              uint64
	maxConns, grpcConns                  int
}

func newLoadtestCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f loadtestFlags
	cmd := &cobra.Command{
		Use:   "loadtest MODEL --url http://127.0.0.1:8501 [--rates 100,200] [--max-p99 10ms]",
		Short: "drive a model server at fixed request rates (1-64 rows a request) and report throughput and p50/p99/p999 latency",
		Long:  loadtestHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoadtest(cmd.Context(), args[0], &f, stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "http://127.0.0.1:8501", "the server's HTTP address")
	fl.StringVar(&f.name, "name", "", "the served model's name (default: as recom serve names MODEL)")
	fl.StringVar(&f.protocol, "protocol", "tfserving", "tfserving, oip, oip-binary or grpc")
	fl.IntVar(&f.grpcConns, "grpc-connections", 8, "with --protocol grpc: the HTTP/2 connections the calls are spread over, round robin (a gRPC client's channels)")
	fl.Float64SliceVar(&f.rates, "rates", []float64{100}, "request rates, per second")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "how long each rate runs")
	fl.DurationVar(&f.maxP99, "max-p99", 0, "search for the highest rate with p99 at most this (0: run --rates only)")
	fl.IntVar(&f.steps, "search-steps", 5, "bisection steps of --max-p99's search")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "a request's timeout")
	fl.IntVar(&f.minRows, "min-rows", 1, "the fewest rows of a request")
	fl.IntVar(&f.maxRows, "max-rows", 64, "the most rows of a request")
	fl.IntVar(&f.bodies, "bodies", 256, "distinct request bodies, cycled")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the rows and the inputs")
	fl.Uint64Var(&f.workers, "workers", 32, "vegeta's initial workers (more are added to keep the rate)")
	fl.IntVar(&f.maxConns, "max-connections", 1024, "the most connections to the server at once (kept alive and reused; a request waits for one while all are busy, its latency counting the wait): a server falling behind cannot exhaust the client's ports")
	fl.StringVar(&f.tables, "tables", "", "lookup-table contents for drawing the inputs, an .npz (as recom gen --feeds)")
	fl.StringSliceVar(&f.outputs, "outputs", nil, "the served outputs, as given to recom serve (they select the inputs)")
	fl.StringVar(&f.jsonOut, "json", "", "write one JSON object per rate run to `FILE`")
	return cmd
}

// loadResult is one rate's outcome.
type loadResult struct {
	Protocol   string         `json:"protocol"`
	Rate       float64        `json:"rate"`
	Duration   float64        `json:"duration_s"`
	Requests   uint64         `json:"requests"`
	Answered   int            `json:"answered"`
	Success    float64        `json:"success"`
	Throughput float64        `json:"throughput_rps"`
	Rows       float64        `json:"rows_per_s"`
	P50        float64        `json:"p50_ms"`
	P99        float64        `json:"p99_ms"`
	P999       float64        `json:"p999_ms"`
	Max        float64        `json:"max_ms"`
	Codes      map[string]int `json:"status_codes"`
	Errors     []string       `json:"errors,omitempty"`
	// Stopped: the run was cut short once it could no longer meet
	// --max-p99 (hopeless), its numbers those of the requests sent.
	Stopped bool `json:"stopped_early,omitempty"`
}

// hopeless reports whether a run that is to send planned requests can no
// longer meet a p99 bound with every request answered, having had over
// requests fail or take longer than the bound: one failure, or more than
// 1% of planned over it (the p99 of at most planned answers is then
// over it whatever the rest do).
func hopeless(over, failed, planned int) bool {
	return failed > 0 || over > planned/100
}

func runLoadtest(ctx context.Context, model string, f *loadtestFlags, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	switch {
	case f.minRows < 1 || f.maxRows < f.minRows:
		return fmt.Errorf("--min-rows %d and --max-rows %d: need 1 <= min <= max", f.minRows, f.maxRows)
	case f.bodies < 1:
		return fmt.Errorf("--bodies must be positive")
	case f.maxConns < 1:
		return fmt.Errorf("--max-connections must be positive")
	case f.grpcConns < 1 || f.grpcConns > maxGRPCConns:
		return fmt.Errorf("--grpc-connections must be 1 to %d", maxGRPCConns)
	case f.duration <= 0:
		return fmt.Errorf("--duration must be positive")
	}
	for _, r := range f.rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("--rates: %v is not a rate", r)
		}
	}
	if f.name == "" {
		f.name = modelName(model)
	}
	base, err := url.Parse(strings.TrimSuffix(f.url, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return fmt.Errorf("--url %q is not an http:// address", f.url)
	}
	targets, err := f.makeTargets(ctx, model, base.String())
	if err != nil {
		return err
	}
	var jsonOut *outfile.File
	if f.jsonOut != "" {
		if jsonOut, err = outfile.Create(f.jsonOut, nil); err != nil {
			return err
		}
		defer jsonOut.Abort()
	}
	meanRows := 0.0
	for _, t := range targets {
		meanRows += float64(t.rows)
	}
	meanRows /= float64(len(targets))
	fmt.Fprintf(stdout, "loadtest: %s %s, %d bodies of %d-%d rows (mean %.1f), %v per rate\n", f.protocol, targets[0].URL, len(targets), f.minRows, f.maxRows, meanRows, f.duration)
	fmt.Fprintf(stdout, "%10s %10s %9s %11s %11s %9s %9s %9s %9s\n", "rate/s", "requests", "answered", "answers/s", "rows/s", "p50 ms", "p99 ms", "p999 ms", "max ms")
	run := func(rate float64) (*loadResult, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := f.attack(ctx, targets, rate)
		fmt.Fprintf(stdout, "%10.0f %10d %8.1f%% %11.1f %11.0f %9.3f %9.3f %9.3f %9.3f%s\n", r.Rate, r.Requests, 100*r.Success, r.Throughput, r.Rows, r.P50, r.P99, r.P999, r.Max, codesNote(r))
		if jsonOut != nil {
			b, _ := json.Marshal(r)
			if _, err := jsonOut.Write(append(b, '\n')); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	if f.maxP99 <= 0 {
		for _, rate := range f.rates {
			if _, err := run(rate); err != nil {
				return err
			}
		}
	} else {
		best, err := f.search(run)
		if err != nil {
			return err
		}
		if best == nil {
			fmt.Fprintf(stdout, "max rate at p99 <= %v: none (%.0f/s already misses it)\n", f.maxP99, f.rates[0])
		} else {
			fmt.Fprintf(stdout, "max rate at p99 <= %v: %.0f requests/s (%.0f rows/s; p50 %.3f ms, p99 %.3f ms, p999 %.3f ms)\n", f.maxP99, best.Rate, best.Rows, best.P50, best.P99, best.P999)
		}
	}
	if jsonOut != nil {
		return jsonOut.Commit()
	}
	return nil
}

func codesNote(r *loadResult) string {
	note := ""
	if r.Stopped {
		note = "  stopped early: it cannot meet --max-p99"
	}
	if r.Success == 1 {
		return note
	}
	note += fmt.Sprintf("  codes %v", r.Codes)
	if len(r.Errors) > 0 {
		note += fmt.Sprintf("; %s", r.Errors[0])
	}
	return note
}

// minPace is the share of a rate a run must answer per second to meet it
// (vegeta's throughput: answers over the run and the wait for the last).
const minPace = 0.95

// search finds the highest rate meeting --max-p99 with every request
// answered, at the rate: doubling from the first rate, then bisecting.
func (f *loadtestFlags) search(run func(float64) (*loadResult, error)) (*loadResult, error) {
	meets := func(r *loadResult) bool {
		return !r.Stopped && r.Success == 1 && r.P99 <= float64(f.maxP99)/float64(time.Millisecond) && r.Throughput >= minPace*r.Rate
	}
	var best *loadResult
	lo, hi := 0.0, 0.0
	for rate := f.rates[0]; hi == 0; rate *= 2 {
		r, err := run(rate)
		if err != nil {
			return nil, err
		}
		if !meets(r) {
			hi = rate
			break
		}
		best, lo = r, rate
		if rate > 1e7 {
			return best, nil
		}
	}
	for range f.steps {
		if lo == 0 {
			break
		}
		mid := math.Round((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break
		}
		r, err := run(mid)
		if err != nil {
			return nil, err
		}
		if meets(r) {
			best, lo = r, mid
		} else {
			hi = mid
		}
	}
	return best, nil
}

// loadClient is the attack's HTTP client: vegeta's own, but for a write
// buffer that holds the largest request whole. With net/http's default
// of 4 KB a request of model E (~250 KB) leaves in ~60 writes of 4 KB
// (its body is copied through the buffer), and the server waits for each:
// the client's cost, which would count as the server's time reading the
// body. The buffer is per connection (--max-connections of them at most).
func loadClient(targets []loadTarget) *http.Client {
	largest := 0
	for _, t := range targets {
		largest = max(largest, len(t.Body))
	}
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: vegeta.DefaultLocalAddr.IP, Zone: vegeta.DefaultLocalAddr.Zone}, KeepAlive: 30 * time.Second}
	return &http.Client{Timeout: vegeta.DefaultTimeout, Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSClientConfig:     vegeta.DefaultTLSConfig,
		MaxIdleConnsPerHost: vegeta.DefaultConnections,
		MaxConnsPerHost:     vegeta.DefaultMaxConnections,
		WriteBufferSize:     min(largest, maxWriteBuffer) + 8<<10, // and the headers
	}}
}

// maxWriteBuffer bounds loadClient's write buffer (bodies larger are
// written in pieces of it): --max-connections of them at most.
const maxWriteBuffer = 1 << 20

// attack runs one rate for --duration.
func (f *loadtestFlags) attack(ctx context.Context, targets []loadTarget, rate float64) *loadResult {
	opts := []func(*vegeta.Attacker){vegeta.Client(loadClient(targets)), vegeta.Timeout(f.timeout), vegeta.Workers(f.workers), vegeta.KeepAlive(true),
		vegeta.Connections(f.maxConns), vegeta.MaxConnections(f.maxConns), vegeta.MaxBody(1 << 10)}
	if f.protocol == "grpc" {
		// Last: vegeta's connection options set an *http.Transport's fields,
		// which the gRPC client does not have.
		opts = append(opts, vegeta.Client(grpcClient(f.grpcConns, f.timeout)))
	}
	atk := vegeta.NewAttacker(opts...)
	var next atomic.Uint64
	targeter := func(t *vegeta.Target) error {
		lt := targets[int((next.Add(1)-1)%uint64(len(targets)))]
		*t = lt.Target
		return nil
	}
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var m vegeta.Metrics
	var lat []time.Duration
	rows := 0
	// In a search, a rate stops as soon as it is hopeless: its verdict is
	// known, and a server far behind would take the rest of the duration
	// and a backlog to drain for nothing.
	planned := int(math.Round(rate) * f.duration.Seconds())
	over, failed, stopped := 0, 0, false
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: int(math.Round(rate)), Per: time.Second}, f.duration, "recom") {
		m.Add(res)
		ok := res.Code == http.StatusOK && res.Error == ""
		if ok {
			lat = append(lat, res.Latency)
			rows += targetRows(res.URL)
		} else {
			failed++
		}
		if ok && res.Latency > f.maxP99 {
			over++
		}
		if f.maxP99 > 0 && !stopped && hopeless(over, failed, planned) {
			stopped = true
			atk.Stop()
		}
	}
	m.Close()
	slices.Sort(lat)
	ms := func(q float64) float64 {
		if len(lat) == 0 {
			return math.NaN()
		}
		i := int(math.Ceil(q*float64(len(lat)))) - 1
		return float64(lat[max(i, 0)]) / float64(time.Millisecond)
	}
	wall := m.Duration + m.Wait
	r := &loadResult{Protocol: f.protocol, Rate: math.Round(rate), Duration: wall.Seconds(), Requests: m.Requests, Answered: len(lat),
		Success: m.Success, Throughput: m.Throughput, P50: ms(0.5), P99: ms(0.99), P999: ms(0.999), Max: ms(1), Codes: m.StatusCodes, Errors: m.Errors,
		Stopped: stopped}
	if wall > 0 {
		r.Rows = float64(rows) / wall.Seconds()
	}
	if len(r.Errors) > 3 {
		r.Errors = r.Errors[:3]
	}
	return r
}

// targetRows is the rows of the request a target's URL names (its
// fragment, rows=N; 0 for anything else).
func targetRows(u string) int {
	_, frag, ok := strings.Cut(u, "#rows=")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(frag)
	return n
}

// maxGRPCConns bounds --grpc-connections.
const maxGRPCConns = 1024

// loadTarget is a request and its rows.
type loadTarget struct {
	vegeta.Target
	rows int
}

// makeTargets draws the request bodies.
func (f *loadtestFlags) makeTargets(ctx context.Context, model, base string) ([]loadTarget, error) {
	var path string
	switch f.protocol {
	case "tfserving":
		path = "/v1/models/" + url.PathEscape(f.name) + ":predict"
	case "oip", "oip-binary":
		path = "/v2/models/" + url.PathEscape(f.name) + "/infer"
	case "grpc":
		path = grpcInferPath
	default:
		return nil, fmt.Errorf("--protocol must be tfserving, oip, oip-binary or grpc, got %q", f.protocol)
	}
	res, err := compiler.Compile(ctx, model, compiler.Options{StopAfter: compiler.StageImport, Outputs: graphCut(model, f.outputs)})
	if err != nil {
		return nil, err
	}
	outputs := f.outputs
	if len(outputs) == 0 {
		all, err := defaultOutputs(res.Module)
		if err != nil {
			return nil, err
		}
		outputs = e2eOutputs(all, nil)
	}
	sig, err := serve.SignatureOf(res.Module, res, outputs)
	if err != nil {
		return nil, err
	}
	gopts := gen.GraphFeedOptions{Batch: f.maxRows, Seed: f.seed}
	if f.tables != "" {
		opts, err := runOptions(f.tables, 0, nil)
		if err != nil {
			return nil, err
		}
		gopts.Tables = opts.Tables
	} else if len(res.Outputs) > 0 {
		whole, err := compiler.Compile(ctx, model, compiler.Options{StopAfter: compiler.StageImport, WholeGraph: true})
		if err != nil {
			return nil, err
		}
		if gopts.Tables, err = tfg.TableInitData(ctx, whole.Module, nil); err != nil {
			return nil, fmt.Errorf("reading the graph's tables: %w", err)
		}
	}
	// As recom gen --feeds draws: from the spec a generated model records
	// (its columns' ids, weights matching ids, vocabularies), else from
	// the graph.
	var spec *gen.Spec
	if len(f.outputs) == 0 {
		if spec, err = recordedSpec(res.Module); err != nil {
			return nil, fmt.Errorf("%s: %w", model, err)
		}
	}
	const sets = 4
	drawn := make([]map[string]*interp.Tensor, sets)
	for i := range drawn {
		var arrays []npz.Array
		if spec != nil {
			arrays, err = gen.Feeds(spec, f.maxRows, f.seed+uint64(i))
		} else {
			gopts.Seed = f.seed + uint64(i)
			arrays, _, err = gen.GraphFeeds(ctx, res.Module, gopts)
		}
		if err != nil {
			return nil, err
		}
		drawn[i] = map[string]*interp.Tensor{}
		for _, a := range arrays {
			drawn[i][tensorName(a.Name)] = a.Tensor
		}
	}
	rng := rand.New(rand.NewPCG(f.seed, 0x10ad))
	targets := make([]loadTarget, f.bodies)
	for i := range targets {
		rows := f.minRows + rng.IntN(f.maxRows-f.minRows+1)
		feeds := map[string]*interp.Tensor{}
		for _, in := range sig.Inputs {
			t, ok := drawn[i%sets][in.Name]
			if !ok {
				return nil, fmt.Errorf("no input was drawn for %q", in.Key)
			}
			if t.Rank() == 0 || t.Dim(0) < int64(rows) {
				return nil, fmt.Errorf("input %q was drawn with shape %s, not %d rows", in.Key, interp.ShapeString(t.Shape()), rows)
			}
			if feeds[in.Key], err = sliceFirst(t, rows); err != nil {
				return nil, err
			}
		}
		var body []byte
		var hdr http.Header
		if f.protocol == "grpc" {
			body, hdr, err = grpcBody(f.name, &sig, feeds)
		} else {
			body, hdr, err = requestBody(f.protocol, &sig, feeds)
		}
		if err != nil {
			return nil, err
		}
		// The rows ride in the URL's fragment, which is never sent.
		targets[i] = loadTarget{Target: vegeta.Target{Method: http.MethodPost, URL: fmt.Sprintf("%s%s#rows=%d", base, path, rows), Body: body, Header: hdr}, rows: rows}
	}
	return targets, nil
}

// requestBody is one request's body in a protocol's form.
func requestBody(protocol string, sig *serve.Signature, feeds map[string]*interp.Tensor) ([]byte, http.Header, error) {
	hdr := http.Header{"Content-Type": {"application/json"}}
	if protocol == "tfserving" {
		rows := 0
		for _, t := range feeds {
			rows = int(t.Dim(0))
		}
		inst := make([]map[string]any, rows)
		for r := range inst {
			inst[r] = map[string]any{}
			for _, in := range sig.Inputs {
				inst[r][in.Key] = rowValue(feeds[in.Key], r)
			}
		}
		b, err := json.Marshal(map[string]any{"instances": inst})
		return b, hdr, err
	}
	// Each input's keys in clients' order (serve.InferInputJSON).
	var inputs []serve.InferInputJSON
	var bin []byte
	for _, in := range sig.Inputs {
		t := feeds[in.Key]
		m := serve.InferInputJSON{Name: in.Key, Shape: t.Shape(), Datatype: serve.OIPDatatype(t.DType())}
		if protocol == "oip-binary" {
			raw := serve.AppendRaw(nil, t)
			m.Parameters = map[string]any{"binary_data_size": len(raw)}
			bin = append(bin, raw...)
		} else {
			// JSON strings are text: the protocol's JSON form has no way to
			// carry other bytes (encoding/json would replace them).
			if d, ok := t.Data().([]string); ok {
				for _, v := range d {
					if !utf8.ValidString(v) {
						return nil, nil, fmt.Errorf("--protocol oip: input %q holds strings that are not UTF-8 text (serialized tf.Example records?), which the protocol's JSON form cannot carry: use oip-binary or grpc", in.Key)
					}
				}
			}
			m.Data = t.Data()
		}
		inputs = append(inputs, m)
	}
	b, err := json.Marshal(map[string]any{"inputs": inputs})
	if err != nil || protocol != "oip-binary" {
		return b, hdr, err
	}
	hdr.Set("Inference-Header-Content-Length", strconv.Itoa(len(b)))
	hdr.Set("Content-Type", "application/octet-stream")
	return append(b, bin...), hdr, nil
}

// rowValue is row r of t as nested lists for encoding/json (strings that
// are not UTF-8 as {"b64": ...}).
func rowValue(t *interp.Tensor, r int) any {
	shape := t.Shape()[1:]
	row := 1
	for _, d := range shape {
		row *= int(d)
	}
	var rec func(level, off int) any
	rec = func(level, off int) any {
		if level == len(shape) {
			switch d := t.Data().(type) {
			case []string:
				if !utf8.ValidString(d[off]) {
					return map[string]string{"b64": base64.StdEncoding.EncodeToString([]byte(d[off]))}
				}
				return d[off]
			case []float32:
				return d[off]
			case []float64:
				return d[off]
			case []int64:
				return d[off]
			case []int32:
				return d[off]
			case []bool:
				return d[off]
			}
			return nil
		}
		stride := 1
		for _, d := range shape[level+1:] {
			stride *= int(d)
		}
		l := make([]any, shape[level])
		for i := range l {
			l[i] = rec(level+1, off+i*stride)
		}
		return l
	}
	return rec(0, r*row)
}
