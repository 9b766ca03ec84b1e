// Command emulib builds the CUDA emulator of package cudaemu and prints
// the path of its library. bench/cuda/build.sh carries the library to the
// GPU machine, which has no compiler, where the memory tests compare what
// the GPU takes with the emulator's dry run (RLM_CUDA_EMU_LIB).
package main

import (
	"fmt"
	"os"

	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
)

func main() {
	lib, err := cudaemu.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "emulib:", err)
		os.Exit(1)
	}
	fmt.Println(lib)
}
