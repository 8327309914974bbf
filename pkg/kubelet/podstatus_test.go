package kubelet

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// Container statuses in the shapes getPhase distinguishes.
var (
	running    = api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{}}}
	creating   = api.ContainerStatus{State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}}
	exited0    = api.ContainerStatus{State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 0}}}
	exited1    = api.ContainerStatus{State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1}}}
	crashLoop1 = api.ContainerStatus{State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1}}}
)

func named(name string, s api.ContainerStatus) api.ContainerStatus {
	s.Name = name
	return s
}

func TestPodPhase(t *testing.T) {
	twoContainers := api.PodSpec{Containers: []api.Container{{Name: "a"}, {Name: "b"}}}
	withInit := api.PodSpec{InitContainers: []api.Container{{Name: "init"}}, Containers: []api.Container{{Name: "a"}}}
	tests := []struct {
		name     string
		spec     api.PodSpec
		policy   api.RestartPolicy
		statuses []api.ContainerStatus
		terminal bool
		want     api.PodPhase
	}{
		{"nothing reported", twoContainers, api.RestartPolicyAlways, nil, false, api.PodPending},
		{"one still creating", twoContainers, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("a", running), named("b", creating)}, false, api.PodPending},
		{"all running", twoContainers, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("a", running), named("b", running)}, false, api.PodRunning},
		{"one running, one done", twoContainers, api.RestartPolicyNever,
			[]api.ContainerStatus{named("a", running), named("b", exited0)}, false, api.PodRunning},
		{"all exited 0, Never", twoContainers, api.RestartPolicyNever,
			[]api.ContainerStatus{named("a", exited0), named("b", exited0)}, false, api.PodSucceeded},
		{"one failed, Never", twoContainers, api.RestartPolicyNever,
			[]api.ContainerStatus{named("a", exited0), named("b", exited1)}, false, api.PodFailed},
		{"one failed, OnFailure: it will restart", twoContainers, api.RestartPolicyOnFailure,
			[]api.ContainerStatus{named("a", exited0), named("b", exited1)}, false, api.PodRunning},
		{"all exited, Always: they will restart", twoContainers, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("a", exited0), named("b", crashLoop1)}, false, api.PodRunning},
		{"all exited, Always, terminal: failed", twoContainers, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("a", exited0), named("b", exited1)}, true, api.PodFailed},
		{"all exited 0, Always, terminal: succeeded", twoContainers, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("a", exited0), named("b", exited0)}, true, api.PodSucceeded},
		{"init running", withInit, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("init", running), named("a", creating)}, false, api.PodPending},
		{"init failed, Never", withInit, api.RestartPolicyNever,
			[]api.ContainerStatus{named("init", exited1), named("a", creating)}, false, api.PodFailed},
		{"init failed, Always: retried", withInit, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("init", crashLoop1), named("a", creating)}, false, api.PodPending},
		{"init done, app running", withInit, api.RestartPolicyAlways,
			[]api.ContainerStatus{named("init", exited0), named("a", running)}, false, api.PodRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: tt.spec}
			pod.Spec.RestartPolicy = tt.policy
			if got := podPhase(pod, tt.statuses, tt.terminal); got != tt.want {
				t.Errorf("podPhase = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPodConditions(t *testing.T) {
	ready := named("a", running)
	ready.Ready = true
	notReady := named("b", running)
	tests := []struct {
		name                              string
		spec                              api.PodSpec
		init, statuses                    []api.ContainerStatus
		phase                             api.PodPhase
		wantReady, wantReason, wantMessge string
	}{
		{"all ready", api.PodSpec{Containers: []api.Container{{Name: "a"}}}, nil,
			[]api.ContainerStatus{ready}, api.PodRunning, "True", "", ""},
		{"one unready", api.PodSpec{Containers: []api.Container{{Name: "a"}, {Name: "b"}}}, nil,
			[]api.ContainerStatus{ready, notReady}, api.PodRunning, "False", "ContainersNotReady", "containers with unready status: [b]"},
		{"one unknown", api.PodSpec{Containers: []api.Container{{Name: "a"}, {Name: "b"}}}, nil,
			[]api.ContainerStatus{ready}, api.PodRunning, "False", "ContainersNotReady", "containers with unknown status: [b]"},
		{"completed", api.PodSpec{Containers: []api.Container{{Name: "a"}}}, nil,
			[]api.ContainerStatus{named("a", exited0)}, api.PodSucceeded, "False", "PodCompleted", ""},
		{"failed", api.PodSpec{Containers: []api.Container{{Name: "a"}}}, nil,
			[]api.ContainerStatus{named("a", exited1)}, api.PodFailed, "False", "PodFailed", ""},
		{"readiness gate missing", api.PodSpec{Containers: []api.Container{{Name: "a"}},
			ReadinessGates: []api.PodReadinessGate{{ConditionType: "example.com/lb"}}}, nil,
			[]api.ContainerStatus{ready}, api.PodRunning, "False", "ReadinessGatesNotReady",
			`corresponding condition of pod readiness gate "example.com/lb" does not exist.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: tt.spec}
			conds := podConditions(pod, tt.init, tt.statuses, tt.phase, true)
			if len(conds) != 5 || conds[0].Type != api.PodReadyToStartContainers || conds[4].Type != api.PodScheduled {
				t.Fatalf("conditions = %+v", conds)
			}
			r := conds[2]
			if r.Type != api.PodReady || string(r.Status) != tt.wantReady || r.Reason != tt.wantReason || r.Message != tt.wantMessge {
				t.Errorf("Ready = %s/%s/%q, want %s/%s/%q", r.Status, r.Reason, r.Message, tt.wantReady, tt.wantReason, tt.wantMessge)
			}
		})
	}
}

func TestNormalizeImage(t *testing.T) {
	tests := map[string]string{
		"nginx":                        "docker.io/library/nginx:latest",
		"nginx:1.25":                   "docker.io/library/nginx:1.25",
		"bitnami/redis":                "docker.io/bitnami/redis:latest",
		"registry.k8s.io/pause:3.10":   "registry.k8s.io/pause:3.10",
		"localhost:5000/app":           "localhost:5000/app:latest",
		"busybox@sha256:0123456789abc": "docker.io/library/busybox@sha256:0123456789abc",
	}
	for in, want := range tests {
		if got := normalizeImage(in); got != want {
			t.Errorf("normalizeImage(%q) = %q, want %q", in, got, want)
		}
	}
	if id := imageID("nginx"); id != imageID("docker.io/library/nginx:latest") || len(id) != len("docker.io/library/nginx@sha256:")+64 {
		t.Errorf("imageID(nginx) = %q", id)
	}
}

func TestMergeStatus(t *testing.T) {
	t0 := api.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	now := time.Date(2025, 1, 1, 0, 5, 0, 0, time.UTC)
	current := api.PodStatus{
		QOSClass:          api.PodQOSBurstable,
		NominatedNodeName: "node2",
		Conditions: []api.PodCondition{
			{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: t0},
			{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: t0},
			{Type: api.DisruptionTarget, Status: api.ConditionTrue, LastTransitionTime: t0},
		},
	}
	desired := api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{
		{Type: api.PodReady, Status: api.ConditionTrue},
		{Type: api.PodScheduled, Status: api.ConditionTrue},
	}}
	got := mergeStatus(current, desired, now)
	if got.QOSClass != api.PodQOSBurstable || got.NominatedNodeName != "node2" {
		t.Errorf("fields others own were not kept: %+v", got)
	}
	times := map[api.PodConditionType]time.Time{}
	for _, c := range got.Conditions {
		times[c.Type] = c.LastTransitionTime.Time
	}
	if !times[api.DisruptionTarget].Equal(t0.Time) {
		t.Errorf("a condition the kubelet does not own was dropped or changed: %+v", got.Conditions)
	}
	if !times[api.PodScheduled].Equal(t0.Time) {
		t.Errorf("an unchanged condition got a new lastTransitionTime")
	}
	if !times[api.PodReady].Equal(now) {
		t.Errorf("a changed condition kept its old lastTransitionTime")
	}
	if !equalStatus(got, mergeStatus(got, desired, now.Add(time.Hour))) {
		t.Errorf("merging the same status again changed it")
	}
}
