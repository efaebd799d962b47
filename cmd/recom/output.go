package main

import (
	"github.com/recom-compiler/recom/cmd/internal/outfile"
	"github.com/recom-compiler/recom/interp/npz"
)

// writeOutput writes data to the output file path through package outfile
// (atomically, through links, never over a read-only file, removed on
// SIGINT/SIGTERM; "-" is standard output).
func writeOutput(path string, data []byte) error {
	f, err := outfile.Create(path, nil)
	if err != nil {
		return err
	}
	defer f.Abort()
	f.Write(data)
	return f.Commit()
}

// writeNPZFile writes arrays to the .npz output file path as writeOutput
// writes a file.
func writeNPZFile(path string, arrays []npz.Array) error {
	f, err := outfile.Create(path, nil)
	if err != nil {
		return err
	}
	defer f.Abort()
	return commitNPZ(f, arrays)
}
