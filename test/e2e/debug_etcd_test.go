package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// TestDebugEtcdHistoryAndCompactFault (issue 13, Done-when 4): `ctl etcd
// history` of a ConfigMap created and updated three times lists its four
// revisions, each the resourceVersion the API returned; after `ctl fault
// compact` the history starts at the compaction point, a watch from an
// older resourceVersion gets 410 Gone, and the controller-manager's
// informers relist (its journal has list records after the compaction).
func TestDebugEtcdHistoryAndCompactFault(t *testing.T) {
	t.Parallel()
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	cl := c.Client(t)
	ctx := context.Background()
	ctl := func(args ...string) string {
		t.Helper()
		code, out := runCtl(t, bin, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
		if code != 0 {
			t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}

	cm, err := cl.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x"}, Data: map[string]string{"k": "v0"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rvs := []string{cm.ResourceVersion}
	for i := 1; i <= 3; i++ {
		cm.Data["k"] = fmt.Sprintf("v%d", i)
		if cm, err = cl.ConfigMaps("default").Update(ctx, cm, client.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, cm.ResourceVersion)
	}

	history := ctl("etcd", "history", "configmap/x", "-n", "default")
	want := []string{
		rvs[0] + " create (created,",
		rvs[1] + ` update data.k: "v0" → "v1"`,
		rvs[2] + ` update data.k: "v1" → "v2"`,
		rvs[3] + ` update data.k: "v2" → "v3"`,
	}
	if got := historyRows(history); !rowsStartWith(got, want) {
		t.Fatalf("ctl etcd history configmap/x:\n%s\nwant rows starting %q (the resourceVersions the API returned)", history, want)
	}

	// Where the controller-manager's journal stands before the fault.
	admin, _ := adminDebugClient(t, c.KubeconfigPath())
	managers := endpointsNamed(t, c.Dir, "controller-manager", "apiserver")
	var before debug.Info
	if err := admin.Get(ctx, managers["controller-manager"], debug.PathInfo, &before); err != nil {
		t.Fatal(err)
	}

	out := ctl("fault", "compact")
	m := regexp.MustCompile(`etcd compacted at revision (\d+); every watch was dropped \((\d+) watches\)`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "`ctl trace") {
		t.Fatalf("ctl fault compact said:\n%s\nwant the revision, the watches dropped and what to watch next", out)
	}
	compactedAt, dropped := m[1], m[2]
	if n, _ := strconv.Atoi(dropped); n < 20 {
		t.Errorf("dropped %s watches; the controller-manager alone watches about 20 resources", dropped)
	}

	history = ctl("etcd", "history", "configmap/x", "-n", "default")
	want = []string{rvs[3] + " kept", compactedAt + " compacted etcd forgot every revision before " + compactedAt}
	if got := historyRows(history); !rowsStartWith(got, want) {
		t.Fatalf("ctl etcd history configmap/x after the compaction:\n%s\nwant rows starting %q", history, want)
	}

	// A watch from a resourceVersion before the compaction: 410 Gone, as
	// an ERROR event with an Expired Status.
	w, err := cl.ConfigMaps("default").Watch(ctx, client.ListOptions{ResourceVersion: rvs[3]})
	if err == nil {
		select {
		case ev := <-w.ResultChan():
			err = ev.Err
			if ev.Type != client.Error {
				err = fmt.Errorf("got a %s event", ev.Type)
			}
		case <-time.After(30 * time.Second):
			err = fmt.Errorf("no event within 30 s")
		}
		w.Stop()
	}
	if !apierrors.IsGone(err) {
		t.Fatalf("watch from resourceVersion %s after the compaction at %s: %v, want 410 Gone", rvs[3], compactedAt, err)
	}

	// The apiserver recorded the fault; the controller-manager's
	// configmaps informer listed x again after its 410.
	var events []string
	if err := admin.Records(ctx, managers["apiserver"], debug.RecordQuery{Types: debug.TypeEvent}, func(r debug.Record) error {
		events = append(events, r.Message)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if wantEvent := "compacted etcd at revision " + compactedAt + "; dropped " + dropped + " watches"; !slices.Contains(events, wantEvent) {
		t.Errorf("apiserver events = %q, want %q", events, wantEvent)
	}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		var stages []string
		err := admin.Records(ctx, managers["controller-manager"],
			debug.RecordQuery{After: before.LastSeq, Types: debug.TypeTrace, Resource: "configmaps", Key: "default/x"},
			func(r debug.Record) error {
				stages = append(stages, r.Stage)
				return nil
			})
		return slices.Contains(stages, "list"), fmt.Sprintf("controller-manager's trace of default/x since the fault: %v (%v), want a list", stages, err)
	})
}

// historyRows are the rows of a `ctl etcd history` table, header left out,
// each with its runs of spaces collapsed.
func historyRows(table string) []string {
	lines := nonEmptyLines(table)
	if len(lines) == 0 {
		return nil
	}
	rows := make([]string, 0, len(lines)-1)
	for _, line := range lines[1:] {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	return rows
}

// rowsStartWith reports whether rows are exactly as many as prefixes and
// each starts with its prefix.
func rowsStartWith(rows, prefixes []string) bool {
	if len(rows) != len(prefixes) {
		return false
	}
	for i := range rows {
		if !strings.HasPrefix(rows[i], prefixes[i]) {
			return false
		}
	}
	return true
}

// endpointsNamed waits for the named components' debug endpoints in dataDir.
func endpointsNamed(t *testing.T, dataDir string, names ...string) map[string]debug.Endpoint {
	t.Helper()
	found := map[string]debug.Endpoint{}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		endpoints, err := debug.ReadEndpoints(dataDir)
		for _, e := range endpoints {
			found[e.Component] = e
		}
		for _, name := range names {
			if _, ok := found[name]; !ok {
				return false, fmt.Sprintf("no %s among the endpoints %v (%v)", name, endpoints, err)
			}
		}
		return true, ""
	})
	return found
}
