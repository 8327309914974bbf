package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// objvTwins are two identical Deployments and two identical ConfigMaps:
// every state-changing command runs with ctl on the "-ctl" twin and with
// kubectl on the "-kubectl" twin, so both tools see the same history and
// must print the same thing. Containers run real commands: the cluster
// uses the process runtime, so `logs -f` follows a real output and a
// readiness probe can really fail.
const objvTwins = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: twin-ctl
spec:
  replicas: 2
  selector:
    matchLabels: {app: twin}
  template:
    metadata:
      labels: {app: twin}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: ["sleep", "3600"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: twin-kubectl
spec:
  replicas: 2
  selector:
    matchLabels: {app: twin-k}
  template:
    metadata:
      labels: {app: twin-k}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: ["sleep", "3600"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: twin-ctl
data: {greeting: hello}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: twin-kubectl
data: {greeting: hello}
`

// objvStuck never becomes ready (its readiness probe runs `false`), so
// after progressDeadlineSeconds the controller marks the rollout failed.
const objvStuck = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: stuck
spec:
  replicas: 1
  progressDeadlineSeconds: 2
  selector:
    matchLabels: {app: stuck}
  template:
    metadata:
      labels: {app: stuck}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: ["sleep", "3600"]
        readinessProbe:
          exec: {command: ["false"]}
          periodSeconds: 1
`

// objvTicker prints a numbered line five times a second.
const objvTicker = `apiVersion: v1
kind: Pod
metadata:
  name: ticker
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"]
`

// objvSolos are unmanaged pods bound straight to each worker node, which
// drain refuses to delete without --force.
const objvSolos = `apiVersion: v1
kind: Pod
metadata:
  name: solo-1
spec:
  nodeName: node1
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: busybox, command: ["sleep", "3600"], resources: {requests: {cpu: 10m}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: solo-2
spec:
  nodeName: node2
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: busybox, command: ["sleep", "3600"], resources: {requests: {cpu: 10m}}}
`

// TestCtlObjectVerbs runs scale, rollout, label, annotate, patch, logs,
// edit, wait, set, expose, run, create <kind>, diff, apply --prune,
// version, api-versions, cluster-info, cordon, uncordon, drain, explain
// and completion with the ctl
// binary on a `ctl up` cluster and, where kubectl has the verb, the same
// command with the real kubectl, and compares what they print and how
// they exit.
func TestCtlObjectVerbs(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bins := framework.BuildBinaries(t)
	if !framework.HasBinary(bins, "controller-manager") {
		t.Fatal("bin/controller-manager was not built: rollouts cannot happen")
	}
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Runtime = cluster.RuntimeProcess })
	r := &objvRunner{t: t, c: c, ctl: filepath.Join(bins, "ctl"), kubectl: framework.RequireKubectl(t), dir: t.TempDir()}
	r.mustCtl("", objvTwins, "apply", "-f", "-")
	r.mustCtl("", objvTicker, "apply", "-f", "-")

	t.Run("rollout status waits until done", func(t *testing.T) {
		for _, name := range []string{"twin-ctl", "twin-kubectl"} {
			got := r.run(t, "ctl", "", "", "rollout", "status", "deploy/"+name, "--timeout=60s")
			if got.code != 0 || !strings.HasSuffix(got.stdout, fmt.Sprintf("deployment %q successfully rolled out\n", name)) {
				t.Fatalf("rollout status %s: %s", name, got)
			}
		}
	})

	t.Run("scale", func(t *testing.T) {
		r.twins(t, "scale", "deploy/NAME", "--replicas=3")
		r.twins(t, "scale", "deploy", "NAME", "--replicas=2", "--current-replicas=2")
		r.twins(t, "scale", "deploy", "NAME", "--replicas=2", "--current-replicas=3")
		r.twins(t, "scale", "deploy", "NAME", "--replicas=3", "--dry-run=client")
		r.twins(t, "scale", "deploy", "NAME-nope", "--replicas=1")
		r.twins(t, "scale", "configmap", "NAME", "--replicas=1")
	})

	t.Run("label, annotate and patch", func(t *testing.T) {
		for _, args := range [][]string{
			{"label", "cm", "NAME", "tier=front"},
			{"label", "cm/NAME", "tier=back"},
			{"label", "cm/NAME", "tier=back", "--overwrite"},
			{"label", "cm/NAME", "tier=back", "--overwrite"},
			{"label", "cm/NAME", "tier-"},
			{"label", "cm/NAME", "tier-"},
			{"label", "cm/NAME", "x=1", "--dry-run=server"},
			{"label", "cm/NAME", "a=1", "a-"},
			{"label", "cm/NAME", "bad=a b"},
			{"label", "cm/NAME"},
			{"label", "cm", "x=1"},
			{"annotate", "cm/NAME", "note=one"},
			{"annotate", "cm/NAME", "note=two"},
			{"annotate", "cm/NAME", "note=two", "--overwrite"},
			{"annotate", "cm/NAME", "note-", "-o", "name"},
			{"annotate", "cm/NAME", "a=1", "a-"},
			{"patch", "cm/NAME", "-p", `{"data":{"greeting":"hi"}}`},
			{"patch", "cm/NAME", "-p", `{"data":{"greeting":"hi"}}`},
			{"patch", "cm/NAME", "--type=merge", "-p", "data: {extra: x}"},
			{"patch", "cm/NAME", "--type=json", "-p", `[{"op":"remove","path":"/data/extra"}]`},
			{"patch", "cm/NAME", "--type=foo", "-p", "{}"},
			{"patch", "cm/NAME"},
			{"patch", "cm/NAME-nope", "-p", "{}"},
			{"patch", "deploy/NAME", "-p", `{"spec":{"replicas":-1}}`},
			{"patch", "deploy/NAME", "--subresource=scale", "-p", `{"spec":{"replicas":3}}`},
		} {
			r.twins(t, args...)
		}
	})

	t.Run("rollout history, undo, pause, resume, restart", func(t *testing.T) {
		r.twins(t, "patch", "deploy/NAME", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"V","value":"2"}]}]}}}}`)
		r.twins(t, "annotate", "deploy/NAME", "kubernetes.io/change-cause=set V=2")
		r.twinsUntilDone(t, "NAME")
		r.twins(t, "rollout", "history", "deploy/NAME")
		r.twins(t, "rollout", "history", "deploy/NAME", "--revision=1")
		r.twins(t, "rollout", "history", "deploy/NAME", "--revision=7")
		r.twins(t, "rollout", "undo", "deploy/NAME", "--to-revision=2")
		r.twins(t, "rollout", "undo", "deploy/NAME", "--to-revision=7")
		r.twins(t, "rollout", "undo", "deploy/NAME")
		r.twinsUntilDone(t, "NAME")
		r.twins(t, "rollout", "history", "deploy/NAME")
		r.twins(t, "rollout", "pause", "deploy/NAME")
		r.twins(t, "rollout", "pause", "deploy/NAME")
		r.twins(t, "rollout", "undo", "deploy/NAME")
		r.twins(t, "rollout", "restart", "deploy/NAME")
		r.twins(t, "rollout", "resume", "deploy/NAME")
		r.twins(t, "rollout", "resume", "deploy/NAME")
		r.twins(t, "rollout", "restart", "deploy/NAME")
		r.twinsUntilDone(t, "NAME")
		r.twins(t, "rollout", "status", "deploy/NAME", "--watch=false")
		r.twins(t, "rollout", "pause", "pod/NAME")
		r.twins(t, "rollout", "status", "cm/NAME")
	})

	t.Run("rollout status fails on a deadline exceeded", func(t *testing.T) {
		r.mustCtl("", objvStuck, "apply", "-f", "-")
		got := r.run(t, "ctl", "", "", "rollout", "status", "deploy/stuck", "--timeout=60s")
		want := r.run(t, "kubectl", "", "", "rollout", "status", "deploy/stuck", "--timeout=60s")
		if got.code != 1 || got.stderr != "error: deployment \"stuck\" exceeded its progress deadline\n" ||
			!strings.HasSuffix(got.stdout, "Waiting for deployment \"stuck\" rollout to finish: 0 of 1 updated replicas are available...\n") {
			t.Errorf("ctl rollout status of a stuck deployment: %s", got)
		}
		if got.code != want.code || got.stderr != want.stderr {
			t.Errorf("ctl and kubectl disagree:\nctl: %s\nkubectl: %s", got, want)
		}
	})

	t.Run("logs", func(t *testing.T) {
		framework.Eventually(t, 30*time.Second, func() (bool, string) {
			got := r.run(t, "ctl", "", "", "logs", "ticker", "--tail=1")
			return got.code == 0 && strings.HasPrefix(got.stdout, "tick "), got.String()
		})
		tick := regexp.MustCompile(`tick \d+`)
		for _, args := range [][]string{
			{"logs", "ticker", "--tail=2"},
			{"logs", "ticker", "--tail=1", "--prefix"},
			{"logs", "ticker", "-c", "nope"},
			{"logs", "ticker", "-p"},
			{"logs", "nope"},
			{"logs", "deploy/nope"},
			{"logs", "node/node1"},
			{"logs"},
			{"logs", "deploy/twin-ctl", "--tail=1"},
		} {
			got := r.run(t, "ctl", "", "", args...)
			want := r.run(t, "kubectl", "", "", args...)
			for _, res := range []*objvResult{&got, &want} {
				res.stdout = tick.ReplaceAllString(res.stdout, "tick N")
				res.stderr = objvPodName.ReplaceAllString(res.stderr, "pod/POD")
				res.stderr = strings.ReplaceAll(res.stderr, "'kubectl ", "'ctl ")
			}
			if got != want {
				t.Errorf("logs %v:\nctl: %s\nkubectl: %s", args, got, want)
			}
		}
		r.followsLogs(t)
	})

	t.Run("edit", func(t *testing.T) {
		editor := func(name, script string) string {
			path := filepath.Join(r.dir, name)
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
				t.Fatal(err)
			}
			return "KUBE_EDITOR=" + path
		}
		r.twinsEnv(t, editor("noop.sh", "exit 0\n"), "edit", "cm/NAME")
		r.twinsEnv(t, editor("change.sh", `sed -i 's/greeting: hi/greeting: edited/' "$1"`+"\n"), "edit", "cm/NAME")
		// An invalid edit, kept twice: the file is reopened with the error
		// and then the edit is given up.
		r.twinsEnv(t, editor("invalid.sh", `sed -i '0,/^  replicas: [0-9][0-9]*$/s//  replicas: -1/' "$1"`+"\n"), "edit", "deploy/NAME")
		// A value of the wrong type is a BadRequest, not Invalid: the edit
		// ends at once, the file kept.
		r.twinsEnv(t, editor("badtype.sh", `sed -i '0,/^  replicas: [0-9][0-9]*$/s//  replicas: many/' "$1"`+"\n"), "edit", "deploy/NAME")
		r.twinsEnv(t, editor("rename.sh", `sed -i 's/^  name: twin-[a-z]*/  name: renamed/' "$1"`+"\n"), "edit", "cm/NAME")
		r.twinsEnv(t, editor("unused.sh", "exit 0\n"), "edit", "cm/NAME-nope")
	})

	t.Run("issue 12's verbs: set, wait, run, expose, create, version, diff, apply --prune", func(t *testing.T) {
		r.twinsUntilDone(t, "NAME")
		for _, args := range [][]string{
			{"wait", "--for=condition=Available", "deploy/NAME", "--timeout=60s"},
			{"wait", "--for=jsonpath={.spec.replicas}=2", "deploy/NAME"},
			{"wait", "--for=jsonpath={.spec.replicas}=9", "deploy/NAME", "cm/NAME", "--timeout=1s"},
			{"wait", "--for=condition=Available", "deploy/NAME-nope"},
			{"wait", "--for=delete", "deploy/NAME-nope"},
			{"wait", "--for=bogus", "deploy/NAME"},
			{"set", "image", "deploy/NAME", "main=busybox:1.36"},
			{"set", "image", "deploy/NAME", "main=busybox:1.36"},
			{"set", "image", "deploy/NAME", "nope=x"},
			{"set", "image", "deploy/NAME"},
			{"set", "image", "cm/NAME", "a=b"},
			{"set", "image", "deploy/NAME", "*=busybox:1.37", "--dry-run=server"},
			{"set", "env", "deploy/NAME", "A=1", "B=2"},
			{"set", "env", "deploy/NAME", "--list"},
			{"set", "env", "deploy/NAME", "A-"},
			{"set", "env", "deploy/NAME", "1A=x"},
			{"set", "resources", "deploy/NAME", "--requests=cpu=10m,memory=16Mi"},
			{"set", "resources", "deploy/NAME", "--limits=cpu=x"},
			{"set", "resources", "deploy/NAME", "-c", "nope", "--limits=cpu=1"},
			{"rollout", "history", "deploy/NAME"},
			{"expose", "deploy/NAME", "--port=80", "--target-port=8080"},
			{"expose", "deploy/NAME", "--port=80"},
			{"expose", "cm/NAME"},
			{"get", "svc", "NAME", "-o", "jsonpath={.spec.ports}"},
			{"run", "NAME-pod", "--image=busybox", "--restart=Never", "--env=A=1", "--dry-run=client", "-o", "yaml", "--", "sleep", "1"},
			{"run", "NAME-pod", "--image=busybox", "--port=80", "--expose", "--dry-run=server"},
			{"run", "NAME-pod", "--image=busybox", "--restart=Sometimes"},
			{"create", "service", "clusterip", "NAME-svc", "--tcp=80:8080", "--tcp=443", "--dry-run=client", "-o", "yaml"},
			{"create", "service", "nodeport", "NAME-svc", "--tcp=80", "--node-port=30080", "--dry-run=client", "-o", "yaml"},
			{"create", "service", "loadbalancer", "NAME-svc", "--dry-run=client"},
			{"create", "secret", "generic", "NAME", "--from-literal=a=b"},
			{"create", "secret", "generic", "NAME", "--from-literal=a=b"},
			{"create", "secret", "docker-registry", "NAME-reg", "--docker-server=r.example", "--docker-username=u", "--docker-password=p", "--dry-run=client", "-o", "yaml"},
			{"create", "serviceaccount", "NAME"},
			{"create", "serviceaccount", "NAME"},
			{"create", "job", "NAME", "--image=busybox", "--dry-run=server", "--", "true"},
			{"create", "cronjob", "NAME", "--image=busybox", "--schedule=@hourly", "--dry-run=client", "-o", "yaml", "--", "date"},
			{"create", "role", "NAME", "--verb=get,list", "--resource=pods,deployments.apps,pods/log"},
			{"create", "role", "NAME-x", "--verb=get", "--resource=nopes"},
			{"create", "rolebinding", "NAME", "--role=NAME", "--user=alice", "--serviceaccount=default:NAME"},
			{"create", "rolebinding", "NAME-x", "--user=alice"},
			{"create", "quota", "NAME", "--hard=pods=50,cpu=4"},
			{"create", "quota", "NAME-x", "--hard=cpu=x"},
			{"create", "ingress", "NAME", "--class=edge", "--rule=NAME.example/*=NAME:80", "--rule=NAME.example/api=NAME:http,tls=NAME-cert", "--annotation=team=a=b"},
			{"create", "ingress", "NAME", "--rule=/=NAME:80"},
			{"create", "ing", "NAME-x", "--rule=a.example/=s:80,tls", "--rule=a.example/b*=s:0,tls=c", "--rule=/c=s:web,tls=c", "--rule=b.example/=t:81,tls", "--default-backend=d:8080", "--dry-run=client", "-o", "yaml"},
			{"create", "ingress", "NAME-x", "--default-backend=d:web", "-n", "default", "--dry-run=client", "-o", "yaml"},
			{"create", "ingress", "NAME-x", "--rule=NAME.example/=NAME:80", "--dry-run=server"},
			{"create", "ingress", "NAME-x", "--rule=NAME.example/=NAME:80", "--dry-run=server", "-o", "jsonpath={.spec}"},
			{"create", "ingress", "NAME-x"},
			{"create", "ingress", "NAME-x", "--rule=NAME.example=NAME:80"},
			{"create", "ingress", "NAME-x", "--rule=/x=NAME"},
			{"create", "ingress", "NAME-x", "--rule=h/x=NAME:80,tsl", "--rule=/y=NAME:80:90,tls=a=b", "--rule=h/z=NAME:80,tls,tls", "--dry-run=client", "-o", "yaml"},
			{"create", "ingress", "NAME-x", "--rule=/x=NAME:80", "--annotation=novalue"},
			{"create", "ingress", "NAME-x", "--default-backend=a:b:c"},
			{"create", "ingress", "NAME-x", "--rule=/x=Bad_Name:80"},
			{"create", "ingress"},
			{"create", "poddisruptionbudget", "NAME", "--selector=app=NAME", "--min-available=1"},
			{"create", "pdb", "NAME", "--selector=app=NAME", "--min-available=1"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME,tier in (web,db),!legacy,track", "--max-unavailable=50%", "--dry-run=client", "-o", "yaml"},
			{"create", "pdb", "NAME-x", "--selector=app==NAME", "--min-available=0", "--dry-run=server"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME", "--min-available=1", "--max-unavailable=1"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME"},
			{"create", "pdb", "NAME-x", "--min-available=1"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME", "--min-available=1Gi"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME", "--max-unavailable=-1"},
			{"create", "pdb", "NAME-x", "--selector=app!=NAME", "--min-available=1"},
			{"create", "pdb", "NAME-x", "--selector=app in (", "--min-available=1"},
			{"create", "pdb", "NAME-x", "--selector=app>1", "--min-available=1"},
			{"create", "pdb", "NAME-x", "--selector=app=NAME", "--min-available=150%"},
		} {
			r.twins(t, args...)
		}
		for _, args := range [][]string{{"api-versions"}, {"cluster-info"}, {"version", "-o", "foo"}} {
			got, want := r.run(t, "ctl", "", "", args...), r.run(t, "kubectl", "", "", args...)
			want.stdout = strings.ReplaceAll(want.stdout, "'kubectl ", "'ctl ")
			if got != want {
				t.Errorf("%v:\nctl: %s\nkubectl: %s", args, got, want)
			}
		}
		// The client versions differ (ctl is not kubectl); the server's is one.
		got, want := r.run(t, "ctl", "", "", "version"), r.run(t, "kubectl", "", "", "version")
		if serverLine := regexp.MustCompile(`(?m)^Server Version: .*$`).FindString(want.stdout); got.code != 0 || serverLine == "" || !strings.Contains(got.stdout, serverLine+"\n") {
			t.Errorf("version:\nctl: %s\nkubectl: %s", got, want)
		}
		r.diffAndPrune(t)
	})

	t.Run("cordon, uncordon and drain", func(t *testing.T) {
		// The quotas and budgets `create` made would govern the drain (a
		// cpu quota refuses pods without requests, a budget delays an
		// eviction): this part compares the drain alone.
		r.mustCtl("", "", "delete", "quota,pdb", "--all")
		r.mustCtl("", "", "delete", "pod", "ticker", "--grace-period=1")
		r.mustCtl("", objvSolos, "apply", "-f", "-")
		for _, args := range [][]string{
			{"cordon", "NODE"}, {"cordon", "NODE"}, {"uncordon", "NODE"}, {"uncordon", "NODE"},
			{"cordon", "NODE", "--dry-run=client"}, {"cordon", "NODE-nope"}, {"cordon"},
			{"drain", "NODE", "--grace-period=1"},
		} {
			r.nodeTwins(t, args...)
		}
		// With --force, every pod goes; the lines name pods that differ
		// between the nodes, so they are compared by shape.
		got := r.run(t, "ctl", "", "", "drain", "node1", "--force", "--grace-period=1", "--timeout=60s")
		want := r.run(t, "kubectl", "", "", "drain", "node2", "--force", "--grace-period=1", "--timeout=60s")
		for _, res := range []*objvResult{&got, &want} {
			res.stdout = objvEvictingPod.ReplaceAllString(objvPodName.ReplaceAllString(res.stdout, "pod/POD"), "evicting pod NS/POD")
			res.stdout = strings.ReplaceAll(res.stdout, "node2", "node1")
			res.stderr = strings.ReplaceAll(res.stderr, "solo-2", "solo-1")
		}
		if got.code != 0 || got.code != want.code || got.stderr != want.stderr ||
			objvDistinctLines(got.stdout) != objvDistinctLines(want.stdout) {
			t.Errorf("drain --force:\nctl: %s\nkubectl: %s", got, want)
		}
		if pods := r.run(t, "ctl", "", "", "get", "pods", "-A", "--field-selector", "spec.nodeName=node1", "-o", "name"); pods.stdout != "" {
			t.Errorf("pods left on node1 after the drain: %s", pods)
		}
		r.nodeTwins(t, "uncordon", "NODE")
	})

	t.Run("explain and completion", func(t *testing.T) {
		// A quick check of ctl explain; TestCtlExplain compares it with
		// kubectl explain, field by field.
		got := r.run(t, "ctl", "", "", "explain", "deployment.spec.template.spec.containers")
		if got.code != 0 || !strings.HasPrefix(got.stdout, "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: containers <[]Container>\n") ||
			!strings.Contains(got.stdout, "\nFIELDS:\n  args\t<[]string>\n") {
			t.Errorf("explain: %s", got)
		}
		got = r.run(t, "ctl", "", "", "__complete", "label", "configmaps", "twin-")
		if got.code != 0 || got.stdout != "twin-ctl\ntwin-kubectl\n:4\n" {
			t.Errorf("completing configmap names: %s", got)
		}
		got = r.run(t, "ctl", "", "", "__complete", "rollout", "status", "deployment/tw")
		if got.code != 0 || got.stdout != "deployment/twin-ctl\ndeployment/twin-kubectl\n:4\n" {
			t.Errorf("completing TYPE/NAME: %s", got)
		}
		got = r.run(t, "ctl", "", "", "completion", "bash")
		if got.code != 0 || !strings.Contains(got.stdout, "__start_ctl") {
			t.Errorf("completion bash: exit %d, %d bytes", got.code, len(got.stdout))
		}
	})
}

// objvPodName matches a generated pod name in "pod/<name>".
var objvPodName = regexp.MustCompile(`pod/[a-z0-9-]+`)

// objvEvictingPod matches drain's "evicting pod <namespace>/<name>".
var objvEvictingPod = regexp.MustCompile(`evicting pod [a-z0-9-]+/[a-z0-9-]+`)

// objvResult is what one command printed.
type objvResult struct {
	stdout, stderr string
	code           int
}

func (r objvResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// objvRunner runs ctl and kubectl against one cluster.
type objvRunner struct {
	t            *testing.T
	c            *framework.LocalCluster
	ctl, kubectl string
	dir          string
}

// run runs tool ("ctl" or "kubectl") with an optional extra environment
// variable and stdin.
func (r *objvRunner) run(t *testing.T, tool, env, stdin string, args ...string) objvResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	if tool == "ctl" {
		cmd = exec.CommandContext(ctx, r.ctl, append([]string{"--kubeconfig", r.c.KubeconfigPath()}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, r.kubectl, append([]string{"--kubeconfig", r.c.KubeconfigPath(), "--cache-dir", filepath.Join(r.c.Home, "cache")}, args...)...)
	}
	// TMPDIR: edit keeps the files of failed edits there.
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+r.c.Home, "TMPDIR="+r.dir)
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Dir = r.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		code = -1
	}
	return objvResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// mustCtl runs ctl and stops the test if it fails.
func (r *objvRunner) mustCtl(env, stdin string, args ...string) {
	r.t.Helper()
	if got := r.run(r.t, "ctl", env, stdin, args...); got.code != 0 {
		r.t.Fatalf("ctl %s: %s", strings.Join(args, " "), got)
	}
}

// twins runs args with ctl on the twin-ctl objects and with kubectl on
// the twin-kubectl ones (NAME in args stands for the name), and requires
// the same output once names are made equal.
func (r *objvRunner) twins(t *testing.T, args ...string) {
	t.Helper()
	r.twinsEnv(t, "", args...)
}

// objvNormalisers make the two tools' outputs comparable: the twins'
// names, the program name in hints, the pod-template-hash of templates
// (it hashes the twins' different labels), edit's temporary files.
var objvNormalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`twin-kubectl`), "twin-ctl"},
	{regexp.MustCompile(`app=twin-k\b`), "app=twin"},
	{regexp.MustCompile(`'kubectl `), "'ctl "},
	{regexp.MustCompile(`pod-template-hash=[a-z0-9]+`), "pod-template-hash=HASH"},
	{regexp.MustCompile(`"?[^" ]*/(kubectl|ctl)-edit-[0-9]+\.yaml"?`), `EDITFILE`},
}

