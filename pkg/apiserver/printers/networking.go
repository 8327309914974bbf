package printers

import (
	"fmt"
	"strings"
	"time"

	"kplane/pkg/api"
)

// The networking.k8s.io/v1 and policy/v1 tables, with upstream's columns.

var ingressColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Class", "The IngressClass that implements the Ingress."),
	text("Hosts", "The hosts the Ingress routes; * when a rule matches every host."),
	text("Address", "The addresses the ingress controller serves the Ingress on."),
	text("Ports", "The ports the Ingress is served on: 80, and 443 with TLS."),
	ageColumn,
}

func ingressCells(ing *api.Ingress, now time.Time) []any {
	class := none
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	var addresses []string
	for _, lb := range ing.Status.LoadBalancer.Ingress {
		switch {
		case lb.IP != "":
			addresses = append(addresses, lb.IP)
		case lb.Hostname != "":
			addresses = append(addresses, lb.Hostname)
		}
	}
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{ing.Name, class, ingressHosts(ing.Spec.Rules), strings.Join(addresses, ","), ports, age(ing.CreationTimestamp, now)}
}

// ingressHosts lists the first three rule hosts, "+ N more..." after them
// (N counts the rules past the third, as upstream's formatHosts), and "*"
// when no rule names a host.
func ingressHosts(rules []api.IngressRule) string {
	const max = 3
	var hosts []string
	for _, rule := range rules {
		if len(hosts) == max {
			return fmt.Sprintf("%s + %d more...", strings.Join(hosts, ","), len(rules)-max)
		}
		if rule.Host != "" {
			hosts = append(hosts, rule.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	return strings.Join(hosts, ",")
}

var ingressClassColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Controller", "The controller that implements the class."),
	text("Parameters", "The object holding the controller's settings: kind.group/name."),
	ageColumn,
}

func ingressClassCells(class *api.IngressClass, now time.Time) []any {
	parameters := none
	if p := class.Spec.Parameters; p != nil {
		parameters = p.Kind
		if p.APIGroup != nil {
			parameters += "." + *p.APIGroup
		}
		parameters += "/" + p.Name
	}
	return []any{class.Name, class.Spec.Controller, parameters, age(class.CreationTimestamp, now)}
}

var networkPolicyColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Pod-Selector", "The pods the policy applies to."),
	ageColumn,
}

func networkPolicyCells(p *api.NetworkPolicy, now time.Time) []any {
	return []any{p.Name, formatLabelSelector(&p.Spec.PodSelector), age(p.CreationTimestamp, now)}
}

var podDisruptionBudgetColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Min Available", "How many of the selected pods must stay available."),
	text("Max Unavailable", "How many of the selected pods may be unavailable."),
	integer("Allowed Disruptions", "How many pods may be disrupted now."),
	ageColumn,
}

func podDisruptionBudgetCells(pdb *api.PodDisruptionBudget, now time.Time) []any {
	orNotApplicable := func(v *api.IntOrString) string {
		if v == nil {
			return "N/A"
		}
		return v.String()
	}
	return []any{pdb.Name, orNotApplicable(pdb.Spec.MinAvailable), orNotApplicable(pdb.Spec.MaxUnavailable),
		int64(pdb.Status.DisruptionsAllowed), age(pdb.CreationTimestamp, now)}
}
