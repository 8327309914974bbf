package e2e

import (
	"reflect"
	"strings"
	"testing"
)

// These tests pin the doc runner's own rules (docs_parse_test.go,
// docs_compare_test.go), without a cluster: a runner that matched anything
// would let every document drift.

func TestDocsParseBlocks(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"```sh",
		"make up",
		"```",
		"<!-- docs-test: setup kubectl apply -f examples/nginx-rs.yaml -->",
		"<!-- docs-test: wait-for kubectl rollout status deploy/ng-dep -->",
		"",
		"```console",
		"$ ctl get pods",
		"NAME   READY",
		"...",
		"$ kubectl create -f - <<EOF",
		"kind: ConfigMap",
		"EOF",
		"configmap/x created",
		"$ kubectl get pods \\",
		"    -l app=x",
		"",
		"```",
		"  ```console",
		"  $ ctl get ns",
		"  default",
		"  ```",
		"<!-- docs-test: skip needs a second machine -->",
		"```console",
		"$ ssh node1",
		"```",
	}, "\n")
	blocks, err := parseDoc("x.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("got %d blocks, want 3: %+v", len(blocks), blocks)
	}
	b := blocks[0]
	if b.line != 8 || !reflect.DeepEqual(b.setup, []string{"kubectl apply -f examples/nginx-rs.yaml"}) ||
		!reflect.DeepEqual(b.waitFor, []string{"kubectl rollout status deploy/ng-dep"}) {
		t.Errorf("block 0 = %+v", b)
	}
	want := []docCommand{
		{line: 9, text: "ctl get pods", expected: []string{"NAME   READY", "..."}},
		{line: 12, text: "kubectl create -f - <<EOF\nkind: ConfigMap\nEOF", expected: []string{"configmap/x created"}},
		{line: 16, text: "kubectl get pods \\\n    -l app=x"},
	}
	if !reflect.DeepEqual(b.commands, want) {
		t.Errorf("commands =\n%#v\nwant\n%#v", b.commands, want)
	}
	if got := blocks[1].commands; len(got) != 1 || got[0].text != "ctl get ns" || !reflect.DeepEqual(got[0].expected, []string{"default"}) {
		t.Errorf("indented block = %#v", got)
	}
	if blocks[2].skip != "needs a second machine" {
		t.Errorf("skip = %q", blocks[2].skip)
	}
}

func TestDocsParseErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"skip without reason":       "<!-- docs-test: skip -->\n```console\n$ true\n```\n",
		"unknown annotation":        "<!-- docs-test: retry 3 -->\n```console\n$ true\n```\n",
		"annotation before text":    "<!-- docs-test: setup true -->\nsome prose\n```console\n$ true\n```\n",
		"annotation before sh":      "<!-- docs-test: setup true -->\n```sh\ntrue\n```\n",
		"dangling annotation":       "```console\n$ true\n```\n<!-- docs-test: setup true -->\n",
		"output before any command": "```console\nNAME\n$ true\n```\n",
		"unclosed fence":            "```console\n$ true\n",
		"unclosed here-document":    "```console\n$ cat <<EOF\nhello\n```\n",
	} {
		if _, err := parseDoc("x.md", doc); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestDocsOutputShape(t *testing.T) {
	for _, tc := range []struct {
		name             string
		expected, actual []string
		want             bool
	}{
		{"ages, suffixes and column widths",
			[]string{"NAME          READY   STATUS    RESTARTS   AGE", "ng-rs-7xq2v   1/1     Running   0          3s"},
			[]string{"NAME          READY   STATUS    RESTARTS   AGE", "ng-rs-b9kfl   1/1     Running   0     2m18s"}, true},
		{"a generated suffix that reads as a duration (88d7s)",
			[]string{"ng-dep-85fd959ddf-fpzjj   1/1     Running   0          3s"},
			[]string{"ng-dep-85fd959ddf-88d7s   1/1     Running   0          32s"}, true},
		{"a different status",
			[]string{"ng-rs-7xq2v   1/1     Running   0          3s"},
			[]string{"ng-rs-7xq2v   0/1     Pending   0          3s"}, false},
		{"a line too many",
			[]string{"ng-rs-7xq2v 1/1 Running 0 3s"},
			[]string{"ng-rs-7xq2v 1/1 Running 0 3s", "ng-rs-b9kfl 1/1 Running 0 3s"}, false},
		{"a different owner",
			[]string{"ng-rs-7xq2v 1/1 Running 0 3s"},
			[]string{"ng-rx-7xq2v 1/1 Running 0 3s"}, false},
		{"deployment pods and template hashes",
			[]string{"ng-dep-85fd959ddf-62kcq 1/1", "ng-dep-85fd959ddf   4   4   4   5s", "dep=ng-dep-pod,pod-template-hash=85fd959ddf"},
			[]string{"ng-dep-6b558d4747-wd4zn 1/1", "ng-dep-f89955985   4   4   4   1m", "dep=ng-dep-pod,pod-template-hash=f89955985"}, true},
		{"ellipsis lines match any number of lines",
			[]string{"Name: ng-dep", "...", "Events:", "..."},
			[]string{"Name: ng-dep", "Namespace: default", "Labels: app=ng-dep", "Events:"}, true},
		{"ellipsis lines do not excuse a missing line",
			[]string{"Name: ng-dep", "...", "Events:"},
			[]string{"Name: ng-dep", "Namespace: default"}, false},
		{"ellipsis tokens",
			[]string{`kplane_controller_syncs_total{controller="replicaset",result="success"} ...`},
			[]string{`kplane_controller_syncs_total{controller="replicaset",result="success"} 17`}, true},
		{"IPs, random ports, node ports",
			[]string{"web   10.244.1.2:8080,10.244.1.7:8080   2m", "kubernetes   127.0.0.1:6443   5s", "web NodePort 10.96.3.4 <none> 8080:31555/TCP 1s"},
			[]string{"web   10.244.2.9:8080,10.244.1.3:8080   1s", "kubernetes   127.0.0.1:34853   5s", "web NodePort 10.96.0.77 <none> 8080:30002/TCP 1s"}, true},
		{"a port that is not random",
			[]string{"web   10.244.1.2:8080   2m"},
			[]string{"web   10.244.1.2:80   2m"}, false},
		{"timestamps, uids, resourceVersions, identities",
			[]string{`  creationTimestamp: "2024-09-21T02:49:58Z"`, `  resourceVersion: "751792"`, `  uid: 4322f450-a3cc-4386-b122-83fb12d5e5a5`, `  holderIdentity: master_2e059fa2-68be-408c-bb7c-84a37bd97dcf`},
			[]string{`  creationTimestamp: "2026-11-22T03:11:49Z"`, `  resourceVersion: "12"`, `  uid: 039c78b4-b7eb-4b0b-bf74-8699e018aae3`, `  holderIdentity: vm_dc5f09d4-e346-44cf-8d19-ea112a65183a`}, true},
		{"durations",
			[]string{"kplane is ready in 457ms: 3 nodes Ready", "Normal ScalingReplicaSet 64s (x2 over 2m18s) deployment-controller"},
			[]string{"kplane is ready in 1.2s: 3 nodes Ready", "Normal ScalingReplicaSet <invalid> (x2 over 5s) deployment-controller"}, true},
		{"a trace line's offset and a write's duration",
			[]string{"+0.010s    website-controller  create    website   deployment.apps/hello   ...     took=9.495ms"},
			[]string{"+1.204s    website-controller  create    website   deployment.apps/hello   4711    took=32ms"}, true},
		{"a trace line of another stage",
			[]string{"+0.010s    website-controller  create    website   deployment.apps/hello   ...     took=9.495ms"},
			[]string{"+1.204s    website-controller  update    website   deployment.apps/hello   4711    took=32ms"}, false},
		{"an event count",
			[]string{"Normal ScalingReplicaSet 64s (x2 over 2m18s) deployment-controller"},
			[]string{"Normal ScalingReplicaSet 64s (x3 over 2m18s) deployment-controller"}, false},
		{"trailing blank lines", []string{"REVISION  CHANGE-CAUSE", "1         <none>"},
			[]string{"REVISION  CHANGE-CAUSE", "1         <none>", "", ""}, true},
		{"no output expected, some printed", nil, []string{"error: unknown command"}, false},
	} {
		if got, _ := outputMatches(tc.expected, tc.actual); got != tc.want {
			t.Errorf("%s: match = %v, want %v\nexpected %q\nactual   %q\nnormalised %q vs %q", tc.name, got, tc.want,
				tc.expected, tc.actual, normaliseLines(tc.expected), normaliseLines(tc.actual))
		}
	}
}

func TestDocsReadOnlyCommands(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ctl get pods": true,
		"kubectl get pods -l replicaset=test -o wide":                  true,
		"kubectl -n kube-system get lease":                             true,
		"kubectl describe deployment ng-dep | head -3":                 true,
		"kubectl rollout status deployment/ng-dep":                     true,
		"kubectl rollout history deployment/ng-dep":                    true,
		"grep 'started controller' .kplane/logs/x.log":                 true,
		"kubectl get pods -w":                                          false,
		"kubectl logs -f web":                                          false,
		"kubectl rollout undo deployment/ng-dep":                       false,
		"ctl apply -f examples/nginx-rs.yaml":                          false,
		"ctl delete $(ctl get pods -o name | head -1)":                 false,
		"kubectl get pods; kubectl delete pod x":                       false,
		"kubectl scale rs ng-rs --replicas=5":                          false,
		"timeout 3 bin/controller-manager --leader-elect":              false,
		"ctl get sts x -o yaml | grep -E 'generation|partition'":       true,
		`echo "$(kubectl delete pod x)"`:                               false,
		"kubectl get pods --sort-by=.x \\\n    -o custom-columns=N:.a": true,
		"kubectl delete pod x \\\n    --now":                           false,
		"ctl queues --component controller-manager -o wide | grep web": true,
		"ctl queues -w": false,
		"ctl fault api-error --resource pods --verb get --code 500": false,
		"ctl fault api-error": false,
		"ctl why deploy/web --all | grep 'new ReplicaSet 0 → 3'": true,
		"ctl cloud load-balancers":                               true,
		"ctl cloud routes":                                       true,
		"ctl cloud instance shutdown node1 | head -1":            false,
	} {
		if got := readOnlyCommand(cmd); got != want {
			t.Errorf("readOnlyCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestDocsMarkdownSection(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"## Walkthroughs",
		"### More walkthroughs",
		"- [b](docs/walkthrough-b.md) — see also [a](docs/walkthrough-a.md)",
		"#### A sub-heading stays in the section",
		"- [a](docs/walkthrough-a.md)",
		"### Next section",
		"- [c](docs/walkthrough-c.md)",
	}, "\n")
	section, ok := markdownSection(doc, "More walkthroughs")
	if !ok {
		t.Fatal("section not found")
	}
	var links []string
	for _, m := range walkthroughLinkRE.FindAllStringSubmatch(section, -1) {
		links = append(links, m[1])
	}
	want := []string{"docs/walkthrough-b.md", "docs/walkthrough-a.md", "docs/walkthrough-a.md"}
	if !reflect.DeepEqual(links, want) {
		t.Errorf("links = %q, want %q (section %q)", links, want, section)
	}
	if _, ok := markdownSection(doc, "Walkthrough"); ok {
		t.Error("a title that is only a prefix of a heading was found")
	}
}

// TestDocsReadOnlyAuth: `auth can-i` and `auth whoami` only ask, so a
// page's question is asked again until a new binding has reached the
// authorizer's cache; `auth reconcile` writes roles, so it runs once.
func TestDocsReadOnlyAuth(t *testing.T) {
	for cmd, want := range map[string]bool{
		"kubectl auth can-i create pods --as alice":                                                              true,
		"kubectl --kubeconfig .kplane/users/alice.kubeconfig auth whoami":                                        true,
		"ctl auth can-i --list -n default | grep pods":                                                           true,
		"kubectl auth reconcile -f roles.yaml":                                                                   false,
		"kubectl create rolebinding x --clusterrole=view --user=alice && kubectl auth can-i get pods --as alice": false,
	} {
		if got := readOnlyCommand(cmd); got != want {
			t.Errorf("readOnlyCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestDocsReadOnlyProxyRules: `ctl proxy-rules` prints kube-proxy's rules
// and changes nothing, so a page's read of them is retried until the
// rules have caught up; `kubectl exec` may change anything, so it runs once.
func TestDocsReadOnlyProxyRules(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ctl proxy-rules --node node1 | grep default/web":              true,
		"ctl proxy-rules --node node1 --mode ipvs | grep -A3 ':80 rr'": true,
		"kubectl exec nginx-ss-0 -- getent hosts x":                    false,
	} {
		if got := readOnlyCommand(cmd); got != want {
			t.Errorf("readOnlyCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestDocsOutputShapeKubeProxyEndpointChains: an endpoint chain's name
// hashes the pod's address, so any KUBE-SEP name matches any other; a
// Service chain's name hashes only the Service's, so it must be equal.
func TestDocsOutputShapeKubeProxyEndpointChains(t *testing.T) {
	for _, tc := range []struct {
		expected, actual string
		want             bool
	}{
		{"-A KUBE-SEP-7QE66YRUUVCO6FRM -m comment --comment default/web -m tcp -p tcp -j DNAT --to-destination 10.244.2.3:80",
			"-A KUBE-SEP-MHDQ23KUGG7EGFMW -m comment --comment default/web -m tcp -p tcp -j DNAT --to-destination 10.244.1.3:80", true},
		{`-A KUBE-SVC-LOLE4ISW44XBNF3G -m comment --comment "default/web -> 10.244.1.3:80" -j KUBE-SEP-FP5VK4PF62NWATQ4`,
			`-A KUBE-SVC-LOLE4ISW44XBNF3G -m comment --comment "default/web -> 10.244.2.4:80" -j KUBE-SEP-MHDQ23KUGG7EGFMW`, true},
		{`-A KUBE-SVC-LOLE4ISW44XBNF3G -m comment --comment "default/web -> 10.244.1.3:80" -j KUBE-SEP-FP5VK4PF62NWATQ4`,
			`-A KUBE-SVC-7QE66YRUUVCO6FRM -m comment --comment "default/web -> 10.244.1.3:80" -j KUBE-SEP-FP5VK4PF62NWATQ4`, false},
	} {
		if got, _ := outputMatches([]string{tc.expected}, []string{tc.actual}); got != tc.want {
			t.Errorf("match = %v, want %v\nexpected %q\nactual   %q", got, tc.want, tc.expected, tc.actual)
		}
	}
}
