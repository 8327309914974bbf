package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/debug/etcdhistory"
	"kplane/pkg/restmapper"
)

// `ctl etcd ls|get|history`: what the apiserver keeps in etcd, read from
// etcd itself through the apiserver's debug API (pkg/apiserver's
// debug_etcd.go), with the revisions that clients see as resourceVersions.
// The keys may be given as kinds and names (etcd_keys.go); paging and the
// history's CHANGE column are package etcdhistory, shared with the web view.

// etcdOptions are the flags the etcd verbs share.
type etcdOptions struct {
	f             *factory
	output        string
	allNamespaces bool
}

// args is how this command resolves its arguments.
func (o *etcdOptions) args() (etcdArgs, error) {
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return etcdArgs{}, err
	}
	return etcdArgs{mapper: o.f.Mapper, isCustom: o.servedByCRD, namespace: namespace, allNamespaces: o.allNamespaces}, nil
}

// crdResource is where the apiserver serves CustomResourceDefinitions.
var crdResource = client.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

// servedByCRD reports whether a CustomResourceDefinition serves r: one
// named <plural>.<group> exists. Discovery lists custom resources like
// built-in ones, but the apiserver keeps them under another etcd layout.
func (o *etcdOptions) servedByCRD(ctx context.Context, r restmapper.APIResource) (bool, error) {
	c, err := o.f.Client()
	if err != nil {
		return false, err
	}
	_, err = c.Dynamic(crdResource).Get(ctx, r.Name+"."+r.Group, client.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("is %s.%s a custom resource: %w", r.Name, r.Group, err)
}

// checkOutput accepts -o as one of formats (plus the table, "").
func (o *etcdOptions) checkOutput(formats ...string) error {
	if o.output == "" || slices.Contains(formats, o.output) {
		return nil
	}
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", o.output, strings.Join(formats, ","))
}

// newEtcdCommand is `ctl etcd`.
func newEtcdCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Browse what the apiserver keeps in etcd: keys, values, a key's history",
		Long: `etcd shows what the apiserver stores, read from etcd itself: every object
is one key, /registry/<resource>/<namespace>/<name>, whose value is the
object's JSON. etcd numbers every write with a revision; a key's last write
(MOD-REV) is the object's resourceVersion, and etcd keeps each older revision
until it is compacted (MVCC), which history shows.

A key may be given as TYPE/NAME (configmap/app, in -n's namespace) or as the
key itself (/registry/configmaps/default/app). It needs the apiserver's debug
API, which ` + "`ctl up`" + ` turns on, and a cluster administrator's kubeconfig.`,
		Example: `  # The keys of the ConfigMaps in the current namespace, with their revisions
  ctl etcd ls configmaps

  # Every key under a prefix
  ctl etcd ls /registry/deployments/

  # A ConfigMap as stored, and each revision etcd still has of it
  ctl etcd get configmap/app
  ctl etcd history configmap/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newEtcdLsCommand(f), newEtcdGetCommand(f), newEtcdHistoryCommand(f))
	return cmd
}

// newEtcdLsCommand is `ctl etcd ls`.
func newEtcdLsCommand(f *factory) *cobra.Command {
	o := &etcdOptions{f: f}
	cmd := &cobra.Command{
		Use:   "ls [PREFIX | TYPE | TYPE/NAME]",
		Short: "List etcd keys with their create and mod revisions and version",
		Long: `ls lists the keys under a prefix (default /registry/, every object), in key
order: CREATE-REV is the revision that created the key, MOD-REV the revision
of its last write (the object's resourceVersion), VERSION how many writes it
has had since it was created. TYPE lists that resource's keys in the
namespace (-A: in every namespace). -o wide adds the value's SIZE in bytes.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput("json", "wide"); err != nil {
				return err
			}
			resolve, err := o.args()
			if err != nil {
				return err
			}
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			prefix, err := resolve.prefix(cmd.Context(), arg)
			if err != nil {
				return err
			}
			list, err := listEtcdKeys(cmd.Context(), f, prefix)
			if err != nil {
				return err
			}
			return printEtcdKeys(f.out(), f.errOut(), list, o.output)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: json or wide (the table with the value's SIZE)")
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "with TYPE, list the keys of every namespace")
	return cmd
}

