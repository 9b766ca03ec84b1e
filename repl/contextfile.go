package repl

import (
	"bufio"
	"fmt"
	"os"
)

// WriteContext writes text held in memory into a new context file in dir
// (os.TempDir() when empty), the pieces separated by a blank line, and
// returns the ContextFile whose Pieces are those pieces. The caller removes
// the file (os.Remove(cf.Path)) when the sessions using it are closed.
func WriteContext(dir string, pieces []string) (*ContextFile, error) {
	f, err := os.CreateTemp(dir, "rlm-context-*.txt")
	if err != nil {
		return nil, fmt.Errorf("create context file: %w", err)
	}
	cf := &ContextFile{Path: f.Name()}
	w := bufio.NewWriterSize(f, 1<<20)
	var off int64
	for i, p := range pieces {
		if i > 0 {
			w.WriteString("\n\n")
			off += 2
		}
		w.WriteString(p)
		cf.Pieces = append(cf.Pieces, Range{Start: off, End: off + int64(len(p))})
		off += int64(len(p))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write context file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("write context file: %w", err)
	}
	return cf, nil
}
