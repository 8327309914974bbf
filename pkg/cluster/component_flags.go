package cluster

// This file is how `ctl up` passes options to the components it starts:
// a verbosity and the informer trace per component (--v scheduler=4,
// --trace-informers kubelet-node1) and one informer FIFO for all of them
// (--informer-fifo real). Each becomes the component's own flag of the same
// name on its command line.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// AllKubelets names every kubelet of the cluster at once in --v and
// --trace-informers; "kubelet-<node>" names one.
const AllKubelets = "kubelet"

// InformerFIFOs are the values of --informer-fifo, as package informer
// names its FIFO kinds (informer.FIFOKinds; a test keeps the two lists
// equal). pkg/cluster does not import the informers: the test framework
// that their tests use imports pkg/cluster.
var InformerFIFOs = []string{"delta", "real"}

// ParseVerbosity reads `ctl up --v` values, each "component=N", into a
// map by component name. It checks the syntax only; Options.Validate
// checks the names against the cluster's components.
func ParseVerbosity(values []string) (map[string]int, error) {
	out := map[string]int{}
	for _, v := range values {
		name, level, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want component=N, e.g. scheduler=4", v)
		}
		n, err := strconv.Atoi(level)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q: the level must be a whole number from 0 up", v)
		}
		out[name] = n
	}
	return out, nil
}

// knownComponents are the names --v and --trace-informers accept for a
// cluster with these options, in the order the help lists them.
func knownComponents(o Options) []string {
	names := []string{APIServerComponent, SchedulerComponent, ControllerManagerComponent, AllKubelets}
	for _, node := range NodeNames(o.Nodes) {
		names = append(names, KubeletComponent(node))
	}
	names = append(names, DNSComponent)           // when bin/dns was built
	names = append(names, MetricsServerComponent) // when bin/metrics-server was built
	return names
}

// validateComponentFlags checks the per-component options against the
// cluster's components.
func (o Options) validateComponentFlags() error {
	known := knownComponents(o)
	unknown := func(flag, name string) error {
		return fmt.Errorf("%s: unknown component %q; the components are %s", flag, name, strings.Join(known, ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(o.Verbosity)) {
		if !slices.Contains(known, name) {
			return unknown("--v", name)
		}
		if o.Verbosity[name] < 0 {
			return fmt.Errorf("--v %s=%d: the level must not be negative", name, o.Verbosity[name])
		}
	}
	for _, name := range o.TraceInformers {
		if name == APIServerComponent {
			return fmt.Errorf("--trace-informers %s: the apiserver runs no informers (it serves watches from its own cache); trace the scheduler, controller-manager or kubelets", name)
		}
		if !slices.Contains(known, name) {
			return unknown("--trace-informers", name)
		}
	}
	if o.InformerFIFO != "" && !slices.Contains(InformerFIFOs, o.InformerFIFO) {
		return fmt.Errorf("--informer-fifo: unknown informer FIFO %q: must be one of %s", o.InformerFIFO, strings.Join(InformerFIFOs, ", "))
	}
	return nil
}

// componentFlags are the flags o adds to the command line of component
// name (of role r): its --v, --trace-informers and --informer-fifo. A
// kubelet's own entry ("kubelet-node1") wins over the one for every
// kubelet. Nothing is added for what o leaves unset, so the components
// keep their own defaults.
func (o Options) componentFlags(name string, r role) []string {
	var args []string
	level, ok := o.Verbosity[name]
	if !ok && r == roleKubelet {
		level, ok = o.Verbosity[AllKubelets]
	}
	if ok {
		args = append(args, "--v="+strconv.Itoa(level))
	}
	if r == roleAPIServer {
		return args // no informers: neither trace nor FIFO applies
	}
	if slices.Contains(o.TraceInformers, name) || (r == roleKubelet && slices.Contains(o.TraceInformers, AllKubelets)) {
		args = append(args, "--trace-informers")
	}
	if o.InformerFIFO != "" {
		args = append(args, "--informer-fifo", o.InformerFIFO)
	}
	return args
}

// componentFlagArgs turns o's per-component options back into `ctl up`
// flags, for the command line of a detached cluster's supervisor.
func (o Options) componentFlagArgs() []string {
	var args []string
	for _, name := range slices.Sorted(maps.Keys(o.Verbosity)) {
		args = append(args, "--v", name+"="+strconv.Itoa(o.Verbosity[name]))
	}
	for _, name := range o.TraceInformers {
		args = append(args, "--trace-informers", name)
	}
	if o.InformerFIFO != "" {
		args = append(args, "--informer-fifo", o.InformerFIFO)
	}
	return args
}
