package ctl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
	"kplane/test/framework"
)

// TestFaultAPIErrorInstallsListsAndClearsRules drives `ctl fault
// api-error` against an in-process apiserver's debug API.
func TestFaultAPIErrorInstallsListsAndClearsRules(t *testing.T) {
	j := debug.NewJournal("apiserver", 100, nil)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.Journal = j })
	access := fakeCluster(t, j)
	ctx := context.Background()
	rule := debug.APIErrorRule{Resource: "replicasets", Verb: "create", Code: 500, For: time.Minute}

	var out bytes.Buffer
	if err := runFaultAPIError(ctx, &out, access, apiErrorOptions{rule: rule}, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"fault injected (rule 1): the apiserver fails every create of replicasets with 500 InternalError, for 1m0s.",
		"Who is hit: the deployment controller",
		"ctl queues --component controller-manager -o wide",
		"the deployment queue's key comes back WAITING",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output has no %q:\n%s", want, out.String())
		}
	}
	resp := a.Do(t, "POST", "/apis/apps/v1/namespaces/default/replicasets", []byte(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"x"}}`))
	if resp.Code != 500 {
		t.Errorf("a create of replicasets under the rule answered %d, want 500", resp.Code)
	}

	out.Reset()
	if err := runFaultAPIError(ctx, &out, access, apiErrorOptions{}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "RULE   RESOURCE      VERB     CODE   DELAY   EXPIRES IN   HITS\n1      replicasets   create   500    -       ") ||
		!strings.HasSuffix(out.String(), "   1\n") {
		t.Errorf("the rules' list:\n%s\nwant rule 1 with one hit", out.String())
	}

	out.Reset()
	if err := runFaultAPIError(ctx, &out, access, apiErrorOptions{clear: true}, false); err != nil {
		t.Fatal(err)
	}
	if out.String() != "cleared 1 api-error rule; the requests they held are served now.\n" {
		t.Errorf("clear printed %q", out.String())
	}

	err := runFaultAPIError(ctx, &out, access, apiErrorOptions{rule: debug.APIErrorRule{Resource: "replicasets", Verb: "create", Code: 418, For: time.Minute}}, true)
	if err == nil || !strings.Contains(err.Error(), "code 418: kplane injects 409 (Conflict), 429 (TooManyRequests) or 500 (InternalError) (400)") {
		t.Errorf("code 418: err %v, want the apiserver's refusal", err)
	}
}

func TestFaultDropWatchNamesTheResourcesWhoseWatchEnded(t *testing.T) {
	j := debug.NewJournal("scheduler", 10, nil)
	j.RegisterWatches(staticDropper{"nodes", "pods"})
	var out bytes.Buffer
	if err := runFaultDropWatch(context.Background(), &out, fakeCluster(t, j, debug.NewJournal("apiserver", 10, nil)), "", "scheduler"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "fault injected: dropped the watches of scheduler's 2 informers (nodes, pods).\n") ||
		!strings.Contains(out.String(), `a "rewatch" step`) {
		t.Errorf("drop-watch printed:\n%s", out.String())
	}
	out.Reset()
	if err := runFaultDropWatch(context.Background(), &out, fakeCluster(t, debug.NewJournal("apiserver", 10, nil)), "", "apiserver"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "apiserver has no informer watching") {
		t.Errorf("drop-watch of the apiserver printed:\n%s", out.String())
	}
}

type staticDropper []string

func (d staticDropper) DropWatches() []string { return d }

// killRecorder is a fault.KillEnv that records what would be signalled.
type killRecorder struct {
	holder   string
	held     string
	signaled string
	sig      syscall.Signal
}

func (k *killRecorder) env() fault.KillEnv {
	endpoints := []debug.Endpoint{
		{Component: "apiserver"},
		{Component: "controller-manager", Identity: "host_aaa"},
		{Component: "controller-manager-2", Identity: "host_bbb"},
	}
	return fault.KillEnv{
		Endpoints: func(string) ([]debug.Endpoint, error) { return endpoints, nil },
		LeaseHolder: func(_ context.Context, lease string) (string, error) {
			if lease != "kube-system/kube-controller-manager" {
				return "", errors.New("unexpected lease " + lease)
			}
			return k.holder, nil
		},
		HoldDown: func(_, component string, _ time.Time) error { k.held = component; return nil },
		Signal: func(_, component string, sig syscall.Signal) (cluster.ProcessRecord, bool, error) {
			k.signaled, k.sig = component, sig
			return cluster.ProcessRecord{PID: 4242}, true, nil
		},
	}
}

func TestFaultKillPicksTheLeaderByTheLeaseHolder(t *testing.T) {
	k := &killRecorder{holder: "host_bbb"}
	var out bytes.Buffer
	if err := runFaultKill(context.Background(), &out, k.env(), killOptions{signal: "KILL", leader: true, downFor: 30 * time.Second}, "controller-manager"); err != nil {
		t.Fatal(err)
	}
	if k.signaled != "controller-manager-2" || k.sig != syscall.SIGKILL || k.held != "controller-manager-2" {
		t.Errorf("signalled %q with %v, held %q; want controller-manager-2 (it holds the Lease) with SIGKILL, held down", k.signaled, k.sig, k.held)
	}
	for _, want := range []string{
		"fault injected: sent SIGKILL to controller-manager-2, the leader of the Lease kube-system/kube-controller-manager (pid 4242).",
		"ctl up's supervisor keeps it down for 30s, then starts it again.",
		"a standby takes over only once it\n  expires",
		"ctl get lease kube-controller-manager -n kube-system -w",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output has no %q:\n%s", want, out.String())
		}
	}

	k = &killRecorder{holder: "host_bbb"}
	if err := runFaultKill(context.Background(), &bytes.Buffer{}, k.env(), killOptions{signal: "term", leader: false}, "controller-manager"); err != nil {
		t.Fatal(err)
	}
	if k.signaled != "controller-manager" || k.sig != syscall.SIGTERM || k.held != "" {
		t.Errorf("--leader=false: signalled %q with %v, held %q; want controller-manager itself, SIGTERM, not held", k.signaled, k.sig, k.held)
	}

	k = &killRecorder{holder: "host_gone"}
	err := runFaultKill(context.Background(), &bytes.Buffer{}, k.env(), killOptions{signal: "KILL", leader: true}, "controller-manager")
	if err == nil || !strings.Contains(err.Error(), `held by "host_gone", which no running component announces`) || k.signaled != "" {
		t.Errorf("a holder nobody announces: err %v, signalled %q; want an error and no signal", err, k.signaled)
	}
	if err := runFaultKill(context.Background(), &bytes.Buffer{}, k.env(), killOptions{signal: "HUP", leader: true}, "scheduler"); err == nil || !strings.Contains(err.Error(), "want TERM or KILL") {
		t.Errorf("--signal HUP: err %v", err)
	}
}

func TestAPIErrorHintNamesWhoMakesTheRequests(t *testing.T) {
	for resource, want := range map[string]string{
		"replicasets":             "deployment",
		"replicasets.apps":        "deployment",
		"replicasets.apps/status": "replicaset",
		"pods":                    "replicaset",
		"pods/binding":            "",
	} {
		who, _, queue, ok := writerOf(debug.APIErrorRule{Resource: resource})
		if !ok || queue != want || who == "" {
			t.Errorf("writerOf(%s) = %q, queue %q, %v; want queue %q", resource, who, queue, ok, want)
		}
	}
	if _, _, _, ok := writerOf(debug.APIErrorRule{Resource: "configmaps"}); ok {
		t.Error("writerOf(configmaps) claims to know who writes them")
	}
}
