// Package llc runs LLVM's llc (version 19) on NVPTX LLVM IR to produce PTX,
// and NVIDIA's ptxas on PTX to produce a cubin, parsing ptxas's resource
// report (registers, spills, shared memory) into a struct.
//
// llc-19 is looked up on PATH and in /usr/lib/llvm-19/bin; ptxas on PATH
// and in /usr/local/cuda/bin. A missing tool is reported as an error
// wrapping ErrNotFound, which callers test with errors.Is to skip the
// optional cubin step.
package llc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrNotFound is wrapped by the errors of FindLLC and FindPtxas when the
// tool is not installed.
var ErrNotFound = errors.New("not found")

// Default target of the emitted code: the H200 (Hopper).
const (
	DefaultCPU      = "sm_90"
	DefaultOptLevel = 3
)

// cpuPattern is the form of a target GPU: sm_ and its compute capability
// (two or three digits), optionally with the a (architecture-specific) or
// f (family) suffix: sm_80, sm_90a, sm_100a.
var cpuPattern = regexp.MustCompile(`^sm_[1-9][0-9]{1,2}[af]?$`)

// CheckCPU reports a target GPU (llc's -mcpu, ptxas's -arch) that is not of
// the form sm_NN, sm_NNN, optionally followed by a or f. The name goes to
// llc and ptxas as one argument, so anything else (spaces, options, an
// empty name) is refused here, before a command line is built.
func CheckCPU(cpu string) error {
	if !cpuPattern.MatchString(cpu) {
		return fmt.Errorf("target GPU %q: want sm_ and a compute capability, e.g. sm_80, sm_90 or sm_90a", cpu)
	}
	return nil
}

// Where the tools are looked for after PATH.
var (
	llcDirs   = []string{"/usr/lib/llvm-19/bin"}
	ptxasDirs = []string{"/usr/local/cuda/bin"}
)

