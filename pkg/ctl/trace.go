package ctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
	"kplane/pkg/restmapper"
)

// traceOptions are the flags of `ctl trace`.
type traceOptions struct {
	f *factory

	dataDir string
	output  string
	since   time.Duration
	timeout time.Duration
	stages  []string
}

// newTraceCommand is `ctl trace`: one object followed live through the
// whole control plane, from every component's debug journal.
func newTraceCommand(f *factory) *cobra.Command {
	o := &traceOptions{f: f, dataDir: cluster.DefaultOptions().DataDir}
	cmd := &cobra.Command{
		Use:   "trace TYPE/NAME [-n NAMESPACE] [--since DURATION] [--timeout DURATION] [-o json]",
		Short: "Follow an object through the control plane, step by step",
		Long: `trace follows one object live through every component of the cluster and
prints one line per step, in the order the steps happened: the apiserver's
write with the etcd revision it produced, the watch fan-out, each component's
reflector, DeltaFIFO, indexer, event handlers and workqueue, the sync that
ran and the decision it took, and the API writes it made — each with the
component, the stage, the actor and the resourceVersion.

The objects those writes create are followed too, down the ownership chain:
a Deployment's ReplicaSets, their Pods, each pod's binding by the scheduler
and the status its kubelet reports.

Without --since, trace shows what happens from now on (start it, then apply
the object in another terminal); with --since it first replays what the
components' journals still hold of the last DURATION. It runs until Ctrl-C,
or for --timeout. The components' debug APIs are found in the cluster's
data directory (--data-dir), which ` + "`ctl up`" + ` fills.

The stages, for --stages: fanout (the apiserver's watch cache hands a change
to its watchers); list, watch, rewatch, delta, pop, store, handler (an
informer); enqueue, queue, sync (a controller's workqueue and worker);
decision; and the writes: create, update, patch, delete, deletecollection,
bind, status, scale, evict, finalize.`,
		Example: `  ctl trace deploy/web
  ctl trace pod/web-0 --since 5m
  ctl trace deploy/web --stages create,bind,status
  ctl trace deploy/web -o json --timeout 30s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory, where the components announce their debug APIs")
	flags.StringVarP(&o.output, "output", "o", "", "output format: json (one record per line; default: a table)")
	flags.DurationVar(&o.since, "since", 0, "first replay what happened in the last DURATION (e.g. 5m), as far as the journals still hold it")
	flags.DurationVar(&o.timeout, "timeout", 0, "stop after DURATION (default: run until Ctrl-C)")
	flags.StringSliceVar(&o.stages, "stages", nil, "print only these stages (e.g. create,bind,status,sync,decision; default: all)")
	return cmd
}

// run resolves the object, opens every component's record stream and
// prints the records about the followed objects until the end.
func (o *traceOptions) run(ctx context.Context, args []string) error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json", o.output)
	}
	if len(args) == 0 {
		return errors.New("you must specify the object to trace, as TYPE/NAME (for example deploy/web)")
	}
	if o.since < 0 || o.timeout < 0 {
		return errors.New("--since and --timeout must not be negative")
	}
	for _, stage := range o.stages {
		if !slices.Contains(trace.Stages, stage) {
			return fmt.Errorf("--stages: unknown stage %q; the stages are %s", stage, strings.Join(trace.Stages, ", "))
		}
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	obj, err := resolveFollowed(ctx, o.f, m, args, "ctl trace", "trace follows one object: give exactly one TYPE/NAME")
	if err != nil {
		return err
	}
	res, namespace, name, uid := obj.resource, obj.namespace, obj.name, obj.uid
	dc, endpoints, err := debug.Connect(o.dataDir)
	if err != nil {
		return err
	}
	if uid == "" {
		fmt.Fprintf(o.f.errOut(), "%s/%s does not exist yet; following it from when it is created.\n", res.KindName(), name)
	}

	kinds := map[string]string{}
	for _, r := range m.Resources() {
		kinds[r.GroupResource()] = r.KindName()
	}
	var warnMu sync.Mutex
	t := &tracer{
		followed: trace.NewFollowedSet(res.GroupResource(), namespace, name, uid),
		printer:  &tracePrinter{out: o.f.out(), json: o.output == "json", kinds: kinds, namespace: namespace},
		stages:   o.stages,
		warn: func(msg string) {
			// Streams warn from goroutines of their own.
			warnMu.Lock()
			defer warnMu.Unlock()
			fmt.Fprintln(o.f.errOut(), "Warning: "+msg)
		},
		ready: func(components int) {
			fmt.Fprintf(o.f.errOut(), "Tracing %s/%s and what it owns, from %d components; Ctrl-C stops.\n", res.KindName(), name, components)
		},
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	var since time.Time
	if o.since > 0 {
		since = time.Now().Add(-o.since)
	}
	return t.run(ctx, dc, endpoints, since)
}

// followedObject is the one object `ctl trace` and `ctl timeline --for`
// follow: its resource, namespace ("" when cluster-scoped), name, and
// uid ("" while it does not exist).
type followedObject struct {
	resource             restmapper.APIResource
	namespace, name, uid string
}

// resolveFollowed resolves args, which must name exactly one TYPE/NAME
// (else the error says notOne), into the object to follow.
func resolveFollowed(ctx context.Context, f *factory, m *restmapper.Mapper, args []string, commandPath, notOne string) (followedObject, error) {
	targets, err := resolveArgs(m, args, commandPath)
	if err != nil {
		return followedObject{}, err
	}
	if len(targets) != 1 || len(targets[0].names) != 1 {
		return followedObject{}, errors.New(notOne)
	}
	obj := followedObject{resource: targets[0].resource, name: targets[0].names[0]}
	if obj.resource.Namespaced {
		if obj.namespace, _, err = f.Namespace(); err != nil {
			return followedObject{}, err
		}
	}
	c, err := f.Client()
	if err != nil {
		return followedObject{}, err
	}
	obj.uid, err = currentUID(ctx, c, obj.resource.Client(), obj.namespace, obj.name)
	return obj, err
}

// currentUID is the uid of the object if it exists, "" if not (yet).
func currentUID(ctx context.Context, c *client.Client, res client.Resource, namespace, name string) (string, error) {
	obj, err := c.Dynamic(res).Namespace(namespace).Get(ctx, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	meta, _ := obj["metadata"].(map[string]any)
	uid, _ := meta["uid"].(string)
	return uid, nil
}

// tracer merges the components' record streams and prints what concerns
// the followed objects.
type tracer struct {
	followed *trace.FollowedSet
	printer  *tracePrinter
	stages   []string
	warn     func(string)
	// ready, when set, is told how many components' streams are about to
	// open: from then on nothing that happens is missed.
	ready func(components int)
}

// run streams every endpoint's records (those of the last since first,
// when since is set) until ctx ends, then prints what is still held.
func (t *tracer) run(ctx context.Context, dc *debug.Client, endpoints []debug.Endpoint, since time.Time) error {
	// Where each stream starts: after the newest record now, or at the
	// start of the ring to replay the last --since. Once every start is
	// known nothing can be missed — the rings keep what happens meanwhile.
	starts := map[string]uint64{}
	for _, ep := range endpoints {
		if !since.IsZero() {
			starts[ep.Component] = 0
			continue
		}
		var info debug.Info
		if err := dc.Get(ctx, ep, debug.PathInfo, &info); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			t.warn(fmt.Sprintf("%s is left out of the trace: %v", ep.Component, err))
			continue
		}
		starts[ep.Component] = info.LastSeq
	}
	if len(starts) == 0 {
		return errors.New("no component's debug API answered")
	}
	if t.ready != nil {
		t.ready(len(starts))
	}
	records := make(chan debug.Record, 1024)
	var wg sync.WaitGroup
	for _, ep := range endpoints {
		after, ok := starts[ep.Component]
		if !ok {
			continue
		}
		wg.Go(func() { t.stream(ctx, dc, ep, after, since, records) })
	}
	go func() {
		wg.Wait()
		close(records)
	}()

	buffer := &reorderBuffer{window: reorderWindow}
	ticker := time.NewTicker(reorderWindow / 6)
	defer ticker.Stop()
	for {
		select {
		case r, ok := <-records:
			if !ok {
				// Every stream has ended (ctx is done): nothing more can
				// arrive to go before what is held.
				return t.emit(buffer.drain())
			}
			buffer.push(r, time.Now())
		case <-ticker.C:
			if err := t.emit(buffer.release(time.Now())); err != nil {
				return err
			}
		}
	}
}

// emit lets each record grow the followed set, in time order, and prints
// those about followed objects in the chosen stages.
func (t *tracer) emit(records []debug.Record) error {
	for i := range records {
		r := &records[i]
		if !t.followed.Observe(r) {
			continue
		}
		if len(t.stages) > 0 && !slices.Contains(t.stages, trace.Stage(r)) {
			continue
		}
		if err := t.printer.print(r); err != nil {
			return err
		}
	}
	return nil
}

// stream follows one component's records after the sequence number after
// and sends those that may concern the trace, until ctx ends. A broken
// stream (the component restarted) is reopened after the last record
// received, or from the start of the new process's journal.
func (t *tracer) stream(ctx context.Context, dc *debug.Client, ep debug.Endpoint, after uint64, since time.Time, out chan<- debug.Record) {
	for {
		err := dc.Records(ctx, ep, debug.RecordQuery{After: after, Follow: true, Types: trace.RecordTypes}, func(r debug.Record) error {
			after = r.Seq
			if r.Time.Before(since) || !t.followed.MayConcern(&r) {
				return nil
			}
			select {
			case out <- r:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("the stream ended")
		}
		t.warn(fmt.Sprintf("lost %s's records (%v); reconnecting", ep.Component, err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		var info debug.Info
		if dc.Get(ctx, ep, debug.PathInfo, &info) == nil && info.LastSeq < after {
			after = 0 // a new process: its journal starts again at 1
		}
	}
}
