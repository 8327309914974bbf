package ctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/debug/timeline"
	"kplane/pkg/debug/trace"
)

// timelineOptions are the flags of `ctl timeline`.
type timelineOptions struct {
	f *factory

	forObject string
	kinds     []string
	since     time.Duration
	watch     bool
	limit     int
	output    string
	dataDir   string
	// connect returns the debug API's client and the cluster's components;
	// tests replace it.
	connect func(dataDir string) (*debug.Client, []debug.Endpoint, error)
	// listEvents lists the cluster's Events; nil: through the kubeconfig's
	// client. Tests replace it.
	listEvents timeline.EventLister
	// now is the cluster's time now, which --since counts back from.
	now func() time.Time
	// pollInterval is how often -w reads the journals again.
	pollInterval time.Duration
}

// newTimelineCommand is `ctl timeline`: the cluster's Events and the
// components' writes, merged into one list in time order.
func newTimelineCommand(f *factory) *cobra.Command {
	o := &timelineOptions{f: f, dataDir: cluster.DefaultOptions().DataDir, connect: debug.Connect,
		limit: timeline.DefaultLimit, pollInterval: time.Second}
	cmd := &cobra.Command{
		Use:   "timeline [--for TYPE/NAME [-n NAMESPACE]] [--since DURATION] [--kinds event,write] [-w] [-o json]",
		Short: "List the cluster's Events and the components' writes, in time order",
		Long: `timeline merges two records of what happened in the cluster into one list,
oldest first: the Events the controllers, the scheduler and the kubelets
recorded (ctl events), and the API writes every component made, from each
component's debug journal — who wrote (component/actor), the verb (create,
update, patch, delete, bind, status, scale, evict), the object, and the
resourceVersion the write produced, which is etcd's revision of the object's
key: ctl etcd history shows the object as of that write.

A write the apiserver also recorded storing says "stored", with the user the
apiserver authenticated; a write only the apiserver recorded (kubectl's) shows
that user as WHO. Writes of
Events are the Events themselves, and Lease renewals are left out unless
--for names a Lease.

With --for, only the object and what it owns are listed, down the ownership
chain as ctl trace follows them (a Deployment's ReplicaSets and Pods, their
bindings and status writes), with the Events about them. The list holds what
the journals' rings still hold (--debug-ring-size), the newest --limit
entries. With -w it reads them again every second and prints what is new.`,
		Example: `  ctl timeline
  ctl timeline --for deploy/web --since 5m
  ctl timeline --kinds event -w
  ctl timeline --for pod/web-0 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context())
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.forObject, "for", "", "only this object and what it owns, as TYPE/NAME (deploy/web, pod/web-0)")
	flags.StringSliceVar(&o.kinds, "kinds", nil, "only these kinds of entry: event, write (default: both)")
	flags.DurationVar(&o.since, "since", 0, "only the entries of the last DURATION (e.g. 5m; default: all the journals hold)")
	flags.BoolVarP(&o.watch, "watch", "w", false, "after listing, read again every second and print the new entries, until Ctrl-C")
	flags.IntVar(&o.limit, "limit", o.limit, "list the newest N entries at most")
	flags.StringVarP(&o.output, "output", "o", "", "output format: json (one entry per line; default: a table)")
	flags.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory, where the components announce their debug APIs")
	return cmd
}

// run is `ctl timeline`.
func (o *timelineOptions) run(ctx context.Context) error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json", o.output)
	}
	for _, kind := range o.kinds {
		if !slices.Contains(timeline.Kinds, kind) {
			return fmt.Errorf("--kinds: unknown kind %q; the kinds are %s", kind, strings.Join(timeline.Kinds, ", "))
		}
	}
	if o.since < 0 || o.limit <= 0 {
		return errors.New("--since must not be negative and --limit must be positive")
	}
	newFollowed, err := o.followed(ctx)
	if err != nil {
		return err
	}
	if err := o.connectAPI(ctx); err != nil {
		return err
	}
	dc, endpoints, err := o.connect(o.dataDir)
	if err != nil {
		return err
	}
	read := func() timeline.Timeline {
		filter := timeline.Filter{Kinds: o.kinds, Limit: o.limit, Followed: newFollowed()}
		if o.since > 0 {
			filter.Since = o.now().Add(-o.since)
		}
		t, errs := timeline.Read(ctx, dc, endpoints, o.listEvents, filter)
		for _, err := range errs {
			fmt.Fprintln(o.f.errOut(), "Warning: "+err.Error())
		}
		return t
	}
	p := &timelinePrinter{out: o.f.out(), json: o.output == "json", printed: map[string]bool{}}
	t := read()
	if t.Omitted > 0 {
		fmt.Fprintf(o.f.errOut(), "%d older entries not shown (--limit %d).\n", t.Omitted, o.limit)
	}
	if len(t.Entries) == 0 && !o.watch {
		fmt.Fprintln(o.f.errOut(), "No entries found.")
		return nil
	}
	if err := p.print(t.Entries); err != nil || !o.watch {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	tick := time.NewTicker(o.pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := p.print(read().Entries); err != nil {
			return err
		}
	}
}

// followed resolves --for into a function returning a new FollowedSet
// for each read (a set grows as it reads); nil sets without --for.
func (o *timelineOptions) followed(ctx context.Context) (func() *trace.FollowedSet, error) {
	if o.forObject == "" {
		return func() *trace.FollowedSet { return nil }, nil
	}
	if !strings.Contains(o.forObject, "/") {
		return nil, errors.New("--for must be in resource/name form")
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return nil, err
	}
	obj, err := resolveFollowed(ctx, o.f, m, []string{o.forObject}, "ctl timeline",
		"--for names one object: give exactly one TYPE/NAME")
	if err != nil {
		return nil, err
	}
	return func() *trace.FollowedSet {
		return trace.NewFollowedSet(obj.resource.GroupResource(), obj.namespace, obj.name, obj.uid)
	}, nil
}

// connectAPI fills in what the apiserver gives, unless a test did: the
// Events lister and the cluster's clock (moved by ctl time advance).
func (o *timelineOptions) connectAPI(ctx context.Context) error {
	if o.listEvents != nil && o.now != nil {
		return nil
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	if o.listEvents == nil {
		o.listEvents = timeline.ListEvents(c)
	}
	if o.now == nil {
		offset := clusterOffset(ctx, c)
		o.now = func() time.Time { return time.Now().Add(offset) }
	}
	return nil
}

// timelinePrinter prints entries once each: -w hands it every read.
type timelinePrinter struct {
	out     io.Writer
	json    bool
	printed map[string]bool
	header  bool
}

// timelineColumns are the table's columns.
const timelineColumns = "TIME\tKIND\tWHO\tWHAT\tNAMESPACE\tOBJECT\tRV\tDETAIL"

// print prints the entries not printed yet, in order.
func (p *timelinePrinter) print(entries []timeline.Entry) error {
	w := tabwriter.NewWriter(p.out, 0, 8, 2, ' ', 0)
	for i := range entries {
		e := &entries[i]
		if p.printed[e.ID] {
			continue
		}
		p.printed[e.ID] = true
		if p.json {
			data, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("encode entry %s: %w", e.ID, err)
			}
			fmt.Fprintln(p.out, string(data))
			continue
		}
		if !p.header {
			fmt.Fprintln(w, timelineColumns)
			p.header = true
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format("15:04:05.000"), e.Kind,
			e.Who(), e.What(), orDash(e.Namespace), e.Object(), orDash(e.ResourceVersion), timelineDetail(e))
	}
	return w.Flush()
}

// timelineDetail is the DETAIL cell: an Event's message and count, a
// write's authenticated user and whether the apiserver recorded storing
// it.
func timelineDetail(e *timeline.Entry) string {
	if e.Kind == timeline.KindEvent {
		if e.Count > 1 {
			return fmt.Sprintf("%s (x%d)", e.Message, e.Count)
		}
		return e.Message
	}
	var parts []string
	if e.Stored {
		parts = append(parts, "stored")
	}
	if e.User != "" && e.Component != "apiserver" {
		parts = append(parts, "as "+e.User)
	}
	return strings.Join(parts, " ")
}
