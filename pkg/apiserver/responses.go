package apiserver

import (
	"net/http"
	"strconv"
	"strings"
)

// The apiserver writes its answers with package response (JSON, Status
// errors, Table negotiation), which metrics-server shares.

// addWarnings sends each warning as a `Warning: 299 - "text"` header, which
// kubectl prints as "Warning: text".
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(text, `"`, `\"`)+`"`)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
