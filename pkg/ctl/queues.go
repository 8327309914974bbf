package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/humanize"
)

// debugAccess reaches the debug APIs of the cluster in a data dir: the
// client and the endpoints the components announced (debug.Connect; tests pass
// their own).
type debugAccess func(dataDir string) (*debug.Client, []debug.Endpoint, error)

// queuesOptions are `ctl queues`' flags.
type queuesOptions struct {
	dataDir   string
	component string
	output    string
	watch     bool
	interval  time.Duration
	// history prints the last keys through each queue instead of the
	// live sets; queue narrows it to the queues of that name.
	history bool
	queue   string
}

// newQueuesCommand is `ctl queues`: every component's workqueues now.
func newQueuesCommand(streams IOStreams, access debugAccess) *cobra.Command {
	o := queuesOptions{dataDir: cluster.DefaultOptions().DataDir, interval: time.Second}
	cmd := &cobra.Command{
		Use:   "queues [-w] [--component NAME] [-o wide|json]",
		Short: "Show every controller's workqueue: depth, keys in queue, dirty, processing and waiting",
		Long: `queues reads each component's workqueues from its debug API and prints one table
per component, a row per queue:

  DEPTH       keys waiting for a worker (upstream's workqueue_depth)
  DIRTY       keys added again while a worker holds them: they run once more after it
  PROCESSING  keys a worker holds now (a sync in progress)
  WAITING     keys parked until a delay passes: a rate-limited retry or an AddAfter
  OLDEST      the key that has waited longest for a worker, and for how long

--history prints instead the last keys through each queue and the way each
went, read from the components' journals: queue → processing → sync → done,
"dirty" when a key was added again while a worker held it, "waiting" when it
was parked for a delay or a retry (--queue deployment: only that queue). It
catches keys a worker handles in a millisecond, which the live sets never
show; the web view's Workqueues panel (ctl ui) shows the same.

-o wide adds a table of every key with its state, its retries (failures in a
row; a success resets them) and, for a waiting key, the delay left — the
controller's exponential back-off, 5ms doubling per retry. -o json prints the
states as the debug API answers them. -w prints them again every second
until Ctrl-C. docs/workqueue.md explains the three sets.`,
		Example: `  ctl queues
  ctl queues --component controller-manager -o wide
  ctl queues -w
  ctl queues --history --queue deployment`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runQueues(cmd.Context(), streams, access, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory")
	f.StringVar(&o.component, "component", "", "show only this component's queues (controller-manager, controller-manager-2, scheduler, kubelet-node1, …)")
	f.StringVarP(&o.output, "output", "o", "", "output format: wide (each key with its retries and delay) or json")
	f.BoolVarP(&o.watch, "watch", "w", false, "print the queues again every second until Ctrl-C")
	f.BoolVar(&o.history, "history", false, "print the last keys through each queue, with their passage queue → processing → done, from the journals")
	f.StringVar(&o.queue, "queue", "", "with --history: only the queues of this name (deployment, replicaset, …)")
	return cmd
}

func runQueues(ctx context.Context, streams IOStreams, access debugAccess, o queuesOptions) error {
	if o.output != "" && o.output != "wide" && o.output != "json" {
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json,wide", o.output)
	}
	dc, endpoints, err := access(o.dataDir)
	if err != nil {
		return err
	}
	if o.component != "" {
		endpoints = slices.DeleteFunc(endpoints, func(e debug.Endpoint) bool { return e.Component != o.component })
		if len(endpoints) == 0 {
			return fmt.Errorf("no component %q announced a debug API in %s", o.component, o.dataDir)
		}
	}
	if o.queue != "" && !o.history {
		return fmt.Errorf("--queue goes with --history")
	}
	history := debug.NewQueueHistoryReader(queueHistoryPerQueue)
	for {
		if o.watch && o.output != "json" && isTerminal(streams.Out) {
			fmt.Fprint(streams.Out, "\033[H\033[2J") // clear the screen, as watch(1) does
		}
		if o.history {
			if err := printQueueHistory(streams.Out, history.Update(ctx, dc, endpoints, o.queue), o.output == "json"); err != nil {
				return err
			}
		} else if err := printQueueStates(streams.Out, debug.ReadQueues(ctx, dc, endpoints), o); err != nil {
			return err
		}
		if !o.watch {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.interval):
		}
		if !isTerminal(streams.Out) {
			fmt.Fprintln(streams.Out)
		}
	}
}

// printQueueStates prints the live sets of every component's queues.
func printQueueStates(out io.Writer, all []debug.ComponentQueues, o queuesOptions) error {
	if o.output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	printQueues(out, all, o.output == "wide", o.component != "")
	return nil
}

// printQueues writes a table per component that has queues. Components
// without any (the apiserver, the kubelets) are named at the end, unless
// one was asked for by name.
func printQueues(out io.Writer, all []debug.ComponentQueues, wide, named bool) {
	var without []string
	first := true
	for _, cq := range all {
		if cq.Error == "" && len(cq.Queues) == 0 && !named {
			without = append(without, cq.Component)
			continue
		}
		if !first {
			fmt.Fprintln(out)
		}
		first = false
		fmt.Fprintln(out, cq.Component)
		switch {
		case cq.Error != "":
			fmt.Fprintf(out, "  did not answer: %s\n", cq.Error)
			continue
		case len(cq.Queues) == 0:
			fmt.Fprintln(out, "  no workqueues")
			continue
		}
		w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
		fmt.Fprintln(w, "QUEUE\tDEPTH\tDIRTY\tPROCESSING\tWAITING\tOLDEST")
		for _, q := range cq.Queues {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", q.Name, q.Depth, len(q.Dirty), len(q.Processing), len(q.Waiting), oldestQueued(q))
		}
		w.Flush()
		if wide {
			printQueueKeys(out, cq.Queues)
		}
	}
	if len(without) > 0 {
		if !first {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "No workqueues in: %s\n", strings.Join(without, ", "))
	}
}

// oldestQueued is the OLDEST column: the head of the queue (it is FIFO,
// so the head has waited longest) and how long it has waited.
func oldestQueued(q debug.QueueState) string {
	if len(q.Queued) == 0 {
		return "<none>"
	}
	head := q.Queued[0]
	if head.Since.IsZero() || q.Now.IsZero() {
		return head.Key
	}
	return fmt.Sprintf("%s (%s)", head.Key, shortDuration(q.Now.Sub(head.Since)))
}

// printQueueKeys writes `-o wide`'s table of every key of every queue.
func printQueueKeys(out io.Writer, queues []debug.QueueState) {
	type row struct {
		queue, key, state string
		k                 debug.QueueKey
		now               time.Time
	}
	var rows []row
	for _, q := range queues {
		for _, set := range []struct {
			state string
			keys  []debug.QueueKey
		}{{"processing", q.Processing}, {"dirty", q.Dirty}, {"queued", q.Queued}, {"waiting", q.Waiting}} {
			for _, k := range set.keys {
				rows = append(rows, row{q.Name, k.Key, set.state, k, q.Now})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "QUEUE\tKEY\tSTATE\tRETRIES\tDELAY\tFOR")
	for _, r := range rows {
		delay, since := "-", "-"
		if r.state == "waiting" {
			delay = shortDuration(r.k.Delay)
		}
		if !r.k.Since.IsZero() && !r.now.IsZero() {
			since = shortDuration(r.now.Sub(r.k.Since))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.queue, r.key, r.state, strconv.Itoa(r.k.Retries), delay, since)
	}
	w.Flush()
}

// shortDuration renders a queue duration: milliseconds below a second
// (back-off delays start at 5ms), then kubectl's AGE style.
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	if d < 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return humanize.Duration(d)
}
