package ctl

// `ctl load` drives the simulated runtime's load model (package simload,
// docs/kubelet.md §4): it sets the sim.kplane.io/cpu and memory
// annotations on a workload and on every pod it owns now (and on a
// Deployment's ReplicaSets, see owned). The workload's
// own metadata is annotated, not its pod template, so nothing rolls out;
// the pods created later get the load from the apiserver, which copies a
// workload's load annotations to each new pod created for it
// (pkg/apiserver/admission_simload.go). kubectl has no such command; the
// output reads like `kubectl annotate`'s.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet/simload"
)

// loadOptions are the flags of `ctl load`.
type loadOptions struct {
	f                 *factory
	cpu, memory       string
	noise             string
	clear             bool
	noiseFlagWasGiven bool
}

// newLoadCommand is `ctl load`.
func newLoadCommand(f *factory) *cobra.Command {
	o := &loadOptions{f: f}
	cmd := &cobra.Command{
		Use:   "load (TYPE/NAME | TYPE NAME) [--cpu=QUANTITY] [--memory=QUANTITY] [--noise=0] [--clear]",
		Short: "Set the simulated CPU and memory use of a workload's pods (kplane)",
		Long: `load sets what the pods of a workload use in kplane's simulated runtime: it
annotates the workload (sim.kplane.io/cpu, sim.kplane.io/memory,
sim.kplane.io/noise), a Deployment's ReplicaSets, and every pod it owns
now; pods created for it later inherit the annotations when the apiserver
admits them. The kubelets report
the new figures from the moment they see the change, so ` + "`kubectl top`" + ` and
the horizontal pod autoscaler follow within a scrape interval.

--cpu and --memory set the figure for every container (replacing
per-container ones); --noise 0 makes the pods report exactly their figures
(by default each sample is up to 2 % lower); --clear removes the load, and
the pods go back to idle (1m, 1Mi). TYPE is deployment, replicaset,
statefulset, daemonset, replicationcontroller, job or pod.`,
		Example: `  ctl load deploy/web --cpu 300m
  ctl load deploy/web --cpu 150m --memory 200Mi --noise 0
  ctl load statefulset db --memory 1Gi
  ctl load deploy/web --clear`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.noiseFlagWasGiven = cmd.Flags().Changed("noise")
			return o.run(cmd.Context(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.cpu, "cpu", "", "CPU each container uses, a quantity (300m, 1.5)")
	flags.StringVar(&o.memory, "memory", "", "memory (working set) each container uses, a quantity (200Mi)")
	flags.StringVar(&o.noise, "noise", "", `"0" for no noise; any other value turns the default noise (up to 2 % below the figure) back on`)
	flags.BoolVar(&o.clear, "clear", false, "remove the load annotations: the pods go back to idle")
	return cmd
}

// loadKind is a kind of object `ctl load` works on.
type loadKind struct {
	// name is how kubectl prints the kind ("deployment.apps").
	name    string
	aliases []string
	get     func(ctx context.Context, c *client.Client, namespace, name string) (*api.ObjectMeta, error)
	patch   func(ctx context.Context, c *client.Client, namespace, name string, patch []byte) error
}

// loadKindFor builds the loadKind of the typed resource res.
func loadKindFor[T api.Object](res client.Resource, aliases ...string) loadKind {
	name := strings.ToLower(res.Kind)
	if res.Group != "" {
		name += "." + res.Group
	}
	return loadKind{
		name:    name,
		aliases: append(aliases, strings.ToLower(res.Kind), res.Resource),
		get: func(ctx context.Context, c *client.Client, namespace, name string) (*api.ObjectMeta, error) {
			obj, err := client.For[T](c, res).Namespace(namespace).Get(ctx, name, client.GetOptions{})
			if err != nil {
				return nil, err
			}
			return obj.GetObjectMeta(), nil
		},
		patch: func(ctx context.Context, c *client.Client, namespace, name string, patch []byte) error {
			_, err := client.For[T](c, res).Namespace(namespace).Patch(ctx, name, client.MergePatchType, patch, client.PatchOptions{FieldManager: "ctl-load"})
			return err
		},
	}
}

// loadKinds are the kinds `ctl load` works on: the workloads whose pods
// carry a controller ownerReference to them (a Deployment's through its
// ReplicaSets), and pods.
var loadKinds = []loadKind{
	loadKindFor[*api.Deployment](client.DeploymentsResource, "deploy"),
	loadKindFor[*api.ReplicaSet](client.ReplicaSetsResource, "rs"),
	loadKindFor[*api.StatefulSet](client.StatefulSetsResource, "sts"),
	loadKindFor[*api.DaemonSet](client.DaemonSetsResource, "ds"),
	loadKindFor[*api.ReplicationController](client.ReplicationControllersResource, "rc"),
	loadKindFor[*api.Job](client.JobsResource),
	loadKindFor[*api.Pod](client.PodsResource, "po"),
}

// findLoadKind looks a TYPE argument up.
func findLoadKind(typ string) (loadKind, error) {
	typ = strings.ToLower(typ)
	for _, k := range loadKinds {
		for _, alias := range append(k.aliases, k.name) {
			if typ == alias {
				return k, nil
			}
		}
	}
	return loadKind{}, fmt.Errorf("ctl load works on deployments, replicasets, statefulsets, daemonsets, replicationcontrollers, jobs and pods, not %q", typ)
}

// run is `ctl load`.
func (o *loadOptions) run(ctx context.Context, args []string) error {
	var typ, name string
	switch {
	case len(args) == 1 && strings.Contains(args[0], "/"):
		typ, name, _ = strings.Cut(args[0], "/")
	case len(args) == 2:
		typ, name = args[0], args[1]
	default:
		return fmt.Errorf("exactly one resource must be specified as <resource> <name> or <resource>/<name>")
	}
	kind, err := findLoadKind(typ)
	if err != nil {
		return err
	}
	change, err := o.loadChange()
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}

	workload, err := kind.get(ctx, c, namespace, name)
	if err != nil {
		return err
	}
	sets, pods, err := owned(ctx, c, kind, workload)
	if err != nil {
		return err
	}
	if err := o.apply(ctx, c, kind, workload, change); err != nil {
		return err
	}
	rsKind, _ := findLoadKind("rs")
	for _, rs := range sets {
		if err := o.apply(ctx, c, rsKind, rs, change); err != nil {
			return err
		}
	}
	podKind, _ := findLoadKind("pod")
	for _, pod := range pods {
		if err := o.apply(ctx, c, podKind, pod, change); err != nil {
			return err
		}
	}
	return nil
}

// loadChange is the annotations to set (an empty map with --clear, which
// removes them all) from the flags.
func (o *loadOptions) loadChange() (map[string]string, error) {
	set := map[string]string{}
	for _, f := range []struct{ flag, value, key string }{{"cpu", o.cpu, simload.CPUAnnotation}, {"memory", o.memory, simload.MemoryAnnotation}} {
		if f.value == "" {
			continue
		}
		q, err := simload.ParseFigure(f.value)
		if err != nil {
			return nil, fmt.Errorf("invalid --%s: %w", f.flag, err)
		}
		set[f.key] = q.String()
	}
	if o.noiseFlagWasGiven {
		set[simload.NoiseAnnotation] = o.noise
	}
	switch {
	case o.clear && len(set) > 0:
		return nil, fmt.Errorf("--clear cannot be combined with --cpu, --memory or --noise")
	case !o.clear && len(set) == 0:
		return nil, fmt.Errorf("at least one of --cpu, --memory, --noise or --clear is required")
	}
	return set, nil
}

// apply patches one object's load annotations and says so, as
// `kubectl annotate` does ("deployment.apps/web load set: cpu=300m").
func (o *loadOptions) apply(ctx context.Context, c *client.Client, kind loadKind, meta *api.ObjectMeta, set map[string]string) error {
	annotations := map[string]any{}
	for key := range meta.Annotations {
		// --clear removes every load annotation; --cpu or --memory the
		// per-container figures they replace.
		if !simload.IsLoadAnnotation(key) {
			continue
		}
		for base := range set {
			if base != simload.NoiseAnnotation && strings.HasPrefix(key, base+".") {
				annotations[key] = nil
			}
		}
		if o.clear {
			annotations[key] = nil
		}
	}
	for key, value := range set {
		annotations[key] = value
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return fmt.Errorf("load patch: %w", err)
	}
	if err := kind.patch(ctx, c, meta.Namespace, meta.Name, patch); err != nil {
		return err
	}
	if o.clear {
		fmt.Fprintf(o.f.out(), "%s/%s load cleared\n", kind.name, meta.Name)
		return nil
	}
	var figures []string
	for _, f := range []struct{ label, key string }{{"cpu", simload.CPUAnnotation}, {"memory", simload.MemoryAnnotation}, {"noise", simload.NoiseAnnotation}} {
		if v, ok := set[f.key]; ok {
			figures = append(figures, f.label+"="+v)
		}
	}
	fmt.Fprintf(o.f.out(), "%s/%s load set: %s\n", kind.name, meta.Name, strings.Join(figures, ", "))
	return nil
}

// owned lists what workload controls: for a Deployment its ReplicaSets,
// and the pods whose controller ownerReference is the workload or one of
// those ReplicaSets. Ownership, not the selector, decides, as the
// controllers' adoption does.
//
// A Deployment's ReplicaSets are changed too because the deployment
// controller copies the Deployment's annotations to them (as upstream's
// does) but never removes one: without this, a ReplicaSet would keep a
// load that --clear took off its Deployment, and pass it on to new pods.
func owned(ctx context.Context, c *client.Client, kind loadKind, workload *api.ObjectMeta) (sets, pods []*api.ObjectMeta, err error) {
	if kind.name == "pod" {
		return nil, nil, nil
	}
	owners := map[string]bool{workload.UID: true}
	if kind.name == "deployment.apps" {
		list, err := c.ReplicaSets(workload.Namespace).List(ctx, client.ListOptions{})
		if err != nil {
			return nil, nil, err
		}
		for _, rs := range list.Items {
			if ref := controllerRef(&rs.ObjectMeta); ref != nil && ref.UID == workload.UID && rs.DeletionTimestamp == nil {
				owners[rs.UID] = true
				sets = append(sets, &rs.ObjectMeta)
			}
		}
	}
	list, err := c.Pods(workload.Namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, pod := range list.Items {
		if ref := controllerRef(&pod.ObjectMeta); ref != nil && owners[ref.UID] && pod.DeletionTimestamp == nil {
			pods = append(pods, &pod.ObjectMeta)
		}
	}
	return sets, pods, nil
}
