package ctl

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
	"kplane/test/framework"
)

// TestTraceReplaysAnObjectAndWhatItOwns runs `ctl trace --since` against an
// in-process apiserver whose journal is served as a cluster's would be: it
// prints the writes of the named ConfigMap and of the one it owns, with the
// resourceVersions the API answered, and nothing about an unrelated one.
func TestTraceReplaysAnObjectAndWhatItOwns(t *testing.T) {
	j := debug.NewJournal("apiserver", 1000, nil)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.Journal = j })
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	// The apiserver's data dir holds the admin kubeconfig, as a cluster's
	// does; the journal's endpoint goes beside it.
	dataDir := a.Dir
	if err := debug.WriteEndpoint(debug.EndpointFile(dataDir, "apiserver"), debug.Endpoint{Component: "apiserver", URL: srv.URL, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}

	c := a.Client(t, nil)
	ctx := context.Background()
	owner, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "owner", Namespace: "default"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dependent, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "dependent", Namespace: "default",
		OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "unrelated", Namespace: "default"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	out := mustRun(t, a, "trace", "cm/owner", "--since", "1m", "--timeout", "1s", "-o", "json", "--data-dir", dataDir)
	var writes []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r debug.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q is not a record: %v", line, err)
		}
		if r.Key == "default/unrelated" {
			t.Errorf("the trace printed a record of an unrelated ConfigMap: %s", line)
		}
		if r.Type == debug.TypeWrite {
			writes = append(writes, r.Stage+" "+r.Key+" "+r.ResourceVersion)
		}
	}
	want := []string{"create default/owner " + owner.ResourceVersion, "create default/dependent " + dependent.ResourceVersion}
	if strings.Join(writes, "; ") != strings.Join(want, "; ") {
		t.Errorf("write records %q, want %q", writes, want)
	}

	table := mustRun(t, a, "trace", "configmap/owner", "--since", "1m", "--timeout", "1s", "--stages", "create", "--data-dir", dataDir)
	wantTable := []string{
		"TIME       COMPONENT           STAGE     ACTOR                           OBJECT                              RV      DETAIL",
		"apiserver           create    kubernetes-admin                configmap/owner                     " + owner.ResourceVersion,
		"apiserver           create    kubernetes-admin                configmap/dependent                 " + dependent.ResourceVersion,
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || lines[0] != wantTable[0] || !strings.Contains(lines[1], wantTable[1]) || !strings.Contains(lines[2], wantTable[2]) {
		t.Errorf("table:\n%s\nwant lines like:\n%s", table, strings.Join(wantTable, "\n"))
	}
}

func TestTraceErrors(t *testing.T) {
	a := framework.StartAPIServer(t)
	empty := t.TempDir()
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"trace"}, "error: you must specify the object to trace, as TYPE/NAME (for example deploy/web)\n"},
		{[]string{"trace", "deploy/web", "-o", "yaml"}, "error: unable to match a printer suitable for the output format \"yaml\", allowed formats are: json\n"},
		{[]string{"trace", "frob/web"}, "error: the server doesn't have a resource type \"frob\"\n"},
		{[]string{"trace", "deploy/a", "deploy/b"}, "error: trace follows one object: give exactly one TYPE/NAME\n"},
		{[]string{"trace", "deploy/web", "--stages", "bind,sched"}, "error: --stages: unknown stage \"sched\"; the stages are fanout, list, watch, rewatch, delta, pop, store, handler, enqueue, queue, sync, decision, " +
			"create, update, patch, delete, deletecollection, bind, status, scale, evict, finalize\n"},
		{[]string{"trace", "deploy/web", "--data-dir", empty}, "error: no debug API found in " + empty + "/debug — is a cluster running there (`ctl up`)?\n"},
	} {
		code, out, errOut := runIn(t, a, "", tc.args...)
		if code != 1 || out != "" || errOut != tc.wantErr {
			t.Errorf("ctl %s = %d, stdout %q, stderr %q; want 1, \"\", %q", strings.Join(tc.args, " "), code, out, errOut, tc.wantErr)
		}
	}
}

// TestTraceReopensABrokenStream: when a component's record stream breaks
// (the component restarted, a proxy dropped it), the trace says so and
// goes on after the last record it received, missing nothing and printing
// nothing twice.
func TestTraceReopensABrokenStream(t *testing.T) {
	j := debug.NewJournal("scheduler", 100, nil)
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	bind := func(pod string) {
		j.Add(debug.Record{Type: debug.TypeWrite, Stage: "bind", Resource: "pods", Key: "default/" + pod})
	}
	bind("web") // before the trace: not shown

	out, warnings := &framework.SyncBuffer{}, &framework.SyncBuffer{}
	ready := make(chan struct{})
	tr := &tracer{
		followed: trace.NewFollowedSet("pods", "default", "web", ""),
		printer:  &tracePrinter{out: out, json: true},
		warn:     func(msg string) { _, _ = warnings.Write([]byte(msg + "\n")) },
		ready:    func(int) { close(ready) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tr.run(ctx, &debug.Client{}, []debug.Endpoint{{Component: "scheduler", URL: srv.URL}}, time.Time{})
	}()
	<-ready
	countBinds := func() int { return strings.Count(out.String(), `"stage":"bind"`) }

	bind("web")
	framework.Eventually(t, 10*time.Second, func() (bool, string) { return countBinds() == 1, "printed: " + out.String() })
	srv.CloseClientConnections()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		return strings.Contains(warnings.String(), "lost scheduler's records"), "warnings: " + warnings.String()
	})
	bind("web")
	framework.Eventually(t, 10*time.Second, func() (bool, string) { return countBinds() == 2, "printed: " + out.String() })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the trace ended with %v, want nil (its context ended)", err)
	}
	if n := countBinds(); n != 2 {
		t.Errorf("printed %d binds, want 2 (the two after the trace started, each once):\n%s", n, out.String())
	}
}
