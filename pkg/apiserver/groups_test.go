package apiserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// These tests cover the networking.k8s.io/v1 and policy/v1 kinds that real
// charts create: served in discovery, stored, defaulted, validated with
// every error at once, and printed with upstream's table columns.

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"

// helmIngress is the Ingress `helm create`'s chart renders with
// ingress.enabled=true (its default values, with a class and TLS added).
const helmIngress = `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web"},
	"spec":{"ingressClassName":"nginx",
	"tls":[{"hosts":["chart-example.local"],"secretName":"chart-example-tls"}],
	"rules":[{"host":"chart-example.local","http":{"paths":[{"path":"/","pathType":"ImplementationSpecific",
	"backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`

// TestNetworkingAndPolicyDiscovery: the groups are listed with the
// resources, short names and subresources kubectl resolves
// (`kubectl get ing,netpol,pdb`).
func TestNetworkingAndPolicyDiscovery(t *testing.T) {
	a := framework.StartAPIServer(t)
	tests := []struct {
		path string
		want []string // name:shortNames:namespaced
	}{
		{"/apis/networking.k8s.io/v1", []string{"ingressclasses::false", "ingresses:ing:true", "ingresses/status::true", "networkpolicies:netpol:true"}},
		{"/apis/policy/v1", []string{"poddisruptionbudgets:pdb:true", "poddisruptionbudgets/status::true"}},
	}
	for _, tt := range tests {
		r := a.Do(t, "GET", tt.path, nil)
		var list struct {
			APIResources []struct {
				Name       string   `json:"name"`
				ShortNames []string `json:"shortNames"`
				Namespaced bool     `json:"namespaced"`
			} `json:"resources"`
		}
		if r.Code != 200 || json.Unmarshal(r.Body, &list) != nil {
			t.Fatalf("GET %s: %d %s", tt.path, r.Code, r.Body)
		}
		var got []string
		for _, res := range list.APIResources {
			got = append(got, res.Name+":"+strings.Join(res.ShortNames, ",")+":"+boolString(res.Namespaced))
		}
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("GET %s resources = %v, want %v", tt.path, got, tt.want)
		}
	}
	r := a.Do(t, "GET", "/apis", nil)
	for _, gv := range []string{`"networking.k8s.io/v1"`, `"policy/v1"`} {
		if !strings.Contains(string(r.Body), gv) {
			t.Errorf("GET /apis does not list %s: %s", gv, r.Body)
		}
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestIngressIsStoredAndPrinted: the chart's Ingress is created and
// `kubectl get ingress` shows upstream's columns.
func TestIngressIsStoredAndPrinted(t *testing.T) {
	a := framework.StartAPIServer(t)
	const path = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
	if r := a.Do(t, "POST", path, []byte(helmIngress)); r.Code != 201 {
		t.Fatalf("create ingress: %d %s", r.Code, r.Body)
	}
	r := a.Do(t, "GET", path, nil, "Accept", tableAccept)
	var table api.Table
	if r.Code != 200 || json.Unmarshal(r.Body, &table) != nil || len(table.Rows) != 1 {
		t.Fatalf("get ingress table: %d %s", r.Code, r.Body)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if got, want := strings.Join(columns, ","), "Name,Class,Hosts,Address,Ports,Age"; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
	cells, _ := json.Marshal(table.Rows[0].Cells[:5])
	if got, want := string(cells), `["web","nginx","chart-example.local","","80, 443"]`; got != want {
		t.Errorf("cells = %s, want %s", got, want)
	}
}

// TestNetworkingDefaults: a NetworkPolicy's ports get TCP and its policy
// types are derived from its rules; an IngressClass's parameters are
// cluster-scoped unless they say otherwise — upstream's defaults.
func TestNetworkingDefaults(t *testing.T) {
	a := framework.StartAPIServer(t)
	policy := `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"p"},
		"spec":{"podSelector":{},"egress":[{"ports":[{"port":53}]}]}}`
	r := a.Do(t, "POST", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", []byte(policy))
	var np api.NetworkPolicy
	if r.Code != 201 || json.Unmarshal(r.Body, &np) != nil {
		t.Fatalf("create networkpolicy: %d %s", r.Code, r.Body)
	}
	if got := np.Spec.PolicyTypes; !slices.Equal(got, []api.PolicyType{api.PolicyTypeIngress, api.PolicyTypeEgress}) {
		t.Errorf("policyTypes = %v, want [Ingress Egress]", got)
	}
	if p := np.Spec.Egress[0].Ports[0].Protocol; p == nil || *p != api.ProtocolTCP {
		t.Errorf("egress port protocol = %v, want TCP", p)
	}

	class := `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx"},
		"spec":{"controller":"k8s.io/ingress-nginx","parameters":{"kind":"ConfigMap","name":"nginx"}}}`
	r = a.Do(t, "POST", "/apis/networking.k8s.io/v1/ingressclasses", []byte(class))
	var ic api.IngressClass
	if r.Code != 201 || json.Unmarshal(r.Body, &ic) != nil {
		t.Fatalf("create ingressclass: %d %s", r.Code, r.Body)
	}
	if s := ic.Spec.Parameters.Scope; s == nil || *s != "Cluster" {
		t.Errorf("parameters.scope = %v, want Cluster", s)
	}
	// The controller is immutable.
	changed := strings.Replace(class, "k8s.io/ingress-nginx", "example.com/other", 1)
	got := refusalOf(t, a.Do(t, "PUT", "/apis/networking.k8s.io/v1/ingressclasses/nginx", []byte(changed)))
	want := refusal{code: 422, reason: "Invalid",
		message: `IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable`,
		fields:  []string{"spec.controller"}}
	if got.String() != want.String() {
		t.Errorf("change controller:\ngot  %s\nwant %s", got, want)
	}
}

// TestInvalidNetworkingAndPolicyObjects: every field error comes back in
// one Status, as upstream's aggregated validation reports them.
func TestInvalidNetworkingAndPolicyObjects(t *testing.T) {
	a := framework.StartAPIServer(t)
	tests := []struct {
		name, path, body string
		want             refusal
	}{
		{"an Ingress with a bad host, a path without a type and a backend without a port",
			"/apis/networking.k8s.io/v1/namespaces/default/ingresses",
			`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"bad"},"spec":{"rules":[{"host":"10.0.0.1",
				"http":{"paths":[{"path":"/","backend":{"service":{"name":"web"}}}]}}]}}`,
			refusal{code: 422, reason: "Invalid",
				message: `Ingress.networking.k8s.io "bad" is invalid: [spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address, ` +
					`spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified, ` +
					`spec.rules[0].http.paths[0].backend: Required value: port name or number is required]`,
				fields: []string{"spec.rules[0].host", "spec.rules[0].http.paths[0].pathType", "spec.rules[0].http.paths[0].backend"}}},
		{"an Ingress with neither rules nor a default backend",
			"/apis/networking.k8s.io/v1/namespaces/default/ingresses",
			`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"empty"},"spec":{}}`,
			refusal{code: 422, reason: "Invalid",
				message: "Ingress.networking.k8s.io \"empty\" is invalid: spec: Invalid value: null: either `defaultBackend` or `rules` must be specified",
				fields:  []string{"spec"}}},
		{"a NetworkPolicy peer with an IP block and a selector, and an endPort below its port",
			"/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
			`{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"bad"},"spec":{"podSelector":{},
				"ingress":[{"ports":[{"port":80,"endPort":70}],"from":[{"ipBlock":{"cidr":"10.0.0.0/8"},"podSelector":{}}]}]}}`,
			refusal{code: 422, reason: "Invalid",
				message: `NetworkPolicy.networking.k8s.io "bad" is invalid: [spec.ingress[0].ports[0].endPort: Invalid value: 70: must be greater than or equal to ` + "`port`" + `, ` +
					`spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer]`,
				fields: []string{"spec.ingress[0].ports[0].endPort", "spec.ingress[0].from[0]"}}},
		{"a PodDisruptionBudget with both bounds, one above 100%",
			"/apis/policy/v1/namespaces/default/poddisruptionbudgets",
			`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"bad"},"spec":{"minAvailable":1,"maxUnavailable":"150%"}}`,
			refusal{code: 422, reason: "Invalid",
				message: `PodDisruptionBudget.policy "bad" is invalid: [spec: Invalid value: "": minAvailable and maxUnavailable cannot be both set, ` +
					`spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%]`,
				fields: []string{"spec", "spec.maxUnavailable"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, a.Do(t, "POST", tt.path, []byte(tt.body)))
			if got.String() != tt.want.String() {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPodDisruptionBudgetStatusSubresource: a PUT on the budget keeps the
// status the controller wrote, and a PUT on /status changes only status.
func TestPodDisruptionBudgetStatusSubresource(t *testing.T) {
	a := framework.StartAPIServer(t)
	const path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	pdb := `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},
		"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":5}}`
	r := a.Do(t, "POST", path, []byte(pdb))
	var created api.PodDisruptionBudget
	if r.Code != 201 || json.Unmarshal(r.Body, &created) != nil {
		t.Fatalf("create pdb: %d %s", r.Code, r.Body)
	}
	if created.Status.DisruptionsAllowed != 0 || created.Generation != 1 {
		t.Errorf("created: status.disruptionsAllowed %d, generation %d; want the status dropped and generation 1",
			created.Status.DisruptionsAllowed, created.Generation)
	}
	status := `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},
		"spec":{"minAvailable":3},"status":{"disruptionsAllowed":2,"currentHealthy":3,"desiredHealthy":1,"expectedPods":3}}`
	r = a.Do(t, "PUT", path+"/web/status", []byte(status))
	var afterStatus api.PodDisruptionBudget
	if r.Code != 200 || json.Unmarshal(r.Body, &afterStatus) != nil {
		t.Fatalf("put status: %d %s", r.Code, r.Body)
	}
	if afterStatus.Status.DisruptionsAllowed != 2 || afterStatus.Spec.MinAvailable.IntValue() != 1 {
		t.Errorf("after PUT /status: disruptionsAllowed %d, minAvailable %v; want 2 and the spec unchanged (1)",
			afterStatus.Status.DisruptionsAllowed, afterStatus.Spec.MinAvailable)
	}
	r = a.Do(t, "PUT", path+"/web", []byte(strings.Replace(status, `"disruptionsAllowed":2`, `"disruptionsAllowed":9`, 1)))
	var afterMain api.PodDisruptionBudget
	if r.Code != 200 || json.Unmarshal(r.Body, &afterMain) != nil {
		t.Fatalf("put: %d %s", r.Code, r.Body)
	}
	if afterMain.Status.DisruptionsAllowed != 2 || afterMain.Spec.MinAvailable.IntValue() != 3 || afterMain.Generation != 2 {
		t.Errorf("after PUT: disruptionsAllowed %d, minAvailable %v, generation %d; want status kept (2), spec changed (3), generation 2",
			afterMain.Status.DisruptionsAllowed, afterMain.Spec.MinAvailable, afterMain.Generation)
	}
}

// TestDefaultIngressClass: a new Ingress without a class gets the class
// annotated as the default — the newest such class, the first by name on a
// tie — and keeps the class (or the old class annotation) it names.
func TestDefaultIngressClass(t *testing.T) {
	a := framework.StartAPIServer(t)
	createClass := func(name string, isDefault bool) {
		t.Helper()
		class := `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"` + name + `"` +
			map[bool]string{true: `,"annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}`}[isDefault] +
			`},"spec":{"controller":"example.com/` + name + `"}}`
		if r := a.Do(t, "POST", "/apis/networking.k8s.io/v1/ingressclasses", []byte(class)); r.Code != 201 {
			t.Fatalf("create ingressclass %s: %d %s", name, r.Code, r.Body)
		}
	}
	classOf := func(name, extra string) string {
		t.Helper()
		ing := strings.Replace(helmIngress, `"name":"web"}`, `"name":"`+name+`"`+extra+`}`, 1)
		ing = strings.Replace(ing, `"ingressClassName":"nginx",`, "", 1)
		r := a.Do(t, "POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", []byte(ing))
		var created api.Ingress
		if r.Code != 201 || json.Unmarshal(r.Body, &created) != nil {
			t.Fatalf("create ingress %s: %d %s", name, r.Code, r.Body)
		}
		if created.Spec.IngressClassName == nil {
			return "<nil>"
		}
		return *created.Spec.IngressClassName
	}

	createClass("plain", false)
	if got := classOf("no-default", ""); got != "<nil>" {
		t.Errorf("without a default class, ingressClassName = %s, want none", got)
	}
	// b-old first: within one second a-old wins by name, and across a
	// second boundary by age, so the expectation holds either way.
	createClass("b-old", true)
	createClass("a-old", true)
	if got := classOf("tie", ""); got != "a-old" {
		t.Errorf("two defaults: ingressClassName = %s, want a-old (the first name, or the newer)", got)
	}
	time.Sleep(1100 * time.Millisecond) // creationTimestamp counts seconds
	createClass("z-new", true)
	if got := classOf("newest", ""); got != "z-new" {
		t.Errorf("ingressClassName = %s, want z-new (the newest default)", got)
	}
	if got := classOf("annotated", `,"annotations":{"kubernetes.io/ingress.class":"nginx"}`); got != "<nil>" {
		t.Errorf("an Ingress with the class annotation got ingressClassName %s, want none", got)
	}
}
