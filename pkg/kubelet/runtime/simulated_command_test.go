package runtime

import (
	"io"
	"testing"
	"time"

	"kplane/pkg/api"
)

// TestSimulatedContainerRunsAKnownCommand: a container whose command the
// simulated shell knows runs it at start: its output is the log, its
// status the exit code, under any restartPolicy; an unknown program stays
// a timer with an empty log.
func TestSimulatedContainerRunsAKnownCommand(t *testing.T) {
	for _, c := range []struct {
		name    string
		command []string
		policy  api.RestartPolicy
		log     string
		code    int
	}{
		{"echo", []string{"echo", "hello"}, api.RestartPolicyNever, "hello\n", 0},
		{"script", []string{"sh", "-c", "echo start; hostname; exit 3"}, api.RestartPolicyNever, "start\nt\n", 3},
		{"always", []string{"sh", "-c", "echo once"}, api.RestartPolicyAlways, "once\n", 0},
		{"files", []string{"sh", "-c", "mkdir -p /data && echo hi > /data/x; cat /data/x"}, api.RestartPolicyNever, "hi\n", 0},
		{"stderr", []string{"sh", "-c", "printenv NOPE || echo missing >&2"}, api.RestartPolicyOnFailure, "missing\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := shellPod(api.Container{Name: "main", Image: "busybox", Command: c.command})
			pod.Spec.RestartPolicy = c.policy
			ctr := startSim(t, pod, "main")
			select {
			case <-ctr.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the container did not exit when its command ended")
			}
			log, err := io.ReadAll(ctr.Logs(false))
			if err != nil || string(log) != c.log || ctr.ExitCode() != c.code {
				t.Errorf("log %q (%v), exit %d; want %q, exit %d", log, err, ctr.ExitCode(), c.log, c.code)
			}
		})
	}

	pod := shellPod(api.Container{Name: "web", Image: "nginx"})
	pod.Spec.RestartPolicy = api.RestartPolicyAlways
	web := startSim(t, pod, "web")
	if web.plan.runsCommand || !web.plan.forever {
		t.Errorf("nginx's plan %+v, want a timer that runs until stopped", web.plan)
	}
}
