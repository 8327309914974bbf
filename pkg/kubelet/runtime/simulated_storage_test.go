package runtime

import (
	"bytes"
	"context"
	"testing"

	"kplane/pkg/api"
)

// simExec runs `sh -c line` in c and returns its stdout, failing the test
// on a non-zero exit.
func simExec(t *testing.T, c *simContainer, line string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code, err := c.Exec(t.Context(), []string{"sh", "-c", line}, Streams{Stdout: &out, Stderr: &errOut})
	if err != nil || code != 0 {
		t.Fatalf("exec %q: code %d err %v stderr %q", line, code, err, errOut.String())
	}
	return out.String()
}

// TestSimulatedFilesLiveAsOnANode: a file written by one exec is there in
// the next; the container's next run starts from a clean layer; an
// emptyDir is shared by the pod's containers and outlives a restart; a
// deleted pod's volumes go.
func TestSimulatedFilesLiveAsOnANode(t *testing.T) {
	mounts := []api.VolumeMount{{Name: "shared", MountPath: "/shared"}}
	pod := shellPod(api.Container{Name: "writer", Image: "busybox", Args: []string{"sleep", "3600"}, VolumeMounts: mounts})
	pod.UID = "uid-1"
	pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: "reader", Image: "nginx", VolumeMounts: mounts})
	pod.Spec.Volumes = []api.Volume{{Name: "shared", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
	rt := NewSimulated(nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	start := func(name string, attempt int) *simContainer {
		c, err := rt.Start(ctx, pod, findContainerSpec(pod, name), attempt)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*simContainer)
	}

	writer, reader := start("writer", 0), start("reader", 0)
	simExec(t, writer, "echo in-layer > /tmp/a; echo in-volume > /shared/b")
	if got := simExec(t, writer, "cat /tmp/a /shared/b"); got != "in-layer\nin-volume\n" {
		t.Errorf("the next exec in the writer: %q", got)
	}
	if got := simExec(t, reader, "cat /shared/b; ls /tmp"); got != "in-volume\n" {
		t.Errorf("the reader sees %q, want the emptyDir's file and an empty /tmp", got)
	}

	writer.Stop(0)
	<-writer.Done()
	writer = start("writer", 1)
	if got := simExec(t, writer, "ls /tmp; cat /shared/b"); got != "in-volume\n" {
		t.Errorf("after a restart: %q, want a clean /tmp and the emptyDir kept", got)
	}

	var forgetter PodForgetter = rt
	forgetter.ForgetPod("uid-1")
	again := start("reader", 0) // a new pod with the same UID would start empty
	if got := simExec(t, again, "ls /shared"); got != "" {
		t.Errorf("a forgotten pod's emptyDir still holds %q", got)
	}
}
