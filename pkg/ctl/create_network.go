package ctl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api/labels"
)

// ingressRuleSyntax is how a --rule of `create ingress` must begin: an
// optional host (letters, digits, _, -, . and *), a path starting with /,
// =, a service name, :, then a port number or name. kubectl 1.32 checks
// only that beginning: what follows is not checked, and a rule with
// exactly one comma is a TLS rule whatever the words after it (",tls",
// ",tls=SECRET"; the secret is what follows the first =).
var ingressRuleSyntax = regexp.MustCompile(`^[\w*\-.]*/[^,=\n]*=[\w\-]+:[\w\-]+`)

// newCreateIngressCommand is `ctl create ingress NAME --rule=…`.
func newCreateIngressCommand(f *factory) *cobra.Command {
	var w writeFlags
	var class, defaultBackend string
	var rules, annotations []string
	cmd := &cobra.Command{
		Use:     "ingress NAME --rule=host/path=service:port[,tls[=secret]]",
		Aliases: []string{"ing"},
		Short:   "Create an ingress with the specified name",
		Long: `ingress creates an Ingress: HTTP routing rules that an ingress controller
(chosen by --class) applies at the edge of the cluster. Each --rule is
host/path=service:port: requests for that host (empty: any host) and path
go to the service's port (a number or a port name). A path ending in * is
a prefix (pathType Prefix, the * dropped), any other path must match
exactly (pathType Exact). Rules of one host share one entry of
spec.rules. ",tls" adds the host to spec.tls with the controller's default
certificate, ",tls=SECRET" with the certificate of that Secret.
--default-backend=service:port receives what no rule matches; an Ingress
needs it or at least one rule.`,
		Example: `  ctl create ingress web --class=nginx --rule="shop.example/*=web:80"
  ctl create ingress secure --rule="shop.example/cart=cart:https,tls=shop-cert"
  ctl create ingress fallback --default-backend=web:80 --annotation=team=edge --dry-run=client -o yaml`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkIngressFlags(rules, annotations, defaultBackend); err != nil {
				return err
			}
			return generatedAs(cmd.Context(), f, &w, ingressObject(args[0], class, defaultBackend, rules, annotations), "failed to create ingress", "created")
		},
	}
	cmd.Flags().StringVar(&class, "class", "", "the IngressClass whose controller serves this ingress")
	cmd.Flags().StringArrayVar(&rules, "rule", nil, "a rule host/path=service:port[,tls[=secret]]; a path ending in * is a prefix; repeat for more")
	cmd.Flags().StringVar(&defaultBackend, "default-backend", "", "service:port that receives the requests no rule matches")
	cmd.Flags().StringArrayVar(&annotations, "annotation", nil, "an annotation key=value for the ingress; repeat for more")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// checkIngressFlags rejects what kubectl rejects before building an
// Ingress, with its messages.
func checkIngressFlags(rules, annotations []string, defaultBackend string) error {
	if defaultBackend == "" && len(rules) == 0 {
		return fmt.Errorf("not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)")
	}
	for _, rule := range rules {
		if !ingressRuleSyntax.MatchString(rule) {
			return fmt.Errorf("rule %s is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]", rule)
		}
	}
	for _, a := range annotations {
		if !strings.Contains(a, "=") {
			return fmt.Errorf("annotation %s is invalid and should be in format key=[value]", a)
		}
	}
	if defaultBackend != "" && strings.Count(defaultBackend, ":") != 1 {
		return fmt.Errorf("default-backend should be in format servicename:serviceport")
	}
	return nil
}

