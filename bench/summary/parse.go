package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// results holds every value a benchmark output reported: benchmark name
// (without its -GOMAXPROCS suffix) → metric unit → one value per run, in the
// order the runs appeared.
type results map[string]map[string][]float64

// values returns the runs of one benchmark's metric (nil when it never ran).
func (r results) values(benchmark, unit string) []float64 {
	return r[benchmark][unit]
}

// benchmarkName matches the start of a result line, "BenchmarkW5WatchLatency-2".
var benchmarkName = regexp.MustCompile(`^Benchmark\S*`)

// procsSuffix is the -GOMAXPROCS suffix `go test` appends to the name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// runCount matches the iteration count that starts a result's figures, so
// that figures split from their name by other output (a benchmark that logs
// or starts processes writing to the same terminal) are still found.
var runCount = regexp.MustCompile(`^\s*\d+\s+\S+ ns/op`)

// parse reads `go test -bench` output. A result line is
//
//	BenchmarkW5WatchLatency-2   1   157228719 ns/op   0.345 etcd-put-p50-ms   2.671 p99-ms
//
// that is the name, the iteration count, then value–unit pairs. `go test`
// prints the name before it runs the benchmark and the figures after, so
// anything the benchmark prints meanwhile can sit between them: a name line
// without figures is remembered until the next line that starts with an
// iteration count. Everything else (logs, PASS, ok) is ignored.
func parse(in io.Reader) (results, error) {
	out := results{}
	pending := ""
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		var fields []string
		if name := benchmarkName.FindString(line); name != "" {
			pending = procsSuffix.ReplaceAllString(name, "")
			fields = strings.Fields(line[len(name):])
			if len(fields) == 0 {
				continue
			}
		} else if pending != "" && runCount.MatchString(line) {
			fields = strings.Fields(line)
		} else {
			continue
		}
		if addRun(out, pending, fields) {
			pending = ""
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read benchmark output: %w", err)
	}
	return out, nil
}

// addRun records one result's figures: fields is the iteration count
// followed by value–unit pairs. A line that does not have that shape (a
// benchmark's own log line that happens to start with its name) is skipped,
// and addRun reports whether it recorded anything.
func addRun(out results, name string, fields []string) bool {
	if len(fields) < 3 || len(fields)%2 != 1 {
		return false
	}
	if _, err := strconv.ParseInt(fields[0], 10, 64); err != nil {
		return false
	}
	metrics := map[string]float64{}
	for i := 1; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return false
		}
		metrics[fields[i+1]] = v
	}
	if out[name] == nil {
		out[name] = map[string][]float64{}
	}
	for unit, v := range metrics {
		out[name][unit] = append(out[name][unit], v)
	}
	return true
}
