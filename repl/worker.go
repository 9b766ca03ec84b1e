package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-project/rlm/document/lookup"

	// The confined worker cannot read /usr/share/zoneinfo: time.LoadLocation
	// falls back to this embedded copy.
	_ "time/tzdata"
	"unsafe"

	"github.com/traefik/yaegi/interp"
	"golang.org/x/sys/unix"

	"github.com/rlm-project/rlm/repl/symbols"
)

// Environment variables of a worker process: workerEnv turns the binary
// into a worker; confineEnv=0 starts it unconfined (benchmarks measure the
// cost of confinement with it); startMemoryEnv bounds its address space
// until its session sets the limit.
const (
	workerEnv      = "RLM_REPL_WORKER"
	confineEnv     = "RLM_REPL_CONFINE"
	startMemoryEnv = "RLM_REPL_START_MEMORY"
)

// workerErrPrefix starts the line a worker writes on stderr before it
// exits with exitProtocol; the parent quotes it to explain the exit.
const workerErrPrefix = "repl worker: "

// Exit codes of a worker that stops on its own.
const (
	exitLimit    = 3 // a watchdog limit was hit; a fatal message says which
	exitProtocol = 4 // the pipe to the parent broke or carried garbage
)

// MaybeRunWorker runs the REPL worker and exits when the process was started
// as one (env RLM_REPL_WORKER=1); otherwise it returns at once. Call it first
// thing in main, and in TestMain of packages whose tests start sessions.
func MaybeRunWorker() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	statm, err := setUpWorker()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", workerErrPrefix, err)
		os.Exit(exitProtocol)
	}
	os.Exit(runWorker(os.NewFile(inFD, "repl-in"), os.NewFile(outFD, "repl-out"), statm))
}

// setUpWorker opens what the worker reads later (its own memory size) and
// confines the process, unless the pool asked for no confinement.
func setUpWorker() (statm *os.File, err error) {
	if statm = inheritedStatm(); statm == nil {
		if statm, err = os.Open("/proc/self/statm"); err != nil {
			return nil, fmt.Errorf("open /proc/self/statm: %w", err)
		}
	}
	if os.Getenv(confineEnv) == "0" {
		return statm, nil
	}
	mem, err := strconv.ParseInt(os.Getenv(startMemoryEnv), 10, 64)
	if err != nil || mem <= 0 {
		mem = DefaultLimits().MemoryBytes
	}
	if err := confine(allLayers, mem, statm); err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	return statm, nil
}

// worker is the trusted side of a session inside the worker process: it owns
// the interpreter, the mapped context and the pipe to the parent.
type worker struct {
	out    *msgWriter
	in     *interp.Interpreter
	output capWriter
	trace  traceWriter

	statm    *os.File // /proc/self/statm, opened before confinement
	ctxData  string   // the mapped context file
	contexts []string // pieces of ctxData
	query    string   // the request's question (SessionConfig.Query)
	limits   Limits
	rw       rewriter
	baseG    int // goroutines of the worker itself, before model code ran
	types    typeRegistry
	fmtShims map[string]reflect.Value // built once: their values key the interpreter's MapTypes
	finalFn  reflect.Value            // FINAL, which formats like fmt.Sprint: a key of MapTypes too

	mu       sync.Mutex
	cell     *cellState
	panics   []string // goroutine panics that happened between cells
	calls    map[uint64]chan []string
	slots    chan struct{} // host calls in flight, at most MaxHostCalls
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
		out:    &msgWriter{w: outF},
		calls:  map[uint64]chan []string{},
		limits: DefaultLimits(),
	}
	w.slots = make(chan struct{}, w.limits.MaxHostCalls)
	// Build the interpreter before the first message arrives: pooled workers
	// do this while they wait for a session.
	w.trace.out = &w.output
	if err := w.newInterpreter(); err != nil {
		fmt.Fprintf(os.Stderr, workerErrPrefix+"%v\n", err)
		return exitProtocol
	}
	r := newMsgReader(inF)
	for {
		msg, err := r.recv(maxMessage)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0 // the parent closed the session
			}
			fmt.Fprintf(os.Stderr, workerErrPrefix+"%v\n", err)
			return exitProtocol
		}
		switch msg.Kind {
		case kindInit:
			err := w.init(msg.Context, msg.Query, msg.Limits)
			reply := &message{Kind: kindReady}
			if err != nil {
				reply.Error = err.Error()
			}
			if err := w.out.send(reply); err != nil {
				return exitProtocol
			}
		case kindCell:
			go w.runCell(msg.ID, msg.Code)
		case kindCancel:
			w.mu.Lock()
			if w.cell != nil && w.cell.id == msg.ID {
				w.cell.cancel()
			}
			w.mu.Unlock()
		case kindReply:
			w.mu.Lock()
			ch := w.calls[msg.ID]
			delete(w.calls, msg.ID)
			w.mu.Unlock()
			if ch != nil {
				ch <- msg.Results
			}
		default:
			fmt.Fprintf(os.Stderr, workerErrPrefix+"unknown message kind %q\n", msg.Kind)
		}
	}
}

