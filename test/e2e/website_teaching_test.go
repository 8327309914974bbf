package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kplane/test/framework"
)

// checkWebsiteTeachingLayer checks that ctl's teaching verbs see Website
// default/hello, which is Ready with 2 replicas, and the Website controller
// that runs with --debug-data-dir c.Dir (docs/write-a-controller.md §11):
// the kind resolves through discovery, the controller's queue and journal
// are reached through the endpoint it announced, and etcd is read at the
// custom resource's own key.
func checkWebsiteTeachingLayer(t *testing.T, c *framework.LocalCluster) {
	t.Helper()
	bin := framework.BuildBinaries(t)
	ctl := func(args ...string) (int, string) {
		return runCtl(t, bin, append(args, "--kubeconfig", filepath.Join(c.Dir, "kubeconfig"))...)
	}
	mustMatch := func(what, out string, patterns ...string) bool {
		t.Helper()
		ok := true
		for _, p := range patterns {
			if !regexp.MustCompile(p).MatchString(out) {
				t.Errorf("%s does not match %s:\n%s", what, p, out)
				ok = false
			}
		}
		return ok
	}

	// ctl queues finds the controller's endpoint file and shows its queue.
	code, out := ctl("queues", "--data-dir", c.Dir, "--component", "website-controller")
	if code != 0 {
		t.Fatalf("ctl queues --component website-controller: exit %d\n%s", code, out)
	}
	mustMatch("ctl queues --component website-controller", out, `(?m)^website-controller$`, `(?m)^website\s+\d+\s+\d+\s+\d+\s+\d+\s+`)

	// ctl why: the sync's latest decision, once the Website is Ready.
	framework.Eventually(t, websiteWait, func() (bool, string) {
		code, out := ctl("why", "website/hello", "--data-dir", c.Dir)
		return code == 0 && strings.Contains(out, "Ready True AllReplicasReady: 2 of 2 replicas are ready"), fmt.Sprintf("exit %d:\n%s", code, out)
	})
	_, out = ctl("why", "website/hello", "--data-dir", c.Dir)
	mustMatch("ctl why website/hello", out,
		`(?m)^website in website-controller, \S+ ago, rv=\d+:$`,
		`(?m)^  replicas 2, image nginx:1\.27, port 80: Deployment in sync, Service in sync; Ready True AllReplicasReady: 2 of 2 replicas are ready$`,
		`(?m)^  mirrors upstream staging/src/k8s\.io/sample-controller/controller\.go$`)

	// ctl trace: the custom resource's pipeline, from the apiserver's etcd
	// write through the watch cache into the controller's informer, queue
	// and sync, and the writes the sync made.
	code, out = ctl("trace", "website/hello", "--data-dir", c.Dir, "--since", "30m", "--timeout", "5s")
	if code != 0 {
		t.Fatalf("ctl trace website/hello: exit %d\n%s", code, out)
	}
	mustMatch("ctl trace website/hello", out,
		`Tracing website\.examples\.kplane\.dev/hello and what it owns`,
		`(?m)^\S+\s+apiserver\s+create\s+kubernetes-admin\s+website\.examples\.kplane\.dev/hello\s+\d+\s+etcd=create$`,
		`(?m)^\S+\s+apiserver\s+fanout\s+watch-cache\s+website\.examples\.kplane\.dev/hello\s+\d+\s+type=ADDED watchers=\d+$`,
		`(?m)^\S+\s+website-controller\s+watch\s+-\s+website\.examples\.kplane\.dev/hello\s+\d+\s+type=ADDED$`,
		`(?m)^\S+\s+website-controller\s+store\s+-\s+website\.examples\.kplane\.dev/hello\s+\d+\s+op=add$`,
		`(?m)^\S+\s+website-controller\s+enqueue\s+website\s+hello\s`,
		`(?m)^\S+\s+website-controller\s+sync\s+website\s+hello\s+-\s+took=\S+ result=ok$`,
		`(?m)^\S+\s+website-controller\s+create\s+website\s+deployment\.apps/hello\s+\d+\s`,
		`(?m)^\S+\s+website-controller\s+create\s+website\s+service/hello\s+\d+\s`,
		`(?m)^\S+\s+website-controller\s+decision\s+website\s+website\.examples\.kplane\.dev/hello\s+\d+\s+replicas 2, image nginx:1\.27, port 80: Deployment created, Service created;`,
		// Down the ownership chain: the Deployment's ReplicaSet.
		`(?m)^\S+\s+controller-manager\s+create\s+deployment\s+replicaset\.apps/hello-`)

	// ctl etcd reads the custom resource where the apiserver keeps it.
	code, out = ctl("etcd", "get", "website/hello")
	if code != 0 {
		t.Fatalf("ctl etcd get website/hello: exit %d\n%s", code, out)
	}
	mustMatch("ctl etcd get website/hello", out,
		`(?m)^/registry/examples\.kplane\.dev/websites/default/hello\s+\d+\s+\d+\s+\d+$`, `"kind": "Website"`)

	// ctl describe: the status and the controller's Events.
	code, out = ctl("describe", "website", "hello")
	if code != 0 {
		t.Fatalf("ctl describe website hello: exit %d\n%s", code, out)
	}
	mustMatch("ctl describe website hello", out, `(?m)^Kind:\s+Website$`, `(?m)^\s+Ready Replicas:\s+2$`,
		`Normal\s+Created\s+\S+\s+website-controller\s+Created Deployment hello`)
}
