package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/recursion/upstream"
)

// probeForRun is the start probe of `rlm query` and `rlm eval`: one line
// on stderr when the upstream is down or does not list a model, nothing
// when it is fine. The run goes on either way (its calls name the error).
// The gateway probes for `rlm serve` (gateway.ProbeConfig).
func probeForRun(ctx context.Context, e *gateway.Engine, ec *engineConfig, stderr io.Writer) {
	if e.Upstream == nil {
		return
	}
	res := e.Upstream.Probe(ctx, ec.ProbeTimeout, ec.RootModel, ec.SubModel)
	if res.Status.Down() || res.Status == upstream.ProbeModelNotListed {
		fmt.Fprintf(stderr, "rlm: warning: upstream %s: %s: %s\n", upstream.RedactURL(ec.Upstream), res.Status, res.Detail)
	}
}
