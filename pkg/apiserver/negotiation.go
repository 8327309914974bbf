package apiserver

import (
	"mime"
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
// client wrote. Entries that do not parse are dropped, and so are those with
// q=0, which the client refuses (RFC 9110). An empty header is "*/*".
func parseAccept(header string) []mediaRange {
	if strings.TrimSpace(header) == "" {
		header = "*/*"
	}
	var ranges []mediaRange
	for _, part := range strings.Split(header, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil {
				continue
			}
		}
		if q <= 0 {
			continue
		}
		ranges = append(ranges, mediaRange{mediaType: mediaType, params: params, q: q})
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
