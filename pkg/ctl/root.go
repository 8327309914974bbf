// Package ctl is kplane's command-line tool: the cluster verbs (`ctl up`,
// `ctl down`, `ctl status`) and kubectl's verbs (get, apply, create,
// delete, api-resources, config).
//
// Layout, after kubectl's own (cmd/kubectl/main.go is one call into
// k8s.io/kubectl/pkg/cmd): cmd/ctl/main.go only calls Main, and each verb
// is one file here, <verb>.go, with a newXxxCommand(streams) constructor
// that NewCommand registers. Keeping the verbs in a package rather than in
// cmd/ctl lets tests run them in-process with buffers for stdin, stdout and
// stderr, and lets verbs share helpers (printers, resource lookup) as plain
// Go code. A new verb is a new file plus one line in NewCommand.
//
// What the kubectl-like verbs share lives in the cmdutil_*.go files (the
// global flags and the client: cmdutil_config.go; arguments and -f files:
// cmdutil_resources.go; -o and --dry-run: cmdutil_output.go; errors worded
// as kubectl words them: cmdutil_errors.go) and in the subpackages:
// restmapper (names to resources, from discovery), manifest (reading -f),
// printers (tables, YAML, JSON) and jsonpath. The strategic merge patch
// `apply` and `edit` compute is pkg/api/patch, beside the code that applies
// it.
package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"kplane/pkg/debug"
)

// IOStreams are where a command reads and writes, as in kubectl's
// genericiooptions.IOStreams: the terminal in main, buffers in tests.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// ExitError ends the program with Code after the command has already said
// what there was to say (`ctl status` on a stopped cluster exits 1).
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// NewCommand builds the `ctl` command tree.
func NewCommand(streams IOStreams) *cobra.Command {
	root, _ := newRootCommand(streams)
	return root
}

