package compiler

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/textir"
)

// VectorLoads counts the 16-byte vector loads of a PTX module
// (ld.global[.nc].v4.{f32,b32,u32,s32} and v2 of 64-bit types).
func VectorLoads(ptx []byte) int {
	n := 0
	for _, line := range bytes.Split(ptx, []byte("\n")) {
		l := bytes.TrimSpace(line)
		if !bytes.HasPrefix(l, []byte("ld.global")) {
			continue
		}
		if bytes.Contains(l, []byte(".v4.f32")) || bytes.Contains(l, []byte(".v4.b32")) ||
			bytes.Contains(l, []byte(".v4.u32")) || bytes.Contains(l, []byte(".v4.s32")) ||
			bytes.Contains(l, []byte(".v2.f64")) || bytes.Contains(l, []byte(".v2.b64")) ||
			bytes.Contains(l, []byte(".v2.u64")) || bytes.Contains(l, []byte(".v2.s64")) {
			n++
		}
	}
	return n
}

// removalStat reports whether a statistic counts ops a rewrite removed.
func removalStat(name string) bool {
	return strings.Contains(name, "removed") || strings.Contains(name, "removal")
}

// WriteSummary writes the human-readable report of a compilation (what
// `recom compile` writes to DIR/summary.txt and prints): the model, the
// columns by kind, the ops each rewrite removed, ops before and after each
// stage with its time, the kernels, ptxas's resources where it ran, and
// every pass statistic. Lines start with a fixed word so that tests can
// match them.
func (r *Result) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s", r.Model)
	if r.From != "" {
		fmt.Fprintf(&b, " (%s at stage %s)", r.Format, r.From)
	} else if r.Format != "" {
		fmt.Fprintf(&b, " (%s, %d nodes", r.Format, r.FileNodes)
		if r.Nodes != r.FileNodes {
			fmt.Fprintf(&b, ", %d after extraction", r.Nodes)
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	if r.Weights != nil {
		fmt.Fprintf(&b, "weights: %s\n", r.Weights)
	}
	if len(r.PassOptions) > 0 {
		b.WriteString("pass options:")
		for _, f := range slices.Sorted(maps.Keys(r.PassOptions)) {
			fmt.Fprintf(&b, " --%s='%s'", f, r.PassOptions[f])
		}
		b.WriteString("\n")
	}

	if kinds, total := r.ColumnKinds(); r.Stage(StageLowerEmb) != nil {
		fmt.Fprintf(&b, "\ncolumns: %d\n", total)
		for _, k := range kinds {
			fmt.Fprintf(&b, "  %-16s %6d\n", k.Name, k.Value)
		}
		r.writeFusedColumns(&b, total)
	}

	var removals []string
	for _, s := range r.Stages {
		for _, st := range s.Stats {
			if removalStat(st.Name) {
				removals = append(removals, fmt.Sprintf("  %-16s %-30s %7d\n", s.Name, st.Name, st.Value))
			}
		}
	}
	if len(removals) > 0 {
		b.WriteString("\nops removed by rewrites:\n")
		for _, l := range removals {
			b.WriteString(l)
		}
	}

	b.WriteString("\nstages:\n")
	fmt.Fprintf(&b, "  %-16s %10s %10s %10s  %s\n", "stage", "before", "after", "time", "after, by dialect")
	for _, s := range r.Stages {
		st, _ := LookupStage(s.Name)
		switch st.Kind {
		case KindImport:
			fmt.Fprintf(&b, "  %-16s %10s %10d %10s  %s\n", s.Name, fmt.Sprintf("%d nodes", r.Nodes), s.After.Total(), secs(s.Wall), s.After)
		case KindPass:
			fmt.Fprintf(&b, "  %-16s %10d %10d %10s  %s\n", s.Name, s.Before.Total(), s.After.Total(), secs(s.Wall), s.After)
		case KindLLVM:
			fmt.Fprintf(&b, "  %-16s %10s %10s %10s  %s\n", s.Name, "", fmt.Sprintf("%d B", s.Size), secs(s.Wall),
				fmt.Sprintf("%s: %d lines", FileName(s.Name), bytes.Count(r.LLVM, []byte("\n"))))
		case KindPTX:
			fmt.Fprintf(&b, "  %-16s %10s %10s %10s  %s\n", s.Name, "", fmt.Sprintf("%d B", s.Size), secs(s.Wall),
				fmt.Sprintf("%s: %d lines, %d 16-byte loads", FileName(s.Name), bytes.Count(r.PTX, []byte("\n")), VectorLoads(r.PTX)))
		case KindCubin:
			fmt.Fprintf(&b, "  %-16s %10s %10s %10s  %s\n", s.Name, "", fmt.Sprintf("%d B", s.Size), secs(s.Wall), FileName(s.Name))
		}
	}
	fmt.Fprintf(&b, "  %-16s %10s %10s %10s\n", "total", "", "", secs(r.Wall()))
	if p := r.PrintWall(); p > 0 {
		fmt.Fprintf(&b, "  %-16s %10s %10s %10s  (not in the stages' times)\n", "printing IR", "", "", secs(p))
	}

	fmt.Fprintf(&b, "\nkernels: %d", len(r.Kernels))
	if len(r.Kernels) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(r.Kernels, ", "))
	}
	b.WriteString("\n")
	for _, l := range r.Layers() {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if r.Cubin != nil {
		for _, res := range r.Cubin.Resources {
			if !res.Entry {
				continue
			}
			fmt.Fprintf(&b, "  %s: %d registers, %d bytes shared, %d bytes stack, %d/%d bytes spill stores/loads\n",
				res.Function, res.Registers, res.SharedBytes, res.StackFrame, res.SpillStores, res.SpillLoads)
		}
	}
	if len(r.Diagnostics) > 0 {
		count := map[string]int{}
		for _, d := range r.Diagnostics {
			count[d.Severity.String()]++
		}
		b.WriteString("diagnostics:")
		for _, sev := range slices.Sorted(maps.Keys(count)) {
			fmt.Fprintf(&b, " %d %s", count[sev], sev)
		}
		b.WriteString(" (printed on stderr)\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}

	first := true
	for _, s := range r.Stages {
		if len(s.Stats) == 0 {
			continue
		}
		if first {
			b.WriteString("\npass statistics:\n")
			first = false
		}
		fmt.Fprintf(&b, "  %s\n", s.Name)
		for _, st := range s.Stats {
			fmt.Fprintf(&b, "    %-36s %8d\n", st.Name, st.Value)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Layers describes each fused.embedding_layer of the module: its kernel,
// schedule, columns, output width and block size.
func (r *Result) Layers() []string {
	if r.Module == nil || r.Stage(StageFuse) == nil {
		return nil
	}
	var out []string
	r.Module.Walk(func(op *textir.Operation) bool {
		if op.Name() != fused.EmbeddingLayerOp {
			return true
		}
		l, err := abi.LayerOf(op)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", op.Name(), err))
			return false
		}
		kernel := "?"
		if ref, ok := op.Attr("kernel").(textir.SymbolRefAttr); ok {
			kernel = textir.AttrString(ref)
		}
		classes := map[int64]bool{}
		for _, c := range l.Columns {
			classes[c.Class] = true
		}
		out = append(out, fmt.Sprintf("%s: schedule %s, %d columns, width %d, block %d, %d schedule classes", kernel, l.Schedule, len(l.Columns), l.Width, l.Block, len(classes)))
		return false
	})
	return out
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// writeFusedColumns says how many of the columns went into a fused kernel,
// which did not and why, and how many indicator columns the dense part
// keeps.
func (r *Result) writeFusedColumns(b *strings.Builder, total int64) {
	var unmatched []string
	for _, d := range r.Diagnostics {
		if m := d.Message; strings.HasPrefix(m, "column ") && strings.Contains(m, " stays in tfg: ") {
			unmatched = append(unmatched, m)
		}
	}
	fuseRan := r.Stage(StageFuse) != nil
	if fuseRan {
		n := 0
		kernels := map[string]bool{}
		for _, c := range r.Columns {
			if c.Kernel != "" {
				n++
				kernels[c.Kernel] = true
			}
		}
		fmt.Fprintf(b, "  fused            %6d of %d", n, total)
		// The columns' kernels only: the dense layers' kernels are
		// counted apart, so that the count does not read as the layer's.
		if k := len(kernels); k > 0 {
			fmt.Fprintf(b, " (into %d embedding kernel%s", k, plural(k))
			if r.Module != nil {
				if d := denseKernels(r.Module); d > 0 {
					fmt.Fprintf(b, "; %d dense-layer kernel%s besides", d, plural(d))
				}
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
		if st := r.Stage(StageFuse); st != nil && n > 0 {
			inKernel, host := st.Stat("id-chains"), st.Stat("host-id-chains")
			fmt.Fprintf(b, "  %-16s %6d of %d", "ids in kernel", inKernel, n)
			var parts []string
			if host > 0 {
				parts = append(parts, fmt.Sprintf("%d computed before the layer", host))
			}
			if rest := int64(n) - inKernel - host; rest > 0 {
				parts = append(parts, fmt.Sprintf("%d raw ids from the feeds", rest))
			}
			if len(parts) > 0 {
				fmt.Fprintf(b, " (%s)", strings.Join(parts, ", "))
			}
			b.WriteString("\n")
		}
		for _, c := range r.Columns {
			if c.Kernel == "" {
				why := r.columnRemark(c, embtogpu.RemarkNotFused)
				if why == "" {
					why = fmt.Sprintf("its %s does not reach a concatenation or sum of lookups (see the remarks)", c.Lookup)
				}
				fmt.Fprintf(b, "  not fused: %s: %s\n", c.Name, why)
			}
		}
		for _, c := range r.Columns {
			if why := r.columnRemark(c, embtogpu.RemarkHostIDs); c.Kernel != "" && why != "" {
				fmt.Fprintf(b, "  ids before the layer: %s: %s\n", c.Name, why)
			}
		}
	}
	for _, m := range unmatched {
		fmt.Fprintf(b, "  not lowered: %s\n", strings.TrimPrefix(m, "column "))
	}
	if n := r.indicators(); n > 0 {
		fmt.Fprintf(b, "  %-16s %6d  (one-hot, no table: not embedding columns, left in the dense part)\n", "indicator", n)
	}
}

// columnRemark returns the text after kind (embtogpu.RemarkNotFused or
// RemarkHostIDs) of --fuse's remark on column c's lookup, or "".
func (r *Result) columnRemark(c *Column, kind string) string {
	if c.Name == "" {
		return ""
	}
	key := "(node " + textir.Quote(c.Name) + ") " + kind
	for _, d := range r.Diagnostics {
		if d.Severity != textir.SevRemark {
			continue
		}
		if _, why, ok := strings.Cut(d.Message, key); ok && strings.HasPrefix(d.Message, "'"+emb.Name+".") {
			return why
		}
	}
	return ""
}

// indicators counts the tfg.OneHot ops left in the module: indicator
// columns, which have no table and are not embedding columns.
func (r *Result) indicators() int {
	if r.Module == nil {
		return 0
	}
	n := 0
	r.Module.Walk(func(op *textir.Operation) bool {
		if op.Name() == "tfg.OneHot" {
			n++
		}
		return op.Name() != "gpu.module"
	})
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
