package fault

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/debug"
	"kplane/pkg/humanize"
)

// InstallAPIError installs rule in the apiserver at ep and answers what the
// apiserver now does and what to watch for.
func InstallAPIError(ctx context.Context, dc *debug.Client, ep debug.Endpoint, rule debug.APIErrorRule) (debug.APIErrorRule, string, error) {
	if rule.Resource == "" || rule.Verb == "" || rule.For == 0 {
		return rule, "", fmt.Errorf("a rule needs --resource, --verb and --for (and --code, --delay or both); `ctl fault api-error --help` shows examples")
	}
	var installed debug.APIErrorRule
	if err := dc.Post(ctx, ep, debug.PathFaultAPIError, rule, &installed); err != nil {
		return rule, "", err
	}
	text := fmt.Sprintf("fault injected (rule %d): the apiserver %s, for %v.\n\n", installed.ID, describeAPIErrorRule(installed), installed.For) +
		apiErrorHint(installed) +
		"Clear it early with `ctl fault api-error --clear`; `ctl fault api-error` lists the rules and their hits.\n"
	return installed, text, nil
}

// ClearAPIErrors removes every api-error rule of the apiserver at ep,
// serving the requests they hold, and says how many it removed.
func ClearAPIErrors(ctx context.Context, dc *debug.Client, ep debug.Endpoint) ([]debug.APIErrorRule, string, error) {
	var cleared []debug.APIErrorRule
	if err := dc.Delete(ctx, ep, debug.PathFaultAPIError, &cleared); err != nil {
		return nil, "", err
	}
	return cleared, fmt.Sprintf("cleared %s; the requests they held are served now.\n", humanize.Count(len(cleared), "api-error rule")), nil
}

// ListAPIErrors answers the active api-error rules of the apiserver at ep.
func ListAPIErrors(ctx context.Context, dc *debug.Client, ep debug.Endpoint) ([]debug.APIErrorRule, error) {
	var active []debug.APIErrorRule
	if err := dc.Get(ctx, ep, debug.PathFaultAPIError, &active); err != nil {
		return nil, err
	}
	return active, nil
}

// describeAPIErrorRule says in words what rule does to requests.
func describeAPIErrorRule(r debug.APIErrorRule) string {
	verb := r.Verb
	if verb == "*" {
		verb = "request"
	}
	var what []string
	if r.Delay > 0 {
		what = append(what, fmt.Sprintf("holds every %s of %s for %v", verb, r.Resource, r.Delay))
	}
	if r.Code != 0 {
		failure := fmt.Sprintf("fails every %s of %s with %d %s", verb, r.Resource, r.Code, statusReason(r.Code))
		if r.Delay > 0 {
			failure = fmt.Sprintf("then fails it with %d %s", r.Code, statusReason(r.Code))
		}
		what = append(what, failure)
	} else {
		what = append(what, "then serves it")
	}
	return strings.Join(what, ", ")
}

// statusReason is the Status reason of an injectable code.
func statusReason(code int) string {
	switch code {
	case debug.FaultConflict:
		return "Conflict"
	case debug.FaultTooManyRequests:
		return "TooManyRequests"
	case debug.FaultInternalError:
		return "InternalError"
	}
	return ""
}

// WriterOf names who makes r's requests in a kplane cluster and the
// component and queue that show it, for the hint; ok is false for a
// resource the hint knows nothing about.
func WriterOf(r debug.APIErrorRule) (who, component, queue string, ok bool) {
	// "replicasets.apps/status" → "replicasets/status": the group does
	// not change who writes it.
	resource, subresource, _ := strings.Cut(r.Resource, "/")
	resource, _, _ = strings.Cut(resource, ".")
	if subresource != "" {
		resource += "/" + subresource
	}
	switch resource {
	case "replicasets":
		return "the deployment controller (it creates, scales and deletes a Deployment's ReplicaSets)", "controller-manager", "deployment", true
	case "pods":
		return "the replicaset controller (it creates and deletes a ReplicaSet's pods; so do the statefulset, daemonset and job controllers)", "controller-manager", "replicaset", true
	case "deployments/status":
		return "the deployment controller (it reports each rollout's progress)", "controller-manager", "deployment", true
	case "replicasets/status":
		return "the replicaset controller (it reports each ReplicaSet's ready replicas)", "controller-manager", "replicaset", true
	case "pods/binding":
		return "the scheduler (a binding puts a pod on its node)", "scheduler", "", true
	case "pods/status":
		return "the kubelets (each reports its pods' phase and readiness)", "", "", true
	}
	return "", "", "", false
}

// apiErrorHint says what the student should watch for after rule.
func apiErrorHint(r debug.APIErrorRule) string {
	var b strings.Builder
	who, component, queue, known := WriterOf(r)
	if known {
		fmt.Fprintf(&b, "Who is hit: %s.\n", who)
	}
	b.WriteString("Watch for:\n")
	queuesCmd := "ctl queues -o wide"
	if component != "" {
		queuesCmd = "ctl queues --component " + component + " -o wide"
	}
	key := "the key"
	if queue != "" {
		key = "the " + queue + " queue's key"
	}
	switch {
	case r.Code == 0:
		fmt.Fprintf(&b, "  %s\n      %s stays in PROCESSING while its request is held (FOR counts up);\n      changes meanwhile mark it DIRTY, and it runs again once the worker is done.\n", queuesCmd, key)
	case r.Code == debug.FaultConflict:
		fmt.Fprintf(&b, "  %s\n      %s comes back with RETRIES growing: a conflict is routine under optimistic\n      concurrency, so the controller requeues it quietly, with back-off.\n", queuesCmd, key)
	case r.Code == debug.FaultTooManyRequests:
		fmt.Fprintf(&b, "  %s\n      the client retries each 429 after its Retry-After (1s), up to 5 times, so the sync stays\n      in PROCESSING for seconds; only then does it fail and %s come back with back-off.\n", queuesCmd, key)
	default:
		fmt.Fprintf(&b, "  %s\n      %s comes back WAITING, RETRIES growing and DELAY doubling (5ms, 10ms,\n      20ms, …): the controller's per-key exponential back-off. (A failed create is\n      not retried by the client: it may have happened. A get, update or delete is, 5 times.)\n", queuesCmd, key)
	}
	if r.Code == 0 {
		b.WriteString("  ctl trace <kind>/<name>\n      the sync's step appears only once its request is served, its took= as long as the hold.\n")
		b.WriteString("Once the rule expires, requests are served at once again.\n")
		return b.String()
	}
	b.WriteString("  ctl trace <kind>/<name>\n      each sync of the object ends result=error with the injected message.\n")
	b.WriteString("  ctl why <kind>/<name>\n      the controller's last decision: the step it was taking when the request failed.\n")
	b.WriteString("Once the rule expires, the next retry succeeds and the retries reset to 0.\n")
	return b.String()
}
