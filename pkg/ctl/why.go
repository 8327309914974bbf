package ctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
	"kplane/pkg/humanize"
)

// whyOptions are the flags of `ctl why`.
type whyOptions struct {
	f *factory

	all     bool
	output  string
	dataDir string
	// connect returns the debug API's client and the cluster's components
	// (debugapi.go); tests replace it.
	connect func(dataDir string) (*debug.Client, []debug.Endpoint, error)
	// now is the clock ages are measured on.
	now func() time.Time
}

// newWhyCommand is `ctl why TYPE/NAME`: the latest decision every
// controller and the scheduler recorded about one object.
func newWhyCommand(f *factory) *cobra.Command {
	o := &whyOptions{f: f, dataDir: cluster.DefaultOptions().DataDir, connect: debug.Connect, now: time.Now}
	cmd := &cobra.Command{
		Use:   "why TYPE/NAME [-n NAMESPACE] [--all] [-o json]",
		Short: "Show why the control plane did what it did to an object",
		Long: `why asks every component of the cluster (through its debug API) for the
decisions it recorded about one object, and prints the latest decision of each
controller and of the scheduler, oldest first: who decided, in which component,
how long ago, the decision in words and numbers, the arithmetic behind it, and
the upstream Kubernetes file whose behaviour it mirrors.

A Deployment shows its rollout step ("replicas 10, maxSurge 25% → 3 (rounded
up) …: new ReplicaSet 3 → 5, old 8"), a ReplicaSet the pods it created or
deleted and why those, a Pod every node's filter verdict and score.

The components keep their records in rings of fixed size (--debug-ring-size),
so old decisions are eventually forgotten.`,
		Example: `  ctl why deploy/web
  ctl why rs/web-7d9c5b6f4d
  ctl why pod/web-7d9c5b6f4d-x2k4p --all
  ctl why deploy/web -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0])
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.all, "all", false, "print every decision still recorded about the object, oldest first, not only each actor's latest")
	flags.StringVarP(&o.output, "output", "o", "", "output format: json (default: text)")
	flags.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory, where its components announce their debug APIs")
	return cmd
}

// run resolves arg, gathers the decisions and prints them.
func (o *whyOptions) run(ctx context.Context, arg string) error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json", o.output)
	}
	typ, name, ok := strings.Cut(arg, "/")
	if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("why takes one TYPE/NAME argument, e.g. deploy/web, not %q", arg)
	}
	// The endpoint files first: without a cluster there, that is the
	// plainer message.
	c, endpoints, err := o.connect(o.dataDir)
	if err != nil {
		return err
	}
	if len(endpoints) == 0 {
		return fmt.Errorf("no component announces a debug API in %s: is the cluster running (ctl up)?", o.dataDir)
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	r, err := m.ResourceFor(typ)
	if err != nil {
		return err
	}
	key := name
	if r.Namespaced {
		namespace, _, err := o.f.Namespace()
		if err != nil {
			return err
		}
		key = namespace + "/" + name
	}
	object := whyObject{Resource: r.GroupResource(), Key: key, Name: r.KindName() + "/" + name}

	records, errs := trace.Decisions(ctx, c, endpoints, object.Resource, object.Key)
	if len(errs) == len(endpoints) {
		return errors.Join(errs...)
	}
	for _, err := range errs {
		fmt.Fprintf(o.f.errOut(), "warning: %v\n", err)
	}
	if !o.all {
		records = trace.LatestPerActor(records)
	}
	if o.output == "json" {
		return writeRecordsJSON(o.f.out(), records)
	}
	if len(records) == 0 {
		fmt.Fprintf(o.f.errOut(), "No decision recorded about %s yet%s.\n", object.Name, object.inNamespace())
		return nil
	}
	now := o.now()
	if c, err := o.f.Client(); err == nil {
		now = now.Add(clusterOffset(ctx, c)) // records are stamped on the cluster clock (time.go)
	}
	printDecisions(o.f.out(), records, now)
	return nil
}

// whyObject is the object `ctl why` asks about.
type whyObject struct {
	// Resource and Key are how the journals name it: "deployments.apps",
	// "default/web".
	Resource, Key string
	// Name is how ctl names it to the user: "deployment.apps/web".
	Name string
}

// inNamespace is " in namespace NS" for a namespaced object.
func (w whyObject) inNamespace() string {
	if ns, _, ok := strings.Cut(w.Key, "/"); ok {
		return " in namespace " + ns
	}
	return ""
}

// printDecisions prints each record as a block:
//
//	deployment in controller-manager, 12s ago, rv=1234:
//	  replicas 10, maxSurge 25% → 3 (rounded up), …: new ReplicaSet 3 → 5, old 8
//	    new ReplicaSet web-7d9c5b6f4d: max total = replicas 10 + maxSurge 3 = 13, …
//	  mirrors upstream pkg/controller/deployment/rolling.go
func printDecisions(out io.Writer, records []debug.Record, now time.Time) {
	for i, r := range records {
		if i > 0 {
			fmt.Fprintln(out)
		}
		header := fmt.Sprintf("%s in %s, %s ago", r.Actor, r.Component, humanize.Duration(now.Sub(r.Time)))
		if r.ResourceVersion != "" {
			header += ", rv=" + r.ResourceVersion
		}
		fmt.Fprintln(out, header+":")
		fmt.Fprintln(out, "  "+r.Message)
		for _, line := range r.Lines {
			fmt.Fprintln(out, "    "+line)
		}
		if r.Source != "" {
			fmt.Fprintln(out, "  mirrors upstream "+r.Source)
		}
	}
}

// writeRecordsJSON prints records as one indented JSON array ([] when
// there are none), for tools.
func writeRecordsJSON(out io.Writer, records []debug.Record) error {
	if records == nil {
		records = []debug.Record{}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	return enc.Encode(records)
}
