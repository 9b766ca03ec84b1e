package backend

import (
	"runtime"
	"sync"
)

// A packed SGEMM in the style of BLIS/GotoBLAS: C is computed in tiles of
// mr×nr by a register-blocked micro-kernel (AVX-512 or AVX2+FMA assembly on
// amd64) that reads A and B from packed panels, kc deep, so the inner loop
// streams contiguous memory from L1/L2. Work is split over cores by columns
// or rows of C. It is about three times gonum's SGEMM on the shapes of a
// linear layer (see BenchmarkGEMM). Products x·Wᵀ with few rows take the
// inner-product path of sgemm_skinny.go instead.
const (
	mr = 6   // rows of a micro-tile
	nr = 32  // columns of a micro-tile (two 16-float or four 8-float vectors)
	kc = 256 // depth of a packed panel
	mc = 96  // rows of A packed at a time (a multiple of mr)
)

// sgemm computes c = op(a)·op(b) + beta·c for row-major matrices; op(a) is
// m×k (a is k×m when transA), op(b) is k×n (n×k when transB).
func sgemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if useSkinny(transA, transB, m) {
		sgemmSkinnyNT(m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sgemmPacked(transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc)
}

// sgemmPacked is sgemm through packed panels, whatever the shape.
func sgemmPacked(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	workers := runtime.GOMAXPROCS(0)
	if float64(m)*float64(n)*float64(k) < 1<<18 {
		workers = 1
	}
	// Split along the larger side of C, in whole micro-tiles.
	splitCols := n >= m
	tiles := (m + mr - 1) / mr
	if splitCols {
		tiles = (n + nr - 1) / nr
	}
	workers = min(workers, tiles)
	if workers <= 1 {
		sgemmSerial(transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	per := (tiles + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		t0, t1 := w*per, min((w+1)*per, tiles)
		if t0 >= t1 {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if splitCols {
				j0, j1 := t0*nr, min(t1*nr, n)
				boff := j0
				if transB {
					boff = j0 * ldb
				}
				sgemmSerial(transA, transB, m, j1-j0, k, a, lda, b[boff:], ldb, beta, c[j0:], ldc)
			} else {
				i0, i1 := t0*mr, min(t1*mr, m)
				aoff := i0 * lda
				if transA {
					aoff = i0
				}
				sgemmSerial(transA, transB, i1-i0, n, k, a[aoff:], lda, b, ldb, beta, c[i0*ldc:], ldc)
			}
		}()
	}
	wg.Wait()
}

func sgemmSerial(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	// With beta 0 the first panel's products are stored rather than added,
	// so C is not cleared first (one pass over C fewer).
	overwrite := beta == 0 && k > 0
	if beta != 1 && !overwrite {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if k == 0 {
		return
	}
	nStrips := (n + nr - 1) / nr
	kb0 := min(kc, k)
	bufs := packPool.Get().(*packBuffers)
	defer packPool.Put(bufs)
	bufB := grow(&bufs.b, nStrips*nr*kb0)
	bufA := grow(&bufs.a, mc*kb0)
	var tile [mr * nr]float32
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		add := pc > 0 || !overwrite
		packB(bufB, transB, b, ldb, pc, kb, n)
		for ic := 0; ic < m; ic += mc {
			mb := min(mc, m-ic)
			packA(bufA, transA, a, lda, ic, mb, pc, kb)
			for js := range nStrips {
				j := js * nr
				bp := bufB[js*kb*nr:]
				for is := 0; is*mr < mb; is++ {
					i := ic + is*mr
					ap := bufA[is*kb*mr:]
					if i+mr <= m && j+nr <= n {
						microKernel(kb, ap, bp, c[i*ldc+j:], ldc, add)
						continue
					}
					microKernel(kb, ap, bp, tile[:], nr, false)
					for ii := 0; ii < mr && i+ii < m; ii++ {
						crow := c[(i+ii)*ldc+j : (i+ii)*ldc+min(j+nr, n)]
						if !add {
							copy(crow, tile[ii*nr:])
							continue
						}
						for jj := range crow {
							crow[jj] += tile[ii*nr+jj]
						}
					}
				}
			}
		}
	}
}

// packBuffers are the packed panels of one sgemmSerial call, pooled because
// attention calls it many times per layer.
type packBuffers struct{ a, b []float32 }

var packPool = sync.Pool{New: func() any { return new(packBuffers) }}

func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// packB lays rows pc..pc+kb of op(b) into strips of nr columns, each strip
// kb×nr contiguous; columns past n are zero.
func packB(dst []float32, transB bool, b []float32, ldb, pc, kb, n int) {
	nStrips := (n + nr - 1) / nr
	for s := range nStrips {
		strip := dst[s*kb*nr : (s+1)*kb*nr]
		j0 := s * nr
		w := min(nr, n-j0)
		if w < nr {
			clear(strip)
		}
		switch {
		case !transB && w == nr:
			for p := range kb {
				*(*[nr]float32)(strip[p*nr:]) = *(*[nr]float32)(b[(pc+p)*ldb+j0:])
			}
		case !transB:
			for p := range kb {
				copy(strip[p*nr:p*nr+w], b[(pc+p)*ldb+j0:])
			}
		default:
			// Column j of op(b) is row j of b. Eight of them at a time, so
			// that the reads stream along eight rows and each write fills
			// eight consecutive floats of the strip.
			jj := 0
			for ; jj+8 <= w; jj += 8 {
				packCols8(strip[jj:], b[(j0+jj)*ldb+pc:], ldb, kb)
			}
			for ; jj < w; jj++ {
				col := b[(j0+jj)*ldb+pc:][:kb]
				for p, v := range col {
					strip[p*nr+jj] = v
				}
			}
		}
	}
}

// packCols8 writes b[r·ldb+p] to dst[p·nr+r] for r < 8, p < kb: eight rows
// of b become eight consecutive columns of a packed B strip.
func packCols8(dst, b []float32, ldb, kb int) {
	r0 := b[:kb]
	r1 := b[ldb:][:len(r0)]
	r2 := b[2*ldb:][:len(r0)]
	r3 := b[3*ldb:][:len(r0)]
	r4 := b[4*ldb:][:len(r0)]
	r5 := b[5*ldb:][:len(r0)]
	r6 := b[6*ldb:][:len(r0)]
	r7 := b[7*ldb:][:len(r0)]
	for p := range r0 {
		d := (*[8]float32)(dst[p*nr:])
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// packA's unrolled loop is written for mr = 6.
const _, _ uint = mr - 6, 6 - mr

// packA lays rows ic..ic+mb, columns pc..pc+kb of op(a) into strips of mr
// rows, each kb×mr contiguous (column p of the strip is mr values); rows
// past the block are zero.
func packA(dst []float32, transA bool, a []float32, lda, ic, mb, pc, kb int) {
	if transA {
		// Row p of a holds column p of op(a): read it once, contiguously,
		// and deal it out to the strips, rather than visiting each cache
		// line once per strip.
		full := mb / mr
		for p := range kb {
			row := a[(pc+p)*lda+ic:][:mb]
			for s := range full {
				*(*[mr]float32)(dst[s*kb*mr+p*mr:]) = *(*[mr]float32)(row[s*mr:])
			}
			if h := mb - full*mr; h > 0 {
				d := dst[full*kb*mr+p*mr:][:mr]
				copy(d, row[full*mr:])
				clear(d[h:])
			}
		}
		return
	}
	for s := 0; s*mr < mb; s++ {
		strip := dst[s*kb*mr : (s+1)*kb*mr]
		i0 := ic + s*mr
		h := min(mr, mb-s*mr)
		if h < mr {
			clear(strip)
			for ii := range h {
				row := a[(i0+ii)*lda+pc:][:kb]
				for p, v := range row {
					strip[p*mr+ii] = v
				}
			}
			continue
		}
		// All mr = 6 rows at once (checked at compile time below): the
		// reads stream along the rows, each write fills a column of the strip.
		r0 := a[i0*lda+pc:][:kb]
		r1 := a[(i0+1)*lda+pc:][:len(r0)]
		r2 := a[(i0+2)*lda+pc:][:len(r0)]
		r3 := a[(i0+3)*lda+pc:][:len(r0)]
		r4 := a[(i0+4)*lda+pc:][:len(r0)]
		r5 := a[(i0+5)*lda+pc:][:len(r0)]
		for p := range r0 {
			d := (*[mr]float32)(strip[p*mr:])
			d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
	}
}

// microKernelGo is the portable micro-kernel: c[mr×nr] (row stride ldc) +=
// (or, without add, =) the product of a packed A strip and a packed B strip
// of depth k.
func microKernelGo(k int, a, b, c []float32, ldc int, add bool) {
	var acc [mr * nr]float32
	for p := range k {
		ap := a[p*mr : p*mr+mr]
		bp := b[p*nr : p*nr+nr]
		for i, av := range ap {
			row := acc[i*nr : i*nr+nr]
			for j, bv := range bp {
				row[j] += av * bv
			}
		}
	}
	for i := range mr {
		crow := c[i*ldc : i*ldc+nr]
		if !add {
			copy(crow, acc[i*nr:])
			continue
		}
		for j := range crow {
			crow[j] += acc[i*nr+j]
		}
	}
}
