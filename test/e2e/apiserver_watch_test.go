package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/test/framework"
)

func podJSON(name string, labels map[string]string) []byte {
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "labels": labels},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
	}
	b, _ := json.Marshal(obj)
	return b
}

type watchLine struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string            `json:"name"`
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"object"`
}

// readEvents reads watch lines until n have arrived or the deadline passes.
func readEvents(t *testing.T, resp *http.Response, n int, timeout time.Duration) []watchLine {
	t.Helper()
	lines := make(chan watchLine)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l watchLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("bad watch line %q: %v", sc.Text(), err)
				return
			}
			lines <- l
		}
	}()
	var got []watchLine
	deadline := time.After(timeout)
	for len(got) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-deadline:
			t.Fatalf("got %d of %d watch events: %+v", len(got), n, got)
		}
	}
	return got
}

func eventSummary(events []watchLine) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, e.Type+" "+e.Object.Metadata.Name)
	}
	return strings.Join(parts, ", ")
}

// TestRawWatch: ?watch=1 delivers ADDED/MODIFIED/DELETED in order; a watch
// from an old resourceVersion replays what happened after it; label
// selectors turn "stops matching" into DELETED.
func TestRawWatch(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	list := a.Do(t, "GET", "/api/v1/namespaces/default/pods", nil)
	var listMeta struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	json.Unmarshal(list.Body, &listMeta)
	start := listMeta.Metadata.ResourceVersion

	resp := a.Stream(t, ctx, "/api/v1/namespaces/default/pods?watch=1&resourceVersion="+start)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch status %d", resp.StatusCode)
	}
	sel := a.Stream(t, ctx, "/api/v1/namespaces/default/pods?watch=1&labelSelector=app%3Dweb&resourceVersion="+start)
	defer sel.Body.Close()

	mustCode(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON("p1", map[string]string{"app": "web"})), 201)
	mustCode(t, a.Do(t, "PATCH", "/api/v1/namespaces/default/pods/p1", []byte(`{"metadata":{"labels":{"x":"1"}}}`),
		"Content-Type", "application/merge-patch+json"), 200)
	mustCode(t, a.Do(t, "PATCH", "/api/v1/namespaces/default/pods/p1", []byte(`{"metadata":{"labels":{"app":"db"}}}`),
		"Content-Type", "application/merge-patch+json"), 200)
	mustCode(t, a.Do(t, "DELETE", "/api/v1/namespaces/default/pods/p1", nil), 200)

	events := readEvents(t, resp, 4, 10*time.Second)
	if got := eventSummary(events); got != "ADDED p1, MODIFIED p1, MODIFIED p1, DELETED p1" {
		t.Errorf("watch events = %s", got)
	}
	rvs := make([]int64, len(events))
	for i, e := range events {
		rvs[i], _ = strconv.ParseInt(e.Object.Metadata.ResourceVersion, 10, 64)
		if i > 0 && rvs[i] <= rvs[i-1] {
			t.Errorf("resourceVersions not increasing: %v", rvs)
		}
	}
	// Selector watch: the relabel to app=db is a DELETED for app=web.
	selEvents := readEvents(t, sel, 3, 10*time.Second)
	if got := eventSummary(selEvents); got != "ADDED p1, MODIFIED p1, DELETED p1" {
		t.Errorf("selector watch events = %s", got)
	}

	// A new watch from the ADDED event's resourceVersion replays the rest.
	replay := a.Stream(t, ctx, "/api/v1/namespaces/default/pods?watch=1&resourceVersion="+events[0].Object.Metadata.ResourceVersion)
	defer replay.Body.Close()
	if got := eventSummary(readEvents(t, replay, 3, 10*time.Second)); got != "MODIFIED p1, MODIFIED p1, DELETED p1" {
		t.Errorf("replayed events = %s", got)
	}
}

// TestWatchAfterCompaction: a watch from a compacted resourceVersion gets
// 410 Gone (Expired).
func TestWatchAfterCompaction(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first string
	for i := 0; i < 3; i++ {
		r := a.Do(t, "POST", "/api/v1/namespaces/default/configmaps", []byte(fmt.Sprintf(`{"metadata":{"name":"c%d"}}`, i)))
		mustCode(t, r, 201)
		if i == 0 {
			var obj watchLine
			json.Unmarshal([]byte(`{"object":`+string(r.Body)+`}`), &obj)
			first = obj.Object.Metadata.ResourceVersion
		}
	}
	rev, err := a.Store().CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store().Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	resp := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+first)
	defer resp.Body.Close()
	events := readEvents(t, resp, 1, 10*time.Second)
	if events[0].Type != "ERROR" || events[0].Object.Code != 410 || events[0].Object.Reason != "Expired" {
		t.Errorf("watch from a compacted revision: %+v, want ERROR 410 Expired", events[0])
	}
	// A paginated list continuing at a compacted revision is 410 as well.
	r := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps?resourceVersion="+first+"&resourceVersionMatch=Exact", nil)
	if r.Code != 410 {
		t.Errorf("list at a compacted revision: %d %s", r.Code, r.Body)
	}
}

// TestKubectlGetWatch: kubectl get po -w shows changes live, in order.
func TestKubectlGetWatch(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	kubectl := framework.RequireKubectl(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// kubectl lists, then watches from the list's resourceVersion: once it
	// has printed w0 from the list, no later change can be missed.
	mustCode(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON("w0", nil)), 201)
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", a.KubeconfigPath(), "--cache-dir", a.Home+"/cache",
		"get", "po", "-w", "--output-watch-events")
	cmd.Env = append(cmd.Environ(), "HOME="+a.Home)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		return strings.Contains(out.String(), "w0"), out.String()
	})
	mustCode(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON("w1", nil)), 201)
	mustCode(t, a.Do(t, "PATCH", "/api/v1/namespaces/default/pods/w1", []byte(`{"metadata":{"labels":{"x":"1"}}}`),
		"Content-Type", "application/merge-patch+json"), 200)
	mustCode(t, a.Do(t, "DELETE", "/api/v1/namespaces/default/pods/w1", nil), 200)
	want := regexp.MustCompile(`(?s)EVENT\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n` +
		`ADDED\s+w0\s+0/1\s+Pending\s+0\s+\S+\n` +
		`ADDED\s+w1\s+0/1\s+Pending\s+0\s+\S+\n` +
		`MODIFIED\s+w1\s+0/1\s+Pending\s+0\s+\S+\n` +
		`DELETED\s+w1\s+0/1\s+Pending\s+0\s+\S+\n`)
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		return want.MatchString(out.String()), out.String()
	})
}

// lockedBuffer is a bytes.Buffer safe for a writer process and a reader test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func mustCode(t *testing.T, r framework.Response, code int) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("status %d, want %d: %s", r.Code, code, r.Body)
	}
}
