// Package worker is the REPL's worker process: the trusted code that,
// confined by package sandbox, holds one session's interpreter (yaegi, with
// the symbol tables of repl/symbols and the shims of repl/shims) and its
// mapped context, evaluates cells as package rewrite rewrote them, and
// serves its host (package repl) over the pipes of package protocol. The
// host's MaybeRunWorker calls Main.
package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// The confined worker cannot read /usr/share/zoneinfo: time.LoadLocation
	// falls back to this embedded copy.
	_ "time/tzdata"
	"unsafe"

	"github.com/traefik/yaegi/interp"
	"golang.org/x/sys/unix"

	"github.com/rlm-project/rlm/document/lookup"
	"github.com/rlm-project/rlm/repl/protocol"
	"github.com/rlm-project/rlm/repl/rewrite"
	"github.com/rlm-project/rlm/repl/sandbox"
	"github.com/rlm-project/rlm/repl/shims"
	"github.com/rlm-project/rlm/repl/symbols"
)

// Exit codes of a worker that stops on its own.
const (
	exitLimit    = 3 // a watchdog limit was hit; a fatal message says which
	exitProtocol = 4 // the pipe to the parent broke or carried garbage
)

// Main runs this process as a REPL worker, one its pool started
// (protocol.WorkerEnv=1), and returns its exit status: it confines itself,
// builds its interpreter, and serves its session over the protocol's
// descriptors until the parent closes them. repl.MaybeRunWorker calls it.
func Main() int {
	statm, err := sandbox.ConfineWorker()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", protocol.WorkerErrPrefix, err)
		return exitProtocol
	}
	return runWorker(os.NewFile(protocol.InFD, "repl-in"), os.NewFile(protocol.OutFD, "repl-out"), statm)
}

// worker is the trusted side of a session inside the worker process: it owns
// the interpreter, the mapped context and the pipe to the parent.
type worker struct {
	out    *protocol.Writer
	in     *interp.Interpreter
	output capWriter
	trace  traceWriter

	statm    *os.File // /proc/self/statm, opened before confinement
	ctxData  string   // the mapped context file
	contexts []string // pieces of ctxData
	// pieceStarts are the offsets in ctxData where the pieces start.
	pieceStarts []int
	query       string // the request's question (SessionConfig.Query)
	limits      protocol.Limits
	rw          *rewrite.Rewriter
	baseG       int // goroutines of the worker itself, before model code ran
	shims       *shims.Shims
	finalFn     reflect.Value   // FINAL, which formats like fmt.Sprint: a key of the interpreter's MapTypes
	tools       map[string]bool // the client's tools (tools.go)
	images      []string        // the request's images, by name (tools.go)

	mu       sync.Mutex
	cell     *cellState
	panics   []string // goroutine panics that happened between cells
	calls    map[uint64]chan []string
	slots    chan struct{}          // host calls in flight, at most MaxHostCalls
	cells    chan *protocol.Message // cells to run, one at a time (runCells)
	nextCall atomic.Uint64
	fatal    sync.Once
}

// cellState is what host functions need to know about the running cell.
type cellState struct {
	id     uint64
	ctx    context.Context
	cancel context.CancelFunc
	final  *string
	panics []string
	notes  []string // refusals model code could not see, added to the cell's error
}

