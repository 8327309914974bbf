package printers

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// Helpers that build container states, so each case reads as the situation
// it describes.
func running(name string, ready bool, restarts int32) api.ContainerStatus {
	return api.ContainerStatus{Name: name, Ready: ready, RestartCount: restarts,
		State: api.ContainerState{Running: &api.ContainerStateRunning{}}}
}

func waiting(name, reason string, restarts int32) api.ContainerStatus {
	return api.ContainerStatus{Name: name, RestartCount: restarts,
		State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}
}

func terminated(name, reason string, exitCode, signal int32) api.ContainerStatus {
	return api.ContainerStatus{Name: name,
		State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: reason, ExitCode: exitCode, Signal: signal}}}
}

func containers(names ...string) []api.Container {
	out := make([]api.Container, len(names))
	for i, n := range names {
		out[i] = api.Container{Name: n, Image: "nginx"}
	}
	return out
}

func sidecar(name string) api.Container {
	always := api.ContainerRestartPolicyAlways
	return api.Container{Name: name, Image: "envoy", RestartPolicy: &always}
}

func condition(t api.PodConditionType, s api.ConditionStatus) api.PodCondition {
	return api.PodCondition{Type: t, Status: s}
}

func TestPodStatus(t *testing.T) {
	deleting := api.NewTime(testNow.Add(-5 * time.Second))
	started := true
	startedSidecar := running("proxy", true, 0)
	startedSidecar.Started = &started

	tests := []struct {
		name        string
		pod         api.Pod
		wantReady   string
		wantStatus  string
		wantRestart int
	}{
		{
			name:       "pending, not yet scheduled",
			pod:        api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodPending}},
			wantReady:  "0/1",
			wantStatus: "Pending",
		},
		{
			name: "held back by scheduling gates",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodPending,
				Conditions: []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionFalse, Reason: "SchedulingGated"}}}},
			wantReady:  "0/1",
			wantStatus: "SchedulingGated",
		},
		{
			name: "container being created",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodPending,
				ContainerStatuses: []api.ContainerStatus{waiting("app", "ContainerCreating", 0)}}},
			wantReady:  "0/1",
			wantStatus: "ContainerCreating",
		},
		{
			name: "running and ready",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodRunning,
				ContainerStatuses: []api.ContainerStatus{running("app", true, 0)}}},
			wantReady:  "1/1",
			wantStatus: "Running",
		},
		{
			name: "running but not ready",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodRunning,
				ContainerStatuses: []api.ContainerStatus{running("app", false, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Running",
		},
		{
			name: "crash looping: the waiting reason wins, restarts add up",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app", "log")}, Status: api.PodStatus{Phase: api.PodRunning,
				ContainerStatuses: []api.ContainerStatus{waiting("app", "CrashLoopBackOff", 3), running("log", true, 1)}}},
			wantReady:   "1/2",
			wantStatus:  "CrashLoopBackOff",
			wantRestart: 4,
		},
		{
			name: "the first container's reason wins over later ones",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("a", "b")}, Status: api.PodStatus{Phase: api.PodPending,
				ContainerStatuses: []api.ContainerStatus{waiting("a", "ImagePullBackOff", 0), waiting("b", "ContainerCreating", 0)}}},
			wantReady:  "0/2",
			wantStatus: "ImagePullBackOff",
		},
		{
			name: "completed",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("pi")}, Status: api.PodStatus{Phase: api.PodSucceeded,
				ContainerStatuses: []api.ContainerStatus{terminated("pi", "Completed", 0, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Completed",
		},
		{
			name: "failed with a reason",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("pi")}, Status: api.PodStatus{Phase: api.PodFailed,
				ContainerStatuses: []api.ContainerStatus{terminated("pi", "Error", 1, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Error",
		},
		{
			name: "terminated without a reason: the exit code",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("pi")}, Status: api.PodStatus{Phase: api.PodFailed,
				ContainerStatuses: []api.ContainerStatus{terminated("pi", "", 2, 0)}}},
			wantReady:  "0/1",
			wantStatus: "ExitCode:2",
		},
		{
			name: "terminated without a reason: the signal",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("pi")}, Status: api.PodStatus{Phase: api.PodFailed,
				ContainerStatuses: []api.ContainerStatus{terminated("pi", "", 137, 9)}}},
			wantReady:  "0/1",
			wantStatus: "Signal:9",
		},
		{
			name: "one container completed, another still running, pod Ready",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("web", "setup")}, Status: api.PodStatus{Phase: api.PodRunning,
				Conditions:        []api.PodCondition{condition(api.PodReady, api.ConditionTrue)},
				ContainerStatuses: []api.ContainerStatus{running("web", true, 0), terminated("setup", "Completed", 0, 0)}}},
			wantReady:  "1/2",
			wantStatus: "Running",
		},
		{
			name: "one container completed, another still running, pod not Ready",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("web", "setup")}, Status: api.PodStatus{Phase: api.PodRunning,
				ContainerStatuses: []api.ContainerStatus{running("web", true, 0), terminated("setup", "Completed", 0, 0)}}},
			wantReady:  "1/2",
			wantStatus: "NotReady",
		},
		{
			name: "evicted: status.reason replaces the phase",
			pod: api.Pod{Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodFailed,
				Reason: "Evicted"}},
			wantReady:  "0/1",
			wantStatus: "Evicted",
		},
		{
			name: "first init container running",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: containers("migrate", "seed"), Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodPending,
					InitContainerStatuses: []api.ContainerStatus{running("migrate", false, 0), waiting("seed", "PodInitializing", 0)},
					ContainerStatuses:     []api.ContainerStatus{waiting("app", "PodInitializing", 0)}}},
			wantReady:  "0/1",
			wantStatus: "Init:0/2",
		},
		{
			name: "second init container waiting to initialize",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: containers("migrate", "seed"), Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodPending,
					InitContainerStatuses: []api.ContainerStatus{terminated("migrate", "Completed", 0, 0), waiting("seed", "PodInitializing", 0)}}},
			wantReady:  "0/1",
			wantStatus: "Init:1/2",
		},
		{
			name: "init container crash looping, its restarts counted",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: containers("migrate"), Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodPending,
					InitContainerStatuses: []api.ContainerStatus{waiting("migrate", "CrashLoopBackOff", 5)}}},
			wantReady:   "0/1",
			wantStatus:  "Init:CrashLoopBackOff",
			wantRestart: 5,
		},
		{
			name: "init container failed",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: containers("migrate"), Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodFailed,
					InitContainerStatuses: []api.ContainerStatus{terminated("migrate", "Error", 1, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Init:Error",
		},
		{
			name: "init container failed without a reason",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: containers("migrate"), Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodFailed,
					InitContainerStatuses: []api.ContainerStatus{terminated("migrate", "", 3, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Init:ExitCode:3",
		},
		{
			name: "a started sidecar counts as a ready container and does not hold up the pod",
			pod: api.Pod{Spec: api.PodSpec{InitContainers: []api.Container{sidecar("proxy")}, Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodRunning,
					Conditions:            []api.PodCondition{condition(api.PodInitialized, api.ConditionTrue)},
					InitContainerStatuses: []api.ContainerStatus{startedSidecar},
					ContainerStatuses:     []api.ContainerStatus{running("app", true, 2)}}},
			wantReady:   "2/2",
			wantStatus:  "Running",
			wantRestart: 2,
		},
		{
			name: "being deleted",
			pod: api.Pod{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &deleting},
				Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodRunning,
					ContainerStatuses: []api.ContainerStatus{running("app", true, 0)}}},
			wantReady:  "1/1",
			wantStatus: "Terminating",
		},
		{
			name: "being deleted after it finished: keeps its final status",
			pod: api.Pod{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &deleting},
				Spec: api.PodSpec{Containers: containers("pi")}, Status: api.PodStatus{Phase: api.PodSucceeded,
					ContainerStatuses: []api.ContainerStatus{terminated("pi", "Completed", 0, 0)}}},
			wantReady:  "0/1",
			wantStatus: "Completed",
		},
		{
			name: "being deleted on a lost node",
			pod: api.Pod{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &deleting},
				Spec: api.PodSpec{Containers: containers("app")}, Status: api.PodStatus{Phase: api.PodRunning, Reason: "NodeLost",
					ContainerStatuses: []api.ContainerStatus{running("app", true, 0)}}},
			wantReady:  "1/1",
			wantStatus: "Unknown",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := summarizePod(&tt.pod)
			ready := podCells(&tt.pod, testNow)[1]
			if ready != tt.wantReady || s.status != tt.wantStatus || s.restarts != tt.wantRestart {
				t.Errorf("READY %v, STATUS %q, RESTARTS %d; want %s, %q, %d",
					ready, s.status, s.restarts, tt.wantReady, tt.wantStatus, tt.wantRestart)
			}
		})
	}
}

