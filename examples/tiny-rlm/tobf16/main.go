// Command tobf16 rewrites a Qwen3 checkpoint's weights in bf16, the dtype
// the built-in model ships in (examples/tiny-rlm/ship.sh runs it on an f32
// checkpoint, such as train.sh's SFT output):
//
//	go run ./examples/tiny-rlm/tobf16 SRC_DIR DST_DIR
//
// DST_DIR gets model.safetensors (bf16), config.json and SRC_DIR's
// tokenizer files.
package main

import (
	"fmt"
	"os"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tobf16 SRC_DIR DST_DIR")
		os.Exit(2)
	}
	src, dst := os.Args[1], os.Args[2]
	m, err := model.Load(backend.CPU{}, src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tobf16:", err)
		os.Exit(1)
	}
	if err := m.Save(dst, model.SaveOptions{DType: safetensors.BF16, CopyFrom: src}); err != nil {
		fmt.Fprintln(os.Stderr, "tobf16:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s in bf16\n", dst)
}
