package main

import (
	"maps"
	"testing"
)

func TestParseWindows(t *testing.T) {
	tests := []struct {
		in   []string
		want map[string]int
		ok   bool
	}{
		{nil, map[string]int{}, true},
		{[]string{"qwen3-8b=32768,gpt-4.1=1000000", "other=8192"}, map[string]int{"qwen3-8b": 32768, "gpt-4.1": 1000000, "other": 8192}, true},
		{[]string{"no-equals"}, nil, false},
		{[]string{"m=0"}, nil, false},
		{[]string{"=5"}, nil, false},
	}
	for _, tt := range tests {
		got, err := parseWindows(tt.in)
		if (err == nil) != tt.ok || tt.ok && !maps.Equal(got, tt.want) {
			t.Errorf("parseWindows(%q) = %v, %v", tt.in, got, err)
		}
	}
}
