package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/rlm-project/rlm/inference"
)

// apiError is an error answered in OpenAI's error JSON:
// {"error": {"message", "type", "param", "code"}}.
type apiError struct {
	status     int
	message    string
	typ        string
	param      string
	code       string
	retryAfter int // seconds, for 429 and 503
}

func (e *apiError) Error() string { return e.message }

func invalid(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param,
		code: "invalid_value", message: fmt.Sprintf(format, args...)}
}

func unsupported(param string) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param,
		code: "unsupported_parameter", message: fmt.Sprintf("%s is not supported by this server", param)}
}

// fromEngine maps an engine error to the answer clients expect.
func fromEngine(err error, retryAfter int) *apiError {
	var re *inference.RequestError
	switch {
	case errors.As(err, &re):
		code := "invalid_value"
		if re.Param == "messages" || re.Param == "max_tokens" {
			code = "context_length_exceeded"
		}
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: re.Param, code: code, message: re.Msg}
	case errors.Is(err, inference.ErrQueueFull), errors.Is(err, inference.ErrQueueTimeout):
		return &apiError{status: http.StatusTooManyRequests, typ: "rate_limit_exceeded", code: "rate_limit_exceeded",
			message: err.Error() + "; retry later", retryAfter: retryAfter}
	case errors.Is(err, inference.ErrClosed):
		return &apiError{status: http.StatusServiceUnavailable, typ: "server_error", code: "unavailable",
			message: "the model server is shutting down", retryAfter: retryAfter}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: 499, typ: "invalid_request_error", code: "cancelled", message: "the request was cancelled"}
	}
	return &apiError{status: http.StatusInternalServerError, typ: "server_error", code: "internal_error", message: err.Error()}
}

type errorFields struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (e *apiError) body() map[string]errorFields {
	f := errorFields{Message: e.message, Type: e.typ}
	if e.param != "" {
		f.Param = &e.param
	}
	if e.code != "" {
		f.Code = &e.code
	}
	return map[string]errorFields{"error": f}
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	writeJSON(w, e.status, e.body())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
