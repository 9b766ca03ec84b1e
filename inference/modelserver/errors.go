package modelserver

import (
	"context"
	"errors"
	"net/http"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/inference"
)

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
