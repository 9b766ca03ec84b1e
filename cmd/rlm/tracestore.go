package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// openRunTraces opens the disk trace store that `rlm eval` and `rlm train rl`
// record their runs in: dir, or OUT/traces when dir is empty; nil when dir
// is "none". cmd names the command in errors.
func openRunTraces(cmd, dir, out, owner string) (*tracing.Service, error) {
	if dir == "none" {
		return nil, nil
	}
	if dir == "" {
		dir = filepath.Join(out, "traces")
	}
	if !tracing.ValidName(owner) {
		return nil, badFlag("%s: --trace-owner %q: use letters, digits, '-', '_' and '.'", cmd, owner)
	}
	st, err := store.OpenDisk(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: --traces: %w", cmd, err)
	}
	return tracing.NewService(tracing.Config{Store: st,
		IsNotFound: func(err error) bool { return errors.Is(err, store.ErrNotFound) }}), nil
}
