package lookup

import "testing"

func TestRoffText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`.IP "\fBdefault_days\fR" 4`:          "\ndefault_days\n",
		`.B \-port 4433`:                      "-port 4433\n",
		`.Xr ssh_config 5 ,`:                  "ssh_config(5),\n",
		`.It Cm BatchMode`:                    "\nBatchMode\n",
		`.Fl o Ar option`:                     "-o option\n",
		`The default is \fI20\fP minutes\&.`:  "The default is 20 minutes.\n",
		`.\" packagers: the test port is 443`: "packagers: the test port is 443\n",
		`.IX Item "default_days"`:             "\n",
		`it\(aqs a \e-escaped \(lqword\(rq`:   "it's a \\-escaped \"word\"\n",
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}