// newRootCommand builds the command tree and the factory its kubectl-like
// verbs share, so Main can release the factory's connections at the end.
func newRootCommand(streams IOStreams) (*cobra.Command, *factory) {
	f := newFactory(streams)
	root := &cobra.Command{
		Use:   "ctl",
		Short: "Run a local kplane cluster and drive it",
		Long: `ctl starts, stops and inspects a local kplane cluster — an apiserver on an
embedded etcd, a scheduler, a controller-manager and simulated nodes, each a
process of its own — and drives it like kubectl.

Cluster:
  ctl up              start the cluster in ./.kplane (Ctrl-C stops it; -d detaches)
  ctl status          say what runs
  ctl down            stop a detached cluster
  ctl debug endpoints where each component serves its debug API (docs/debug-api.md)
  ctl user add NAME   a client certificate and kubeconfig for a new user (--group G)

Objects (kubectl's verbs, messages and exit codes):
  ctl get             list objects or show some, as tables, YAML, JSON, names or JSONPath; -w watches
  ctl apply -f        create or update objects from files, remembering what was applied;
                      --prune -l deletes what the files no longer hold
  ctl create -f       create objects from files, or one from flags: create namespace|configmap|
                      deployment|service|secret|serviceaccount|job|cronjob|role|rolebinding|quota|
                      ingress|poddisruptionbudget
  ctl diff -f         show what apply would change (a server dry run), as a unified diff
  ctl run             start a bare pod from an image (--expose: and a Service for it)
  ctl expose          create a Service for a pod, deployment, replica set or service
  ctl delete          delete objects by name, label, file or --all, and wait until they are gone
  ctl describe        show objects in detail, with their Events
  ctl events          list Events, newest last; --for TYPE/NAME, -w
  ctl top             CPU and memory use of nodes or pods, from the metrics API (top node|pod)
  ctl scale           set the replicas of a Deployment, ReplicaSet, StatefulSet…
  ctl set             change a pod template's image, env or resources (set image|env|resources)
  ctl wait            wait for a condition, a JSONPath value, a creation or a deletion
  ctl rollout         status, history, undo, pause, resume, restart a rollout
  ctl logs            print (-f: follow) a container's logs
  ctl edit            edit an object in $KUBE_EDITOR / $EDITOR
  ctl label|annotate  add, change (--overwrite) or remove (key-) labels and annotations
  ctl patch           change an object with a strategic, merge or JSON patch
  ctl cordon|uncordon mark a node unschedulable or schedulable again
  ctl drain           cordon a node and delete its pods
  ctl api-resources   list the resource types the server serves (api-versions: their versions)
  ctl auth            can-i VERB RESOURCE (yes/no), can-i --list (your rules), whoami (who you are)
  ctl version         the client's and the server's versions
  ctl cluster-info    where the control plane listens
  ctl explain         describe a kind's fields (ctl explain deployment.spec)
  ctl config          show and change the kubeconfig's contexts
  ctl completion      shell completion for verbs, kinds and object names

Inside the cluster:
  ctl trace           follow an object through every component, step by step, with resourceVersions
  ctl queues          every controller's workqueue: depth, keys processing and waiting, retries; -w
  ctl etcd            the apiserver's etcd: ls keys, get a value, a key's history of revisions
  ctl fault           inject a fault: kill a component, api-error (fail or hold requests),
                      drop-watch, compact (etcd compacted, every watch gets 410 Gone),
                      pause-kubelet|resume-kubelet (a node's heartbeat)
  ctl why             the latest decision of every controller and the scheduler about an object
  ctl time            the cluster clock and the wall clock; time advance moves the clock of
                      a cluster started with --virtual-clock
  ctl cloud           the simulated cloud: load-balancers, instances, routes; instance
                      shutdown|start|delete <node>
  ctl ui              a live web view: nodes and pods, the ownership graph, an object's
                      Events, YAML and last change (loopback, one-time login link)
  ctl lab             guided labs, checked against the cluster: list, start NAME, check,
                      hint, reset; --lang en|zh

Which cluster: --kubeconfig, else the first existing file of $KUBECONFIG,
else ./.kplane/kubeconfig (the cluster ` + "`ctl up`" + ` started here), else
~/.kube/config. The same file works with the real kubectl:

  kubectl --kubeconfig .kplane/kubeconfig get nodes`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	f.addFlags(root.PersistentFlags())

	// The cluster verbs.
	root.AddCommand(newUpCommand(streams))
	root.AddCommand(newDownCommand(streams))
	root.AddCommand(newUserCommand(streams))
	root.AddCommand(newStatusCommand(streams))
	root.AddCommand(newJoinCommand(streams))
	root.AddCommand(newDebugCommand(streams))

	// kubectl's verbs.
	root.AddCommand(newGetCommand(f))
	root.AddCommand(newDescribeCommand(f))
	root.AddCommand(newEventsCommand(f))
	root.AddCommand(newTopCommand(f))
	root.AddCommand(newApplyCommand(f))
	root.AddCommand(newCreateCommand(f))
	root.AddCommand(newDeleteCommand(f))
	root.AddCommand(newAPIResourcesCommand(f))
	root.AddCommand(newAuthCommand(f))
	root.AddCommand(newConfigCommand(f))
	root.AddCommand(newScaleCommand(f))
	root.AddCommand(newRolloutCommand(f))
	root.AddCommand(newLabelCommand(f))
	root.AddCommand(newAnnotateCommand(f))
	root.AddCommand(newPatchCommand(f))
	root.AddCommand(newLogsCommand(f))
	root.AddCommand(newExecCommand(f))
	root.AddCommand(newCordonCommand(f))
	root.AddCommand(newUncordonCommand(f))
	root.AddCommand(newDrainCommand(f))
	root.AddCommand(newEditCommand(f))
	root.AddCommand(newExplainCommand(f))
	root.AddCommand(newWaitCommand(f))
	root.AddCommand(newSetCommand(f))
	root.AddCommand(newVersionCommand(f))
	root.AddCommand(newAPIVersionsCommand(f))
	root.AddCommand(newClusterInfoCommand(f))
	root.AddCommand(newTokenCommand(f))
	root.AddCommand(newRunCommand(f))
	root.AddCommand(newExposeCommand(f))
	root.AddCommand(newDiffCommand(f))

	// Seeing inside: an object's trace, the workqueues, etcd's keys and
	// history, faults to inject, and the decisions the controllers and the
	// scheduler recorded.
	root.AddCommand(newTraceCommand(f))
	root.AddCommand(newQueuesCommand(streams, debug.Connect))
	root.AddCommand(newProxyRulesCommand(streams, debug.Connect))
	root.AddCommand(newEtcdCommand(f))
	root.AddCommand(newFaultCommand(f, debug.Connect))
	root.AddCommand(newWhyCommand(f))
	root.AddCommand(newTimelineCommand(f))
	root.AddCommand(newTimeCommand(f))
	root.AddCommand(newLoadCommand(f))
	root.AddCommand(newCloudCommand(streams, debug.Connect))
	root.AddCommand(newUICommand(f))
	root.AddCommand(newLabCommand(f))
	return root, f
}

// Main runs ctl with args (without the program name) and returns the exit
// code. Errors are printed the way kubectl prints them: API errors as
// "Error from server (NotFound): …", others as "error: …"; both exit 1.
func Main(ctx context.Context, args []string, streams IOStreams) int {
	root, f := newRootCommand(streams)
	defer f.close()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var exit ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	default:
		printError(streams.ErrOut, err)
		return 1
	}
}

// isTerminal reports whether w is a terminal, where colour makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
