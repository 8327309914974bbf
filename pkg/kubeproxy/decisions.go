package kubeproxy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/debug"
	"kplane/pkg/proxy"
	"kplane/pkg/proxy/iptables"
)

// This file records, for `ctl why svc/NAME`, what a sync decided about each
// Service whose rules changed: which endpoints its ClusterIP chain sends
// new connections to, with what probability, and which endpoints were left
// out and why. Services whose rules did not change record nothing, so a
// periodic sync of a quiet cluster adds no records.

// serviceRules is what one sync decided about one Service: a fingerprint
// to compare with the next sync's, and the decision's lines.
type serviceRules struct {
	fingerprint string
	message     string
	lines       []string
	endpoints   int
}

// summarizeServices returns the decisions of st's Services, by
// "namespace/name".
func summarizeServices(st *proxy.State) map[string]serviceRules {
	out := map[string]serviceRules{}
	for _, p := range st.Ports {
		key := p.Name.Namespace + "/" + p.Name.Name
		s := out[key]
		msg, lines, used := summarizePort(p)
		s.fingerprint += msg + "\n" + strings.Join(lines, "\n") + "\n"
		if s.message != "" {
			s.message += "; "
		}
		s.message += msg
		s.lines = append(s.lines, lines...)
		s.endpoints += used
		out[key] = s
	}
	return out
}

// summarizePort says where the port's ClusterIP traffic goes: the chain,
// each endpoint with the probability of its rule, and each endpoint left
// out with the reason.
func summarizePort(p *proxy.ServicePort) (message string, lines []string, used int) {
	chain, endpoints := iptables.ServiceChain(p), p.ClusterEndpoints
	if p.InternalPolicyLocal {
		chain, endpoints = iptables.LocalChain(p), p.LocalEndpoints
	}
	address := p.ClusterIP + ":" + strconv.Itoa(int(p.Port)) + "/" + string(p.Protocol)
	if len(endpoints) == 0 {
		verdict := "rejected (no endpoints)"
		if p.HasEndpoints {
			verdict = "dropped (no endpoint on this node, internalTrafficPolicy Local)"
		}
		message = fmt.Sprintf("%s at %s: new connections %s", p.Name, address, verdict)
	} else {
		message = fmt.Sprintf("%s at %s → %s: %d endpoints, 1/%d each", p.Name, address, chain, len(endpoints), len(endpoints))
	}
	for i, e := range endpoints {
		chance := "the rest"
		if left := len(endpoints) - i; left > 1 {
			chance = fmt.Sprintf("probability %0.10f", 1/float64(left))
		}
		lines = append(lines, fmt.Sprintf("%s → %s  %s%s  %s", chain, iptables.EndpointChain(p, e), e, describePod(e), chance))
	}
	for _, e := range p.Endpoints {
		if slices.Contains(endpoints, e) {
			continue
		}
		lines = append(lines, fmt.Sprintf("left out: %s%s: %s", e, describePod(e), leftOutReason(p, e, endpoints)))
	}
	return message, lines, len(endpoints)
}

func describePod(e proxy.Endpoint) string {
	switch {
	case e.PodName != "" && e.NodeName != "":
		return " (pod " + e.PodName + " on " + e.NodeName + ")"
	case e.PodName != "":
		return " (pod " + e.PodName + ")"
	}
	return ""
}

// leftOutReason says why e is not among the endpoints used, by
// upstream's CategorizeEndpoints rules.
func leftOutReason(p *proxy.ServicePort, e proxy.Endpoint, used []proxy.Endpoint) string {
	switch {
	case !e.Ready && !(e.Serving && e.Terminating):
		return "not ready"
	case e.Terminating && len(used) > 0 && used[0].Ready:
		return "terminating, and ready endpoints exist"
	case p.InternalPolicyLocal:
		return "on another node, and internalTrafficPolicy is Local"
	}
	return "not used"
}

// recordServiceChanges records a decision for each Service of now whose
// rules differ from before's (all of them on the first sync).
func (p *Proxier) recordServiceChanges(before, now map[string]serviceRules) {
	if p.opts.Journal == nil {
		return
	}
	for key, s := range now {
		if old, ok := before[key]; ok && old.fingerprint == s.fingerprint {
			continue
		}
		p.opts.Journal.Decision(debug.Decision{
			Actor: "kube-proxy", Resource: "services", Key: key,
			Message: s.message,
			Values:  map[string]string{"endpoints": strconv.Itoa(s.endpoints), "node": p.opts.HostnameOverride},
			Lines:   s.lines,
			Source:  "pkg/proxy/iptables/proxier.go",
		})
	}
}