// init maps the context, sets query and applies the limits; it runs once
// per worker.
func (w *worker) init(cf *ContextFile, query string, l *Limits) error {
	w.query = query
	if l != nil {
		w.limits = l.orDefault(DefaultLimits())
	}
	w.output.max = w.limits.MaxOutput
	w.out.limit.Store(w.limits.frameLimit())
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
	fd, err := recvFile(ctxFD)
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

// recvFile receives one descriptor from the socket sock.
func recvFile(sock int) (int, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, recvFlags)
	if err != nil {
		return -1, fmt.Errorf("receive context: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("receive context: no descriptor came (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("receive context: no descriptor came (%v)", err)
	}
	return fds[0], nil
}

// die reports a limit to the parent and exits. Only the first call counts.
func (w *worker) die(msg string) {
	w.fatal.Do(func() {
		_ = w.out.send(&message{Kind: kindFatal, Error: msg})
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
	w.fmtShims = w.fmtFuncs()
	w.finalFn = reflect.ValueOf(w.final)
	mt := map[reflect.Value][]reflect.Type{w.finalFn: symbols.FmtTypes}
	for _, v := range w.fmtShims {
		mt[v] = symbols.FmtTypes
	}
	for k, v := range w.jsonFuncs() {
		w.fmtShims[k] = v
		if k == "__rlmJSONUnmarshal" {
			mt[v] = symbols.MapTypes[reflect.ValueOf(json.Unmarshal)]
		} else {
			mt[v] = symbols.MapTypes[reflect.ValueOf(json.Marshal)]
		}
	}
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
	// The native error interface, for type switches (see rewriteTypeSwitch).
	if err := in.Use(interp.Exports{"rlmtypes/rlmtypes": {"Error": reflect.ValueOf((*error)(nil))}}); err != nil {
		return fmt.Errorf("load native types: %w", err)
	}
	if _, err := in.Eval(`import __rlmtypes "rlmtypes"`); err != nil {
		return fmt.Errorf("import native types: %w", err)
	}
	if _, err := in.Eval(shimSource); err != nil {
		return fmt.Errorf("compile shims: %w", err)
	}
	w.in = in
	w.rw = rewriter{globals: w.globals, predeclared: w.predeclared()}
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

// predeclared returns the names model code sees without importing anything.
func (w *worker) predeclared() map[string]reflect.Value {
	m := map[string]reflect.Value{
		"context":                reflect.ValueOf(&w.ctxData).Elem(),
		"contexts":               reflect.ValueOf(&w.contexts).Elem(),
		"query":                  reflect.ValueOf(&w.query).Elem(),
		"llm_query":              reflect.ValueOf(func(p string) string { return w.host(kindLLM, []string{p})[0] }),
		"llm_query_batched":      reflect.ValueOf(func(ps []string) []string { return w.host(kindLLM, ps) }),
		"rlm_query":              reflect.ValueOf(func(p string) string { return w.host(kindRLM, []string{p})[0] }),
		"rlm_query_batched":      reflect.ValueOf(func(ps []string) []string { return w.host(kindRLM, ps) }),
		"FINAL":                  w.finalFn,
		"SHOW_VARS":              reflect.ValueOf(w.showVars),
		"lookup":                 reflect.ValueOf(lookup.Find),
		"lookup_lines":           reflect.ValueOf(lookup.Lines),
		"__rlmGoPanic":           reflect.ValueOf(w.goPanic),
		"__rlmClear":             reflect.ValueOf(clearValue),
		"__rlmLines":             reflect.ValueOf(lines),
		"__rlmDecodeRune":        reflect.ValueOf(decodeRune),
		"__rlmRuneAt":            reflect.ValueOf(runeAt),
		"__rlmRuneLen":           reflect.ValueOf(runeLen),
		"__rlmSortNative":        reflect.ValueOf(sortNative),
		"__rlmSortSlice":         reflect.ValueOf(sortSlice),
		"__rlmSortStable":        reflect.ValueOf(sortStable),
		"__rlmErrorsAs":          reflect.ValueOf(w.types.errorsAs),
		"__rlmErrorsIs":          reflect.ValueOf(errorsIs),
		"__rlmRegisterType":      reflect.ValueOf(w.types.register),
		"__rlmRegisterLayout":    reflect.ValueOf(w.types.registerLayout),
		"__rlmBox":               reflect.ValueOf(func(x any) *any { return &x }),
		"__rlmRecovered":         reflect.ValueOf(recovered),
		"__rlmRegisterError":     reflect.ValueOf(w.types.registerError),
		"__rlmRegisterErrorConv": reflect.ValueOf(w.types.registerErrorConv),
		"__rlmErrSubject":        reflect.ValueOf(w.types.errSubject),
		"__rlmIface":             reflect.ValueOf(unwrapIface),
		"__rlmGoCall":            reflect.ValueOf(func(fn any, args ...any) { w.goCall(fn, args, false) }),
		"__rlmGoCallSlice":       reflect.ValueOf(func(fn any, args ...any) { w.goCall(fn, args, true) }),
	}
	for k, v := range w.fmtShims {
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
func (w *worker) host(kind string, prompts []string) []string {
	name := map[string]string{kindLLM: "llm_query", kindRLM: "rlm_query"}[kind]
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
	if why := checkCall(w.limits, prompts); why != "" {
		return errorStrings(len(prompts), name+": "+why)
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
	if err := w.out.send(&message{Kind: kind, ID: id, Cell: c.id, Prompts: prompts}); err != nil {
		w.mu.Lock()
		delete(w.calls, id)
		w.mu.Unlock()
		var big *FrameTooLargeError
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
			len(s), formatBytes(w.limits.MaxFinalBytes)))
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
			v = reflect.ValueOf(unbox(a))
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

	res := &CellResult{Duration: time.Since(start)}
	clean := true
	if ctx.Err() != nil {
		// Cancelled: the interpreter stops its frames at the next step; a
		// goroutine stuck in a native call does not. Report whether every
		// goroutine of model code ended (those of earlier cells included:
		// yaegi races between leftovers and the next cell) so the parent
		// keeps the worker only when it is idle.
		clean = waitGoroutines(w.baseG+1, w.limits.KillGrace/2) // +1: this goroutine
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
	err := w.out.send(&message{Kind: kindResult, ID: id, Result: res, Clean: clean})
	var big *FrameTooLargeError
	if errors.As(err, &big) {
		// Cannot happen within the caps, which frameLimit adds up; if it
		// does, the model still gets an answer.
		res = &CellResult{Duration: res.Duration, Error: "the cell's result was too large to return: " + big.Error()}
		err = w.out.send(&message{Kind: kindResult, ID: id, Result: res, Clean: clean})
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
	return clipError(elideValues(s, named), w.limits.MaxErrorBytes)
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
	chunks, err := w.rw.rewrite(code)
	if err != nil {
		return err.Error()
	}
	for _, ch := range chunks {
		if ctx.Err() != nil {
			return "cancelled"
		}
		srcs := []string{ch.src}
		switch {
		case ch.decl:
			if src, ok := w.rw.typedVars(ch.src); ok {
				srcs = []string{src}
			}
		case ch.imports == nil:
			if decl, stmt, ok := w.rw.typedDefine(ch.src); ok {
				srcs = []string{decl, stmt}
				if decl == "" { // every name reuses its variable
					srcs = srcs[1:]
				}
			}
		}
		if err := w.evalSrcs(ctx, ch, srcs); err != "" {
			return err
		}
		for _, p := range ch.imports {
			w.rw.imported[p] = true
		}
	}
	return ""
}

// evalSrcs evaluates the sources a chunk became.
func (w *worker) evalSrcs(ctx context.Context, ch chunk, srcs []string) string {
	for _, src := range srcs {
		w.trace.reset()
		_, err := w.in.EvalWithContext(ctx, src)
		if err != nil {
			if ctx.Err() != nil {
				return "cancelled"
			}
			var trace []string
			if _, ok := err.(interp.Panic); ok {
				trace = w.trace.frames()
			}
			return ch.explain(err, trace)
		}
	}
	return ""
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
	if l := strings.TrimSpace(string(p)); panicFrameRE.MatchString(l) {
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
