//go:build !(linux && (amd64 || arm64))

package cuda

import (
	"fmt"
	"runtime"

	"github.com/rlm-project/rlm/model/backend"
)

// Backend is not available on this platform; Open always fails.
type Backend struct{ backend.Backend }

// Open reports that the CUDA backend needs Linux on amd64 or arm64.
func Open(Options) (*Backend, error) {
	return nil, fmt.Errorf("cuda: the CUDA backend runs on linux/amd64 and linux/arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
}
