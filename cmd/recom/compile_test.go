package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc"
	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

const compileSmallModel = "../../examples/small.pbtxt"

// recom compile writes every stage's file and the summary, and prints the
// summary.
func TestCompileSmall(t *testing.T) {
	llctest.Need(t)
	out := filepath.Join(t.TempDir(), "out")
	status, stdout, stderr := runTool("compile", compileSmallModel, "-o", out, "--dense=cpu")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	want := []string{"0-tfg.mlir", "1-emb.mlir", "2-shape.mlir", "3-gpu.mlir", "model.ll", "model.ptx", "summary.txt"}
	if _, err := llc.FindPtxas(); err == nil {
		want = append(want, "model.cubin", "ptxas.txt")
		slices.Sort(want)
	}
	if got := outfiletest.Names(t, out); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(sum) != stdout {
		t.Errorf("printed summary differs from summary.txt:\n%s\n---\n%s", stdout, sum)
	}
	for _, want := range []string{"model: " + compileSmallModel, "columns: 24", "kernels: 1 (layer)", "ops removed by rewrites:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	ptx, _ := os.ReadFile(filepath.Join(out, "model.ptx"))
	if n := len(regexp.MustCompile(`(?m)^\.visible \.entry `).FindAll(ptx, -1)); n != 1 {
		t.Errorf("%d kernel entries in model.ptx, want 1", n)
	}
	tfg, _ := os.ReadFile(filepath.Join(out, "0-tfg.mlir"))
	gpu, _ := os.ReadFile(filepath.Join(out, "3-gpu.mlir"))
	if !strings.Contains(string(tfg), "tfg.graph") || !strings.Contains(string(gpu), "gpu.module @emb") {
		t.Errorf("IR files do not hold their stages")
	}
	if strings.Contains(stderr, "recom compile: [") {
		t.Errorf("progress shown on a non-terminal stderr:\n%s", stderr)
	}
}

// The scaled presets E, F and probe, generated without table values,
// compile to exactly one kernel entry that llc-19 compiles.
func TestCompilePresets(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	for _, c := range []struct {
		preset, columns string
	}{{"E", "50"}, {"F", "60"}, {"probe", "40"}} {
		t.Run(c.preset, func(t *testing.T) {
			model := filepath.Join(dir, c.preset+".pbtxt")
			if status, _, stderr := runTool("gen", "--preset", c.preset, "--columns", c.columns, "--no-tables", "-o", model); status != 0 {
				t.Fatalf("gen: %s", stderr)
			}
			out := filepath.Join(dir, c.preset+".out")
			status, stdout, stderr := runTool("compile", model, "-o", out, "-q", "--dense=cpu")
			if status != 0 {
				t.Fatalf("compile: status %d: %s", status, stderr)
			}
			if stdout != "" {
				t.Errorf("-q printed:\n%s", stdout)
			}
			ptx, err := os.ReadFile(filepath.Join(out, "model.ptx"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(ptx), ".visible .entry "); n != 1 {
				t.Errorf("%d kernel entries, want 1", n)
			}
			sum, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
			if !strings.Contains(string(sum), "columns: "+c.columns+"\n") || !strings.Contains(string(sum), "kernels: 1 (layer)") {
				t.Errorf("summary:\n%s", sum)
			}
		})
	}
}

// Pass flags reach the passes, and --stop-after ends the run at a stage.
func TestCompileFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		files []string
		want  []string
	}{
		{"no-range-analysis", []string{"--lower-emb=no-range-analysis", "--stop-after=lower-emb"},
			[]string{"0-tfg.mlir", "1-emb.mlir", "summary.txt"},
			[]string{"pass options: --lower-emb='no-range-analysis'", "removed-by-range-analysis            0\n"}},
		{"recom schedule", []string{"--fuse=schedule=recom", "--stop-after", "fuse"},
			[]string{"0-tfg.mlir", "1-emb.mlir", "2-shape.mlir", "3-gpu.mlir", "summary.txt"},
			[]string{"@emb::@layer: schedule recom, 24 columns", "kernels: 1 (layer)"}},
		{"several options", []string{"--fuse=max-threads=128 rows-in-flight=2", "--simplify-shapes=no-assertions", "--stop-after=fuse"},
			[]string{"0-tfg.mlir", "1-emb.mlir", "2-shape.mlir", "3-gpu.mlir", "summary.txt"},
			[]string{"--fuse='max-threads=128 rows-in-flight=2'", "--simplify-shapes='no-assertions'", "block 128", "assertions                                  0\n"}},
		{"bare pass flag", []string{"--fuse", "--stop-after=import"},
			[]string{"0-tfg.mlir", "summary.txt"},
			[]string{"pass options: --fuse=''"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			status, stdout, stderr := runTool(append([]string{"compile", compileSmallModel, "-o", out}, c.args...)...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			if got := outfiletest.Names(t, out); !slices.Equal(got, c.files) {
				t.Errorf("files %v, want %v", got, c.files)
			}
			for _, w := range c.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("summary lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// The output directory is replaced atomically: a failed run leaves the
// previous directory (or none) and no temporary directory; a directory
// holding other files is never replaced.
func TestCompileAtomicDir(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ok := func(args ...string) {
		t.Helper()
		if status, _, stderr := runTool(append([]string{"compile", compileSmallModel, "-o", out, "-q"}, args...)...); status != 0 {
			t.Fatalf("status %d: %s", status, stderr)
		}
	}
	fail := func(want string, args ...string) {
		t.Helper()
		status, _, stderr := runTool(append([]string{"compile", "-o", out, "-q"}, args...)...)
		if status == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%v: status %d, stderr %q, want an error with %q", args, status, stderr, want)
		}
	}
	noTemps := func() {
		t.Helper()
		for _, n := range outfiletest.Names(t, dir) {
			if strings.HasPrefix(n, ".") {
				t.Errorf("left behind: %s", n)
			}
		}
	}

	// A failure with no previous directory leaves none.
	fail("missing.pbtxt", filepath.Join(dir, "missing.pbtxt"))
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed first run made %s", out)
	}
	noTemps()

	// A run after a full one replaces it wholly: no file of the old run stays.
	ok()
	ok("--stop-after=simplify-shapes")
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"0-tfg.mlir", "1-emb.mlir", "2-shape.mlir", "summary.txt"}) {
		t.Errorf("after the second run: %v", got)
	}
	noTemps()

	// Failures after the IR stages (llc fails on a bad target), in a pass
	// option and in the model leave the previous directory as it was.
	before, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
	bad := filepath.Join(dir, "bad.pbtxt")
	os.WriteFile(bad, []byte("node { name: \"a\" op: \"NoSuchOp\" input: \"b\" }\n"), 0o644)
	fail("no node", bad)
	fail("no-such-option", compileSmallModel, "--fuse=no-such-option=1")
	fail("unknown stage", compileSmallModel, "--stop-after=link")
	fail("max-threads", compileSmallModel, "--fuse=max-threads=0")
	// An llc-19 that fails, found first on PATH.
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "llc-19"), []byte("#!/bin/sh\necho 'llc-19: out of luck' >&2\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	fail("out of luck", compileSmallModel)
	after, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
	if string(after) != string(before) {
		t.Errorf("a failed run changed summary.txt")
	}
	if got := outfiletest.Names(t, out); len(got) != 4 {
		t.Errorf("a failed run changed the directory: %v", got)
	}
	noTemps()

	// A directory holding a file recom compile does not write is refused
	// and left alone, and so is a path that is a file.
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("keep"), 0o644)
	status, _, stderr := runTool("compile", compileSmallModel, "-o", mine, "--dense=cpu")
	if status == 0 || !strings.Contains(stderr, "notes.txt") {
		t.Errorf("foreign directory: status %d, %q", status, stderr)
	}
	if got := outfiletest.Names(t, mine); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("foreign directory changed: %v", got)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if status, _, stderr := runTool("compile", compileSmallModel, "-o", file); status == 0 || !strings.Contains(stderr, "not a directory") {
		t.Errorf("file as DIR: status %d, %q", status, stderr)
	}
	noTemps()

	// An empty directory is filled.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if status, _, stderr := runTool("compile", compileSmallModel, "-o", empty, "--stop-after=import", "-q"); status != 0 {
		t.Errorf("empty directory: %s", stderr)
	}
	noTemps()
}

