package apiserver

import (
	"sort"
	"strconv"
	"strings"
)

// mediaRange is one entry of an Accept header: a media type (perhaps with
// wildcards, "*/*" or "application/*"), its parameters (g, v and as name a
// conversion such as APIGroupDiscoveryList), and its weight q.
type mediaRange struct {
	mediaType string
	params    map[string]string
	q         float64
}

// parseAccept splits an Accept header into its media ranges, most preferred
// first: by q, highest first, then a specific type before a wildcard, as
// upstream's negotiation (goautoneg) orders them; ties keep the order the
// client wrote. Entries without a type/subtype are dropped, and so are
// those with q=0, which the client refuses (RFC 9110). An empty header is
// "*/*".
//
// The split is as lenient as goautoneg's, not RFC 2045's: the OpenAPI v2
// protobuf type client-go asks for,
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf, has an "@"
// that mime.ParseMediaType rejects.
func parseAccept(header string) []mediaRange {
	if strings.TrimSpace(header) == "" {
		header = "*/*"
	}
	var ranges []mediaRange
	for _, part := range strings.Split(header, ",") {
		pieces := strings.Split(part, ";")
		mediaType := strings.ToLower(strings.TrimSpace(pieces[0]))
		if major, minor, ok := strings.Cut(mediaType, "/"); !ok || major == "" || minor == "" {
			continue
		}
		r := mediaRange{mediaType: mediaType, params: map[string]string{}, q: 1}
		for _, p := range pieces[1:] {
			key, value, _ := strings.Cut(p, "=")
			r.params[strings.ToLower(strings.TrimSpace(key))] = strings.Trim(strings.TrimSpace(value), `"`)
		}
		if s, ok := r.params["q"]; ok {
			q, err := strconv.ParseFloat(s, 64)
			if err != nil {
				continue
			}
			r.q = q
		}
		if r.q <= 0 {
			continue
		}
		ranges = append(ranges, r)
	}
	wildcards := func(r mediaRange) int { return strings.Count(r.mediaType, "*") }
	sort.SliceStable(ranges, func(i, j int) bool {
		if ranges[i].q != ranges[j].q {
			return ranges[i].q > ranges[j].q
		}
		return wildcards(ranges[i]) < wildcards(ranges[j])
	})
	return ranges
}

// matches reports whether the range admits the concrete media type
// ("application/json"): the same type, "application/*" or "*/*".
func (r mediaRange) matches(mediaType string) bool {
	if r.mediaType == "*/*" || r.mediaType == mediaType {
		return true
	}
	major, _, _ := strings.Cut(mediaType, "/")
	return r.mediaType == major+"/*"
}
