package bench

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/procstat"
)

// loadSample is what a cluster has spent up to one moment: the CPU time of
// each of its processes and the apiserver's count and total duration of
// requests by verb and resource. The difference of two samples says which
// process and which requests a workload cost, and how long the requests
// took to answer.
type loadSample struct {
	cpu map[string]time.Duration // by process name
	// requests and seconds are apiserver_request_total and
	// apiserver_request_duration_seconds_sum by "verb resource[/subresource]".
	requests, seconds map[string]float64
}

// sampleLoad reads the CPU time of every process in pids (by name) from
// /proc and the apiserver's apiserver_request_total from /metrics. A
// process or metric it cannot read is left out: the sample is a
// diagnostic, never a reason to fail the benchmark.
func sampleLoad(c *client.Client, pids map[string]int) loadSample {
	s := loadSample{cpu: map[string]time.Duration{}, requests: map[string]float64{}, seconds: map[string]float64{}}
	for name, pid := range pids {
		if d, err := procstat.CPUTime(pid); err == nil {
			s.cpu[name] = d
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, body, err := c.Do(ctx, "GET", "/metrics", nil, map[string]string{"Accept": "text/plain"})
	if err != nil {
		return s
	}
	for _, line := range strings.Split(string(body), "\n") {
		for metric, into := range map[string]map[string]float64{
			"apiserver_request_total{":                s.requests,
			"apiserver_request_duration_seconds_sum{": s.seconds,
		} {
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
			key := l["verb"] + " " + l["resource"]
			if l["subresource"] != "" {
				key += "/" + l["subresource"]
			}
			into[key] += n
		}
	}
	return s
}

var labelPattern = regexp.MustCompile(`(\w+)="([^"]*)"`)

// logLoad logs what the cluster spent between two samples: CPU seconds by
// process and the API requests by verb and resource with their mean time
// to answer (watches left out), most frequent first. It returns the CPU
// time of all processes together.
func logLoad(b *testing.B, before, after loadSample, elapsed time.Duration) time.Duration {
	b.Helper()
	var cpu []string
	total := time.Duration(0)
	for _, name := range slices.Sorted(maps.Keys(after.cpu)) {
		d := after.cpu[name] - before.cpu[name]
		total += d
		cpu = append(cpu, fmt.Sprintf("%s %.2fs", name, d.Seconds()))
	}
	type count struct {
		key     string
		n, mean float64
	}
	var counts []count
	for key, n := range after.requests {
		if d := n - before.requests[key]; d > 0 && !strings.HasPrefix(key, "watch ") {
			counts = append(counts, count{key, d, (after.seconds[key] - before.seconds[key]) / d})
		}
	}
	slices.SortFunc(counts, func(a, b count) int { return int(b.n - a.n) })
	var reqs []string
	for _, c := range counts {
		reqs = append(reqs, fmt.Sprintf("%s %.0f (%.1f ms)", c.key, c.n, 1000*c.mean))
	}
	b.Logf("CPU in %.2fs (%d cores: %.2f CPU-s): %s; total %.2fs\nrequests: %s",
		elapsed.Seconds(), runtime.NumCPU(), float64(runtime.NumCPU())*elapsed.Seconds(), strings.Join(cpu, ", "), total.Seconds(), strings.Join(reqs, ", "))
	return total
}
