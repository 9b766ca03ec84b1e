package jsonschema

import (
	"net/mail"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// A format is a string format this package checks: the ones OpenAI's
// strict mode supports.
type format struct {
	valid func(string) bool
	hint  string // what it looks like, for a model told its value is wrong
	order int
}

var formats = map[string]format{
	"date-time": {validDateTime, "RFC 3339, like 2024-05-01T13:45:00Z", 0},
	"time":      {timePattern.MatchString, "RFC 3339 time with offset, like 13:45:00Z or 13:45:00+02:00", 1},
	"date":      {validDate, "RFC 3339 full-date, like 2024-05-01", 2},
	"duration":  {durationPattern.MatchString, "ISO 8601, like P3D, PT1H30M or P1Y2M", 3},
	"email":     {validEmail, "like name@example.com", 4},
	"hostname":  {validHostname, "RFC 1123, like api.example.com", 5},
	"ipv4":      {validIPv4, "dotted quad, like 192.0.2.1", 6},
	"ipv6":      {validIPv6, "RFC 4291, like 2001:db8::1", 7},
	"uuid":      {uuidPattern.MatchString, "RFC 4122, like 123e4567-e89b-12d3-a456-426614174000", 8},
}

// formatNames lists the formats in OpenAI's documented order.
func formatNames() []string {
	names := make([]string, len(formats))
	for name, f := range formats {
		names[f.order] = name
	}
	return names
}

func formatPhrase(name string) string {
	return name + " (" + formats[name].hint + ")"
}

var (
	// RFC 3339's full-time: partial-time and an offset, which it requires.
	timePattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
	// RFC 3339's duration (appendix A), with a decimal fraction allowed on
	// the seconds as ISO 8601 allows it.
	durationPattern = regexp.MustCompile(`^P(` +
		`[0-9]+W` +
		`|([0-9]+Y([0-9]+M([0-9]+D)?)?|[0-9]+M([0-9]+D)?|[0-9]+D)(T` + durTime + `)?` +
		`|T` + durTime + `)$`)
	uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

const durTime = `([0-9]+H([0-9]+M([0-9]+([.,][0-9]+)?S)?)?|[0-9]+M([0-9]+([.,][0-9]+)?S)?|[0-9]+([.,][0-9]+)?S)`

func validDateTime(s string) bool {
	// time.RFC3339 wants an upper-case T and Z, which RFC 3339 only
	// recommends.
	s = strings.Replace(strings.Replace(s, "t", "T", 1), "z", "Z", 1)
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func validDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && len(s) == len(time.DateOnly)
}

// validEmail takes an RFC 5322 addr-spec: the address alone, without a
// display name, comment or space around it (net/mail parses it as the
// inside of an angle-addr, which holds nothing else).
func validEmail(s string) bool {
	_, err := mail.ParseAddress("<" + s + ">")
	return err == nil && s == strings.TrimSpace(s)
}

// validHostname follows RFC 1123: dot-separated labels of letters, digits
// and hyphens, none starting or ending with a hyphen, each at most 63
// bytes, 253 in all.
func validHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func validIPv4(s string) bool {
	a, err := netip.ParseAddr(s) // refuses leading zeros, as the format does
	return err == nil && a.Is4()
}

func validIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}
