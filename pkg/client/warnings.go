package client

import (
	"net/http"
	"strings"
)

// warningTexts extracts the texts of RFC 7234 Warning headers in the form
// the apiserver sends (`299 - "unknown field \"spec.foo\""`). Headers in
// another shape are passed on whole rather than dropped.
func warningTexts(h http.Header) []string {
	var texts []string
	for _, v := range h.Values("Warning") {
		texts = append(texts, warningText(v))
	}
	return texts
}

// warningText returns the quoted text of one Warning header value.
func warningText(v string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "299 - \"")
	if !ok {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '\\' && i+1 < len(rest):
			i++
			b.WriteByte(rest[i])
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return v
}
