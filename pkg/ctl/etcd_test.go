package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// startDebugAPIServer starts an in-process apiserver whose debug API (and
// with it the etcd routes and the compact fault) is on.
func startDebugAPIServer(t *testing.T) *framework.APIServer {
	t.Helper()
	return framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.Journal = debug.NewJournal("apiserver", 0, nil)
	})
}

// collapse joins each line's fields with one space, so tables compare
// without their column widths.
func collapse(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// TestCtlEtcdShowsKeysValuesAndHistory: ls, get and history of a
// ConfigMap given as TYPE/NAME, with the revisions the API returned as
// resourceVersions; the compact fault and the history after it.
func TestCtlEtcdShowsKeysValuesAndHistory(t *testing.T) {
	a := startDebugAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "app"}, Data: map[string]string{"color": "blue"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := cm.ResourceVersion
	cm.Data["color"] = "green"
	if cm, err = c.ConfigMaps("default").Update(ctx, cm, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	updated := cm.ResourceVersion

	if got, want := collapse(mustRun(t, a, "etcd", "ls", "cm")), collapse(fmt.Sprintf(
		"KEY CREATE-REV MOD-REV VERSION\n/registry/configmaps/default/app %s %s 2", created, updated)); got != want {
		t.Errorf("ctl etcd ls cm:\n%s\nwant:\n%s", got, want)
	}

	var value debug.EtcdValue
	if err := json.Unmarshal([]byte(mustRun(t, a, "etcd", "get", "configmap/app", "-o", "json")), &value); err != nil {
		t.Fatal(err)
	}
	var stored api.ConfigMap
	if err := json.Unmarshal(value.Value, &stored); err != nil || stored.Data["color"] != "green" || stored.ResourceVersion != "" ||
		fmt.Sprint(value.ModRevision) != updated || value.Key != "/registry/configmaps/default/app" {
		t.Errorf("ctl etcd get -o json = %+v (%v); want the stored ConfigMap (color green, no resourceVersion) at mod revision %s", value, err, updated)
	}
	if got := mustRun(t, a, "etcd", "get", "/registry/configmaps/default/app"); !strings.Contains(got, `"color": "green"`) ||
		!strings.HasPrefix(collapse(got), fmt.Sprintf("KEY CREATE-REV MOD-REV VERSION\n/registry/configmaps/default/app %s %s 2", created, updated)) {
		t.Errorf("ctl etcd get KEY:\n%s\nwant the revisions, then the value", got)
	}

	history := collapse(mustRun(t, a, "etcd", "history", "cm/app"))
	want := regexp.MustCompile(`^REVISION EVENT CHANGE\n` + created + ` create \(created, \d+ bytes\)\n` + updated + ` update data.color: "blue" → "green"$`)
	if !want.MatchString(history) {
		t.Errorf("ctl etcd history cm/app:\n%s\nwant it to match %s", history, want)
	}

	out := mustRun(t, a, "fault", "compact")
	m := regexp.MustCompile(`^etcd compacted at revision (\d+); every watch was dropped \(\d+ watches\)\.\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("ctl fault compact:\n%s", out)
	}
	history = collapse(mustRun(t, a, "etcd", "history", "cm/app"))
	wantAfter := "REVISION EVENT CHANGE\n" +
		updated + " kept the value at the compaction point (version 2); its write was compacted away\n" +
		m[1] + " compacted etcd forgot every revision before " + m[1]
	if history != wantAfter {
		t.Errorf("history after the compaction:\n%s\nwant:\n%s", history, wantAfter)
	}
}

func TestCtlEtcdErrors(t *testing.T) {
	a := startDebugAPIServer(t)
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"etcd", "get", "cm/none"}, `Error from server (NotFound): key "/registry/configmaps/default/none" not found in etcd` + "\n"},
		{[]string{"etcd", "get", "cm"}, `error: "cm" names no object: give TYPE/NAME (configmap/app) or an etcd key (/registry/configmaps/default/app)` + "\n"},
		{[]string{"etcd", "history", "widgets/x"}, `error: the server doesn't have a resource type "widgets"` + "\n"},
		{[]string{"etcd", "ls", "-o", "yaml"}, `error: unable to match a printer suitable for the output format "yaml", allowed formats are: json,wide` + "\n"},
		{[]string{"etcd", "history", "cm/x", "--limit", "-1"}, "error: --limit must not be negative, not -1\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runIn(t, a, "", tt.args...)
		if code != 1 || out != "" || errOut != tt.wantErr {
			t.Errorf("ctl %s = %d, %q, %q; want 1 and stderr %q", strings.Join(tt.args, " "), code, out, errOut, tt.wantErr)
		}
	}
	code, _, errOut := runIn(t, a, "", "etcd", "history", "cm/never")
	if code != 0 || errOut != "No history of /registry/configmaps/default/never: etcd never had it.\n" {
		t.Errorf("history of a key never written: %d, %q", code, errOut)
	}
}