func runWorker(inF, outF, statm *os.File) int {
	w := &worker{
		statm:  statm,
		out:    protocol.NewWriter(outF),
		calls:  map[uint64]chan []string{},
		limits: protocol.DefaultLimits(),
	}
	w.slots = make(chan struct{}, w.limits.MaxHostCalls)
	// Build the interpreter before the first message arrives: pooled workers
	// do this while they wait for a session.
	w.trace.out = &w.output
	// No collection while the interpreter is built (it collected five
	// times over a heap that only grew), and one once it is: the heap goal
	// is then twice the live heap, so a session's first cells do not start
	// a collection of the whole interpreter (a root turn's p90 27% lower
	// at 1M characters, BENCHMARKS.md).
	gc := debug.SetGCPercent(-1)
	if err := w.newInterpreter(); err != nil {
		fmt.Fprintf(os.Stderr, protocol.WorkerErrPrefix+"%v\n", err)
		return exitProtocol
	}
	runtime.GC()
	debug.SetGCPercent(gc)
	w.cells = make(chan *protocol.Message, 1)
	go w.runCells()
	r := protocol.NewReader(inF)
	for {
		msg, err := r.Recv(protocol.MaxMessage)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0 // the parent closed the session
			}
			fmt.Fprintf(os.Stderr, protocol.WorkerErrPrefix+"%v\n", err)
			return exitProtocol
		}
		switch msg.Kind {
		case protocol.KindInit:
			err := w.init(msg.Context, msg.Query, msg.Limits)
			if err == nil {
				err = w.declareTools(msg.Tools)
			}
			w.images = msg.Images
			reply := &protocol.Message{Kind: protocol.KindReady}
			if err != nil {
				reply.Error = err.Error()
			}
			if err := w.out.Send(reply); err != nil {
				return exitProtocol
			}
		case protocol.KindCell:
			w.cells <- msg
		case protocol.KindCancel:
			w.mu.Lock()
			if w.cell != nil && w.cell.id == msg.ID {
				w.cell.cancel()
			}
			w.mu.Unlock()
		case protocol.KindReply:
			w.mu.Lock()
			ch := w.calls[msg.ID]
			delete(w.calls, msg.ID)
			w.mu.Unlock()
			if ch != nil {
				ch <- msg.Results
			}
		default:
			fmt.Fprintf(os.Stderr, protocol.WorkerErrPrefix+"unknown message kind %q\n", msg.Kind)
		}
	}
}

// init maps the context, sets query and applies the limits; it runs once
// per worker.
func (w *worker) init(cf *protocol.ContextFile, query string, l *protocol.Limits) error {
	w.query = query
	if l != nil {
		w.limits = protocol.OrDefault(*l, protocol.DefaultLimits())
	}
	w.output.max = w.limits.MaxOutput
	w.out.SetLimit(protocol.FrameLimit(w.limits))
	w.slots = make(chan struct{}, w.limits.MaxHostCalls)
	if cf != nil && cf.Path != "" {
		data, err := mapContext()
		if err != nil {
			return err
		}
		w.ctxData = data
		for i, p := range cf.Pieces {
			if p.Start < 0 || p.End < p.Start || p.End > int64(len(data)) {
				return fmt.Errorf("context piece %d [%d,%d) is outside the file of %d bytes", i, p.Start, p.End, len(data))
			}
			w.contexts = append(w.contexts, data[p.Start:p.End])
			w.pieceStarts = append(w.pieceStarts, int(p.Start))
		}
	}
	if err := applyWorkerLimits(w.limits, w.statm); err != nil {
		return err
	}
	w.baseG = runtime.NumGoroutine() + 1 // +1: the watchdog itself
	go watchdog(w.limits, w.baseG, w.die)
	return nil
}

// mapContext receives the context file's descriptor from the parent and
// maps it read-only, returning it as a string without copying. The mapping
// lives as long as the worker: strings model code derives from the context
// point into it. Workers mapping the same file share its pages.
func mapContext() (string, error) {
	fd, err := protocol.RecvFile(protocol.ContextFD)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	// lseek rather than fstat: the seccomp filter keeps the set of calls
	// small, and lseek is needed anyway.
	size, err := unix.Seek(fd, 0, io.SeekEnd)
	if err != nil {
		return "", fmt.Errorf("size of context: %w", err)
	}
	if size == 0 {
		return "", nil
	}
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return "", fmt.Errorf("map context: %w", err)
	}
	// Read ahead now: model code usually scans the whole context.
	_ = unix.Madvise(b, unix.MADV_WILLNEED)
	return unsafe.String(&b[0], len(b)), nil
}

// die reports a limit to the parent and exits. Only the first call counts.
func (w *worker) die(msg string) {
	w.fatal.Do(func() {
		_ = w.out.Send(&protocol.Message{Kind: protocol.KindFatal, Error: msg})
		os.Exit(exitLimit)
	})
}

