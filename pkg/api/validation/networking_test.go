package validation

import (
	"testing"

	"kplane/pkg/api"
)

// ingressDoc is the Ingress `helm create`'s chart renders with
// ingress.enabled=true and TLS.
const ingressDoc = `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: web},
  spec: {ingressClassName: nginx, tls: [{hosts: [chart-example.local], secretName: chart-example-tls}],
    rules: [{host: chart-example.local, http: {paths: [
      {path: /, pathType: ImplementationSpecific, backend: {service: {name: web, port: {number: 80}}}}]}}]}}`

func TestValidateIngress(t *testing.T) {
	ing := func(o api.Object) *api.Ingress { return o.(*api.Ingress) }
	path := func(o api.Object) *api.HTTPIngressPath { return &ing(o).Spec.Rules[0].HTTP.Paths[0] }
	exact := api.PathTypeExact
	runKindCases(t, []kindCase{
		{"helm create's ingress", ingressDoc, nil, nil},
		{"wildcard host", ingressDoc, func(o api.Object) { ing(o).Spec.Rules[0].Host = "*.example.com" }, nil},
		{"wildcard in the middle", ingressDoc, func(o api.Object) { ing(o).Spec.Rules[0].Host = "a.*.example.com" },
			[]fieldErr{{invalid, "spec.rules[0].host"}}},
		{"IP host", ingressDoc, func(o api.Object) { ing(o).Spec.TLS[0].Hosts[0] = "10.0.0.1" },
			[]fieldErr{{invalid, "spec.tls[0].hosts[0]"}}},
		{"neither rules nor a default backend", ingressDoc, func(o api.Object) { ing(o).Spec.Rules = nil },
			[]fieldErr{{invalid, "spec"}}},
		{"no paths", ingressDoc, func(o api.Object) { ing(o).Spec.Rules[0].HTTP.Paths = nil },
			[]fieldErr{{required, "spec.rules[0].http.paths"}}},
		{"no path type", ingressDoc, func(o api.Object) { path(o).PathType = nil },
			[]fieldErr{{required, "spec.rules[0].http.paths[0].pathType"}}},
		{"unknown path type", ingressDoc, func(o api.Object) { t := api.PathType("Regex"); path(o).PathType = &t },
			[]fieldErr{{notSupported, "spec.rules[0].http.paths[0].pathType"}}},
		{"relative exact path with //", ingressDoc, func(o api.Object) { path(o).PathType, path(o).Path = &exact, "a//b" },
			[]fieldErr{{invalid, "spec.rules[0].http.paths[0].path"}, {invalid, "spec.rules[0].http.paths[0].path"}}},
		{"service and resource backends", ingressDoc, func(o api.Object) {
			path(o).Backend.Resource = &api.TypedLocalObjectReference{Kind: "Bucket", Name: "static"}
		}, []fieldErr{{invalid, "spec.rules[0].http.paths[0].backend"}}},
		{"no backend", ingressDoc, func(o api.Object) { path(o).Backend = api.IngressBackend{} },
			[]fieldErr{{invalid, "spec.rules[0].http.paths[0].backend"}}},
		{"service name that is no DNS-1035 label", ingressDoc, func(o api.Object) { path(o).Backend.Service.Name = "1web" },
			[]fieldErr{{invalid, "spec.rules[0].http.paths[0].backend.service.name"}}},
		{"port name and number", ingressDoc, func(o api.Object) { path(o).Backend.Service.Port.Name = "http" },
			[]fieldErr{{invalid, "spec.rules[0].http.paths[0].backend"}}},
		{"port out of range", ingressDoc, func(o api.Object) { path(o).Backend.Service.Port.Number = 70000 },
			[]fieldErr{{invalid, "spec.rules[0].http.paths[0].backend.service.port.number"}}},
		{"bad class name", ingressDoc, func(o api.Object) { name := "Nginx"; ing(o).Spec.IngressClassName = &name },
			[]fieldErr{{invalid, "spec.ingressClassName"}}},
	})
}

const ingressClassDoc = `{apiVersion: networking.k8s.io/v1, kind: IngressClass, metadata: {name: nginx},
  spec: {controller: k8s.io/ingress-nginx, parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: nginx}}}`

func TestValidateIngressClass(t *testing.T) {
	class := func(o api.Object) *api.IngressClass { return o.(*api.IngressClass) }
	namespace := "ingress"
	runKindCases(t, []kindCase{
		{"nginx with parameters (scope defaulted to Cluster)", ingressClassDoc, nil, nil},
		{"no controller", ingressClassDoc, func(o api.Object) { class(o).Spec.Controller = "" },
			[]fieldErr{{required, "spec.controller"}}},
		{"controller without a domain", ingressClassDoc, func(o api.Object) { class(o).Spec.Controller = "nginx" },
			[]fieldErr{{invalid, "spec.controller"}}},
		{"cluster-scoped parameters with a namespace", ingressClassDoc, func(o api.Object) { class(o).Spec.Parameters.Namespace = &namespace },
			[]fieldErr{{forbidden, "spec.parameters.namespace"}}},
		{"namespaced parameters without a namespace", ingressClassDoc, func(o api.Object) {
			scope := "Namespace"
			class(o).Spec.Parameters.Scope = &scope
		}, []fieldErr{{required, "spec.parameters.namespace"}}},
	})
	old := asStored(decode[*api.IngressClass](t, ingressClassDoc))
	changed := api.DeepCopy(old)
	changed.Spec.Controller = "example.com/other"
	expectFields(t, ValidateUpdate(changed, old), fieldErr{invalid, "spec.controller"})
}

