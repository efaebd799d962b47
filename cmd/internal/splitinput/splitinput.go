// Package splitinput splits a source file at `// -----` lines, as MLIR's
// --split-input-file does, keeping each chunk's position in the original
// file so that diagnostics can name the original line numbers (parse a
// chunk with textir.ParseAtLine(ctx, file, c.Text, c.FirstLine)). Chunks
// share the source's memory, and splitting takes time linear in it.
package splitinput

import "strings"

// Marker separates chunks of input and of output.
const Marker = "// -----"

// Chunk is one piece of the input.
type Chunk struct {
	// Text is the chunk's lines, without the marker lines around it.
	Text string
	// FirstLine is the 1-based line number of Text's first line in the file.
	FirstLine int
}

// Split cuts src at every line that starts with Marker. Without a marker it
// returns src as one chunk. Each chunk keeps its trailing newline.
func Split(src string) []Chunk {
	var chunks []Chunk
	start, startLine, line := 0, 1, 1
	for i := 0; i <= len(src); {
		end := strings.IndexByte(src[i:], '\n')
		next := len(src) + 1
		if end >= 0 {
			end += i
			next = end + 1
		} else {
			end = len(src)
		}
		if strings.HasPrefix(src[i:end], Marker) {
			chunks = append(chunks, Chunk{Text: src[start:i], FirstLine: startLine})
			start, startLine = min(next, len(src)), line+1
		}
		i = next
		line++
	}
	return append(chunks, Chunk{Text: src[start:], FirstLine: startLine})
}
