package modelcmd

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// TestWarnOpen: a model server without API keys says it is open: a
// warning when it listens beyond loopback, a note on loopback.
func TestWarnOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip   string
		want string
	}{
		{"127.0.0.1", "level=INFO msg=\"no API key: the server is open to anyone on this machine"},
		{"::1", "level=INFO msg=\"no API key"},
		{"0.0.0.0", "level=WARN msg=\"NO API KEY: the server is open to anyone who can reach 0.0.0.0:8000"},
		{"10.1.2.3", "level=WARN msg=\"NO API KEY"},
	} {
		var log bytes.Buffer
		warnOpen(slog.New(slog.NewTextHandler(&log, nil)), &net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 8000})
		if !strings.Contains(log.String(), tc.want) {
			t.Errorf("%s: log %q, want %q", tc.ip, log.String(), tc.want)
		}
	}
}