// ingressObject builds the networking.k8s.io/v1 Ingress of checked flags.
func ingressObject(name, class, defaultBackend string, rules, annotations []string) map[string]any {
	meta := map[string]any{"name": name, "creationTimestamp": nil}
	if len(annotations) > 0 {
		values := map[string]any{}
		for _, a := range annotations {
			key, value, _ := strings.Cut(a, "=")
			values[key] = value
		}
		meta["annotations"] = values
	}
	spec := map[string]any{}
	if class != "" {
		spec["ingressClassName"] = class
	}
	if defaultBackend != "" {
		spec["defaultBackend"] = ingressBackend(defaultBackend)
	}
	if tls := ingressTLS(rules); len(tls) > 0 {
		spec["tls"] = tls
	}
	var specRules []any
	hostIndex := map[string]int{}
	for _, rule := range rules {
		routing, _, _ := strings.Cut(rule, ",")
		host, rest, _ := strings.Cut(routing, "/")
		words := strings.Split(rest, "=")
		pathPart, service := words[0], words[1]
		ingressPath, pathType := "/"+pathPart, "Exact"
		if strings.HasSuffix(ingressPath, "*") {
			ingressPath, pathType = strings.TrimSuffix(ingressPath, "*"), "Prefix"
		}
		entry := map[string]any{"pathType": pathType, "backend": ingressBackend(service)}
		if ingressPath != "" {
			entry["path"] = ingressPath
		}
		if i, seen := hostIndex[host]; seen {
			http := specRules[i].(map[string]any)["http"].(map[string]any)
			http["paths"] = append(http["paths"].([]any), entry)
			continue
		}
		r := map[string]any{"http": map[string]any{"paths": []any{entry}}}
		if host != "" {
			r["host"] = host
		}
		hostIndex[host] = len(specRules)
		specRules = append(specRules, r)
	}
	if len(specRules) > 0 {
		spec["rules"] = specRules
	}
	return map[string]any{
		"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
		"metadata": meta, "spec": spec,
		"status": map[string]any{"loadBalancer": map[string]any{}},
	}
}

// ingressTLS is spec.tls for the TLS rules (see ingressRuleSyntax): a host goes into the
// first entry of its secret (the default certificate's entry has no
// secretName), and only the first time it is named.
func ingressTLS(rules []string) []any {
	var entries []map[string]any
	secretIndex := map[string]int{}
	seenHost := map[string]bool{}
	for _, rule := range rules {
		parts := strings.Split(rule, ",")
		if len(parts) != 2 {
			continue
		}
		host, _, _ := strings.Cut(rule, "/")
		secret := ""
		if words := strings.Split(parts[1], "="); len(words) > 1 {
			secret = words[1]
		}
		if seenHost[host] {
			continue
		}
		seenHost[host] = true
		if i, ok := secretIndex[secret]; ok {
			hosts, _ := entries[i]["hosts"].([]any)
			entries[i]["hosts"] = append(hosts, host)
			continue
		}
		entry := map[string]any{}
		if host != "" {
			entry["hosts"] = []any{host}
		}
		if secret != "" {
			entry["secretName"] = secret
		}
		if len(entry) > 0 {
			secretIndex[secret] = len(entries)
			entries = append(entries, entry)
		}
	}
	out := make([]any, len(entries))
	for i, e := range entries {
		out[i] = e
	}
	return out
}

// ingressBackend is the backend of service:port[:…] (a checked rule or
// default backend has at least one colon); a port that is a number
// is a port number, anything else a port name.
func ingressBackend(service string) map[string]any {
	words := strings.Split(service, ":")
	name, port := words[0], words[1]
	backendPort := map[string]any{}
	if n, err := strconv.ParseInt(port, 10, 32); err == nil {
		if n != 0 {
			backendPort["number"] = n
		}
	} else if port != "" {
		backendPort["name"] = port
	}
	return map[string]any{"service": map[string]any{"name": name, "port": backendPort}}
}

// budgetValue is what --min-available and --max-unavailable accept: a
// count or a percentage.
var budgetValue = regexp.MustCompile(`^[0-9]+%?$`)

