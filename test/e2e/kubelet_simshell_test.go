package e2e

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestSimulatedShellAnswersKubectlExec execs into a pod of the simulated
// runtime with the real kubectl, as the seeds do with a StatefulSet's pod:
// single commands, the files the kubelet manages, a shell reading its
// commands from stdin, and exit codes passed through.
func TestSimulatedShellAnswersKubectlExec(t *testing.T) {
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	applyYAML(t, c, `apiVersion: v1
kind: Pod
metadata:
  name: web-0
spec:
  hostname: web-0
  subdomain: web
  containers:
  - name: nginx
    image: nginx:1.27
    env:
    - {name: GREETING, value: hello}
`)
	podIP := waitKubectl(t, c, 60*time.Second, func(out string) bool { return strings.HasPrefix(out, "Running ") },
		"get", "pod", "web-0", "-o", "jsonpath={.status.phase} {.status.podIP}")
	podIP = strings.TrimPrefix(podIP, "Running ")

	kubectlExec := func(stdin string, args ...string) (framework.KubectlResult, int) {
		t.Helper()
		r := c.Kubectl(t, stdin, append([]string{"exec"}, args...)...)
		code := 0
		var exitErr *exec.ExitError
		if errors.As(r.Err, &exitErr) {
			code = exitErr.ExitCode()
		} else if r.Err != nil {
			t.Fatalf("kubectl exec %v: %v", args, r.Err)
		}
		return r, code
	}
	expect := func(r framework.KubectlResult, code, wantCode int, wantStdout string) {
		t.Helper()
		if r.Stdout != wantStdout || code != wantCode {
			t.Errorf("stdout %q, exit code %d; want %q, %d (stderr %q)", r.Stdout, code, wantStdout, wantCode, r.Stderr)
		}
	}

	r, code := kubectlExec("", "web-0", "--", "hostname")
	expect(r, code, 0, "web-0\n")
	r, code = kubectlExec("", "web-0", "--", "cat", "/etc/resolv.conf")
	expect(r, code, 0, "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n")
	r, code = kubectlExec("", "web-0", "--", "getent", "hosts", "web-0")
	expect(r, code, 0, podIP+strings.Repeat(" ", max(1, 16-len(podIP)))+"web-0.web.default.svc.cluster.local web-0\n")
	r, code = kubectlExec("echo $GREETING from $(hostname)\nhostname -f\nexit 4\necho unreachable\n", "-i", "web-0", "--", "/bin/sh")
	expect(r, code, 4, "hello from web-0\nweb-0.web.default.svc.cluster.local\n")
	r, code = kubectlExec("", "web-0", "--", "sh", "-c", "exit 3")
	expect(r, code, 3, "")
	r, code = kubectlExec("", "web-0", "--", "top")
	if code == 0 || !strings.Contains(r.Stderr, "executable file not found") || !strings.Contains(r.Stderr, "simulated runtime") {
		t.Errorf("kubectl exec web-0 -- top: exit %d, stderr %q; want a failure naming the missing executable and the simulated runtime", code, r.Stderr)
	}
}
