package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error is an error a server answers in OpenAI's error format:
//
//	{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
//
// Every error the servers send, their own and their frameworks', goes out in
// this shape; the upstream client reads upstreams' errors into it too.
type Error struct {
	Status  int    // HTTP status
	Message string // for the client: never a path, key or upstream body
	Type    string // invalid_request_error, authentication_error, server_error, ...
	Param   string // the offending request field, when there is one
	Code    string
	// RetryAfter is the Retry-After of a 429 or 503, in seconds (0: none).
	RetryAfter int
	// CompletionID names the stored completion of a failed store: true
	// chat request (rlm's addition): its record holds the outcome.
	CompletionID string
	// Kind labels the error in a server's metrics; Detail is what a
	// server logs instead of Message. Neither is sent.
	Kind   string
	Detail string
}

func (e *Error) Error() string { return e.Message }

// StatusCode is the HTTP status, for middleware that asks errors for one.
func (e *Error) StatusCode() int { return e.Status }

// ErrorObject is the "error" member of an error body, and of a stored
// completion that failed.
type ErrorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
	// CompletionID is rlm's addition: see Error.CompletionID.
	CompletionID string `json:"completion_id,omitempty"`
}

// ErrorResponse is an error body: {"error": {...}}. A chat stream sends it
// as its last data event when a run fails after the 200.
type ErrorResponse struct {
	Error ErrorObject `json:"error"`
}

// Object is e's "error" member.
func (e *Error) Object() ErrorObject {
	o := ErrorObject{Message: e.Message, Type: e.Type, CompletionID: e.CompletionID}
	if e.Param != "" {
		o.Param = &e.Param
	}
	if e.Code != "" {
		o.Code = &e.Code
	}
	return o
}

// Body is e as an error body.
func (e *Error) Body() ErrorResponse { return ErrorResponse{Error: e.Object()} }

// WriteError answers e: its status, Retry-After when it has one, and the
// error body (none for HEAD).
func WriteError(w http.ResponseWriter, r *http.Request, e *Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	if r != nil && r.Method == http.MethodHead {
		w.WriteHeader(e.Status)
		return
	}
	WriteJSON(w, e.Status, e.Body())
}

// WriteJSON answers v as JSON with the given status. Text is not
// HTML-escaped: answers hold code and documents, which are read, never
// embedded in a page.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// Error types, as OpenAI names them.
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
	TypeRateLimit      = "rate_limit_error"
	TypeServer         = "server_error"
	TypeTimeout        = "timeout_error"
	// TypeUpstream is rlm's: a model the server called failed.
	TypeUpstream = "upstream_error"
)

// BadRequest is a 400 invalid_value naming the offending parameter.
func BadRequest(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: param,
		Code: "invalid_value", Message: fmt.Sprintf(format, args...), Kind: "invalid_request"}
}

// Unsupported is a 400 unsupported_parameter: a parameter this server
// cannot honour, refused rather than dropped.
func Unsupported(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: param,
		Code: "unsupported_parameter", Message: fmt.Sprintf(format, args...), Kind: "invalid_request"}
}

// NotFound is a 404 naming what was not found.
func NotFound(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Param: param,
		Code: "not_found", Message: fmt.Sprintf(format, args...), Kind: "not_found"}
}

// TooLarge is a 413 for a body or file over its limit.
func TooLarge(limit int64, what string) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest,
		Code: "request_too_large", Kind: "too_large",
		Message: fmt.Sprintf("%s is larger than the server's limit of %d bytes", what, limit)}
}

// ArrayTooLong is the 400 of an array past a cap, as OpenAI words it.
func ArrayTooLong(param, what string, limit int) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: param, Code: "array_above_max_length",
		Kind: "invalid_request", Message: fmt.Sprintf("Invalid '%s': array too long. This server takes at most %d %s in one request.", param, limit, what)}
}

// ServerError is a failure of the server itself. The client gets what was
// being done (the text before the first ':'); the whole text, which may name
// paths and store keys, is Detail, for the log alone.
func ServerError(format string, args ...any) *Error {
	detail := fmt.Sprintf(format, args...)
	what, _, _ := strings.Cut(detail, ":")
	return &Error{Status: http.StatusInternalServerError, Type: TypeServer, Code: "internal_error",
		Message: what + " (internal error; details are in the server log)", Kind: "internal", Detail: detail}
}

// StatusClientClosed is nginx's 499 "client closed request": the client
// went away before the answer was ready. It is logged, never sent.
const StatusClientClosed = 499

// ErrorOf is the error a server answers for what a handler, its router or
// its middleware returned: an *Error as it is, a body past
// http.MaxBytesReader's limit as 413, an error with a status (echo's
// HTTPError) as that status (see FromStatus), anything else as a 500
// without its detail.
func ErrorOf(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return TooLarge(mbe.Limit, "the request body")
	}
	var sc interface{ StatusCode() int }
	if errors.As(err, &sc) {
		return FromStatus(sc.StatusCode())
	}
	return FromStatus(http.StatusInternalServerError)
}

// FromStatus is the error a server answers for a bare HTTP status its
// router or middleware produced (no route, wrong method, body too large,
// no key, too many requests).
func FromStatus(status int) *Error {
	switch status {
	case http.StatusNotFound:
		return &Error{Status: status, Type: TypeInvalidRequest, Code: "unknown_url", Kind: "not_found",
			Message: "unknown URL; see docs/server.md for the endpoints this server offers"}
	case http.StatusMethodNotAllowed:
		return &Error{Status: status, Type: TypeInvalidRequest, Code: "method_not_allowed", Kind: "invalid_request",
			Message: "method not allowed for this URL"}
	case http.StatusRequestEntityTooLarge:
		return &Error{Status: status, Type: TypeInvalidRequest, Code: "request_too_large", Kind: "too_large",
			Message: "request body too large"}
	case http.StatusUnauthorized:
		return &Error{Status: status, Type: TypeAuthentication, Code: "invalid_api_key", Kind: "auth",
			Message: "missing or invalid API key"}
	case http.StatusTooManyRequests:
		return &Error{Status: status, Type: TypeRateLimit, Code: "rate_limit_exceeded", Kind: "rate_limit",
			Message: "too many requests", RetryAfter: 1}
	}
	if status >= 400 && status < 500 {
		return &Error{Status: status, Type: TypeInvalidRequest, Kind: "invalid_request", Message: http.StatusText(status)}
	}
	return ServerError("internal error")
}
