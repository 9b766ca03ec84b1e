//go:build linux && (amd64 || arm64)

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/rlm-project/rlm/model/backend"
)

var _ backend.RowSampler = (*Backend)(nil)

// sampleParam and sampleOut mirror the structs of kernels/paged.cuh.
type sampleParam struct {
	invTemp    float32
	topK, walk int32
	logprobs   int32
	u          float64
}

type sampleOut struct {
	id        int32
	logit     float32
	max       float32
	_         float32
	sum, sumT float64
}

// SampleRows runs sample_rows, one block per row, and brings back the rows'
// results (and top-K lists) in one download.
func (be *Backend) SampleRows(out []backend.SampleResult, logits backend.Buffer, V int, params []backend.SampleParams) {
	rows := len(params)
	if rows == 0 {
		return
	}
	if fb(logits).n < rows*V || len(out) < rows {
		panic(fmt.Sprintf("cuda: SampleRows of %d rows of %d from %d logits into %d results", rows, V, fb(logits).n, len(out)))
	}
	defer be.enter()()
	maxK := 0
	ps := make([]sampleParam, rows)
	for i, p := range params {
		k := min(p.TopK, backend.MaxSampleTopK, V)
		maxK = max(maxK, k)
		ps[i] = sampleParam{invTemp: p.InvTemp, topK: int32(k), u: p.U}
		if p.Walk && p.InvTemp > 0 {
			ps[i].walk = 1
		}
		if p.Logprobs {
			ps[i].logprobs = 1
		}
	}
	pbytes := uint64(rows) * uint64(unsafe.Sizeof(sampleParam{}))
	pdev := be.scratchBuf("sample.params", pbytes)
	be.drv.check(be.drv.cuMemcpyHtoD(pdev, unsafe.Pointer(&ps[0]), pbytes), "upload sampling parameters")
	// One block of results: rows of sampleOut, then the top ids, then the
	// top values.
	outBytes := uint64(rows) * uint64(unsafe.Sizeof(sampleOut{}))
	topBytes := uint64(4 * rows * maxK)
	res := be.scratchBuf("sample.out", outBytes+2*topBytes)
	threads := be.k.sampleRows.threads(min(1024, max(128, V/8))) // a small vocabulary needs few threads
	be.launch(be.k.sampleRows, dim3{uint32(rows), 1, 1}, dim3{uint32(threads), 1, 1}, 0, ptrArg(res), ptrArg(res+outBytes),
		ptrArg(res+outBytes+topBytes), ptrArg(fb(logits).ptr()), ptrArg(pdev), i32Arg(V), i32Arg(maxK))
	words := make([]uint64, (outBytes+2*topBytes+7)/8) // 8-byte aligned for the float64s
	host := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), outBytes+2*topBytes)
	be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&host[0]), res, uint64(len(host))), "download sampling results")
	outs := unsafe.Slice((*sampleOut)(unsafe.Pointer(&host[0])), rows)
	var ids []int32
	var vals []float32
	if maxK > 0 {
		ids = unsafe.Slice((*int32)(unsafe.Pointer(&host[outBytes])), rows*maxK)
		vals = unsafe.Slice((*float32)(unsafe.Pointer(&host[outBytes+topBytes])), rows*maxK)
	}
	for i, o := range outs {
		r := backend.SampleResult{ID: o.id, Logit: o.logit, Max: o.max, SumExp: o.sum, SumExpTemp: o.sumT}
		for k := range int(ps[i].topK) {
			r.Top = append(r.Top, backend.TokenLogit{ID: ids[i*maxK+k], Logit: vals[i*maxK+k]})
		}
		out[i] = r
	}
}

func unsafeInts(v []int32) unsafe.Pointer { return unsafe.Pointer(&v[0]) }