// twinsEnv is twins with an extra environment variable (KUBE_EDITOR).
func (r *objvRunner) twinsEnv(t *testing.T, env string, args ...string) {
	t.Helper()
	with := func(name string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "NAME", name)
		}
		return out
	}
	// The twins are separate objects, so the two tools run side by side.
	var want objvResult
	kubectlDone := make(chan struct{})
	go func() {
		defer close(kubectlDone)
		want = r.run(t, "kubectl", env, "", with("twin-kubectl")...)
	}()
	got := r.run(t, "ctl", env, "", with("twin-ctl")...)
	<-kubectlDone
	for _, res := range []*objvResult{&got, &want} {
		for _, n := range objvNormalisers {
			res.stdout = n.re.ReplaceAllString(res.stdout, n.with)
			res.stderr = n.re.ReplaceAllString(res.stderr, n.with)
		}
	}
	if got != want {
		t.Errorf("%s:\nctl: %s\nkubectl: %s", strings.Join(with("twin-ctl"), " "), got, want)
	}
}

// twinsUntilDone waits with `rollout status` (ctl on one twin, kubectl on
// the other) until both rollouts are done, and compares the last line.
func (r *objvRunner) twinsUntilDone(t *testing.T, name string) {
	t.Helper()
	for _, tool := range []string{"ctl", "kubectl"} {
		twin := strings.ReplaceAll(name, "NAME", "twin-"+tool)
		got := r.run(t, tool, "", "", "rollout", "status", "deploy/"+twin, "--timeout=60s")
		if got.code != 0 || !strings.HasSuffix(got.stdout, fmt.Sprintf("deployment %q successfully rolled out\n", twin)) {
			t.Fatalf("%s rollout status %s: %s", tool, twin, got)
		}
	}
}

