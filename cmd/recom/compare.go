package main

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

func newCompareCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var rtol, atol float64
	cmd := &cobra.Command{
		Use:   "compare A.npz B.npz",
		Short: "compare two .npz files of outputs",
		Long: `Compares two .npz files array by array. They must hold the same array
names ("node:idx" and "node__idx" name the same array), each with the same
dtype and shape. Floating-point arrays match when every element satisfies
|a - b| <= atol + rtol * |b| (NaN matches NaN); other arrays must be equal.

Exit status 0 with a one-line summary when they match; 1 when they differ,
printing the worst element of each differing array (array, index, both
values); 2 on other errors.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(args[0], args[1], rtol, atol, stdout, stderr)
		},
	}
	cmd.Flags().Float64Var(&rtol, "rtol", 1e-5, "relative tolerance for floats")
	cmd.Flags().Float64Var(&atol, "atol", 1e-6, "absolute tolerance for floats")
	return cmd
}

func readArrays(path string) (map[string]*interp.Tensor, error) {
	arrays, err := npz.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*interp.Tensor, len(arrays))
	for _, a := range arrays {
		name := tensorName(a.Name)
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("%s: array %q appears twice", path, name)
		}
		m[name] = a.Tensor
	}
	return m, nil
}

func runCompare(pa, pb string, rtol, atol float64, stdout, stderr io.Writer) error {
	if rtol < 0 || atol < 0 {
		return errors.New("compare: tolerances must be non-negative")
	}
	a, err := readArrays(pa)
	if err != nil {
		fmt.Fprintf(stderr, "recom: error: %v\n", err)
		return exitError(2)
	}
	b, err := readArrays(pb)
	if err != nil {
		fmt.Fprintf(stderr, "recom: error: %v\n", err)
		return exitError(2)
	}
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	sorted := make([]string, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	differ, elems := 0, 0
	for _, k := range sorted {
		x, inA := a[k]
		y, inB := b[k]
		switch {
		case !inA:
			fmt.Fprintf(stdout, "%s: only in %s\n", k, pb)
			differ++
			continue
		case !inB:
			fmt.Fprintf(stdout, "%s: only in %s\n", k, pa)
			differ++
			continue
		}
		elems += x.Len()
		if err := x.AllClose(y, rtol, atol); err != nil {
			differ++
			var me *interp.MismatchError
			if errors.As(err, &me) && me.Reason == "value" {
				fmt.Fprintf(stdout, "%s: %d of %d elements differ; worst at index %s: %s = %s, %s = %s\n",
					k, me.Count, x.Len(), interp.ShapeString(me.Index), pa, me.Got, pb, me.Want)
			} else {
				fmt.Fprintf(stdout, "%s: %v (%s vs %s)\n", k, err, pa, pb)
			}
		}
	}
	if differ > 0 {
		fmt.Fprintf(stdout, "%d of %d arrays differ (rtol %g, atol %g)\n", differ, len(sorted), rtol, atol)
		return exitError(1)
	}
	fmt.Fprintf(stdout, "match: %d arrays, %d elements (rtol %g, atol %g)\n", len(sorted), elems, rtol, atol)
	return nil
}