// FindLLC returns the path of llc-19: llc-19 on PATH, or llc in
// /usr/lib/llvm-19/bin.
func FindLLC() (string, error) {
	if p, err := exec.LookPath("llc-19"); err == nil {
		return p, nil
	}
	for _, d := range llcDirs {
		for _, name := range []string{"llc-19", "llc"} {
			if p := filepath.Join(d, name); isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("llc-19 %w on PATH or in %s (apt-get install llvm-19)", ErrNotFound, strings.Join(llcDirs, ", "))
}

// FindPtxas returns the path of NVIDIA's ptxas: on PATH, or in
// /usr/local/cuda/bin.
func FindPtxas() (string, error) {
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p, nil
	}
	for _, d := range ptxasDirs {
		if p := filepath.Join(d, "ptxas"); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("ptxas %w on PATH or in %s (it comes with the CUDA toolkit); the cubin step is skipped", ErrNotFound, strings.Join(ptxasDirs, ", "))
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// ToolError is the failure of an external tool: its command line and what
// it wrote on stderr.
type ToolError struct {
	Tool   string   // "llc-19", "ptxas"
	Args   []string // the arguments (after the tool's path)
	Stderr string
	Err    error // the exit error
}

func (e *ToolError) Error() string {
	msg := fmt.Sprintf("%s %s: %v", e.Tool, strings.Join(e.Args, " "), e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ":\n" + s
	}
	return msg
}

func (e *ToolError) Unwrap() error { return e.Err }

// Options select the target and optimisation of llc.
type Options struct {
	Path     string   // llc's path; "" finds llc-19 (FindLLC)
	CPU      string   // -mcpu; "" is DefaultCPU (sm_90)
	OptLevel int      // -O level 0..3; negative is DefaultOptLevel (-O3)
	Extra    []string // more llc arguments
}

// Args returns the llc arguments for the options (input on stdin, PTX on
// stdout).
func (o Options) Args() []string {
	cpu := o.CPU
	if cpu == "" {
		cpu = DefaultCPU
	}
	opt := o.OptLevel
	if opt < 0 || opt > 3 {
		opt = DefaultOptLevel
	}
	args := []string{"-march=nvptx64", "-mcpu=" + cpu, "-O" + strconv.Itoa(opt)}
	args = append(args, o.Extra...)
	return append(args, "-o", "-", "-")
}

// DefaultOptions is llc -march=nvptx64 -mcpu=sm_90 -O3.
func DefaultOptions() Options { return Options{OptLevel: DefaultOptLevel} }

// CompilePTX runs llc on the LLVM IR text ll and returns the PTX. A CPU
// that CheckCPU refuses is an error before llc is looked for; an llc
// failure is a *ToolError carrying llc's stderr.
func CompilePTX(ctx context.Context, ll []byte, o Options) ([]byte, error) {
	if o.CPU != "" {
		if err := CheckCPU(o.CPU); err != nil {
			return nil, err
		}
	}
	path := o.Path
	if path == "" {
		var err error
		if path, err = FindLLC(); err != nil {
			return nil, err
		}
	}
	args := o.Args()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = bytes.NewReader(ll)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, &ToolError{Tool: filepath.Base(path), Args: args, Stderr: stderr.String(), Err: err}
	}
	ptx := stdout.Bytes()
	if !bytes.Contains(ptx, []byte(".version")) {
		return nil, &ToolError{Tool: filepath.Base(path), Args: args, Stderr: stderr.String(), Err: errors.New("produced no PTX")}
	}
	return ptx, nil
}

// Cubin is ptxas's output: the binary and the resources of each function.
type Cubin struct {
	Data      []byte
	Resources []Resources
	Log       string // ptxas -v's full report
}

// Resources is what ptxas -v reports about one function.
type Resources struct {
	Function      string
	Entry         bool // a kernel (.entry), not a device function
	Arch          string
	Registers     int
	StackFrame    int // bytes
	SpillStores   int // bytes
	SpillLoads    int // bytes
	SharedBytes   int // static shared memory (smem)
	ConstantBytes int // cmem[0], the kernel parameters
	Barriers      int
}

// Assemble runs ptxas -arch=arch -v on ptx and returns the cubin and the
// parsed resource report. path "" finds ptxas (FindPtxas); when it is
// missing the error wraps ErrNotFound.
func Assemble(ctx context.Context, path string, ptx []byte, arch string) (*Cubin, error) {
	if arch != "" {
		if err := CheckCPU(arch); err != nil {
			return nil, err
		}
	}
	if path == "" {
		var err error
		if path, err = FindPtxas(); err != nil {
			return nil, err
		}
	}
	if arch == "" {
		arch = DefaultCPU
	}
	dir, err := os.MkdirTemp("", "recom-ptxas-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "kernel.ptx"), filepath.Join(dir, "kernel.cubin")
	if err := os.WriteFile(in, ptx, 0o644); err != nil {
		return nil, err
	}
	args := []string{"-arch=" + arch, "-v", in, "-o", out}
	cmd := exec.CommandContext(ctx, path, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return nil, &ToolError{Tool: "ptxas", Args: args, Stderr: log.String(), Err: err}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	res, err := ParseReport(log.String())
	if err != nil {
		return nil, err
	}
	return &Cubin{Data: data, Resources: res, Log: log.String()}, nil
}

var (
	reCompiling = regexp.MustCompile(`Compiling (entry function|function) '([^']+)' for '([^']+)'`)
	reProps     = regexp.MustCompile(`Function properties for (\S+)`)
	reFrame     = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	reUsed      = regexp.MustCompile(`Used (\d+) registers`)
	reSmem      = regexp.MustCompile(`(\d+) bytes smem`)
	reCmem0     = regexp.MustCompile(`(\d+) bytes cmem\[0\]`)
	reBarriers  = regexp.MustCompile(`(\d+) barriers`)
)

// ParseReport reads ptxas -v's report into one Resources per function, in
// the order ptxas reports them.
func ParseReport(log string) ([]Resources, error) {
	var res []Resources
	byName := map[string]int{}
	cur := -1
	get := func(name string) int {
		if i, ok := byName[name]; ok {
			return i
		}
		res = append(res, Resources{Function: name})
		byName[name] = len(res) - 1
		return len(res) - 1
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, line := range strings.Split(log, "\n") {
		if m := reCompiling.FindStringSubmatch(line); m != nil {
			cur = get(m[2])
			res[cur].Entry = m[1] == "entry function"
			res[cur].Arch = m[3]
			continue
		}
		if m := reProps.FindStringSubmatch(line); m != nil {
			cur = get(m[1])
			continue
		}
		if cur < 0 {
			continue
		}
		r := &res[cur]
		if m := reFrame.FindStringSubmatch(line); m != nil {
			r.StackFrame, r.SpillStores, r.SpillLoads = atoi(m[1]), atoi(m[2]), atoi(m[3])
		}
		if m := reUsed.FindStringSubmatch(line); m != nil {
			r.Registers = atoi(m[1])
			if m := reSmem.FindStringSubmatch(line); m != nil {
				r.SharedBytes = atoi(m[1])
			}
			if m := reCmem0.FindStringSubmatch(line); m != nil {
				r.ConstantBytes = atoi(m[1])
			}
			if m := reBarriers.FindStringSubmatch(line); m != nil {
				r.Barriers = atoi(m[1])
			}
		}
	}
	if len(res) == 0 && (strings.Contains(log, "fatal") || strings.Contains(log, "error")) {
		return nil, fmt.Errorf("ptxas report: %s", strings.TrimSpace(log))
	}
	return res, nil
}
