package ctl

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/restmapper"
	"kplane/pkg/version"
	"kplane/test/framework"
)

// Issue 12's verbs (wait, set, version, api-versions, cluster-info, run,
// expose, create service|secret|serviceaccount|job|cronjob|role|
// rolebinding|quota|ingress|poddisruptionbudget, diff, apply --prune) against an in-process apiserver.
// test/e2e/ctl_objectverbs_test.go compares them with the real kubectl.

func TestParseWaitCondition(t *testing.T) {
	deploy := map[string]any{
		"metadata": map[string]any{"generation": int64(2)},
		"status": map[string]any{
			"observedGeneration": int64(2),
			"readyReplicas":      int64(3),
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True"},
				map[string]any{"type": "Progressing", "status": "False"},
			},
		},
	}
	stale := map[string]any{
		"metadata": map[string]any{"generation": int64(3)},
		"status": map[string]any{
			"observedGeneration": int64(2),
			"conditions":         []any{map[string]any{"type": "Available", "status": "True"}},
		},
	}
	tests := []struct {
		forFlag string
		obj     map[string]any
		want    bool
		wantErr string
	}{
		{"condition=Available", deploy, true, ""},
		{"condition=available", deploy, true, ""},
		{"condition=Progressing", deploy, false, ""},
		{"condition=Progressing=false", deploy, true, ""},
		{"condition=Missing", deploy, false, ""},
		{"condition=Available", stale, false, ""}, // observed for an older generation
		{"jsonpath={.status.readyReplicas}=3", deploy, true, ""},
		{"jsonpath=.status.readyReplicas=4", deploy, false, ""},
		{"jsonpath={.status.readyReplicas}", deploy, true, ""},
		{"jsonpath={.status.nope}", deploy, false, ""},
		{"jsonpath={.status.conditions[?(@.type==\"Available\")].status}=True", deploy, true, ""},
		{"jsonpath={.status}=x", deploy, false, "jsonpath leads to a nested object or list which is not supported"},
		{"jsonpath={.status.conditions[*].type}=x", deploy, false, "given jsonpath expression matches more than one value"},
		{"create", deploy, true, ""},
	}
	for _, tt := range tests {
		cond, err := parseWaitCondition(tt.forFlag)
		if err != nil {
			t.Errorf("--for=%s: %v", tt.forFlag, err)
			continue
		}
		got, err := cond.check(tt.obj)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("--for=%s = %v, %v; want %v, %q", tt.forFlag, got, err, tt.want, tt.wantErr)
		}
	}
	for forFlag, wantErr := range map[string]string{
		"":                   `unrecognized condition: ""`,
		"bogus":              `unrecognized condition: "bogus"`,
		"jsonpath=":          "jsonpath expression cannot be empty",
		"jsonpath={.a}=":     "jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3",
		"jsonpath={.a}=b=c":  "jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'",
		"jsonpath={.a}='b c": "",
	} {
		_, err := parseWaitCondition(forFlag)
		if (err == nil) != (wantErr == "") || (err != nil && err.Error() != wantErr) {
			t.Errorf("--for=%s: error %v, want %q", forFlag, err, wantErr)
		}
	}
	if cond, _ := parseWaitCondition("DELETE"); !cond.forDelete {
		t.Error("--for=DELETE is --for=delete")
	}
}

