package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// ParseSize reads a byte count with an optional unit: 512MiB, 64MB, 1048576.
func ParseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a positive size like 512MiB: %q", v)
	}
	return n * mult, nil
}

// FormatSize writes n the way ParseSize reads it, in the largest binary
// unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseKVCache reads the size of the KV cache pool: bytes with a unit
// (4GiB, 512MiB) or tokens with the suffix "tokens" (65536tokens).
func ParseKVCache(v string) (inference.Config, error) {
	var c inference.Config
	if n, ok := strings.CutSuffix(strings.TrimSpace(v), "tokens"); ok {
		t, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || t <= 0 {
			return c, fmt.Errorf("not a positive token count like 65536tokens: %q", v)
		}
		c.KVCacheTokens = t
		return c, nil
	}
	b, err := ParseSize(v)
	if err != nil {
		return c, fmt.Errorf("not a size like 4GiB or a token count like 65536tokens: %q", v)
	}
	c.KVCacheBytes = b
	return c, nil
}

// OpenRunTraces opens the disk trace store that `rlm eval` and `rlm train rl`
// record their runs in: dir, or OUT/traces when dir is empty; nil when dir
// is "none". cmd names the command in errors.
func OpenRunTraces(cmd, dir, out, owner string) (*tracing.Service, error) {
	if dir == "none" {
		return nil, nil
	}
	if dir == "" {
		dir = filepath.Join(out, "traces")
	}
	if !tracing.ValidName(owner) {
		return nil, BadFlag("%s: --trace-owner %q: use letters, digits, '-', '_' and '.'", cmd, owner)
	}
	st, err := store.OpenDisk(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: --traces: %w", cmd, err)
	}
	return tracing.NewService(tracing.Config{Store: st}), nil
}