// nodeTwins runs args with ctl on node1 and with kubectl on node2 (NODE
// in args) and requires the same output once the names are made equal.
func (r *objvRunner) nodeTwins(t *testing.T, args ...string) {
	t.Helper()
	with := func(node string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "NODE", node)
		}
		return out
	}
	got := r.run(t, "ctl", "", "", with("node1")...)
	want := r.run(t, "kubectl", "", "", with("node2")...)
	for _, res := range []*objvResult{&got, &want} {
		for _, s := range []*string{&res.stdout, &res.stderr} {
			*s = strings.NewReplacer("node2", "node1", "solo-2", "solo-1", "'kubectl ", "'ctl ").Replace(*s)
		}
	}
	if got != want {
		t.Errorf("%s:\nctl: %s\nkubectl: %s", strings.Join(with("node1"), " "), got, want)
	}
}

// objvDistinctLines is the sorted set of distinct lines of s.
func objvDistinctLines(s string) string {
	seen := map[string]bool{}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// followsLogs starts `ctl logs -f ticker`, checks that new lines keep
// arriving while it runs (the stream stays open), and stops it.
func (r *objvRunner) followsLogs(t *testing.T) {
	t.Helper()
	cmd := exec.Command(r.ctl, "--kubeconfig", r.c.KubeconfigPath(), "logs", "-f", "ticker", "--tail=1")
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
	}()
	// The container prints a line every 0.2 s: following, ctl must
	// deliver at least five distinct ones, in order.
	var seen []string
	deadline := time.After(30 * time.Second)
	for len(seen) < 5 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("ctl logs -f ended after %q", seen)
			}
			seen = append(seen, line)
		case <-deadline:
			t.Fatalf("ctl logs -f printed only %q in 30s", seen)
		}
	}
	var last int
	for i, line := range seen {
		var n int
		if _, err := fmt.Sscanf(line, "tick %d", &n); err != nil || (i > 0 && n != last+1) {
			t.Fatalf("ctl logs -f printed %q, want consecutive ticks", seen)
		}
		last = n
	}
}