// newCreatePodDisruptionBudgetCommand is `ctl create poddisruptionbudget
// NAME --selector=… --min-available=N|--max-unavailable=N`.
func newCreatePodDisruptionBudgetCommand(f *factory) *cobra.Command {
	var w writeFlags
	var selector, minAvailable, maxUnavailable string
	cmd := &cobra.Command{
		Use:     "poddisruptionbudget NAME --selector=SELECTOR --min-available=N [--dry-run=server|client|none]",
		Aliases: []string{"pdb"},
		Short:   "Create a pod disruption budget with the specified name",
		Long: `poddisruptionbudget creates a PodDisruptionBudget: a limit on how many of
the pods that --selector matches voluntary disruptions (a drain's
evictions) may take down at once. Give either --min-available, the pods
that must stay available, or --max-unavailable, the pods that may be down;
each is a count (2) or a percentage of the matched pods (50%). In
Kubernetes the eviction API, which drain uses, refuses (429) an eviction
that would break the budget, and drain retries it later.`,
		Example: `  ctl create poddisruptionbudget web --selector=app=web --min-available=2
  ctl create pdb db --selector=app=db --max-unavailable=25% --dry-run=client -o yaml`,
		Args: exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case selector == "":
				return fmt.Errorf("a selector must be specified")
			case minAvailable == "" && maxUnavailable == "":
				return fmt.Errorf("one of min-available or max-unavailable must be specified")
			case minAvailable != "" && maxUnavailable != "":
				return fmt.Errorf("min-available and max-unavailable cannot be both specified")
			case minAvailable != "" && !budgetValue.MatchString(minAvailable):
				return fmt.Errorf("invalid format specified for min-available")
			case maxUnavailable != "" && !budgetValue.MatchString(maxUnavailable):
				return fmt.Errorf("invalid format specified for max-unavailable")
			}
			sel, err := labelSelectorObject(selector)
			if err != nil {
				return err
			}
			spec := map[string]any{"selector": sel}
			if minAvailable != "" {
				spec["minAvailable"] = countOrPercent(minAvailable)
			} else {
				spec["maxUnavailable"] = countOrPercent(maxUnavailable)
			}
			return generatedAs(cmd.Context(), f, &w, map[string]any{
				"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
				"metadata": map[string]any{"name": args[0], "creationTimestamp": nil},
				"spec":     spec,
				"status": map[string]any{
					"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
				},
			}, "failed to create poddisruptionbudgets", "created")
		},
	}
	cmd.Flags().StringVar(&selector, "selector", "", "the label selector of the pods the budget protects (key=value, key in (a,b), key, !key)")
	cmd.Flags().StringVar(&minAvailable, "min-available", "", "the pods (a count, or a percentage like 50%) that must stay available")
	cmd.Flags().StringVar(&maxUnavailable, "max-unavailable", "", "the pods (a count, or a percentage like 25%) that may be unavailable")
	w.add(cmd.Flags(), "kubectl-create")
	return cmd
}

// countOrPercent is an int-or-string value: a number when the text is
// one, else the text ("50%").
func countOrPercent(s string) any {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return n
	}
	return s
}

// labelSelectorObject turns a selector string into a meta/v1
// LabelSelector: equality requirements become matchLabels, set-based ones
// matchExpressions; !=, > and < have no LabelSelector form.
func labelSelectorObject(s string) (map[string]any, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("couldn't parse the selector string %q: %v", s, err)
	}
	matchLabels := map[string]any{}
	var expressions []any
	for _, r := range sel.Requirements() {
		var op string
		switch r.Operator {
		case labels.Equals, labels.DoubleEquals:
			matchLabels[r.Key] = r.Values[0]
			continue
		case labels.In:
			op = "In"
		case labels.NotIn:
			op = "NotIn"
		case labels.Exists:
			op = "Exists"
		case labels.DoesNotExist:
			op = "DoesNotExist"
		case labels.NotEquals:
			return nil, fmt.Errorf("%q is not a valid label selector operator", string(r.Operator))
		default:
			return nil, fmt.Errorf("%q isn't supported in label selectors", string(r.Operator))
		}
		e := map[string]any{"key": r.Key, "operator": op}
		if len(r.Values) > 0 {
			e["values"] = stringsToAny(r.Values)
		}
		expressions = append(expressions, e)
	}
	out := map[string]any{}
	if len(matchLabels) > 0 {
		out["matchLabels"] = matchLabels
	}
	if len(expressions) > 0 {
		out["matchExpressions"] = expressions
	}
	return out, nil
}
