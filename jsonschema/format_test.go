package jsonschema

import (
	"fmt"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		good   []string
		bad    []string
	}{
		{"date-time",
			[]string{"2024-05-01T13:45:00Z", "2024-05-01T13:45:00.123+02:00", "2024-05-01t13:45:00z", "2024-02-29T00:00:00-08:00"},
			[]string{"2024-05-01", "2024-05-01 13:45:00Z", "2024-05-01T13:45:00", "2023-02-29T00:00:00Z", "2024-05-01T25:00:00Z", "yesterday"}},
		{"time",
			[]string{"13:45:00Z", "13:45:00.5+02:00", "23:59:60Z", "00:00:00-00:00"},
			[]string{"13:45:00", "13:45Z", "24:00:00Z", "1:45:00Z", "13:45:00+2:00"}},
		{"date",
			[]string{"2024-05-01", "2024-02-29"},
			[]string{"2023-02-29", "2024-5-1", "2024-05-01T00:00:00Z", "20240501", "2024-13-01"}},
		{"duration",
			[]string{"P3D", "PT1H30M", "P1Y2M", "P1W", "PT0.5S", "P1Y2M3DT4H5M6S", "PT36H"},
			[]string{"P", "PT", "1D", "P1H", "P1D2Y", "PT1D", "P1W2D", "P1.5D", "p1d"}},
		{"email",
			[]string{"name@example.com", "first.last+tag@sub.example.org", `"quoted"@example.com`},
			[]string{"name", "name@", "@example.com", "Name <name@example.com>", "a b@example.com", "name@example.com (x)", " name@example.com", "a@b.com> <c@d.com"}},
		{"hostname",
			[]string{"example.com", "a", "api-2.example.co.uk", "example.com.", strings.Repeat("a", 63) + ".com"},
			[]string{"", "-a.com", "a-.com", "a..com", "a_b.com", strings.Repeat("a", 64) + ".com", "exa mple.com"}},
		{"ipv4",
			[]string{"192.0.2.1", "0.0.0.0", "255.255.255.255"},
			[]string{"256.0.0.1", "1.2.3", "01.2.3.4", "::1", "1.2.3.4/8"}},
		{"ipv6",
			[]string{"::1", "2001:db8::1", "::ffff:192.0.2.1", "2001:0db8:0000:0000:0000:0000:0000:0001"},
			[]string{"192.0.2.1", "fe80::1%eth0", "2001:db8:::1", "gggg::1"}},
		{"uuid",
			[]string{"123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000", "123E4567-E89B-12D3-A456-426614174000"},
			[]string{"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400", "{123e4567-e89b-12d3-a456-426614174000}"}},
	} {
		s := mustCompile(t, obj(fmt.Sprintf(`"v":{"type":"string","format":%q}`, tc.format), "v"), true)
		for _, v := range tc.good {
			if err := s.Validate(fmt.Appendf(nil, `{"v":%q}`, v)); err != nil {
				t.Errorf("%s %q: %v", tc.format, v, err)
			}
		}
		for _, v := range tc.bad {
			err := s.Validate(fmt.Appendf(nil, `{"v":%q}`, v))
			if want := "want a string in format " + tc.format + " ("; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %q: err = %v, want %q", tc.format, v, err, want)
			}
		}
	}
}

// TestFormatNamesAreDocumented: the formats checked are exactly the ones
// OpenAI's guide lists, in its order.
func TestFormatNamesAreDocumented(t *testing.T) {
	t.Parallel()
	want := "date-time time date duration email hostname ipv4 ipv6 uuid"
	if got := strings.Join(formatNames(), " "); got != want {
		t.Errorf("formats %q, want %q", got, want)
	}
}