func TestPodRestartsCell(t *testing.T) {
	crashed := func(restarts int32, finished time.Time) api.ContainerStatus {
		c := waiting("app", "CrashLoopBackOff", restarts)
		c.LastTerminationState.Terminated = &api.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			FinishedAt: api.NewTime(finished)}
		return c
	}
	tests := []struct {
		name   string
		status api.ContainerStatus
		want   string
	}{
		{"never restarted", running("app", true, 0), "0"},
		{"restarted, last exit known", crashed(3, testNow.Add(-5*time.Minute)), "3 (5m ago)"},
		{"restarted, last exit unknown", waiting("app", "CrashLoopBackOff", 2), "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := api.Pod{Spec: api.PodSpec{Containers: containers("app")},
				Status: api.PodStatus{Phase: api.PodRunning, ContainerStatuses: []api.ContainerStatus{tt.status}}}
			if got := podCells(&pod, testNow)[3]; got != tt.want {
				t.Errorf("RESTARTS = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPodWideCells(t *testing.T) {
	pod := api.Pod{Spec: api.PodSpec{Containers: containers("app"),
		ReadinessGates: []api.PodReadinessGate{{ConditionType: "example.com/lb"}, {ConditionType: "example.com/dns"}}},
		Status: api.PodStatus{PodIP: "10.244.1.5",
			Conditions: []api.PodCondition{condition("example.com/lb", api.ConditionTrue), condition("example.com/dns", api.ConditionFalse)}}}
	got := podCells(&pod, testNow)[5:]
	want := []any{"10.244.1.5", "<none>", "<none>", "1/2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("wide cells = %v, want %v", got, want)
			break
		}
	}
}
