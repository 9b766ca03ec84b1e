package document

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// wasmPageBytes is the size of one WebAssembly memory page.
const wasmPageBytes = 64 << 10

// pdfEngine runs PDFium compiled to WebAssembly under wazero: pure Go, no
// cgo, and sandboxed: the module sees no file system, its memory is capped,
// and a call that runs too long is interrupted by cancelling its context.
// Compiling the module takes a second or more, so it happens once, on the
// first PDF, and the compiled module is reused; each document gets a fresh
// module instance, so one hostile file cannot leave state behind for the
// next.
type pdfEngine struct {
	memoryBytes int64
	cacheDir    string

	mu    sync.Mutex
	pool  pdfium.Pool
	cache wazero.CompilationCache
	err   error
}

func (e *pdfEngine) instance(ctx context.Context) (pdfium.Pdfium, error) {
	e.mu.Lock()
	if e.pool == nil && e.err == nil {
		pages := uint32(min(max(e.memoryBytes, MinPDFMemoryBytes), MaxPDFMemoryBytes) / wasmPageBytes)
		rc := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(pages).
			WithCloseOnContextDone(true)
		if e.cacheDir != "" {
			// A cache that cannot be opened costs time, not correctness.
			if cache, err := wazero.NewCompilationCacheWithDir(e.cacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
				e.cache = cache
			}
		}
		e.pool, e.err = webassembly.Init(webassembly.Config{
			// As many documents at once as there are CPUs; more wait.
			MaxTotal: runtime.GOMAXPROCS(0),
			// No file system: documents are passed as bytes.
			FSConfig:      wazero.NewFSConfig(),
			Stdout:        io.Discard,
			Stderr:        io.Discard,
			RuntimeConfig: rc,
		})
		if e.err != nil {
			e.err = fmt.Errorf("start the PDF engine: %w", e.err)
		}
	}
	pool, err := e.pool, e.err
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return pool.GetInstanceWithContext(ctx)
}

func (e *pdfEngine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pool == nil {
		return nil
	}
	err := e.pool.Close()
	if e.cache != nil {
		e.cache.Close(context.Background())
	}
	e.pool, e.err = nil, errors.New("the PDF engine is closed")
	return err
}

// pages returns the text of each page of a PDF, in order; a page without
// text is an empty string, so that page i is always pages[i-1]. It stops
// with an *Error when the document is malformed, encrypted, has more than
// maxPages pages, exhausts the engine's memory, or takes longer than
// timeout once the engine has started on it.
func (e *pdfEngine) pages(ctx context.Context, timeout time.Duration, data []byte, maxPages int) ([]string, error) {
	inst, err := e.instance(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	type result struct {
		pages []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			// go-pdfium turns most engine failures into errors; a panic
			// left over is still a bad document, not a crashed server.
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("PDF engine panic: %v", r)}
			}
		}()
		p, err := readPages(inst, data, maxPages)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		inst.Close()
		if r.err != nil {
			return nil, pdfError(r.err, e.memoryBytes)
		}
		return r.pages, nil
	case <-ctx.Done():
		// Kill cancels the instance's context, which makes wazero abort
		// the call in flight; wait for it so that nothing outlives us.
		inst.Kill()
		<-done
		return nil, timeoutError(ctx)
	}
}

func readPages(inst pdfium.Pdfium, data []byte, maxPages int) ([]string, error) {
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return nil, err
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, err
	}
	if count.PageCount > maxPages {
		return nil, &Error{Kind: TooManyPieces, Msg: fmt.Sprintf("the PDF has %d pages, more than the %d pieces a document may have", count.PageCount, maxPages)}
	}
	pages := make([]string, 0, count.PageCount)
	for i := range count.PageCount {
		text, err := pageText(inst, doc.Document, i)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		pages = append(pages, text)
	}
	return pages, nil
}

func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (string, error) {
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
	})
	if err != nil {
		return "", err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", err
	}
	if n.Count <= 0 {
		return "", nil
	}
	t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: n.Count})
	if err != nil {
		return "", err
	}
	// PDFium ends lines with CRLF and marks where it guessed a line-end
	// hyphen with U+0002 (kept as the hyphen it was).
	return strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x02", "-", "\x00", "").Replace(t.Text), nil
}
