//go:build scale

package scale

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/client"
)

// requestHistograms are the apiserver's apiserver_request_duration_seconds
// buckets at one moment: by "verb resource[/subresource]", the cumulative
// count of requests at or below each bucket's upper bound (le).
type requestHistograms map[string]map[float64]float64

// mutatingVerbs are the verbs of the mutating API call SLO (upstream's
// apiserver labels; kplane uses the same).
var mutatingVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

var labelPattern = regexp.MustCompile(`(\w+)="([^"]*)"`)

// readHistograms scrapes /metrics for the request duration buckets.
func readHistograms(ctx context.Context, c *client.Client) (requestHistograms, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, body, err := c.Do(ctx, "GET", "/metrics", nil, map[string]string{"Accept": "text/plain"})
	if err != nil {
		return nil, fmt.Errorf("read the apiserver's /metrics: %w", err)
	}
	const metric = "apiserver_request_duration_seconds_bucket{"
	h := requestHistograms{}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, metric) {
			continue
		}
		labels, value, _ := strings.Cut(line[len(metric):], " ")
		n, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		l := map[string]string{}
		for _, m := range labelPattern.FindAllStringSubmatch(labels, -1) {
			l[m[1]] = m[2]
		}
		le, err := strconv.ParseFloat(l["le"], 64)
		if l["le"] == "+Inf" {
			le, err = math.Inf(1), nil
		}
		if err != nil {
			continue
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		if h[key] == nil {
			h[key] = map[float64]float64{}
		}
		h[key][le] += n
	}
	return h, nil
}

// callLatency is one resource and verb's requests between two scrapes:
// how many, and the 99th percentile as the upper bound of the bucket it
// falls in (what upstream's SLO check reads from the same histogram).
type callLatency struct {
	key   string
	count float64
	p99   float64 // seconds; +Inf when beyond the last finite bucket
}

// mutatingLatencies returns, for every mutating resource and verb with
// requests between before and after, their count and p99, slowest first.
func mutatingLatencies(before, after requestHistograms) []callLatency {
	var out []callLatency
	for key, buckets := range after {
		verb, _, _ := strings.Cut(key, " ")
		if !mutatingVerbs[verb] {
			continue
		}
		les := slices.Sorted(maps.Keys(buckets))
		total := buckets[math.Inf(1)] - before[key][math.Inf(1)]
		if total <= 0 {
			continue
		}
		p99 := math.Inf(1)
		for _, le := range les {
			if buckets[le]-before[key][le] >= 0.99*total {
				p99 = le
				break
			}
		}
		out = append(out, callLatency{key: key, count: total, p99: p99})
	}
	slices.SortFunc(out, func(a, b callLatency) int {
		if a.p99 != b.p99 {
			return cmp.Compare(b.p99, a.p99)
		}
		return cmp.Compare(b.count, a.count)
	})
	return out
}
