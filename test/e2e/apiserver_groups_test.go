package e2e

import (
	"regexp"
	"strings"
	"testing"

	"kplane/test/framework"
)

// chartKinds are the networking.k8s.io and policy objects charts commonly
// ship, as a user would apply them.
const chartKinds = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  ingressClassName: nginx
  tls:
  - hosts: [web.example.com]
    secretName: web-tls
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
spec:
  podSelector:
    matchLabels:
      app: web
  ingress:
  - ports:
    - port: 80
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
`

// TestKubectlNetworkingPolicyAndEventsGroups drives the real kubectl over
// the groups charts use: it applies an IngressClass, an Ingress, a
// NetworkPolicy and a PodDisruptionBudget and lists them with upstream's
// columns; it finds events.k8s.io/v1 in api-versions and reads a core
// Event through it; and an invalid Ingress prints every error.
func TestKubectlNetworkingPolicyAndEventsGroups(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	framework.RequireKubectl(t)

	out := a.MustKubectl(t, "api-versions")
	for _, gv := range []string{"events.k8s.io/v1", "networking.k8s.io/v1", "policy/v1"} {
		if !strings.Contains(out, gv+"\n") {
			t.Errorf("kubectl api-versions does not list %s:\n%s", gv, out)
		}
	}

	r := a.Kubectl(t, chartKinds, "apply", "-f", "-")
	if r.Err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"ingressclass.networking.k8s.io/nginx created", "ingress.networking.k8s.io/web created",
		"networkpolicy.networking.k8s.io/web created", "poddisruptionbudget.policy/web created"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("kubectl apply did not print %q:\n%s", want, r.Stdout)
		}
	}
	// Applied again: unchanged — except where kubectl's three-way patch is
	// never empty, on a real cluster too: a NetworkPolicy's ingress list is
	// replaced whole and the server defaulted its port's protocol, and a
	// PodDisruptionBudget's selector has patch strategy "replace".
	r = a.Kubectl(t, chartKinds, "apply", "-f", "-")
	wantAgain := `ingressclass.networking.k8s.io/nginx unchanged
ingress.networking.k8s.io/web unchanged
networkpolicy.networking.k8s.io/web configured
poddisruptionbudget.policy/web configured
`
	if r.Err != nil || r.Stdout != wantAgain {
		t.Errorf("kubectl apply again: %v\n%s%s\nwant:\n%s", r.Err, r.Stdout, r.Stderr, wantAgain)
	}
	ages := regexp.MustCompile(`(?m)\b\d+s$`)
	got := ages.ReplaceAllString(a.MustKubectl(t, "get", "ingress,ingressclass,netpol,pdb"), "<age>")
	want := `NAME                            CLASS   HOSTS             ADDRESS   PORTS     AGE
ingress.networking.k8s.io/web   nginx   web.example.com             80, 443   <age>

NAME                                   CONTROLLER             PARAMETERS   AGE
ingressclass.networking.k8s.io/nginx   k8s.io/ingress-nginx   <none>       <age>

NAME                                  POD-SELECTOR   AGE
networkpolicy.networking.k8s.io/web   app=web        <age>

NAME                             MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE
poddisruptionbudget.policy/web   1               N/A               0                     <age>
`
	if got != want {
		t.Errorf("kubectl get ingress,ingressclass,netpol,pdb:\n%s\nwant:\n%s", got, want)
	}

	// kubectl's create subcommands send Kubernetes protobuf.
	for _, args := range [][]string{
		{"create", "ingress", "shop", "--class=nginx", "--rule=shop.example.com/*=shop:http,tls=shop-tls"},
		{"create", "pdb", "shop", "--selector=app=shop", "--max-unavailable=25%"},
	} {
		a.MustKubectl(t, args...)
	}
	out = a.MustKubectl(t, "get", "ingress/shop", "pdb/shop", "-o",
		"jsonpath={.items[0].spec.rules[0].http.paths[0].pathType} {.items[0].spec.rules[0].http.paths[0].backend.service.port.name} {.items[0].spec.tls[0].secretName} {.items[1].spec.maxUnavailable}")
	if out != "Prefix http shop-tls 25%" {
		t.Errorf("objects kubectl create sent as protobuf: %q", out)
	}

	// A core Event, read through events.k8s.io/v1.
	event := `apiVersion: v1
kind: Event
metadata:
  name: web.1
involvedObject:
  kind: Pod
  name: web
  namespace: default
reason: Scheduled
message: Successfully assigned default/web to node1
type: Normal
source:
  component: default-scheduler
`
	if r := a.Kubectl(t, event, "create", "-f", "-"); r.Err != nil {
		t.Fatalf("kubectl create event: %v\n%s", r.Err, r.Stderr)
	}
	out = a.MustKubectl(t, "get", "events.events.k8s.io", "-o", "jsonpath={.items[0].apiVersion} {.items[0].note} {.items[0].regarding.name}")
	if out != "events.k8s.io/v1 Successfully assigned default/web to node1 web" {
		t.Errorf("kubectl get events.events.k8s.io -o jsonpath = %q", out)
	}
	out = a.MustKubectl(t, "get", "events.events.k8s.io")
	if !strings.Contains(out, "LAST SEEN") || !strings.Contains(out, "pod/web") || !strings.Contains(out, "Successfully assigned default/web to node1") {
		t.Errorf("kubectl get events.events.k8s.io:\n%s", out)
	}

	// The OpenAPI schemas behind kubectl explain.
	for _, tt := range []struct{ args []string }{
		{[]string{"explain", "ingress.spec.rules.http.paths.pathType"}},
		{[]string{"explain", "events.note", "--api-version=events.k8s.io/v1"}},
	} {
		out := a.MustKubectl(t, tt.args...)
		if !strings.Contains(out, "FIELD: ") || !strings.Contains(out, "<string>") {
			t.Errorf("kubectl %s:\n%s", strings.Join(tt.args, " "), out)
		}
	}

	// An invalid Ingress: every error, as upstream prints them.
	bad := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad
spec:
  rules:
  - host: 10.0.0.1
    http:
      paths:
      - path: relative
        pathType: Exact
        backend:
          service:
            name: web
            port:
              name: http
              number: 80
`
	r = a.Kubectl(t, bad, "create", "-f", "-")
	wantErr := `The Ingress "bad" is invalid: 
* spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address
* spec.rules[0].http.paths[0].path: Invalid value: "relative": must be an absolute path
* spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number
`
	if r.Err == nil || !strings.Contains(r.Stderr, wantErr) {
		t.Errorf("kubectl create of an invalid Ingress: err %v\nstderr:\n%s\nwant it to contain:\n%s", r.Err, r.Stderr, wantErr)
	}
}