// newInterpreter builds the interpreter with the allowlisted packages, the
// predeclared names and the generic shims.
func (w *worker) newInterpreter() error {
	in := interp.New(interp.Options{
		Stdout: &w.output,
		Stderr: &w.trace,
		Stdin:  strings.NewReader(""),
		Env:    []string{},
		Args:   []string{"repl"},
		// No source may be loaded from disk: imports resolve only to the
		// symbol tables below.
		SourcecodeFilesystem: emptyFS{},
		GoPath:               "/nonexistent",
	})
	if err := in.Use(w.stdlib()); err != nil {
		return fmt.Errorf("load symbols: %w", err)
	}
	w.shims = shims.New(&w.output)
	w.finalFn = reflect.ValueOf(w.final)
	mt := w.shims.MapTypes()
	mt[w.finalFn] = symbols.FmtTypes
	if err := in.Use(interp.Exports{".": {"MapTypes": reflect.ValueOf(mt)}}); err != nil {
		return fmt.Errorf("load fmt wrappers: %w", err)
	}
	if _, err := in.Compile(iterSource); err != nil {
		return fmt.Errorf("compile package iter: %w", err)
	}
	if err := in.Use(interp.Exports{"rlm/rlm": w.predeclared()}); err != nil {
		return fmt.Errorf("load predeclared names: %w", err)
	}
	if _, err := in.Eval(`import . "rlm"`); err != nil {
		return fmt.Errorf("import predeclared names: %w", err)
	}
	// The native error interface, for type switches (see repl/rewrite, rewriteTypeSwitch).
	if err := in.Use(interp.Exports{"rlmtypes/rlmtypes": {"Error": reflect.ValueOf((*error)(nil))}}); err != nil {
		return fmt.Errorf("load native types: %w", err)
	}
	if _, err := in.Eval(`import __rlmtypes "rlmtypes"`); err != nil {
		return fmt.Errorf("import native types: %w", err)
	}
	if _, err := in.Eval(shims.Source); err != nil {
		return fmt.Errorf("compile shims: %w", err)
	}
	w.in = in
	w.rw = rewrite.New(w.globals, w.predeclared())
	return nil
}

// stdlib returns the allowlisted symbol tables, with the functions that
// could block a cell forever replaced by ones cancelled with the cell.
func (w *worker) stdlib() interp.Exports {
	ex := interp.Exports{}
	for k, v := range symbols.Symbols {
		ex[k] = v
	}
	t := map[string]reflect.Value{}
	for k, v := range symbols.Symbols["time/time"] {
		t[k] = v
	}
	t["Sleep"] = reflect.ValueOf(w.sleep)
	ex["time/time"] = t
	return ex
}

func (w *worker) sleep(d time.Duration) {
	ctx := w.cellContext()
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

// lookup is lookup.Find for model code; over the context itself it knows
// where each attached file starts (lookup.FindIn).
func (w *worker) lookup(text, question string) string {
	return lookup.FindIn(text, w.starts(text), question)
}

// starts returns where each piece of the context starts in text, when
// text is the context itself (not a copy or a slice of it); else nil.
func (w *worker) starts(text string) []int {
	if len(w.pieceStarts) < 2 || len(text) != len(w.ctxData) || unsafe.StringData(text) != unsafe.StringData(w.ctxData) {
		return nil
	}
	return w.pieceStarts
}

// predeclared returns the names model code sees without importing anything.
func (w *worker) predeclared() map[string]reflect.Value {
	m := map[string]reflect.Value{
		"context":           reflect.ValueOf(&w.ctxData).Elem(),
		"contexts":          reflect.ValueOf(&w.contexts).Elem(),
		"query":             reflect.ValueOf(&w.query).Elem(),
		"llm_query":         reflect.ValueOf(func(p string) string { return w.host(protocol.KindLLM, "", []string{p})[0] }),
		"llm_query_batched": reflect.ValueOf(func(ps []string) []string { return w.host(protocol.KindLLM, "", ps) }),
		"rlm_query":         reflect.ValueOf(func(p string) string { return w.host(protocol.KindRLM, "", []string{p})[0] }),
		"rlm_query_batched": reflect.ValueOf(func(ps []string) []string { return w.host(protocol.KindRLM, "", ps) }),
		"tool_call":         reflect.ValueOf(func(name string, args any) string { return w.callTool(name, []any{args})[0] }),
		"images":            reflect.ValueOf(&w.images).Elem(),
		"llm_query_image":   reflect.ValueOf(w.queryImage),
		"tool_call_batched": reflect.ValueOf(func(name string, args []any) []string { return w.callTool(name, args) }),
		"FINAL":             w.finalFn,
		"SHOW_VARS":         reflect.ValueOf(w.showVars),
		"lookup":            reflect.ValueOf(w.lookup),
		"lookup_lines":      reflect.ValueOf(lookup.Lines),
		"__rlmGoPanic":      reflect.ValueOf(w.goPanic),
		"__rlmGoCall":       reflect.ValueOf(func(fn any, args ...any) { w.goCall(fn, args, false) }),
		"__rlmGoCallSlice":  reflect.ValueOf(func(fn any, args ...any) { w.goCall(fn, args, true) }),
	}
	for k, v := range w.shims.Funcs() {
		m[k] = v
	}
	return m
}

func (w *worker) currentCell() *cellState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cell
}

