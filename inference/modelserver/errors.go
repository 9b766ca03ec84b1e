package modelserver

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/inference"
)

// toAPIError maps what a handler or echo returned to an *api.Error.
func toAPIError(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return api.TooLarge(mbe.Limit, "the request body")
	}
	return api.FromStatus(echo.StatusCode(err))
}

// fromEngine maps an engine error to the answer clients expect.
func fromEngine(err error, retryAfter int) *api.Error {
	var re *inference.RequestError
	switch {
	case errors.As(err, &re):
		code := "invalid_value"
		if re.Param == "messages" || re.Param == "max_tokens" {
			code = "context_length_exceeded"
		}
		return &api.Error{Status: http.StatusBadRequest, Type: api.TypeInvalidRequest, Param: re.Param, Code: code, Message: re.Msg}
	case errors.Is(err, inference.ErrQueueFull), errors.Is(err, inference.ErrQueueTimeout):
		return &api.Error{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: "rate_limit_exceeded",
			Message: err.Error() + "; retry later", RetryAfter: retryAfter}
	case errors.Is(err, inference.ErrClosed):
		return &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "unavailable",
			Message: "the model server is shutting down", RetryAfter: retryAfter}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &api.Error{Status: api.StatusClientClosed, Type: api.TypeInvalidRequest, Code: "cancelled", Message: "the request was cancelled"}
	}
	return &api.Error{Status: http.StatusInternalServerError, Type: api.TypeServer, Code: "internal_error", Message: err.Error()}
}
