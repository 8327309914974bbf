package e2e

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestSimulatedShell drives the simulated runtime's shell with the real
// kubectl on one cluster (which `ctl up` starts with the cluster DNS and a
// kube-proxy per node): exec, `kubectl run -i` attaching to a shell
// container, files written and copied in and out with `kubectl cp`. Each
// part uses its own pods. (Names and Services reached from
// a simulated pod, `getent hosts` and `curl -s web`, are issue 14's
// Done-when 1 and 5: TestServicesStatefulSetDNS and
// TestProxyRulesFollowReadiness.)
func TestSimulatedShell(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	t.Run("exec", func(t *testing.T) { simShellExec(t, c) })
	t.Run("run attaches", func(t *testing.T) { simShellRunAttaches(t, c) })
	t.Run("projected token", func(t *testing.T) { simShellProjectedToken(t, c) })
	t.Run("kubectl create token", func(t *testing.T) { serviceAccountTokens(t, c) })
	t.Run("files", func(t *testing.T) { simShellFiles(t, c) })
}

// simShellExec execs into a pod of the simulated runtime, as the seeds do
// with a StatefulSet's pod: single commands, the files the kubelet
// manages, a shell reading its commands from stdin, exit codes passed
// through, and the clear failures of a command outside the shell's set and
// of curl asked for a name the cluster DNS does not know.
func simShellExec(t *testing.T, c *framework.LocalCluster) {
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
	// curl's own exit code and words for a name that does not resolve.
	r, code = kubectlExec("", "web-0", "--", "curl", "-sS", "nope")
	if code != 6 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "curl: (6) Could not resolve host: nope\n") {
		t.Errorf("kubectl exec web-0 -- curl -sS nope: exit %d, stdout %q, stderr %q; want exit 6 and curl's \"Could not resolve host\"", code, r.Stdout, r.Stderr)
	}
}

// simShellRunAttaches runs `kubectl run -i --rm` with a busybox shell: the
// container's main process is a shell session, kubectl attaches to it, the
// commands on stdin run, `exit 3` ends the container with 3, kubectl exits
// with it and deletes the pod.
func simShellRunAttaches(t *testing.T, c *framework.LocalCluster) {
	r := c.Kubectl(t, "hostname\necho $HOME\nexit 3\n", "run", "-i", "--rm", "t", "--image=busybox", "--restart=Never", "--", "sh")
	var exitErr *exec.ExitError
	if !errors.As(r.Err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("kubectl run -i --rm: %v, want exit code 3\nstdout:\n%s\nstderr:\n%s", r.Err, r.Stdout, r.Stderr)
	}
	if !strings.HasPrefix(r.Stdout, "t\n/root\n") || !strings.Contains(r.Stdout, `pod "t" deleted`) {
		t.Errorf("stdout %q, want the shell's answers and the pod deleted", r.Stdout)
	}
	waitKubectl(t, c, 30*time.Second, func(out string) bool { _, listed := podTable(out)["t"]; return !listed }, "get", "pods", "--no-headers")
}