// Usage errors.
func TestCompileUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compile", compileSmallModel}, "no output directory"},
		{[]string{"compile", "-o", "x"}, "accepts 1 arg"},
		{[]string{"compile", compileSmallModel, "-o", "x", "--progress=sometimes"}, "--progress=sometimes"},
		{[]string{"compile", compileSmallModel, "-o", "x", "--opt-level=9"}, "optimisation level 9"},
		{[]string{"compile", compileSmallModel, "-o", "x", "--outputs=no_such_node"}, "no_such_node"},
	} {
		status, _, stderr := runTool(c.args...)
		if status == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: status %d, stderr %q, want %q", c.args, status, stderr, c.want)
		}
	}
	if _, err := os.Stat("x"); err == nil {
		t.Errorf("a failed run made ./x")
		os.RemoveAll("x")
	}
}

// --progress (or --progress=always) shows each stage on stderr as it starts
// and as it ends, with its time and size, and the steps of the import
// inside it; the times are the summary's (the IR's printing apart, as
// there); --progress=never and a stderr that is not a terminal show nothing.
func TestCompileProgress(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	startLine := regexp.MustCompile(`^recom compile: \[(\d)/\d+\] ([a-z-]+) \.\.\.$`)
	stepLine := regexp.MustCompile(`^recom compile: \[1/\d+\] import: ([a-z ]+) \d+\.\d{3} s(, .*)?$`)
	endLine := regexp.MustCompile(`^recom compile: \[(\d)/\d+\] ([a-z-]+) (\d+\.\d{3}) s, \d+( -> \d+)? ops; its IR printed in \d+\.\d{3} s$`)
	summaryLine := regexp.MustCompile(`(?m)^  ([a-z-]+) +(?:\d+ nodes|\d+) +\d+ +(\d+\.\d{3}) s  `)
	for _, flag := range []string{"--progress", "--progress=always"} {
		status, stdout, stderr := runTool("compile", compileSmallModel, "-o", out, flag, "--stop-after=fuse")
		if status != 0 {
			t.Fatal(stderr)
		}
		stages := []string{"import", "lower-emb", "simplify-shapes", "fuse"}
		var steps []string
		times := map[string]string{}
		k := 0
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if strings.Contains(l, ": remark: ") {
				// The passes' remarks (the identity columns' ids are
				// checked on the host), not progress.
				continue
			}
			if m := stepLine.FindStringSubmatch(l); m != nil {
				steps = append(steps, m[1])
				continue
			}
			m := startLine.FindStringSubmatch(l)
			if k%2 == 1 {
				m = endLine.FindStringSubmatch(l)
			}
			if m == nil || k/2 >= len(stages) || m[1] != strconv.Itoa(k/2+1) || m[2] != stages[k/2] {
				t.Errorf("%s: line %q", flag, l)
			} else if k%2 == 1 {
				times[m[2]] = m[3]
			}
			k++
		}
		if k != 2*len(stages) || strings.Join(steps, ",") != "read,parse,check and import,verify" {
			t.Errorf("%s: %d stage lines, import steps %q:\n%s", flag, k, steps, stderr)
		}
		for _, m := range summaryLine.FindAllStringSubmatch(stdout, -1) {
			if times[m[1]] != m[2] {
				t.Errorf("%s: %s took %s s by the summary, %s s by --progress", flag, m[1], m[2], times[m[1]])
			}
			delete(times, m[1])
		}
		if len(times) != 0 {
			t.Errorf("%s: stages not in the summary: %v\n%s", flag, times, stdout)
		}
	}
	for _, args := range [][]string{{"--progress=never"}, nil} {
		status, _, stderr := runTool(append([]string{"compile", compileSmallModel, "-o", out, "-q", "--stop-after=lower-emb"}, args...)...)
		if status != 0 || stderr != "" {
			t.Errorf("%v: status %d, stderr %q", args, status, stderr)
		}
	}
}

