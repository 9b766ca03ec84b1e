#!/usr/bin/env bash
# Regenerates the committed PTX of the CUDA backend from kernels.cu with
# Debian's clang (apt-get install clang-19): no CUDA toolkit needed. The
# driver compiles the PTX for the GPU at load time. CI runs this and fails
# if the committed files differ (TestPTXMatchesSources).
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
out=${1:-..}
for arch in sm_80 sm_90; do
  case $arch in sm_80) ptx=ptx70 ;; sm_90) ptx=ptx78 ;; esac
  "$CLANG" --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=$arch \
    -Xclang -target-feature -Xclang +$ptx -std=c++17 -O3 -ffp-contract=fast \
    -Wall -Werror -S -o "$out/kernels_$arch.ptx" kernels.cu
done
