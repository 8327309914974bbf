package kubelet_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
	"kplane/test/framework"
)

// postPause calls the kubelet's pause or resume route and decodes its answer.
func postPause(t *testing.T, url, path string) (int, []kubelet.HeartbeatState) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var states []kubelet.HeartbeatState
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&states); err != nil {
			t.Fatalf("decode %s: %v", path, err)
		}
	}
	return resp.StatusCode, states
}

// TestPausedKubeletStopsOnlyItsHeartbeat pauses a kubelet on a fake clock
// through its debug API: across a Lease renewal and a node status report
// nothing is renewed or reported, yet a new pod still starts and its
// status is written; once resumed, the kubelet renews and reports at once.
func TestPausedKubeletStopsOnlyItsHeartbeat(t *testing.T) {
	cl := startCluster(t)
	opts, fake := cl.onFakeClock("node1")
	opts.Journal = debug.NewJournal("kubelet-node1", 0, fake)
	startKubelet(t, opts)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		renew, heartbeat := cl.leaseRenewTime(t, "node1"), cl.readyHeartbeat(t, "node1")
		return renew.Equal(fakeEpoch) && heartbeat.Equal(fakeEpoch) && fake.Waiters() == 2,
			fmt.Sprintf("lease renewTime %v, Ready heartbeat %v, %d timers waiting", renew, heartbeat, fake.Waiters())
	})
	srv := httptest.NewServer(opts.Journal.Handler(nil, false))
	defer srv.Close()

	if code, _ := postPause(t, srv.URL, kubelet.PathPause+"?node=node9"); code != http.StatusNotFound {
		t.Fatalf("pause of a node this kubelet does not run: %d, want 404", code)
	}
	code, states := postPause(t, srv.URL, kubelet.PathPause+"?node=node1")
	if code != http.StatusOK || len(states) != 1 || states[0] != (kubelet.HeartbeatState{Node: "node1", Paused: true}) {
		t.Fatalf("pause: %d %+v, want node1 paused", code, states)
	}

	// Past a Lease renewal and an unchanged status's report period.
	reportAt := fakeEpoch.Add(opts.NodeStatusReportFrequency)
	fake.SetTime(reportAt)

	// Everything but the heartbeat goes on: a pod bound now starts, on
	// the kubelet's clock.
	cl.createBoundPod(t, simplePod("web", api.RestartPolicyAlways, nil), "node1")
	running := cl.waitPod(t, "web", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	if started := running.Status.ContainerStatuses[0].State.Running.StartedAt.Time; !started.Equal(reportAt) {
		t.Fatalf("container started at %v, want %v", started, reportAt)
	}
	if renew, heartbeat := cl.leaseRenewTime(t, "node1"), cl.readyHeartbeat(t, "node1"); !renew.Equal(fakeEpoch) || !heartbeat.Equal(fakeEpoch) {
		t.Fatalf("while paused, lease renewTime %v and Ready heartbeat %v moved; want both still %v", renew, heartbeat, fakeEpoch)
	}

	code, states = postPause(t, srv.URL, kubelet.PathResume)
	if code != http.StatusOK || len(states) != 1 || states[0] != (kubelet.HeartbeatState{Node: "node1", Paused: false}) {
		t.Fatalf("resume: %d %+v, want node1 running", code, states)
	}
	// Resumed, the kubelet renews and reports without waiting for a tick.
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		renew, heartbeat := cl.leaseRenewTime(t, "node1"), cl.readyHeartbeat(t, "node1")
		return renew.Equal(reportAt) && heartbeat.Equal(reportAt),
			fmt.Sprintf("lease renewTime %v, Ready heartbeat %v, want both %v", renew, heartbeat, reportAt)
	})

	var stages []string
	records, _ := opts.Journal.After(0)
	for _, r := range records {
		if r.Type == debug.TypeEvent && r.Key == "node1" {
			stages = append(stages, r.Stage)
		}
	}
	if fmt.Sprint(stages) != "[pause resume]" {
		t.Fatalf("journal event records for node1: %v, want [pause resume]", stages)
	}
}