func (w *worker) cellContext() context.Context {
	if c := w.currentCell(); c != nil {
		return c.ctx
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// host makes a call to the parent's Host and waits for the answer or for the
// cell to end. It always returns len(prompts) strings.
func (w *worker) host(kind, tool string, prompts []string) []string {
	return w.hostCall(kind, tool, prompts, nil)
}

// hostCall is host with the images a KindImage call shows.
func (w *worker) hostCall(kind, tool string, prompts []string, images []int) []string {
	name := protocol.CallName(kind, tool)
	fail := func(why string) []string {
		r := make([]string, len(prompts))
		for i := range r {
			r[i] = fmt.Sprintf("error: %s: %s", name, why)
		}
		return r
	}
	if len(prompts) == 0 {
		return []string{}
	}
	if why := protocol.CheckCall(w.limits, prompts); why != "" {
		return protocol.ErrorStrings(len(prompts), name+": "+why)
	}
	c := w.currentCell()
	if c == nil || c.ctx.Err() != nil {
		return fail("the cell that made this call has ended")
	}
	// At most MaxHostCalls in flight: goroutines of model code that call
	// beyond it wait here, cancelled with the cell.
	select {
	case w.slots <- struct{}{}:
	case <-c.ctx.Done():
		return fail("cancelled with the cell")
	}
	defer func() { <-w.slots }()
	id := w.nextCall.Add(1)
	ch := make(chan []string, 1)
	w.mu.Lock()
	w.calls[id] = ch
	w.mu.Unlock()
	if err := w.out.Send(&protocol.Message{Kind: kind, ID: id, Cell: c.id, Tool: tool, Prompts: prompts, Image: images}); err != nil {
		w.mu.Lock()
		delete(w.calls, id)
		w.mu.Unlock()
		var big *protocol.FrameTooLargeError
		if errors.As(err, &big) {
			return fail(fmt.Sprintf("the prompts encode to %d bytes, over the limit of %d; use fewer or smaller prompts", big.Size, big.Limit))
		}
		return fail(err.Error())
	}
	select {
	case res := <-ch:
		for len(res) < len(prompts) {
			res = append(res, fmt.Sprintf("error: %s: no answer", name))
		}
		return res[:len(prompts)]
	case <-c.ctx.Done():
		w.mu.Lock()
		delete(w.calls, id)
		w.mu.Unlock()
		return fail("cancelled with the cell")
	}
}

func (w *worker) final(answer any) {
	s := fmt.Sprint(answer)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cell == nil {
		return
	}
	if int64(len(s)) > w.limits.MaxFinalBytes {
		w.cell.final = nil
		w.cell.notes = append(w.cell.notes, fmt.Sprintf("FINAL refused: the answer is %d bytes, over the limit of %s; give a shorter answer",
			len(s), protocol.FormatBytes(w.limits.MaxFinalBytes)))
		return
	}
	w.cell.final = &s
}

// goCall runs fn(args...) for a rewritten "go f(args)": the go statement
// evaluated the arguments, this runs the call in the new goroutine with
// the recovery that reports a panic as an error of the cell. A final
// slice argument is spread when the statement did.
func (w *worker) goCall(fn any, args []any, spread bool) {
	defer func() {
		if r := recover(); r != nil {
			w.goPanic(r)
		}
	}()
	f := reflect.ValueOf(fn)
	ft := f.Type()
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		var pt reflect.Type
		switch {
		case ft.IsVariadic() && !spread && i >= ft.NumIn()-1:
			pt = ft.In(ft.NumIn() - 1).Elem()
		case i < ft.NumIn():
			pt = ft.In(i)
		default:
			panic(fmt.Sprintf("too many arguments in the call of a %s", ft))
		}
		v := reflect.ValueOf(a)
		if v.IsValid() && !v.Type().AssignableTo(pt) {
			// A value of a declared type with methods comes boxed in
			// the interpreter's valueInterface, which keeps its type.
			v = reflect.ValueOf(shims.Unbox(a))
		}
		switch {
		case !v.IsValid():
			v = reflect.Zero(pt)
		case v.Type() != pt && v.Type().ConvertibleTo(pt) && pt.Kind() != reflect.Interface:
			v = v.Convert(pt)
		}
		in[i] = v
	}
	if spread {
		f.CallSlice(in)
	} else {
		f.Call(in)
	}
}

func (w *worker) goPanic(r any) {
	msg := fmt.Sprintf("panic in a goroutine: %v", r)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cell != nil {
		w.cell.panics = append(w.cell.panics, msg)
	} else {
		w.panics = append(w.panics, msg)
	}
}

// globals returns the interpreter's global variables. A failed compile can
// leave a symbol in yaegi's scope whose slot in the global frame does not
// exist yet, and Globals then panics; running any program resizes the
// frame, so after a panic the frame is resized and Globals tried again.
func (w *worker) globals() map[string]reflect.Value { return w.globalsRepair(true) }

// globalsRepair is globals; repair false is for calls from inside a running
// Eval (SHOW_VARS), where evaluating again is not safe.
func (w *worker) globalsRepair(repair bool) (g map[string]reflect.Value) {
	for attempt := 0; attempt < 2; attempt++ {
		ok := func() (ok bool) {
			defer func() {
				if recover() != nil {
					ok = false
				}
			}()
			g = w.in.Globals()
			return true
		}()
		if ok {
			return g
		}
		if !repair {
			break
		}
		func() {
			defer func() { _ = recover() }()
			_, _ = w.in.Eval("0")
		}()
	}
	return map[string]reflect.Value{}
}

// showVars lists the names the model defined, with their types.
func (w *worker) showVars() string {
	var rows []string
	for name, v := range w.globalsRepair(false) {
		if strings.HasPrefix(name, "__rlm") || name == "_" || !v.IsValid() {
			continue
		}
		rows = append(rows, fmt.Sprintf("%s %s", name, v.Type()))
	}
	sort.Strings(rows)
	if len(rows) == 0 {
		return "no variables defined"
	}
	return strings.Join(rows, "\n")
}

// runCells runs the cells the parent sends, one at a time, on one
// goroutine, which compiles them too (see evalSrc): its stack, grown by the
// interpreter's deep recursion while compiling, stays grown for the next
// cell, instead of a new goroutine's growing again from a few kilobytes,
// which cost a fifth of a small cell's instructions. The parent sends a
// cell only once it has the previous one's result.
func (w *worker) runCells() {
	for msg := range w.cells {
		w.runCell(msg.ID, msg.Code)
	}
}

// runCell runs one cell and sends its result.
func (w *worker) runCell(id uint64, code string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cellState{id: id, ctx: ctx, cancel: cancel}
	w.mu.Lock()
	w.cell = c
	early := w.panics
	w.panics = nil
	w.mu.Unlock()
	w.output.reset()
	start := time.Now()

	errText := w.safeEval(ctx, code)

	res := &protocol.CellResult{Duration: time.Since(start)}
	clean := true
	if ctx.Err() != nil {
		// Cancelled: the interpreter stops its frames at the next step; a
		// goroutine stuck in a native call does not. Report whether every
		// goroutine of model code ended (those of earlier cells included:
		// yaegi races between leftovers and the next cell) so the parent
		// keeps the worker only when it is idle.
		clean = waitGoroutines(w.baseG, w.limits.KillGrace/2) // runCells is one of baseG
	}
	w.mu.Lock()
	w.cell = nil
	panics := append(early, c.panics...)
	res.Final = c.final
	w.mu.Unlock()
	if len(panics) > 0 || len(c.notes) > 0 {
		errText = strings.TrimSpace(strings.Join(append(append(c.notes, panics...), errText), "\n"))
	}
	res.Error = w.cellError(errText)
	res.Output, res.OutputBytes, res.Truncated = w.output.result()
	err := w.out.Send(&protocol.Message{Kind: protocol.KindResult, ID: id, Result: res, Clean: clean})
	var big *protocol.FrameTooLargeError
	if errors.As(err, &big) {
		// Cannot happen within the caps, which FrameLimit adds up; if it
		// does, the model still gets an answer.
		res = &protocol.CellResult{Duration: res.Duration, Error: "the cell's result was too large to return: " + big.Error()}
		err = w.out.Send(&protocol.Message{Kind: protocol.KindResult, ID: id, Result: res, Clean: clean})
	}
	if err != nil {
		os.Exit(exitProtocol)
	}
}

// cellError is a cell's error as the model and the trace get it: values
// the interpreter quoted whole are named instead, and the rest is clipped.
func (w *worker) cellError(s string) string {
	if s == "" {
		return s
	}
	named := map[string]string{"context": w.ctxData}
	for i, c := range w.contexts {
		named[fmt.Sprintf("contexts[%d]", i)] = c
	}
	return protocol.Clip(elideValues(s, named), w.limits.MaxErrorBytes, "error")
}

// waitGoroutines waits up to d for the goroutine count to drop to n.
func waitGoroutines(n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// safeEval is eval with a net: a panic in the worker's own code (or in a
// yaegi call outside an Eval) becomes the cell's error, not a dead worker.
func (w *worker) safeEval(ctx context.Context, code string) (errText string) {
	defer func() {
		if r := recover(); r != nil {
			errText = fmt.Sprintf("internal error in the REPL: %v", r)
		}
	}()
	return w.eval(ctx, code)
}

// eval rewrites the cell and evaluates its chunks in order. It returns the
// error for the model, with the cell's own line numbers, or "".
func (w *worker) eval(ctx context.Context, code string) string {
	chunks, err := w.rw.Rewrite(code)
	if err != nil {
		return err.Error()
	}
	for _, ch := range chunks {
		if ctx.Err() != nil {
			return "cancelled"
		}
		if err := w.evalSrcs(ctx, ch, w.rw.Sources(ch)); err != "" {
			return err
		}
		w.rw.Evaluated(ch)
	}
	return ""
}

// evalSrcs evaluates the sources a chunk became.
func (w *worker) evalSrcs(ctx context.Context, ch rewrite.Chunk, srcs []string) string {
	for _, src := range srcs {
		w.trace.reset()
		if err := w.evalSrc(ctx, src); err != nil {
			if ctx.Err() != nil {
				return "cancelled"
			}
			var trace []string
			if _, ok := err.(interp.Panic); ok {
				trace = w.trace.frames()
			}
			return ch.Explain(err, trace)
		}
	}
	return ""
}

// evalSrc is the interpreter's EvalWithContext, which compiles and then
// executes src on a new goroutine, but with the compiling done on the
// calling goroutine (runCells), whose stack has grown already. A panic
// while compiling is an interp.Panic, as EvalWithContext reports it.
func (w *worker) evalSrc(ctx context.Context, src string) error {
	prog, err := w.compile(src)
	if err != nil {
		return err
	}
	_, err = w.in.ExecuteWithContext(ctx, prog)
	return err
}

func (w *worker) compile(src string) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			var pc [64]uintptr
			n := runtime.Callers(1, pc[:])
			err = interp.Panic{Value: r, Callers: pc[:n], Stack: debug.Stack()}
		}
	}()
	return w.in.Compile(src)
}