const networkPolicyDoc = `{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name: web},
  spec: {podSelector: {matchLabels: {app: web}},
    ingress: [{from: [{namespaceSelector: {matchLabels: {team: a}}, podSelector: {}}, {ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}],
      ports: [{port: 8000, endPort: 8080}, {port: http}]}],
    egress: [{to: [{podSelector: {matchLabels: {app: db}}}], ports: [{port: 5432, protocol: TCP}]}]}}`

func TestValidateNetworkPolicy(t *testing.T) {
	np := func(o api.Object) *api.NetworkPolicy { return o.(*api.NetworkPolicy) }
	runKindCases(t, []kindCase{
		{"ingress and egress rules", networkPolicyDoc, nil, nil},
		{"a peer naming nothing", networkPolicyDoc, func(o api.Object) { np(o).Spec.Egress[0].To[0] = api.NetworkPolicyPeer{} },
			[]fieldErr{{required, "spec.egress[0].to[0]"}}},
		{"an IP block beside a selector", networkPolicyDoc, func(o api.Object) {
			np(o).Spec.Ingress[0].From[1].PodSelector = &api.LabelSelector{}
		}, []fieldErr{{forbidden, "spec.ingress[0].from[1]"}}},
		{"an exception outside the block", networkPolicyDoc, func(o api.Object) {
			np(o).Spec.Ingress[0].From[1].IPBlock.Except = []string{"192.168.0.0/16"}
		}, []fieldErr{{invalid, "spec.ingress[0].from[1].ipBlock.except[0]"}}},
		{"a bad CIDR", networkPolicyDoc, func(o api.Object) { np(o).Spec.Ingress[0].From[1].IPBlock.CIDR = "10.0.0.0" },
			[]fieldErr{{invalid, "spec.ingress[0].from[1].ipBlock.cidr"}}},
		{"an end port with a named port", networkPolicyDoc, func(o api.Object) {
			np(o).Spec.Ingress[0].Ports[1].EndPort = np(o).Spec.Ingress[0].Ports[0].EndPort
		}, []fieldErr{{invalid, "spec.ingress[0].ports[1].endPort"}}},
		{"an unknown protocol", networkPolicyDoc, func(o api.Object) { p := api.Protocol("ICMP"); np(o).Spec.Egress[0].Ports[0].Protocol = &p },
			[]fieldErr{{notSupported, "spec.egress[0].ports[0].protocol"}}},
		{"an unknown policy type", networkPolicyDoc, func(o api.Object) { np(o).Spec.PolicyTypes = []api.PolicyType{"Both"} },
			[]fieldErr{{notSupported, "spec.policyTypes[0]"}}},
	})
}

const pdbDoc = `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web},
  spec: {minAvailable: "50%", selector: {matchLabels: {app: web}}, unhealthyPodEvictionPolicy: AlwaysAllow}}`

func TestValidatePodDisruptionBudget(t *testing.T) {
	pdb := func(o api.Object) *api.PodDisruptionBudget { return o.(*api.PodDisruptionBudget) }
	runKindCases(t, []kindCase{
		{"half the pods must stay", pdbDoc, nil, nil},
		{"both bounds", pdbDoc, func(o api.Object) { one := api.FromInt32(1); pdb(o).Spec.MaxUnavailable = &one },
			[]fieldErr{{invalid, "spec"}}},
		{"a negative bound", pdbDoc, func(o api.Object) { n := api.FromInt32(-1); pdb(o).Spec.MinAvailable = &n },
			[]fieldErr{{invalid, "spec.minAvailable"}}},
		{"more than 100%", pdbDoc, func(o api.Object) { p := api.FromString("101%"); pdb(o).Spec.MinAvailable = &p },
			[]fieldErr{{invalid, "spec.minAvailable"}}},
		{"an unknown eviction policy", pdbDoc, func(o api.Object) {
			p := api.UnhealthyPodEvictionPolicyType("Never")
			pdb(o).Spec.UnhealthyPodEvictionPolicy = &p
		}, []fieldErr{{notSupported, "spec.unhealthyPodEvictionPolicy"}}},
		{"a negative count in status", pdbDoc, func(o api.Object) { pdb(o).Status.ExpectedPods = -1 },
			[]fieldErr{{invalid, "status.expectedPods"}}},
	})
}
