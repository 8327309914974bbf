package ctl

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
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
		_, text, err := fault.ClearAPIErrors(ctx, dc, ep)
		if err != nil {
			return err
		}
		fmt.Fprint(out, text)
		return nil
	case !installing:
		active, err := fault.ListAPIErrors(ctx, dc, ep)
		if err != nil {
			return err
		}
		printAPIErrorRules(out, active, time.Now())
		return nil
	}
	_, text, err := fault.InstallAPIError(ctx, dc, ep, o.rule)
	if err != nil {
		return err
	}
	fmt.Fprint(out, text)
	return nil
}

// writerOf names who makes a rule's requests (fault.WriterOf).
var writerOf = fault.WriterOf

// endpointNamed finds component's debug endpoint (fault.EndpointNamed).
var endpointNamed = fault.EndpointNamed

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
