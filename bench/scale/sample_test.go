//go:build scale

package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/procstat"
)

// curvePoint is what the run measured with pods pods in the cluster: every
// process's RSS and the latency of the LISTs a client of that size makes.
type curvePoint struct {
	pods int
	// rss is each process's resident memory in bytes, by component.
	rss map[string]uint64
	// listAll is a LIST of every pod as full JSON (median of listRounds),
	// listPaged the same in pages of 500 (one pass), listNode one node's
	// pods by field selector (median of listRounds); listBytes is the size
	// of the full list's body.
	listAll, listPaged, listNode time.Duration
	listBytes                    int
	// etcdDB is the size of etcd's bbolt file (its backend quota counts
	// this size; it never shrinks without a defragmentation).
	etcdDB int64
}

// listRounds is how many times each LIST is timed at a curve point.
const listRounds = 3

// sampleCurve measures a curve point. The LISTs are answered from the
// apiserver's watch cache (no resourceVersion: the most recent state, as a
// reflector's first list asks); the client reads every byte of the body and
// decodes only the list's metadata, as W4 does: decoding the items is the
// client's cost, not the server's.
func sampleCurve(ctx context.Context, c *client.Client, pids map[string]int, pods int, node, dataDir string) (curvePoint, error) {
	p := curvePoint{pods: pods, rss: readRSS(pids), etcdDB: etcdDBSize(dataDir)}
	var all, byNode []time.Duration
	for range listRounds {
		start := time.Now()
		body, err := getBody(ctx, c, "/api/v1/pods", nil)
		if err != nil {
			return p, err
		}
		all = append(all, time.Since(start))
		p.listBytes = len(body)
		body = nil
		start = time.Now()
		if _, err := getBody(ctx, c, "/api/v1/pods", url.Values{"fieldSelector": {"spec.nodeName=" + node}}); err != nil {
			return p, err
		}
		byNode = append(byNode, time.Since(start))
	}
	p.listAll, p.listNode = median(all), median(byNode)
	start := time.Now()
	for cont := ""; ; {
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		body, err := getBody(ctx, c, "/api/v1/pods", q)
		if err != nil {
			return p, err
		}
		if cont, err = continueToken(body); err != nil {
			return p, err
		}
		if cont == "" {
			break
		}
	}
	p.listPaged = time.Since(start)
	return p, nil
}

// continueToken reads metadata.continue from a list's body, decoding only
// what comes before the items (the apiserver writes kind, apiVersion and
// metadata first): skipping 500 pods of JSON would cost the client more
// than the server spends on the page.
func continueToken(body []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return "", fmt.Errorf("decode a page of pods: %w", err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("decode a page of pods: %w", err)
		}
		if key != "metadata" {
			var skip json.RawMessage
			if key == "items" {
				return "", fmt.Errorf("decode a page of pods: items before metadata")
			}
			if err := dec.Decode(&skip); err != nil {
				return "", fmt.Errorf("decode a page of pods: %w", err)
			}
			continue
		}
		var meta struct {
			Continue string `json:"continue"`
		}
		if err := dec.Decode(&meta); err != nil {
			return "", fmt.Errorf("decode a page of pods: %w", err)
		}
		return meta.Continue, nil
	}
	return "", fmt.Errorf("decode a page of pods: no metadata")
}

// etcdDBSize returns the size of the etcd database file under dataDir
// (member/snap/db), or -1 when there is none.
func etcdDBSize(dataDir string) int64 {
	size := int64(-1)
	_ = filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "db" && filepath.Base(filepath.Dir(path)) == "snap" {
			if info, err := d.Info(); err == nil {
				size = max(size, info.Size())
			}
		}
		return nil
	})
	return size
}

// getBody GETs path?query and returns the body of a 200 answer.
func getBody(ctx context.Context, c *client.Client, path string, query url.Values) ([]byte, error) {
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	code, body, err := c.Do(ctx, "GET", path, nil, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if code != 200 {
		return nil, fmt.Errorf("GET %s: HTTP %d: %.200s", path, code, body)
	}
	return body, nil
}

// benchProcess names this benchmark's own process among the RSS figures.
const benchProcess = "scale-bench"

// readRSS reads the RSS of every process in pids, and of this one as
// benchProcess; a process it cannot read is left out.
func readRSS(pids map[string]int) map[string]uint64 {
	rss := map[string]uint64{}
	for name, pid := range pids {
		if m, err := procstat.ReadMemory(pid); err == nil {
			rss[name] = m.RSS
		}
	}
	if m, err := procstat.ReadMemory(os.Getpid()); err == nil {
		rss[benchProcess] = m.RSS
	}
	return rss
}

// sumRSS is the RSS of every process in rss together.
func sumRSS(rss map[string]uint64) uint64 {
	var total uint64
	for _, name := range slices.Sorted(maps.Keys(rss)) {
		total += rss[name]
	}
	return total
}

// median returns the middle of ds (the upper middle of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// percentile returns the q-th quantile (0 < q ≤ 1) of sorted ds by the
// nearest-rank method.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
