package backend

import (
	"runtime"
	"sync"
)

// Products with few rows against a weight stored row-major as out×in (x·Wᵀ,
// the forward of every linear layer) take an unpacked inner-product path:
// four rows of W at a time, a kcSkinny-deep slice of them kept in L1 while
// every row of A passes over it, each element of C a vectorized dot product
// along k. Decoding multiplies one row per sequence by every weight:
// packing W there copies the whole weight to use each element a handful of
// times, far below memory bandwidth, while this path reads W once per call
// (BenchmarkGEMMSkinny).
//
// Every row of C is computed the same way whatever the number of rows, so
// the CPU backend's BatchInvariant mode takes this path at every size.
const (
	// skinnyMaxM is the most rows for which sgemm takes this path by
	// default; it stays ahead of the packed path up to about 64 rows.
	skinnyMaxM = 64
	// kcSkinny floats of four W rows (16 KiB) stay in L1 beside A's slice.
	kcSkinny = 1024
)

// useSkinny reports whether sgemm should take the inner-product path.
func useSkinny(transA, transB bool, m int) bool {
	return !transA && transB && m <= skinnyMaxM
}

// sgemmSkinnyNT computes c = a·bᵀ + beta·c where a is m×k (row stride lda)
// and b is n×k (row stride ldb), splitting the columns of C over cores.
func sgemmSkinnyNT(m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	workers := runtime.GOMAXPROCS(0)
	if float64(m)*float64(n)*float64(k) < 1<<18 {
		workers = 1
	}
	blocks := (n + 3) / 4
	workers = min(workers, blocks)
	if workers <= 1 {
		skinnySerial(m, 0, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	per := (blocks + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		j0, j1 := w*per*4, min((w+1)*per*4, n)
		if j0 >= j1 {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			skinnySerial(m, j0, j1, k, a, lda, b, ldb, beta, c, ldc)
		}()
	}
	wg.Wait()
}

// skinnySerial computes columns j0..j1 of C.
func skinnySerial(m, j0, j1, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := range m {
		row := c[i*ldc+j0 : i*ldc+j1]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= beta
			}
		}
	}
	// k is sliced the same way for any m, so that a row's result never
	// depends on how many rows share the call.
	for p0 := 0; p0 < k; p0 += kcSkinny {
		kb := min(kcSkinny, k-p0)
		j := j0
		for ; j+4 <= j1; j += 4 {
			bp := b[j*ldb+p0:]
			for i := range m {
				var s [4]float32
				dot4(kb, a[i*lda+p0:], bp, ldb, &s)
				crow := c[i*ldc+j : i*ldc+j+4]
				crow[0] += s[0]
				crow[1] += s[1]
				crow[2] += s[2]
				crow[3] += s[3]
			}
		}
		for ; j < j1; j++ {
			brow := b[j*ldb+p0 : j*ldb+p0+kb]
			for i := range m {
				arow := a[i*lda+p0 : i*lda+p0+kb]
				var s float32
				for p, v := range brow {
					s += arow[p] * v
				}
				c[i*ldc+j] += s
			}
		}
	}
}

// dot4Go is the portable dot4.
func dot4Go(k int, a, b []float32, ldb int, s *[4]float32) {
	for r := range 4 {
		brow := b[r*ldb : r*ldb+k]
		var sum float32
		for p, v := range brow {
			sum += a[p] * v
		}
		s[r] += sum
	}
}