func TestSplitOnSingleEquals(t *testing.T) {
	for in, want := range map[string]string{
		"{.a}=1":                      "{.a}|1",
		"{.a[?(@.b==\"c\")].d}=True":  "{.a[?(@.b==\"c\")].d}|True",
		"a.b.c====d.e.f===g.h.i===":   "a.b.c====d.e.f==|g.h.i==|",
		"{.status.phase}":             "{.status.phase}",
		"{.status.phase}=Running=Now": "{.status.phase}|Running|Now",
	} {
		if got := strings.Join(splitOnSingleEquals(in), "|"); got != want {
			t.Errorf("splitOnSingleEquals(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTCPSpec(t *testing.T) {
	tests := []struct {
		spec, name string
		port       int64
		target     any
		wantErr    string
	}{
		{"80", "80", 80, int64(80), ""},
		{"80:8080", "80-8080", 80, int64(8080), ""},
		{"443:https", "443-https", 443, "https", ""},
		{"x", "", 0, nil, `strconv.ParseUint: parsing "x": invalid syntax`},
		{"70000", "", 0, nil, `strconv.ParseUint: parsing "70000": value out of range`},
	}
	for _, tt := range tests {
		got, err := parseTCPSpec(tt.spec)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("parseTCPSpec(%q) error %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.name != tt.name || got.port != tt.port || got.targetPort != tt.target || got.protocol != "TCP" {
			t.Errorf("parseTCPSpec(%q) = %+v, %v", tt.spec, got, err)
		}
	}
}

func TestClusterServiceLink(t *testing.T) {
	host := "https://127.0.0.1:6443"
	tests := []struct {
		name    string
		ports   []api.ServicePort
		ingress []api.LoadBalancerIngress
		want    string
	}{
		{"dns", []api.ServicePort{{Name: "dns", Port: 53}}, nil, host + "/api/v1/namespaces/kube-system/services/dns:dns/proxy"},
		{"dash", []api.ServicePort{{Port: 443}}, nil, host + "/api/v1/namespaces/kube-system/services/https:dash:/proxy"},
		{"plain", []api.ServicePort{{Port: 80}}, nil, host + "/api/v1/namespaces/kube-system/services/plain/proxy"},
		{"noports", nil, nil, host + "/api/v1/namespaces/kube-system/services/noports/proxy"},
		{"lb", []api.ServicePort{{Port: 80}, {Port: 81}}, []api.LoadBalancerIngress{{Hostname: "lb.example"}}, "http://lb.example:80 http://lb.example:81 "},
	}
	for _, tt := range tests {
		if got := clusterServiceLink(host, "kube-system", tt.name, tt.ports, tt.ingress); got != tt.want {
			t.Errorf("link of %s = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSkewWarning(t *testing.T) {
	client := version.Info{Major: "1", Minor: "32"}
	for minor, want := range map[string]string{
		"32": "", "31": "", "33+": "",
		"29": "WARNING: version difference between client (1.32) and server (1.29) exceeds the supported minor version skew of +/-1",
	} {
		if got := skewWarning(client, version.Info{Major: "1", Minor: minor}); got != want {
			t.Errorf("server minor %s: %q, want %q", minor, got, want)
		}
	}
}

func TestMaskSecretData(t *testing.T) {
	live := map[string]any{"data": map[string]any{"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}}
	merged := map[string]any{"data": map[string]any{"same": "YQ==", "changed": "Yx==", "new": "ZA=="}}
	maskSecretData(live, merged)
	wantLive := map[string]any{"same": "***", "changed": "*** (before)", "gone": "***"}
	wantMerged := map[string]any{"same": "***", "changed": "*** (after)", "new": "***"}
	for k, v := range wantLive {
		if live["data"].(map[string]any)[k] != v {
			t.Errorf("live %s = %v, want %v", k, live["data"].(map[string]any)[k], v)
		}
	}
	for k, v := range wantMerged {
		if merged["data"].(map[string]any)[k] != v {
			t.Errorf("merged %s = %v, want %v", k, merged["data"].(map[string]any)[k], v)
		}
	}
}

func TestGeneratorsDryRun(t *testing.T) {
	a := framework.StartAPIServer(t)
	dir := t.TempDir()
	envFile := filepath.Join(dir, "app.env")
	os.WriteFile(envFile, []byte("# settings\nMODE=lesson\n\nLEVEL=2\n"), 0o600)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"create", "service", "clusterip", "web", "--tcp=80:8080", "--dry-run=client", "-o", "yaml"},
			"apiVersion: v1\nkind: Service\nmetadata:\n  creationTimestamp: null\n  labels:\n    app: web\n  name: web\nspec:\n  ports:\n  - name: 80-8080\n    port: 80\n    protocol: TCP\n    targetPort: 8080\n  selector:\n    app: web\n  type: ClusterIP\nstatus:\n  loadBalancer: {}\n"},
		{[]string{"create", "secret", "generic", "db", "--from-literal=user=admin", "--from-env-file=" + envFile, "--dry-run=client", "-o", "yaml"},
			"apiVersion: v1\ndata:\n  LEVEL: Mg==\n  MODE: bGVzc29u\n  user: YWRtaW4=\nkind: Secret\nmetadata:\n  creationTimestamp: null\n  name: db\n"},
		{[]string{"create", "job", "hello", "--image=busybox", "--dry-run=client", "-o", "yaml", "--", "echo", "hi"},
			"apiVersion: batch/v1\nkind: Job\nmetadata:\n  creationTimestamp: null\n  name: hello\nspec:\n  template:\n    metadata:\n      creationTimestamp: null\n    spec:\n      containers:\n      - command:\n        - echo\n        - hi\n        image: busybox\n        name: hello\n        resources: {}\n      restartPolicy: Never\nstatus: {}\n"},
		{[]string{"create", "rolebinding", "rb", "--clusterrole=view", "--serviceaccount=ci:builder", "--dry-run=client", "-o", "yaml"},
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  creationTimestamp: null\n  name: rb\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n- kind: ServiceAccount\n  name: builder\n  namespace: ci\n"},
		{[]string{"create", "role", "reader", "--verb=get,list", "--resource=pods,deployments.apps,pods/log", "--dry-run=client", "-o", "yaml"},
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  creationTimestamp: null\n  name: reader\nrules:\n- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  - pods/log\n  verbs:\n  - get\n  - list\n- apiGroups:\n  - apps\n  resources:\n  - deployments\n  verbs:\n  - get\n  - list\n"},
		{[]string{"create", "quota", "small", "--hard=pods=2,cpu=500m", "--dry-run=client", "-o", "yaml"},
			"apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  creationTimestamp: null\n  name: small\nspec:\n  hard:\n    cpu: 500m\n    pods: \"2\"\nstatus: {}\n"},
		{[]string{"create", "ingress", "shop", "--class=edge", "--rule=shop.example/*=web:80", "--rule=shop.example/cart=cart:https,tls=shop-cert", "--annotation=team=edge", "--dry-run=client", "-o", "yaml"},
			"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  annotations:\n    team: edge\n  creationTimestamp: null\n  name: shop\nspec:\n  ingressClassName: edge\n  rules:\n  - host: shop.example\n    http:\n      paths:\n      - backend:\n          service:\n            name: web\n            port:\n              number: 80\n        path: /\n        pathType: Prefix\n      - backend:\n          service:\n            name: cart\n            port:\n              name: https\n        path: /cart\n        pathType: Exact\n  tls:\n  - hosts:\n    - shop.example\n    secretName: shop-cert\nstatus:\n  loadBalancer: {}\n"},
		{[]string{"create", "pdb", "web", "--selector=app=web,tier in (a,b)", "--max-unavailable=25%", "--dry-run=client", "-o", "yaml"},
			"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  creationTimestamp: null\n  name: web\nspec:\n  maxUnavailable: 25%\n  selector:\n    matchExpressions:\n    - key: tier\n      operator: In\n      values:\n      - a\n      - b\n    matchLabels:\n      app: web\nstatus:\n  currentHealthy: 0\n  desiredHealthy: 0\n  disruptionsAllowed: 0\n  expectedPods: 0\n"},
		{[]string{"run", "web", "--image=nginx", "--port=80", "-n", "default", "--dry-run=client", "-o", "yaml"},
			"apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: null\n  labels:\n    run: web\n  name: web\n  namespace: default\nspec:\n  containers:\n  - image: nginx\n    name: web\n    ports:\n    - containerPort: 80\n    resources: {}\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\nstatus: {}\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runIn(t, a, "", tt.args...)
		if code != 0 || out != tt.want || errOut != "" {
			t.Errorf("ctl %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", strings.Join(tt.args, " "), code, out, errOut, tt.want)
		}
	}
	// Really created, then refused as kubectl words it.
	mustRun(t, a, "create", "secret", "generic", "taken")
	for args, wantErr := range map[string]string{
		"create secret generic taken":                                       "error: failed to create secret secrets \"taken\" already exists\n",
		"create service clusterip web":                                      "error: at least one tcp port specifier must be provided\n",
		"create rolebinding rb --user=u":                                    "error: exactly one of clusterrole or role must be specified\n",
		"create job j":                                                      "error: either --image or --from must be specified\n",
		"run web --image=x --restart=Sometimes":                             "error: invalid restart policy: Sometimes\nSee 'ctl run -h' for help and examples\n",
		"run web --image=x -t":                                              "error: -i/--stdin is required for containers with -t/--tty=true\nSee 'ctl run -h' for help and examples\n",
		"create quota q --hard=cpu":                                         "error: Invalid argument syntax cpu, expected <resource>=<value>\n",
		"create ingress x":                                                  "error: not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)\n",
		"create ingress x --rule=shop.example=web:80":                       "error: rule shop.example=web:80 is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]\n",
		"create pdb p --selector=a=b --min-available=1Gi":                   "error: invalid format specified for min-available\n",
		"create pdb p --selector=a=b --min-available=1 --max-unavailable=1": "error: min-available and max-unavailable cannot be both specified\n",
		"create secret tls t --cert=" + envFile:                             "error: key and cert must be specified\n",
		"create secret docker-registry d --docker-username=u":               "error: either --from-file or the combination of --docker-username, --docker-password and --docker-server is required\n",
	} {
		code, out, errOut := runIn(t, a, "", strings.Fields(args)...)
		if code != 1 || out != "" || errOut != wantErr {
			t.Errorf("ctl %s: exit %d\nstdout %q\nstderr %q\nwant stderr %q", args, code, out, errOut, wantErr)
		}
	}
}

// twoContainerDeployment has a container and an init container, so set
// verbs must find both.
const twoContainerDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: init, image: busybox}]
      containers: [{name: nginx, image: nginx, ports: [{containerPort: 80}, {containerPort: 53, protocol: UDP}]}]
`

func TestSetVerbs(t *testing.T) {
	a := framework.StartAPIServer(t)
	code, _, errOut := runIn(t, a, twoContainerDeployment, "apply", "-f", "-")
	if code != 0 {
		t.Fatal(errOut)
	}
	mustRun(t, a, "create", "configmap", "settings", "--from-literal=my.key=v1")
	steps := []struct {
		args             []string
		code             int
		wantOut, wantErr string
	}{
		{[]string{"set", "image", "deploy/web", "nginx=nginx:1.27", "init=busybox:1.36"}, 0, "deployment.apps/web image updated\n", ""},
		{[]string{"set", "image", "deploy/web", "nginx=nginx:1.27"}, 0, "", ""}, // nothing changes, nothing printed
		{[]string{"set", "image", "deploy/web", "nope=x"}, 1, "", "error: unable to find container named \"nope\"\n"},
		{[]string{"set", "image", "cm/settings", "a=b"}, 1, "", "error: configmaps/settings the object is not a pod or does not have a pod template: *v1.ConfigMap\n"},
		{[]string{"set", "image", "deploy/web"}, 1, "", "error: at least one image update is required\n"},
		{[]string{"get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.initContainers[0].image} {.spec.template.spec.containers[0].image}"}, 0, "busybox:1.36 nginx:1.27", ""},
		{[]string{"set", "env", "deploy/web", "-c", "nginx", "MODE=lesson", "--from=configmap/settings"}, 0, "deployment.apps/web env updated\n", "Warning: key my.key transferred to MY_KEY\n"},
		{[]string{"set", "env", "deploy/web", "--list", "-c", "nginx"}, 0, "# Deployment web, container nginx\nMODE=lesson\n# MY_KEY from configmap settings, key my.key\n", ""},
		{[]string{"set", "env", "deploy/web", "--list", "-c", "nginx", "--resolve"}, 0, "# Deployment web, container nginx\nMODE=lesson\nMY_KEY=v1\n", ""},
		{[]string{"set", "env", "deploy/web", "MODE=exam", "--overwrite=false", "-c", "nginx"}, 1, "", "error: deployments/web 'MODE' already has a value (lesson), and --overwrite is false\n"},
		{[]string{"set", "env", "deploy/web", "MODE-", "MY_KEY-", "-c", "nginx"}, 0, "deployment.apps/web env updated\n", ""},
		{[]string{"set", "env", "deploy/web", "-c", "nope", "A=1"}, 0, "", "Warning: Deployment/web does not have any containers matching \"nope\"\n"},
		{[]string{"set", "resources", "deploy/web", "-c", "nginx", "--requests=cpu=0.1,memory=64Mi", "--limits=memory=128Mi"}, 0, "deployment.apps/web resource requirements updated\n", ""},
		{[]string{"get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].resources}"}, 0, `{"limits":{"memory":"128Mi"},"requests":{"cpu":"100m","memory":"64Mi"}}`, ""},
		{[]string{"set", "resources", "deploy/web"}, 1, "", "error: you must specify an update to requests or limits (in the form of --requests/--limits)\n"},
		{[]string{"expose", "deploy/web", "--dry-run=client", "-o", "jsonpath={.spec.ports}"}, 0, `[{"name":"port-1","port":80,"protocol":"TCP","targetPort":80},{"name":"port-2","port":53,"protocol":"UDP","targetPort":53}]`, ""},
		{[]string{"expose", "deploy/web", "--port=8080", "--target-port=80", "--type=NodePort"}, 0, "service/web exposed\n", ""},
		{[]string{"get", "svc", "web", "-o", "jsonpath={.spec.type} {.spec.selector.app} {.spec.ports[0].targetPort}"}, 0, "NodePort web 80", ""},
		{[]string{"expose", "cm/settings"}, 1, "", "error: cannot expose a ConfigMap\n"},
		{[]string{"wait", "--for=jsonpath={.spec.type}=NodePort", "svc/web", "--timeout=5s"}, 0, "service/web condition met\n", ""},
		{[]string{"wait", "--for=condition=Available", "deploy/web", "--timeout=0"}, 1, "", "error: condition not met for deployments/web\n"},
		{[]string{"wait", "--for=condition=Available", "deploy/web", "--timeout=300ms"}, 1, "", "error: timed out waiting for the condition on deployments/web\n"},
		// One --timeout for all: the second object times out at once.
		{[]string{"wait", "--for=jsonpath={.spec.type}=ClusterIP", "svc/web", "cm/settings", "--timeout=300ms"}, 1, "",
			"timed out waiting for the condition on services/web\ntimed out waiting for the condition on configmaps/settings\n"},
		{[]string{"wait", "--for=delete", "cm/nope"}, 0, "", ""},
		{[]string{"wait", "--for=create", "cm", "-l", "x=y"}, 1, "", "error: no matching resources found\n"},
	}
	for _, s := range steps {
		code, out, errOut := runIn(t, a, "", s.args...)
		if code != s.code || out != s.wantOut || errOut != s.wantErr {
			t.Errorf("ctl %s = %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q", strings.Join(s.args, " "), code, out, errOut, s.code, s.wantOut, s.wantErr)
		}
	}
}

func TestWaitForDeleteSeesTheDeletion(t *testing.T) {
	a := framework.StartAPIServer(t)
	mustRun(t, a, "create", "configmap", "doomed")
	done := make(chan struct{})
	var code int
	var out, errOut string
	go func() {
		defer close(done)
		code, out, errOut = runIn(t, a, "", "wait", "--for=delete", "cm/doomed", "--timeout=20s")
	}()
	// Delete only once wait has listed the ConfigMap and opened its watch;
	// deleted before that, wait finds nothing to wait for.
	c := a.Client(t, nil)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, metrics, err := c.Do(context.Background(), "GET", "/metrics", nil, nil)
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(string(metrics), `apiserver_longrunning_requests{resource="configmaps"} 1`), "no watch of configmaps open yet"
	})
	mustRun(t, a, "delete", "cm", "doomed", "--wait=false")
	<-done
	if code != 0 || out != "configmap/doomed condition met\n" || errOut != "" {
		t.Errorf("wait --for=delete: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestVersionAPIVersionsClusterInfo(t *testing.T) {
	a := framework.StartAPIServer(t)
	v := version.Get().GitVersion
	if out := mustRun(t, a, "version"); out != "Client Version: "+v+"\nServer Version: "+v+"\n" {
		t.Errorf("version:\n%s", out)
	}
	if out := mustRun(t, a, "version", "--client", "-o", "json"); !strings.HasPrefix(out, "{\n  \"clientVersion\": {\n    \"major\": \"1\",\n") || strings.Contains(out, "serverVersion") {
		t.Errorf("version --client -o json:\n%s", out)
	}
	out := mustRun(t, a, "api-versions")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains("\n"+out, "\napps/v1\n") || !strings.HasSuffix(out, "\nv1\n") || !slices.IsSorted(lines) {
		t.Errorf("api-versions, sorted, with apps/v1 and v1:\n%s", out)
	}
	out = mustRun(t, a, "cluster-info")
	if out != "Kubernetes control plane is running at "+a.URL()+"\n\nTo further debug and diagnose cluster problems, use 'ctl cluster-info dump'.\n" {
		t.Errorf("cluster-info:\n%s", out)
	}
}

func TestApplyPruneAndDiff(t *testing.T) {
	a := framework.StartAPIServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "set.yaml")
	two := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {set: s}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: {set: s}}\n"
	one := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {set: s}}\ndata: {k: v}\n"
	os.WriteFile(file, []byte(two), 0o600)
	mustRun(t, a, "apply", "-f", file)
	mustRun(t, a, "create", "configmap", "bystander") // never applied: never pruned
	os.WriteFile(file, []byte(one), 0o600)

	code, out, errOut := runIn(t, a, "", "diff", "-f", file)
	if code != 1 || !strings.Contains(out, "/v1.ConfigMap.default.a\n") || !strings.Contains(out, "\n+data:\n+  k: v\n") || errOut != "" {
		t.Errorf("diff of a changed object: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runIn(t, a, "", "apply", "-f", file, "--prune")
	if code != 1 || !strings.HasPrefix(errOut, "error: all resources selected for prune without explicitly passing --all.") {
		t.Errorf("--prune without -l or --all: exit %d %q", code, errOut)
	}
	out = mustRun(t, a, "apply", "-f", file, "-l", "set=s", "--prune", "--dry-run=server")
	if out != "configmap/a configured (server dry run)\nconfigmap/b pruned (server dry run)\n" {
		t.Errorf("apply --prune --dry-run=server:\n%s", out)
	}
	out = mustRun(t, a, "apply", "-f", file, "-l", "set=s", "--prune", "--prune-allowlist=core/v1/ConfigMap")
	if out != "configmap/a configured\nconfigmap/b pruned\n" {
		t.Errorf("apply --prune:\n%s", out)
	}
	if got := mustRun(t, a, "get", "cm", "-o", "name"); got != "configmap/a\nconfigmap/bystander\n" {
		t.Errorf("after the prune:\n%s", got)
	}
	code, out, errOut = runIn(t, a, "", "diff", "-f", file)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("diff after apply: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runIn(t, a, "", "diff", "-f", filepath.Join(dir, "missing.yaml"))
	if code != 2 || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("diff of a missing file: exit %d %q", code, errOut)
	}
}

func TestGroupingCommandsFailWithHelp(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, args := range [][]string{{"set"}, {"create", "service"}, {"create", "secret"}} {
		code, out, errOut := runIn(t, a, "", args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "\nAvailable Commands:\n") {
			t.Errorf("ctl %s: exit %d\nstdout %q\nstderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestPruneDefaultAllowlistNeedsEveryKind checks that --prune without
// --prune-allowlist resolves every kind of kubectl's default list and,
// as kubectl, fails when the server does not serve one of them.
func TestPruneDefaultAllowlistNeedsEveryKind(t *testing.T) {
	var served []restmapper.APIResource
	for _, entry := range defaultPruneAllowlist {
		parts := strings.Split(entry, "/")
		group := strings.TrimPrefix(parts[0], "core")
		served = append(served, restmapper.APIResource{
			Group: group, Version: parts[1], Kind: parts[2], Name: strings.ToLower(parts[2]) + "s",
			Namespaced: parts[2] != "Namespace" && parts[2] != "PersistentVolume",
		})
	}
	p, err := newPruner(restmapper.New(served), nil, "app=x", "", nil)
	if err != nil || len(p.resources) != len(defaultPruneAllowlist) {
		t.Fatalf("all default kinds served: %v, %d resources", err, len(p.resources))
	}
	if last := p.resources[len(p.resources)-1]; last.Namespaced {
		t.Errorf("namespaced kinds must come first, last is %s", last.Kind)
	}
	var withoutIngress []restmapper.APIResource
	for _, r := range served {
		if r.Kind != "Ingress" {
			withoutIngress = append(withoutIngress, r)
		}
	}
	_, err = newPruner(restmapper.New(withoutIngress), nil, "app=x", "", nil)
	if err == nil || err.Error() != `no matches for kind "Ingress" in version "networking.k8s.io/v1"` {
		t.Errorf("Ingress not served: got %v", err)
	}
}
