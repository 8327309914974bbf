package ctl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// apiErrorOptions are `ctl fault api-error`'s flags.
type apiErrorOptions struct {
	dataDir string
	rule    debug.APIErrorRule
	clear   bool
}

// newFaultAPIErrorCommand is `ctl fault api-error`: the apiserver fails,
// or holds, one resource's requests for a while.
func newFaultAPIErrorCommand(streams IOStreams, access debugAccess) *cobra.Command {
	o := apiErrorOptions{dataDir: cluster.DefaultOptions().DataDir}
	cmd := &cobra.Command{
		Use:   "api-error --resource R --verb V (--code 409|429|500 | --delay D) --for D",
		Short: "Make the apiserver fail or hold one resource's requests for a while",
		Long: `api-error installs a rule in the apiserver: until --for has passed, every
request for --resource (a plural as RBAC names it: replicasets, pods/status,
pods/binding) with --verb (get, list, watch, create, update, patch, delete,
deletecollection or *) fails with --code, its Status saying the fault is
injected:

  409  Conflict: a lost optimistic-concurrency race; controllers requeue quietly
  429  TooManyRequests, with Retry-After: 1; clients retry before giving up
  500  InternalError: a failed create is not retried by the client, so the
       controller's sync fails and its key comes back with back-off

--delay holds each matching request first, as a slow etcd would; --delay
without --code only holds them (a sync stays in PROCESSING that long).

Without a rule's flags, api-error lists the active rules; --clear removes
them all and serves the requests they hold.`,
		Example: `  ctl fault api-error --resource replicasets --verb create --code 500 --for 30s
  ctl fault api-error --resource replicasets --verb create --delay 10s --for 20s
  ctl fault api-error
  ctl fault api-error --clear`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := cmd.Flags()
			installing := flags.Changed("resource") || flags.Changed("verb") || flags.Changed("code") || flags.Changed("delay") || flags.Changed("for")
			if o.clear && installing {
				return fmt.Errorf("--clear removes every rule; it takes no --resource, --verb, --code, --delay or --for")
			}
			return runFaultAPIError(cmd.Context(), streams.Out, access, o, installing)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory")
	f.StringVar(&o.rule.Resource, "resource", "", "the resource whose requests fail, as RBAC names it: replicasets, replicasets.apps, pods/status")
	f.StringVar(&o.rule.Verb, "verb", "", "the verb that fails: get, list, watch, create, update, patch, delete, deletecollection, or * for all")
	f.IntVar(&o.rule.Code, "code", 0, "the status the requests fail with: 409, 429 or 500 (none: --delay only holds them)")
	f.DurationVar(&o.rule.Delay, "delay", 0, "hold each matching request this long first (at most 5m)")
	f.DurationVar(&o.rule.For, "for", 0, "how long the rule stays (at most 1h)")
	f.BoolVar(&o.clear, "clear", false, "remove every rule and serve the requests they hold")
	return cmd
}

func runFaultAPIError(ctx context.Context, out io.Writer, access debugAccess, o apiErrorOptions, installing bool) error {
	dc, endpoints, err := access(o.dataDir)
	if err != nil {
		return err
	}
	ep, err := endpointNamed(endpoints, cluster.APIServerComponent, o.dataDir)
	if err != nil {
		return err
	}
	switch {
	case o.clear:
		var cleared []debug.APIErrorRule
		if err := dc.Delete(ctx, ep, debug.PathFaultAPIError, &cleared); err != nil {
			return err
		}
		fmt.Fprintf(out, "cleared %s; the requests they held are served now.\n", plural(len(cleared), "api-error rule"))
		return nil
	case !installing:
		var active []debug.APIErrorRule
		if err := dc.Get(ctx, ep, debug.PathFaultAPIError, &active); err != nil {
			return err
		}
		printAPIErrorRules(out, active, time.Now())
		return nil
	}
	if o.rule.Resource == "" || o.rule.Verb == "" || o.rule.For == 0 {
		return fmt.Errorf("a rule needs --resource, --verb and --for (and --code, --delay or both); `ctl fault api-error --help` shows examples")
	}
	var installed debug.APIErrorRule
	if err := dc.Post(ctx, ep, debug.PathFaultAPIError, o.rule, &installed); err != nil {
		return err
	}
	fmt.Fprintf(out, "fault injected (rule %d): the apiserver %s, for %v.\n\n", installed.ID, describeAPIErrorRule(installed), installed.For)
	fmt.Fprint(out, apiErrorHint(installed))
	fmt.Fprintln(out, "Clear it early with `ctl fault api-error --clear`; `ctl fault api-error` lists the rules and their hits.")
	return nil
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

// writerOf names who makes r's requests in a kplane cluster and the
// component and queue that show it, for the hint; ok is false for a
// resource the hint knows nothing about.
func writerOf(r debug.APIErrorRule) (who, component, queue string, ok bool) {
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
	who, component, queue, known := writerOf(r)
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

// printAPIErrorRules writes the active rules as a table.
func printAPIErrorRules(out io.Writer, rules []debug.APIErrorRule, now time.Time) {
	if len(rules) == 0 {
		fmt.Fprintln(out, "No api-error rules are active.")
		return
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "RULE\tRESOURCE\tVERB\tCODE\tDELAY\tEXPIRES IN\tHITS")
	for _, r := range rules {
		code, delay := "-", "-"
		if r.Code != 0 {
			code = fmt.Sprint(r.Code)
		}
		if r.Delay > 0 {
			delay = r.Delay.String()
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%d\n", r.ID, r.Resource, r.Verb, code, delay, shortDuration(r.Expires.Sub(now)), r.Hits)
	}
	w.Flush()
}

// endpointNamed finds component's debug endpoint.
func endpointNamed(endpoints []debug.Endpoint, component, dataDir string) (debug.Endpoint, error) {
	var names []string
	for _, ep := range endpoints {
		if ep.Component == component {
			return ep, nil
		}
		names = append(names, ep.Component)
	}
	return debug.Endpoint{}, fmt.Errorf("no component %q announced a debug API in %s (found: %s)", component, dataDir, strings.Join(names, ", "))
}
