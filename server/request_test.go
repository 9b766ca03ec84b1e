package server

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
)

func TestTimeoutLimit(t *testing.T) {
	tests := []struct {
		name    string
		timeout string // JSON
		max     time.Duration
		want    time.Duration
		wantErr bool
	}{
		{"seconds", `90`, 0, 90 * time.Second, false},
		{"fractional seconds", `2.5`, 0, 2500 * time.Millisecond, false},
		{"duration string", `"90s"`, 0, 90 * time.Second, false},
		{"seconds as string", `"2.5"`, 0, 2500 * time.Millisecond, false},
		{"clamped", `"2h"`, time.Minute, time.Minute, false},
		{"huge number is clamped, not wrapped", `1e300`, time.Minute, time.Minute, false},
		{"huge string is clamped, not wrapped", `"1e300"`, time.Minute, time.Minute, false},
		{"huge without maximum saturates", `1e300`, 0, math.MaxInt64, false},
		{"negative", `-1`, time.Minute, 0, true},
		{"hugely negative", `-1e300`, time.Minute, 0, true},
		{"not a duration", `"soon"`, 0, 0, true},
		{"wrong type", `true`, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{MaxLimits: recursion.Limits{Timeout: tt.max}}
			l, err := limits(&rlmOptions{Timeout: json.RawMessage(tt.timeout)}, &cfg)
			if tt.wantErr {
				ae, ok := err.(*apiError)
				if !ok || ae.Status != 400 || ae.Param != "rlm.timeout" {
					t.Fatalf("timeout %s: error %v, want a 400 naming rlm.timeout", tt.timeout, err)
				}
				return
			}
			if err != nil || l.Timeout != tt.want {
				t.Fatalf("timeout %s: %v, %v; want %v", tt.timeout, l.Timeout, err, tt.want)
			}
		})
	}
}
