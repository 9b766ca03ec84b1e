package eval

import (
	"context"
	"io"
	"testing"
)

// BenchmarkGenerate measures generation speed per task at 1M tokens; the
// bytes/s figure it reports shows how long a 10M-token instance takes to
// write (about ten times one of these).
func BenchmarkGenerate(b *testing.B) {
	for _, task := range []Task{&SNIAH{Depth: 0.5}, Oolong{}, OolongPairs{}} {
		b.Run(task.Name(), func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for i := 0; b.Loop(); i++ {
				inst, err := task.Generate(context.Background(), io.Discard, Spec{Tokens: 1 << 20, Index: i, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				n = inst.Bytes
			}
			b.SetBytes(n)
		})
	}
}
