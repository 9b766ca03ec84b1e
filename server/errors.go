package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"
)

// apiError is an error answered with OpenAI's error JSON. Every error the
// server sends, its own and echo's, goes out in this shape.
type apiError struct {
	Status     int
	Message    string
	Type       string // invalid_request_error, authentication_error, ...
	Param      string // the offending request field, when there is one
	Code       string
	RetryAfter int // seconds, for 429 and 503
	Kind       string
	// CompletionID names the stored completion of a store: true request
	// that failed: its record holds the outcome.
	CompletionID string
	detail       string // logged, never sent
}

func (e *apiError) Error() string { return e.Message }

// StatusCode lets echo's middleware see the status.
func (e *apiError) StatusCode() int { return e.Status }

// Status 499 is nginx's "client closed request": the client went away
// before the answer was ready.
const statusClientClosed = 499

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param,
		Code: "invalid_value", Message: fmt.Sprintf(format, args...), Kind: "invalid_request"}
}

func notFound(param, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: param,
		Code: "not_found", Message: fmt.Sprintf(format, args...), Kind: "not_found"}
}

func tooLarge(limit int64, what string) *apiError {
	return &apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
		Code: "request_too_large", Kind: "too_large",
		Message: fmt.Sprintf("%s is larger than the server's limit of %d bytes", what, limit)}
}

// serverError is a failure of the server itself. The client gets what was
// being done (the text before the first ':'); the whole text, with paths
// and store keys, goes only to the log.
func serverError(format string, args ...any) *apiError {
	detail := fmt.Sprintf(format, args...)
	what, _, _ := strings.Cut(detail, ":")
	return &apiError{Status: http.StatusInternalServerError, Type: "server_error", Code: "internal_error",
		Message: what + " (internal error; details are in the server log)", Kind: "internal", detail: detail}
}

type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
	// CompletionID is this server's addition: see apiError.CompletionID.
	CompletionID string `json:"completion_id,omitempty"`
}

func (e *apiError) body() errorBody {
	b := errorBody{Error: errorFields{Message: e.Message, Type: e.Type, CompletionID: e.CompletionID}}
	if e.Param != "" {
		b.Error.Param = &e.Param
	}
	if e.Code != "" {
		b.Error.Code = &e.Code
	}
	return b
}

// toAPIError maps any error a handler or echo returned to an apiError,
// keeping internal details out of the message.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(mbe.Limit, "the request body")
	}
	status := echo.StatusCode(err)
	switch status {
	case http.StatusNotFound:
		return &apiError{Status: status, Type: "invalid_request_error", Code: "unknown_url", Kind: "not_found",
			Message: "unknown URL; see docs/server.md for the endpoints this server offers"}
	case http.StatusMethodNotAllowed:
		return &apiError{Status: status, Type: "invalid_request_error", Code: "method_not_allowed", Kind: "invalid_request",
			Message: "method not allowed for this URL"}
	case http.StatusRequestEntityTooLarge:
		return &apiError{Status: status, Type: "invalid_request_error", Code: "request_too_large", Kind: "too_large",
			Message: "request body too large"}
	case http.StatusUnauthorized:
		return &apiError{Status: status, Type: "authentication_error", Code: "invalid_api_key", Kind: "auth",
			Message: "missing or invalid API key"}
	case http.StatusTooManyRequests:
		return &apiError{Status: status, Type: "rate_limit_error", Code: "rate_limit_exceeded", Kind: "rate_limit",
			Message: "too many requests", RetryAfter: 1}
	}
	if status >= 400 && status < 500 {
		return &apiError{Status: status, Type: "invalid_request_error", Kind: "invalid_request", Message: http.StatusText(status)}
	}
	return serverError("internal error")
}

// errorHandler is echo's central error handler: OpenAI error JSON, never a
// stack trace. Unexpected errors are logged with their detail and answered
// without it.
func errorHandler(log *slog.Logger, m *metrics) echo.HTTPErrorHandler {
	return func(c *echo.Context, err error) {
		ae := toAPIError(err)
		// 503 (not configured, shutting down) is expected and already
		// announced in the startup or shutdown log.
		if ae.Status >= 500 && ae.Status != http.StatusServiceUnavailable {
			detail := err.Error()
			if ae.detail != "" {
				detail = ae.detail
			}
			log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", detail)
		}
		m.errors.WithLabelValues(ae.Kind).Inc()
		if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Committed {
			return // the response is on its way; the stream writer reports errors itself
		}
		if ae.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
		}
		if c.Request().Method == http.MethodHead {
			c.NoContent(ae.Status)
			return
		}
		c.JSON(ae.Status, ae.body())
	}
}