// objvDiffNoise is what differs between two runs of `diff`: the temporary
// directories, the files' times, UIDs and timestamps.
var objvDiffNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`/(LIVE|MERGED)-[0-9]+/`), "/$1-X/"},
	{regexp.MustCompile(`\t\d{4}-\d\d-\d\d [0-9:.]+ [+-]\d{4}`), ""},
	{regexp.MustCompile(`(uid|creationTimestamp|resourceVersion|time): .*`), "$1: X"},
}

// diffAndPrune compares `diff -f` and `apply --prune` with kubectl's: each
// tool applies its own set of ConfigMaps (labelled set=<tool>), the files
// then drop one and change another.
func (r *objvRunner) diffAndPrune(t *testing.T) {
	t.Helper()
	set := func(tool string, names ...string) string {
		var docs []string
		for _, n := range names {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-%s\n  labels: {set: %s}\ndata: {v: %q}\n", n, tool, tool, n))
		}
		path := filepath.Join(r.dir, "set-"+tool+".yaml")
		if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	allow := "--prune-allowlist=core/v1/ConfigMap"
	for _, tool := range []string{"ctl", "kubectl"} {
		if got := r.run(t, tool, "", "", "apply", "-f", set(tool, "one", "two"), "-l", "set="+tool, "--prune", allow); got.code != 0 {
			t.Fatalf("%s apply: %s", tool, got)
		}
	}
	both := func(args ...string) {
		t.Helper()
		results := map[string]objvResult{}
		for _, tool := range []string{"ctl", "kubectl"} {
			with := make([]string, len(args))
			for i, a := range args {
				with[i] = strings.NewReplacer("FILE", filepath.Join(r.dir, "set-"+tool+".yaml"), "TOOL", tool).Replace(a)
			}
			res := r.run(t, tool, "", "", with...)
			for _, n := range objvDiffNoise {
				res.stdout = n.re.ReplaceAllString(res.stdout, n.with)
			}
			res.stdout = strings.NewReplacer("-"+tool, "-TOOL", "set: "+tool, "set: TOOL", "set-"+tool, "set-TOOL", `"set":"`+tool, `"set":"TOOL`).Replace(res.stdout)
			res.stderr = strings.ReplaceAll(res.stderr, r.dir, "DIR")
			res.stderr = strings.ReplaceAll(res.stderr, "set-"+tool, "set-TOOL")
			results[tool] = res
		}
		if results["ctl"] != results["kubectl"] {
			t.Errorf("%v:\nctl: %s\nkubectl: %s", args, results["ctl"], results["kubectl"])
		}
	}
	both("diff", "-f", "FILE")
	set("ctl", "one", "three")
	set("kubectl", "one", "three")
	both("diff", "-f", "FILE")
	both("diff", "-f", "nope.yaml")
	both("apply", "-f", "FILE", "--prune", allow)
	both("apply", "-f", "FILE", "-l", "set=TOOL", "--prune", allow, "--dry-run=server")
	both("apply", "-f", "FILE", "-l", "set=TOOL", "--prune", allow)
	both("get", "cm", "-l", "set=TOOL", "-o", "name")
	both("diff", "-f", "FILE")
}
