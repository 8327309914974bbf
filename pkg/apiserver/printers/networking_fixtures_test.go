package printers

import "kplane/pkg/api"

// Fixtures of the networking.k8s.io and policy kinds: what `helm create`'s
// chart makes (an Ingress with one host and TLS), plus the corner cases of
// each column.

func ingressFixtures() []api.Object {
	prefix := api.PathTypePrefix
	backend := api.IngressBackend{Service: &api.IngressServiceBackend{Name: "web", Port: api.ServiceBackendPort{Number: 80}}}
	rule := func(host string) api.IngressRule {
		return api.IngressRule{Host: host, IngressRuleValue: api.IngressRuleValue{HTTP: &api.HTTPIngressRuleValue{
			Paths: []api.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: backend}}}}}
	}
	return []api.Object{
		&api.Ingress{ObjectMeta: meta("chart-example", 5*minute), Spec: api.IngressSpec{
			IngressClassName: ptr("nginx"),
			TLS:              []api.IngressTLS{{Hosts: []string{"chart-example.local"}, SecretName: "chart-example-tls"}},
			Rules:            []api.IngressRule{rule("chart-example.local")}},
			Status: api.IngressStatus{LoadBalancer: api.IngressLoadBalancerStatus{Ingress: []api.IngressLoadBalancerIngress{
				{IP: "172.18.0.2"}, {Hostname: "lb.example.com"}}}}},
		&api.Ingress{ObjectMeta: meta("catch-all", 2*hour), Spec: api.IngressSpec{DefaultBackend: &backend}},
		&api.Ingress{ObjectMeta: meta("many-hosts", 3*day), Spec: api.IngressSpec{Rules: []api.IngressRule{
			rule("a.example.com"), rule(""), rule("b.example.com"), rule("c.example.com"), rule("d.example.com")}}},
	}
}

func ingressClassFixtures() []api.Object {
	return []api.Object{
		&api.IngressClass{ObjectMeta: api.ObjectMeta{Name: "nginx", CreationTimestamp: api.NewTime(testNow.Add(-day))},
			Spec: api.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}},
		&api.IngressClass{ObjectMeta: api.ObjectMeta{Name: "external-lb", CreationTimestamp: api.NewTime(testNow.Add(-minute))},
			Spec: api.IngressClassSpec{Controller: "example.com/ingress-controller", Parameters: &api.IngressClassParametersReference{
				APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external-lb"}}},
	}
}

func networkPolicyFixtures() []api.Object {
	return []api.Object{
		&api.NetworkPolicy{ObjectMeta: meta("default-deny", 4*day)},
		&api.NetworkPolicy{ObjectMeta: meta("allow-web", 10*minute), Spec: api.NetworkPolicySpec{
			PodSelector: api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
	}
}

func podDisruptionBudgetFixtures() []api.Object {
	two := api.FromInt32(2)
	half := api.FromString("50%")
	return []api.Object{
		&api.PodDisruptionBudget{ObjectMeta: meta("web", 3*minute), Spec: api.PodDisruptionBudgetSpec{MinAvailable: &two},
			Status: api.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}},
		&api.PodDisruptionBudget{ObjectMeta: meta("db", 2*day), Spec: api.PodDisruptionBudgetSpec{MaxUnavailable: &half}},
	}
}
