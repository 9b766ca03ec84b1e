//go:build linux && (amd64 || arm64)

package cuda

import (
	"unsafe"

	"github.com/rlm-project/rlm/training/backend"
)

// The two inference operations run on the host for now: they copy what
// they read to the host, call the reference kernels of training/backend,
// and copy the result back. This is correct but not fast (a decode step
// moves each sequence's K/V blocks over PCIe); device kernels are to
// replace it. ScatterRows is already one device-to-device copy per row.

func (be *Backend) downloadInts(x backend.Ints) []int32 {
	v := ib(x)
	out := make([]int32, v.n)
	if v.n > 0 {
		be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&out[0]), v.ptr(), uint64(4*v.n)), "download %d ints", v.n)
	}
	return out
}

func (be *Backend) ScatterRows(dst, src backend.Buffer, idx backend.Ints, C int) {
	defer be.enter()()
	defer be.wrote(fb(dst))
	d, s := fb(dst), fb(src)
	for n, r := range be.downloadInts(idx) {
		be.drv.check(be.drv.cuMemcpyDtoDAsync(d.ptr()+uint64(4*int(r)*C), s.ptr()+uint64(4*n*C), uint64(4*C), 0), "scatter row %d", n)
	}
}

func (be *Backend) PagedAttention(out, q, kCache, vCache backend.Buffer, blockTable, seq, pos backend.Ints, sh backend.PagedShape) {
	defer be.enter()()
	defer be.wrote(fb(out))
	bt, sq, ps := be.downloadInts(blockTable), be.downloadInts(seq), be.downloadInts(pos)
	hq := make([]float32, fb(q).n)
	be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&hq[0]), fb(q).ptr(), uint64(4*len(hq))), "download q")
	// The host copies of the cache hold only the blocks these rows read,
	// renumbered in the order first met.
	kc, vc := fb(kCache), fb(vCache)
	blockFloats := sh.BlockSize * sh.KV * sh.D
	local := map[int32]int32{}
	var hk, hv []float32
	bt2 := make([]int32, len(bt))
	for n, s := range sq {
		for b := range (int(ps[n]) + sh.BlockSize) / sh.BlockSize {
			i := int(s)*sh.MaxBlocks + b
			blk := bt[i]
			l, ok := local[blk]
			if !ok {
				l = int32(len(local))
				local[blk] = l
				off := int(blk) * blockFloats
				hk = append(hk, make([]float32, blockFloats)...)
				hv = append(hv, make([]float32, blockFloats)...)
				lo := int(l) * blockFloats
				be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&hk[lo]), kc.ptr()+uint64(4*off), uint64(4*blockFloats)), "download K block")
				be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&hv[lo]), vc.ptr()+uint64(4*off), uint64(4*blockFloats)), "download V block")
			}
			bt2[i] = l
		}
	}
	ho := make([]float32, fb(out).n)
	backend.PagedAttention(ho, hq, hk, hv, bt2, sq, ps, sh)
	be.drv.check(be.drv.cuMemcpyHtoD(fb(out).ptr(), unsafe.Pointer(&ho[0]), uint64(4*len(ho))), "upload attention output")
}
