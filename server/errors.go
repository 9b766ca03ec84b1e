package server

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
)

// errorHandler is echo's central error handler: OpenAI error JSON, never a
// stack trace. Unexpected errors are logged with their detail and answered
// without it.
func errorHandler(log *slog.Logger, m *metrics) echo.HTTPErrorHandler {
	return func(c *echo.Context, err error) {
		ae := api.ErrorOf(err)
		// 503 (not configured, shutting down) is expected and already
		// announced in the startup or shutdown log.
		if ae.Status >= 500 && ae.Status != http.StatusServiceUnavailable {
			detail := err.Error()
			if ae.Detail != "" {
				detail = ae.Detail
			}
			log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", detail)
		}
		m.errors.WithLabelValues(ae.Kind).Inc()
		if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Committed {
			return // the response is on its way; the stream writer reports errors itself
		}
		api.WriteError(c.Response(), c.Request(), ae)
	}
}
