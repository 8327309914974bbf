package e2e

import (
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// simShellServices follows the seeds through a simulated pod's shell, with
// the cluster DNS and each node's kube-proxy that `ctl up` starts: `getent hosts` of a StatefulSet pod's stable name prints its IP,
// and `curl -s web` — a ClusterIP Service over three nginx pods — is
// answered by one of them (the endpoint the node's kube-proxy chose), and
// by more than one over repeated calls. Nothing dials a pod or Service IP:
// the names go to the DNS on loopback, the connection to the kube-proxy's
// route answer.
func simShellServices(t *testing.T, c *framework.LocalCluster) {
	applyYAML(t, c, `apiVersion: v1
kind: Service
metadata:
  name: nginx-ss
spec:
  clusterIP: None
  selector: {app: nginx-ss}
  ports:
  - {name: web, port: 80}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: nginx-ss
spec:
  serviceName: nginx-ss
  replicas: 2
  selector:
    matchLabels: {app: nginx-ss}
  template:
    metadata:
      labels: {app: nginx-ss}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - {name: web, containerPort: 80}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - {containerPort: 80}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {port: 80}
`)
	waitRunningPods(t, c, "default", "app=nginx-ss", 2)
	webPods := waitRunningPods(t, c, "default", "app=web", 3)
	ip1 := c.MustKubectl(t, "get", "pod", "nginx-ss-1", "-o", "jsonpath={.status.podIP}")

	kubectlExec := func(args ...string) (string, string, int) {
		t.Helper()
		r := c.Kubectl(t, "", append([]string{"exec", "nginx-ss-0", "--"}, args...)...)
		var exitErr *exec.ExitError
		switch {
		case errors.As(r.Err, &exitErr):
			return r.Stdout, r.Stderr, exitErr.ExitCode()
		case r.Err != nil:
			t.Fatalf("kubectl exec %v: %v", args, r.Err)
		}
		return r.Stdout, r.Stderr, 0
	}

	// The stable name answers once the headless Service's endpoints list
	// nginx-ss-1 and the DNS has seen them.
	name := "nginx-ss-1.nginx-ss.default.svc.cluster.local"
	want := ip1 + strings.Repeat(" ", max(1, 16-len(ip1))) + name + "\n"
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		out, errOut, code := kubectlExec("getent", "hosts", name)
		return out == want && code == 0, "getent printed " + out + errOut
	})

	// curl web: one of the three pods answers, and over repeated calls
	// more than one of them does.
	answered := map[string]bool{}
	podName := regexp.MustCompile(`web-[a-z0-9]+-[a-z0-9]+`)
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		out, errOut, code := kubectlExec("curl", "-sS", "web")
		if code != 0 {
			return false, "curl -sS web: " + errOut
		}
		answered[podName.FindString(out)] = true
		return len(answered) > 1, "pods answered so far: " + strings.Join(sortedKeys(answered), ", ") + "\nlast answer:\n" + out
	})
	for pod := range answered {
		if !strings.Contains(" "+strings.Join(webPods, " ")+" ", " "+pod+" ") {
			t.Errorf("curl web was answered by %q, which is not one of the Service's pods %v", pod, webPods)
		}
	}

	out, errOut, code := kubectlExec("curl", "-sS", "nope")
	if code != 6 || out != "" || !strings.HasPrefix(errOut, "curl: (6) Could not resolve host: nope\n") {
		t.Errorf("curl -sS nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
