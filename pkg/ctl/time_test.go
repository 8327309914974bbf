package ctl

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// clockLine matches "<label>: <RFC 3339 time><rest>" and captures the time.
func clockTime(t *testing.T, out, label string) time.Time {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + label + `:\s+(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q line in:\n%s", label, out)
	}
	at, err := time.Parse(time.RFC3339, m[1])
	if err != nil {
		t.Fatalf("%s %q: %v", label, m[1], err)
	}
	return at
}

func TestTimeOnAVirtualClockCluster(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.VirtualClock = true })

	out := mustRun(t, a, "time")
	if !strings.Contains(out, "(virtual, 0s ahead of the wall clock)") {
		t.Fatalf("ctl time on a fresh virtual clock:\n%s", out)
	}

	out = mustRun(t, a, "time", "advance", "90s", "--step", "1h")
	if !regexp.MustCompile(`^cluster clock advanced 1m30s to \S+ \(1m30s ahead of the wall clock\)\n$`).MatchString(out) {
		t.Fatalf("ctl time advance 90s printed %q", out)
	}
	out = mustRun(t, a, "time", "advance", "1m")
	if !strings.HasSuffix(out, "(2m30s ahead of the wall clock)\n") {
		t.Fatalf("a second advance printed %q, want 2m30s ahead", out)
	}

	out = mustRun(t, a, "time")
	cluster, wall := clockTime(t, out, "cluster clock"), clockTime(t, out, "wall clock")
	if d := cluster.Sub(wall); d != 150*time.Second {
		t.Fatalf("ctl time shows the cluster clock %v ahead of the wall clock, want 2m30s:\n%s", d, out)
	}
	if !strings.Contains(out, "(virtual, 2m30s ahead of the wall clock)") {
		t.Fatalf("ctl time:\n%s", out)
	}

	for _, tt := range []struct{ args, wantErr string }{
		{"time advance -- -5m", "error: the cluster clock only moves forward: -5m is not a positive duration\n"},
		{"time advance 0s", "error: the cluster clock only moves forward: 0s is not a positive duration\n"},
		{"time advance soon", `error: invalid duration "soon": want a Go duration such as 90s, 5m or 1h30m` + "\n"},
		{"time advance 1m --step 0s", "error: --step 0s: must be positive\n"},
	} {
		code, out, errOut := runIn(t, a, "", strings.Fields(tt.args)...)
		if code != 1 || out != "" || errOut != tt.wantErr {
			t.Errorf("ctl %s = %d, %q, %q; want 1, no output, %q", tt.args, code, out, errOut, tt.wantErr)
		}
	}
}

// TestAgesOnTheClusterClock: on a cluster an hour ahead of the wall clock,
// an Event stamped now by the cluster clock is seconds old for ctl events
// and ctl describe, not "<invalid>" (in the future of the wall clock).
func TestAgesOnTheClusterClock(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.VirtualClock = true })
	mustRun(t, a, "time", "advance", "1h", "--step", "1h")
	mustRun(t, a, "create", "configmap", "aged")
	c := a.Client(t, nil)
	cm, err := c.ConfigMaps("default").Get(context.Background(), "aged", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stamp := api.NewTime(time.Now().Add(time.Hour).UTC().Truncate(time.Second))
	_, err = c.Events("default").Create(context.Background(), &api.Event{
		ObjectMeta:     api.ObjectMeta{Name: "aged.1"},
		InvolvedObject: api.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: "default", Name: "aged", UID: cm.UID},
		Reason:         "Aged", Message: "stamped on the cluster clock", Type: api.EventTypeNormal,
		FirstTimestamp: stamp, LastTimestamp: stamp, Count: 1,
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, a, "events"); !regexp.MustCompile(`(?m)^\d+s\s+Normal\s+Aged\s`).MatchString(out) {
		t.Errorf("ctl events on the cluster clock:\n%s", out)
	}
	if out := mustRun(t, a, "describe", "configmap", "aged"); !regexp.MustCompile(`Normal\s+Aged\s+\d+s\s`).MatchString(out) {
		t.Errorf("ctl describe on the cluster clock:\n%s", out)
	}
}

func TestAdvanceNoticeForLongAdvances(t *testing.T) {
	for _, tt := range []struct {
		by, step time.Duration
		want     string
	}{
		{5 * time.Minute, 5 * time.Second, ""},
		{500 * time.Second, 5 * time.Second, ""},
		{501 * time.Second, 5 * time.Second, "advancing the cluster clock 8m21s in 101 steps of 5s: about 10s of wall time"},
		{time.Hour, 5 * time.Second, "advancing the cluster clock 1h0m0s in 720 steps of 5s: about 1m12s of wall time"},
		{time.Hour, time.Hour, ""},
	} {
		if got := advanceNotice(tt.by, tt.step); got != tt.want {
			t.Errorf("advanceNotice(%v, %v) = %q, want %q", tt.by, tt.step, got, tt.want)
		}
	}
}

func TestTimeOnAWallClockCluster(t *testing.T) {
	a := framework.StartAPIServer(t)
	out := mustRun(t, a, "time")
	if !strings.Contains(out, "(the wall clock: this cluster was started without --virtual-clock)") {
		t.Fatalf("ctl time without a virtual clock:\n%s", out)
	}
	code, out, errOut := runIn(t, a, "", "time", "advance", "60s")
	if want := "error: this cluster runs on the wall clock; start it with `ctl up --virtual-clock`\n"; code != 1 || out != "" || errOut != want {
		t.Fatalf("ctl time advance 60s = %d, %q, %q; want 1, no output, %q", code, out, errOut, want)
	}
}