// --dot FILE writes the column structure; the summary says how many
// columns were fused.
func TestCompileDot(t *testing.T) {
	dir := t.TempDir()
	dot := filepath.Join(dir, "cols.dot")
	status, stdout, stderr := runTool("compile", compileSmallModel, "-o", filepath.Join(dir, "out"), "--stop-after=fuse", "--dot", dot)
	if status != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "subgraph cluster_"); !strings.HasPrefix(string(data), "digraph recom {") || n != 24 {
		t.Errorf("%d clusters:\n%s", n, data)
	}
	if !strings.Contains(stdout, "  fused                24 of 24 (into 1 embedding kernel)\n") {
		t.Errorf("summary:\n%s", stdout)
	}
	// A failed compile writes no dot file.
	bad := filepath.Join(dir, "bad.dot")
	if status, _, _ := runTool("compile", compileSmallModel, "-o", filepath.Join(dir, "out2"), "--fuse=no-such-option", "--dot", bad); status == 0 {
		t.Errorf("bad option accepted")
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("a failed run wrote %s", bad)
	}
}

// Where ptxas is found, DIR gets the cubin and ptxas's report, and the
// summary the kernel's registers and shared memory; --no-cubin skips it.
func TestCompileCubin(t *testing.T) {
	llctest.Need(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	script := "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift;; esac; shift; done\nprintf CUBIN > \"$out\"\n" +
		"echo \"ptxas info    : Compiling entry function 'layer' for 'sm_90'\"\n" +
		"echo 'ptxas info    : Used 38 registers, 0 bytes smem, 400 bytes cmem[0]'\n"
	os.WriteFile(filepath.Join(bin, "ptxas"), []byte(script), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(dir, "out")
	status, stdout, stderr := runTool("compile", compileSmallModel, "-o", out, "--dense=cpu")
	if status != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "  layer: 38 registers, 0 bytes shared") {
		t.Errorf("summary:\n%s", stdout)
	}
	if got := outfiletest.Names(t, out); !slices.Contains(got, "model.cubin") || !slices.Contains(got, "ptxas.txt") {
		t.Errorf("files %v", got)
	}
	status, stdout, stderr = runTool("compile", compileSmallModel, "-o", out, "--no-cubin", "--dense=cpu")
	if status != 0 || !strings.Contains(stdout, "note: cubin: skipped") || slices.Contains(outfiletest.Names(t, out), "model.cubin") {
		t.Errorf("--no-cubin: status %d %s\n%s", status, stderr, stdout)
	}
}