// newEtcdGetCommand is `ctl etcd get`.
func newEtcdGetCommand(f *factory) *cobra.Command {
	o := &etcdOptions{f: f}
	cmd := &cobra.Command{
		Use:   "get (KEY | TYPE/NAME)",
		Short: "Show one etcd key's revisions and its value, the object's JSON as stored",
		Long: `get shows one key as etcd keeps it: its revisions, then its value — the
object's JSON as the apiserver stored it, which has no resourceVersion: that
is the key's MOD-REV, added when the object is read. -o json prints both as
one JSON document.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput("json"); err != nil {
				return err
			}
			resolve, err := o.args()
			if err != nil {
				return err
			}
			key, err := resolve.key(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var value debug.EtcdValue
			if err := callAPIServerDebug(cmd.Context(), f, http.MethodGet, debug.PathEtcdGet, url.Values{"key": {key}}, &value); err != nil {
				return err
			}
			return printEtcdValue(f.out(), value, o.output)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: json")
	return cmd
}

// newEtcdHistoryCommand is `ctl etcd history`.
func newEtcdHistoryCommand(f *factory) *cobra.Command {
	o := &etcdOptions{f: f}
	limit := 0
	cmd := &cobra.Command{
		Use:   "history (KEY | TYPE/NAME)",
		Short: "Show the revisions etcd still keeps of one key, back to the compaction point",
		Long: `history lists every change of a key that etcd still keeps, oldest first:
REVISION is the revision of the write, which is the resourceVersion a client
saw for it, EVENT is create, update or delete, and CHANGE what the write
changed in the stored JSON. etcd forgets revisions older than its last
compaction (the apiserver compacts every 5 minutes, ` + "`ctl fault compact`" + `
at once); then the history starts with the value the key had at that point
(kept) and the compaction itself. -o json prints every value in full.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput("json"); err != nil {
				return err
			}
			if limit < 0 {
				return fmt.Errorf("--limit must not be negative, not %d", limit)
			}
			resolve, err := o.args()
			if err != nil {
				return err
			}
			key, err := resolve.key(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			query := url.Values{"key": {key}}
			if limit > 0 {
				query.Set("limit", strconv.Itoa(limit))
			}
			var h debug.EtcdHistory
			if err := callAPIServerDebug(cmd.Context(), f, http.MethodGet, debug.PathEtcdHistory, query, &h); err != nil {
				return err
			}
			return printEtcdHistory(f.out(), f.errOut(), h, o.output)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: json")
	cmd.Flags().IntVar(&limit, "limit", 0, "show only the newest N changes (0: the server's default, 100)")
	return cmd
}

// listEtcdKeys reads every page of keys under prefix into one list.
func listEtcdKeys(ctx context.Context, f *factory, prefix string) (debug.EtcdKeyList, error) {
	get := func(ctx context.Context, path string, query url.Values, v any) error {
		return callAPIServerDebug(ctx, f, http.MethodGet, path, query, v)
	}
	return etcdhistory.ListKeys(ctx, get, prefix)
}

// callAPIServerDebug calls one of the apiserver's debug routes with the
// kubeconfig's credentials: the apiserver serves its debug API on its own
// port, so the kubeconfig already says where and how. The answer's JSON is
// decoded into v; a failure is the server's Status, printed as kubectl
// prints any API error.
func callAPIServerDebug(ctx context.Context, f *factory, method, path string, query url.Values, v any) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	_, body, err := c.Do(ctx, method, path, nil, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode the apiserver's answer to %s: %w", path, err)
	}
	return nil
}

// printEtcdKeys prints keys as a table (wide: with SIZE) or as JSON.
func printEtcdKeys(out, errOut io.Writer, list debug.EtcdKeyList, output string) error {
	if output == "json" {
		return printJSON(out, list)
	}
	if len(list.Keys) == 0 {
		fmt.Fprintf(errOut, "No keys found under %s.\n", list.Prefix)
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	header := "KEY\tCREATE-REV\tMOD-REV\tVERSION"
	if output == "wide" {
		header += "\tSIZE"
	}
	fmt.Fprintln(w, header)
	for _, k := range list.Keys {
		row := fmt.Sprintf("%s\t%d\t%d\t%d", k.Key, k.CreateRevision, k.ModRevision, k.Version)
		if output == "wide" {
			row += fmt.Sprintf("\t%d", k.ValueSize)
		}
		fmt.Fprintln(w, row)
	}
	return w.Flush()
}

// printEtcdValue prints one key's revisions as a table, a blank line and
// the value as indented JSON; or all of it as one JSON document.
func printEtcdValue(out io.Writer, value debug.EtcdValue, output string) error {
	if output == "json" {
		return printJSON(out, value)
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "KEY\tCREATE-REV\tMOD-REV\tVERSION")
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\n", value.Key, value.CreateRevision, value.ModRevision, value.Version)
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return printJSON(out, value.Value)
}

// printEtcdHistory prints a key's history as a table (or JSON): the value
// kept at the compaction point and the compaction itself come first, in
// revision order with the changes after them.
func printEtcdHistory(out, errOut io.Writer, h debug.EtcdHistory, output string) error {
	if output == "json" {
		return printJSON(out, h)
	}
	if len(h.Revisions) == 0 && h.AtCompaction == nil {
		if h.CompactRevision > 0 {
			fmt.Fprintf(errOut, "No history of %s: etcd keeps no revision of it since its compaction at revision %d.\n", h.Key, h.CompactRevision)
		} else {
			fmt.Fprintf(errOut, "No history of %s: etcd never had it.\n", h.Key)
		}
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "REVISION\tEVENT\tCHANGE")
	if at := h.AtCompaction; at != nil {
		fmt.Fprintf(w, "%d\tkept\tthe value at the compaction point (version %d); its write was compacted away\n", at.Revision, at.Version)
	}
	if h.CompactRevision > 0 {
		fmt.Fprintf(w, "%d\tcompacted\tetcd forgot every revision before %d\n", h.CompactRevision, h.CompactRevision)
	}
	if h.Omitted > 0 {
		fmt.Fprintf(w, "…\t\t%d older changes left out (--limit)\n", h.Omitted)
	}
	changes := etcdhistory.Changes(h)
	for i, r := range h.Revisions {
		fmt.Fprintf(w, "%d\t%s\t%s\n", r.Revision, r.Event, changes[i])
	}
	return w.Flush()
}

// printJSON writes v as indented JSON.
func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "    ")
	return enc.Encode(v)
}
