package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
)

// BenchmarkListStored measures GET /v1/chat/completions over one owner's
// 2,000 stored completions, on disk and on a real redis-server: a first
// page of 20, a page filtered by metadata that matches 1 completion in 100
// (the scan reads 2,000 summaries), and, as the baseline, what listing
// without the index costs: every record read and decoded to sort and
// filter them.
func BenchmarkListStored(b *testing.B) {
	const n = 2000
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"disk", func(b *testing.B) store.Store {
			d, err := store.OpenDisk(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return d
		}},
		{"redis", func(b *testing.B) store.Store {
			r, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: storetest.StartRedis(b), CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { r.Close() })
			return r
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b)
			ts := startServer(b, Config{}, s, nil)
			ctx := context.Background()
			answer := finalResult(string(make([]byte, 2000)))
			for i := range n {
				r := &run{id: ts.newCompletionID(), owner: openOwner, model: "rlm", created: time.Now().Unix(), stored: true}
				md := map[string]string{"i": fmt.Sprint(i), "bucket": fmt.Sprint(i % 100)}
				msgs := []api.Message{{Role: "user", Content: api.TextContent("question")}}
				if err := ts.createStored(ctx, r, msgs, md); err != nil {
					b.Fatal(err)
				}
				comp := ts.completionOf(r, answer)
				comp.Status = "completed"
				if err := ts.saveCompletion(ctx, r, comp); err != nil {
					b.Fatal(err)
				}
			}
			list := func(b *testing.B, query string, want int) {
				for b.Loop() {
					resp, err := http.Get(ts.URL + "/v1/chat/completions?" + query)
					if err != nil {
						b.Fatal(err)
					}
					var p page
					err = json.NewDecoder(resp.Body).Decode(&p)
					resp.Body.Close()
					if err != nil || len(p.Data) != want {
						b.Fatalf("%s: %d items, %v", query, len(p.Data), err)
					}
				}
			}
			b.Run("page20", func(b *testing.B) { list(b, "limit=20", 20) })
			b.Run("page20-desc", func(b *testing.B) { list(b, "limit=20&order=desc", 20) })
			b.Run("filter1in100", func(b *testing.B) { list(b, "limit=20&metadata[bucket]=7", 20) })
			b.Run("baseline-read-all", func(b *testing.B) {
				for b.Loop() {
					keys, err := s.List(ctx, collCompletions, openOwner+"/")
					if err != nil || len(keys) != n {
						b.Fatalf("%d keys, %v", len(keys), err)
					}
					for _, k := range keys {
						rd, err := s.Get(ctx, collCompletions, k)
						if err != nil {
							b.Fatal(err)
						}
						var c api.ChatCompletion
						err = json.NewDecoder(rd).Decode(&c)
						rd.Close()
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}