// capWriter keeps the first max bytes written to it and counts the rest.
type capWriter struct {
	mu  sync.Mutex
	buf []byte
	n   int
	max int
}

func (c *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += n
	if room := c.max - len(c.buf); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		c.buf = append(c.buf, p...)
	}
	return n, nil
}

func (c *capWriter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf, c.n = nil, 0
}

// result returns the kept output, the size of all output and whether it was
// cut, with a note saying so at the end of the output.
func (c *capWriter) result() (string, int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= c.max {
		return string(c.buf), c.n, false
	}
	kept := strings.ToValidUTF8(string(c.buf), "")
	return kept + fmt.Sprintf("\n[output truncated: showed the first %d of %d characters; print less, e.g. a summary or a slice]", len(kept), c.n), c.n, true
}

// traceWriter is the interpreter's stderr. yaegi writes one line per frame
// there while a panic unwinds; those lines are kept to locate the panic in
// the cell, everything else goes to the cell's output.
type traceWriter struct {
	mu    sync.Mutex
	out   io.Writer
	lines []string
}

func (t *traceWriter) Write(p []byte) (int, error) {
	if l := strings.TrimSpace(string(p)); rewrite.IsPanicFrame(l) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if len(t.lines) < 100 {
			t.lines = append(t.lines, l)
		}
		return len(p), nil
	}
	return t.out.Write(p)
}

func (t *traceWriter) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = nil
}

func (t *traceWriter) frames() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// iterSource is package iter: its types are generic, so it cannot be a
// symbol table. Code declares iterators with them and ranges over them
// (range over functions is patch 1 of third_party/yaegi).
const iterSource = `package iter

type Seq[V any] func(yield func(V) bool)

type Seq2[K, V any] func(yield func(K, V) bool)
`

// emptyFS is the interpreter's source filesystem: nothing can be loaded.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
