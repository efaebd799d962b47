package graphdef

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// realGraphs are the graphs TensorFlow wrote, in ../shared/testdata/graphdefs
// beside the repository root, with their node counts from SOURCES.md.
var realGraphs = []struct {
	file  string
	nodes int
}{
	{"census_wide_deep_tf1.pbtxt", 2536},
	{"census_wide_deep_tf2_resource.pbtxt", 1945},
	{"criteo_bucketized_tiles.pbtxt", 1474},
}

// graphdefsDir finds shared/testdata/graphdefs: walk up from the package
// directory to the repository root (the directory holding go.mod), then take
// ../shared beside it. The tests fail, not skip, when it is absent.
func graphdefsDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (go.mod) above the package directory")
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "testdata", "graphdefs")
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("real graphs not found: %v (shared/ must sit beside the repository root)", err)
	}
	return d
}

var (
	loadOnce sync.Once
	loaded   map[string]*File
	loadErr  error
)

// loadReal parses each real graph once per test binary.
func loadReal(t testing.TB, file string) *File {
	t.Helper()
	dir := graphdefsDir(t)
	loadOnce.Do(func() {
		loaded = map[string]*File{}
		for _, g := range realGraphs {
			f, err := Load(filepath.Join(dir, g.file))
			if err != nil {
				loadErr = err
				return
			}
			loaded[g.file] = f
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded[file]
}

func TestLoadRealGraphs(t *testing.T) {
	for _, g := range realGraphs {
		f := loadReal(t, g.file)
		if f.Format != TextGraphDef {
			t.Errorf("%s: format %v, want text GraphDef", g.file, f.Format)
		}
		if got := len(f.Graph.GetNode()); got != g.nodes {
			t.Errorf("%s: %d nodes, want %d", g.file, got, g.nodes)
		}
	}
	// Modelled fields the files use: experimental_type on TF2 nodes, and a
	// function library with arg_attr and handle_data.
	tf2 := loadReal(t, "census_wide_deep_tf2_resource.pbtxt").Graph
	typed, handleData := 0, 0
	for _, n := range tf2.GetNode() {
		if n.GetExperimentalType().GetTypeId() == tfpb.FullTypeId_TFT_PRODUCT {
			typed++
		}
	}
	for _, fn := range tf2.GetLibrary().GetFunction() {
		for _, a := range fn.GetSignature().GetInputArg() {
			handleData += len(a.GetHandleData())
		}
	}
	if typed == 0 || handleData == 0 || len(tf2.GetLibrary().GetFunction()) == 0 {
		t.Errorf("TF2 graph: %d typed nodes, %d handle_data, %d functions; want all > 0",
			typed, handleData, len(tf2.GetLibrary().GetFunction()))
	}
}

func TestRoundTripRealGraphs(t *testing.T) {
	dir := t.TempDir()
	for _, g := range realGraphs {
		orig := loadReal(t, g.file).Graph
		bin := filepath.Join(dir, g.file+".pb")
		if err := Write(bin, orig, true); err != nil {
			t.Fatal(err)
		}
		fb, err := Load(bin)
		if err != nil {
			t.Fatal(err)
		}
		if fb.Format != BinaryGraphDef {
			t.Errorf("%s: reloaded binary detected as %v", g.file, fb.Format)
		}
		if !proto.Equal(orig, fb.Graph) {
			t.Errorf("%s: text -> binary changed the graph", g.file)
		}
		txt := filepath.Join(dir, g.file+".pbtxt")
		if err := Write(txt, fb.Graph, false); err != nil {
			t.Fatal(err)
		}
		ft, err := Load(txt)
		if err != nil {
			t.Fatal(err)
		}
		if ft.Format != TextGraphDef {
			t.Errorf("%s: reloaded text detected as %v", g.file, ft.Format)
		}
		if !proto.Equal(orig, ft.Graph) {
			t.Errorf("%s: text -> binary -> text changed the graph", g.file)
		}
		// Determinism: the same graph prints to the same bytes.
		a, _ := os.ReadFile(txt)
		if b := MarshalText(ft.Graph); string(a) != string(b) {
			t.Errorf("%s: text output is not deterministic", g.file)
		}
		b1, _ := os.ReadFile(bin)
		b2, _ := proto.MarshalOptions{Deterministic: true}.Marshal(ft.Graph)
		if string(b1) != string(b2) {
			t.Errorf("%s: binary output is not deterministic", g.file)
		}
	}
}

func TestValidateRealGraphs(t *testing.T) {
	for _, g := range realGraphs {
		if err := Validate(loadReal(t, g.file).Graph); err != nil {
			t.Errorf("%s: %v", g.file, err)
		}
	}
}

// TestOpTableMatchesRealGraphs checks the built-in signatures against what
// TensorFlow wrote: every attr a node carries is declared, every required
// attr is present, and the number of outputs equals the length of the
// node's _output_shapes.
func TestOpTableMatchesRealGraphs(t *testing.T) {
	covered, total := map[string]bool{}, map[string]bool{}
	for _, g := range realGraphs {
		for _, n := range loadReal(t, g.file).Graph.GetNode() {
			total[n.GetOp()] = true
			s, ok := Signature(n.GetOp())
			if !ok {
				continue
			}
			covered[n.GetOp()] = true
			for k := range n.GetAttr() {
				if !strings.HasPrefix(k, "_") {
					if _, ok := s.Attr(k); !ok {
						t.Errorf("%s: node %q: op %s: attr %q is not in the table", g.file, n.GetName(), n.GetOp(), k)
					}
				}
			}
			for _, a := range s.Attrs {
				if _, ok := n.GetAttr()[a.Name]; a.Required() && !ok {
					t.Errorf("%s: node %q: op %s: required attr %q is missing", g.file, n.GetName(), n.GetOp(), a.Name)
				}
			}
			types, err := OutputTypes(n)
			if err != nil {
				t.Errorf("%s: %v", g.file, err)
				continue
			}
			if l := n.GetAttr()["_output_shapes"].GetList(); l != nil && len(l.GetShape()) != len(types) {
				t.Errorf("%s: node %q: op %s: %d outputs in the table, %d in _output_shapes",
					g.file, n.GetName(), n.GetOp(), len(types), len(l.GetShape()))
			}
		}
	}
	var missing []string
	for op := range total {
		if !covered[op] {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("ops of the real graphs without a signature: %v", missing)
	}
}

// iteratorOutputs returns "IteratorGetNext:i" for every output of the node.
func iteratorOutputs(t *testing.T, g *tfpb.GraphDef, name string) []string {
	t.Helper()
	for _, n := range g.GetNode() {
		if n.GetName() == name {
			k, err := NumOutputs(n)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for i := range k {
				out = append(out, TensorRef{Node: name, Index: i}.String())
			}
			return out
		}
	}
	t.Fatalf("no node %q", name)
	return nil
}

// notInferenceNames are name prefixes and op types that must not survive
// extraction.
var (
	trainingPrefixes = []string{"gradients/", "training/", "save/", "report_uninitialized", "init", "Ftrl", "Adagrad",
		"global_step", "dnn/dnn/", "linear/linear/", "zero_fraction", "metrics/", "head/metrics", "head/weighted_loss", "OneShotIterator"}
	trainingOps = map[string]bool{"ApplyAdagrad": true, "SparseApplyAdagrad": true, "ApplyFtrl": true, "SparseApplyFtrl": true,
		"ResourceApplyFtrl": true, "ResourceSparseApplyFtrl": true, "SaveV2": true, "RestoreV2": true, "MergeV2Checkpoints": true,
		"ScalarSummary": true, "HistogramSummary": true, "MergeSummary": true, "Assign": true, "AssignAdd": true,
		"AssignVariableOp": true, "IteratorGetNext": true, "OneShotIterator": true, "Switch": true, "Merge": true,
		"QueueDequeueManyV2": true, "FIFOQueueV2": true, "BroadcastGradientArgs": true}
)

// checkTablesInitialised checks that every kept lookup table keeps its
// initializer and that every kept initializer fills a kept table: a table
// without its initializer would be empty at inference.
func checkTablesInitialised(t *testing.T, file string, g *tfpb.GraphDef) {
	t.Helper()
	tables, inited := map[string]bool{}, map[string]bool{}
	for _, n := range g.GetNode() {
		if n.GetOp() == "HashTableV2" {
			tables[n.GetName()] = true
		}
	}
	for _, n := range g.GetNode() {
		if !tableInitOps[n.GetOp()] {
			continue
		}
		r, err := ParseInput(n.GetInput()[0])
		if err != nil || !tables[r.Node] {
			t.Errorf("%s: initializer %q (op %s) of no kept table", file, n.GetName(), n.GetOp())
			continue
		}
		inited[r.Node] = true
	}
	for name := range tables {
		if !inited[name] {
			t.Errorf("%s: table %q kept without its initializer", file, name)
		}
	}
}

func checkInferenceOnly(t *testing.T, file string, g *tfpb.GraphDef) map[string]int {
	t.Helper()
	ops := map[string]int{}
	for _, n := range g.GetNode() {
		ops[n.GetOp()]++
		for _, p := range trainingPrefixes {
			if strings.HasPrefix(n.GetName(), p) {
				t.Errorf("%s: extracted graph keeps %q (op %s)", file, n.GetName(), n.GetOp())
			}
		}
		if trainingOps[n.GetOp()] || strings.HasSuffix(n.GetOp(), "Grad") {
			t.Errorf("%s: extracted graph keeps %q (op %s)", file, n.GetName(), n.GetOp())
		}
	}
	checkTablesInitialised(t, file, g)
	if err := Validate(g); err != nil {
		t.Errorf("%s: extracted graph does not validate: %v", file, err)
	}
	return ops
}

// Inference extractions of the real graphs:
//
//   - census_wide_deep_tf1: inputs = every output of IteratorGetNext;
//     outputs = the DNN's input dnn/input_from_feature_columns/input_layer/concat
//     and the DNN logits dnn/logits/BiasAdd.
//   - census_wide_deep_tf2_resource (a linear model fed by a FIFO queue):
//     inputs = fifo_queue_DequeueMany:1..16 (the feature columns; :0 is the
//     queue's index column); output = head/predictions/logistic, which adds
//     the linear logits
//     linear/linear_model/linear/linear_model/linear/linear_model/weighted_sum.
//   - criteo_bucketized_tiles: inputs = every output of IteratorGetNext;
//     outputs = input_layer/concat and the logits dense/BiasAdd.
func TestExtractCensusTF1(t *testing.T) {
	const file = "census_wide_deep_tf1.pbtxt"
	g := loadReal(t, file).Graph
	ins := iteratorOutputs(t, g, "IteratorGetNext")
	outs := []string{"dnn/input_from_feature_columns/input_layer/concat", "dnn/logits/BiasAdd"}
	x, err := Extract(g, ins, outs)
	if err != nil {
		t.Fatal(err)
	}
	ops := checkInferenceOnly(t, file, x)
	// The DNN's columns: one embedding column (hashed, mean combiner) and
	// indicator columns over vocabulary tables.
	for _, op := range []string{"Gather", "SparseSegmentMean", "SparseFillEmptyRows", "Unique",
		"StringToHashBucketFast", "LookupTableFindV2", "HashTableV2", "VariableV2", "ConcatV2", "MatMul", "BiasAdd", "Relu"} {
		if ops[op] == 0 {
			t.Errorf("%s: extracted graph has no %s", file, op)
		}
	}
	if len(x.GetNode()) >= len(g.GetNode())/2 {
		t.Errorf("%s: extraction kept %d of %d nodes", file, len(x.GetNode()), len(g.GetNode()))
	}
	// Placeholders for the fed tensors carry the iterator's dtypes and shapes.
	it := findNode(g, "IteratorGetNext")
	types := it.GetAttr()["output_types"].GetList().GetType()
	shapes := it.GetAttr()["output_shapes"].GetList().GetShape()
	phs := 0
	for _, n := range x.GetNode() {
		var idx int
		if _, err := fmt.Sscanf(n.GetName(), "IteratorGetNext/out%d", &idx); err != nil {
			continue
		}
		phs++
		if n.GetOp() != "Placeholder" || n.GetAttr()["dtype"].GetType() != types[idx] ||
			!proto.Equal(n.GetAttr()["shape"].GetShape(), shapes[idx]) {
			t.Errorf("%s: bad placeholder %v", file, n)
		}
	}
	if phs == 0 {
		t.Errorf("%s: no IteratorGetNext/out<i> placeholders", file)
	}
	t.Logf("%s: %d of %d nodes kept, %d placeholders, ops: %v", file, len(x.GetNode()), len(g.GetNode()), phs, ops)

	// The whole prediction, wide part included: the linear model's
	// SparseSegmentSum lookups, crosses and bucketized columns join in.
	x, err = Extract(g, ins, []string{"head/predictions/logistic"})
	if err != nil {
		t.Fatal(err)
	}
	ops = checkInferenceOnly(t, file, x)
	for _, op := range []string{"SparseSegmentSum", "SparseSegmentMean", "SparseCross", "Bucketize", "Sigmoid"} {
		if ops[op] == 0 {
			t.Errorf("%s: extracted prediction graph has no %s", file, op)
		}
	}
	if ops["SparseSegmentSum"] != 8 {
		t.Errorf("%s: prediction graph has %d SparseSegmentSum, want 8", file, ops["SparseSegmentSum"])
	}
	t.Logf("%s (prediction): %d nodes kept, ops: %v", file, len(x.GetNode()), ops)
}

func TestExtractCensusTF2Resource(t *testing.T) {
	const file = "census_wide_deep_tf2_resource.pbtxt"
	g := loadReal(t, file).Graph
	var ins []string
	for i := 1; i <= 16; i++ {
		ins = append(ins, TensorRef{Node: "fifo_queue_DequeueMany", Index: i}.String())
	}
	x, err := Extract(g, ins, []string{"head/predictions/logistic"})
	if err != nil {
		t.Fatal(err)
	}
	ops := checkInferenceOnly(t, file, x)
	for _, op := range []string{"ResourceGather", "VarHandleOp", "ReadVariableOp", "SparseSegmentSum", "StringToHashBucketFast",
		"SparseFillEmptyRows", "Unique", "Sigmoid"} {
		if ops[op] == 0 {
			t.Errorf("%s: extracted graph has no %s", file, op)
		}
	}
	t.Logf("%s: %d of %d nodes kept, ops: %v", file, len(x.GetNode()), len(g.GetNode()), ops)
}

func TestExtractCriteo(t *testing.T) {
	const file = "criteo_bucketized_tiles.pbtxt"
	g := loadReal(t, file).Graph
	x, err := Extract(g, iteratorOutputs(t, g, "IteratorGetNext"), []string{"input_layer/concat", "dense/BiasAdd"})
	if err != nil {
		t.Fatal(err)
	}
	ops := checkInferenceOnly(t, file, x)
	if ops["Bucketize"] < 100 {
		t.Errorf("%s: extracted graph has %d Bucketize, want the ~110 tiled columns", file, ops["Bucketize"])
	}
	for _, op := range []string{"GatherNd", "SparseToDense", "OneHot", "MatMul", "BiasAdd", "ConcatV2"} {
		if ops[op] == 0 {
			t.Errorf("%s: extracted graph has no %s", file, op)
		}
	}
	t.Logf("%s: %d of %d nodes kept, ops: %v", file, len(x.GetNode()), len(g.GetNode()), ops)
}

// Cutting nothing leaves the iterator in: Extract must refuse and say why.
func TestExtractRefusesIteratorAndTraining(t *testing.T) {
	g := loadReal(t, "census_wide_deep_tf1.pbtxt").Graph
	_, err := Extract(g, nil, []string{"dnn/logits/BiasAdd"})
	if !errors.Is(err, ErrNotInference) || !strings.Contains(err.Error(), `"IteratorGetNext"`) {
		t.Errorf("uncut iterator: got %v", err)
	}
	var ne *NodeError
	if !errors.As(err, &ne) {
		t.Errorf("uncut iterator: error %T is not a NodeError", err)
	}
	ins := iteratorOutputs(t, g, "IteratorGetNext")
	train := ""
	for _, n := range g.GetNode() {
		if n.GetOp() == "ApplyAdagrad" || n.GetOp() == "SparseApplyFtrl" {
			train = n.GetName()
			break
		}
	}
	_, err = Extract(g, ins, []string{train})
	if !errors.Is(err, ErrNotInference) || !strings.Contains(err.Error(), "training") {
		t.Errorf("training op %q: got %v", train, err)
	}
}

func findNode(g *tfpb.GraphDef, name string) *tfpb.NodeDef {
	for _, n := range g.GetNode() {
		if n.GetName() == name {
			return n
		}
	}
	return nil
}
