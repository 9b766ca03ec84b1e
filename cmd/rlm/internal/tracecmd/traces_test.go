package tracecmd

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestExportProgress checks that a long export reports how far it is, and
// passes every byte through.
func TestExportProgress(t *testing.T) {
	var out, log bytes.Buffer
	p := newExportProgress(&out, &log)
	p.Write([]byte("{}\n{}\n"))
	if log.Len() != 0 {
		t.Errorf("reported before %s: %q", exportProgressEvery, log.String())
	}
	p.printed = time.Now().Add(-exportProgressEvery) // as if the interval had passed
	p.Write([]byte("{}\n"))
	if out.String() != "{}\n{}\n{}\n" || !strings.Contains(log.String(), "exported 3 samples") {
		t.Errorf("out %q, progress %q", out.String(), log.String())
	}
}
