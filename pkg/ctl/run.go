package ctl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// runOptions are the flags of `ctl run`.
type runOptions struct {
	write           writeFlags
	image           string
	imagePullPolicy string
	restart         string
	port            string
	labels          string
	annotations     []string
	env             []string
	command         bool
	expose          bool
	// The attaching flags (run_attach.go).
	stdin, tty, attach, rm bool
}

// newRunCommand is `ctl run`.
func newRunCommand(f *factory) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run NAME --image=image [--env=\"key=value\"] [--port=port] [--dry-run=server|client] [--command] -- [COMMAND] [args...]",
		Short: "Run an image in a new pod",
		Long: `run creates one Pod named NAME with one container (also named NAME) running
--image, labelled run=NAME unless --labels says otherwise. Words after --
are the container's args, or with --command its command. --port declares a
container port; --expose also creates a ClusterIP Service of that name
selecting the pod. The pod is not managed by any controller: deleted, it
stays deleted (use ` + "`ctl create deployment`" + ` for pods that come back).

With -i (stdin), -t (a terminal) or --attach, ctl attaches to the
container once it runs, as kubectl does: its output comes here, and with
-i what you type goes to it until your input ends. --rm deletes the pod
afterwards. What a container does with that depends on the runtime (with
` + "`ctl up --runtime process`" + ` a shell really runs; see docs/exec.md).`,
		Example: `  ctl run web --image=nginx --port=80
  ctl run once --image=busybox --restart=Never -- echo hello
  ctl run shell --image=busybox --command -- sh -c 'sleep 3600'
  ctl run web --image=nginx --port=80 --expose --dry-run=client -o yaml
  ctl run -it --rm shell --image=busybox --restart=Never -- sh`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, f, args)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.image, "image", "", "the container image to run (required)")
	_ = cmd.MarkFlagRequired("image")
	flags.StringVar(&o.imagePullPolicy, "image-pull-policy", "", "the container's imagePullPolicy: Always, IfNotPresent or Never; empty lets the server default it")
	flags.StringVar(&o.restart, "restart", "Always", "the pod's restartPolicy: Always, OnFailure or Never")
	flags.StringVar(&o.port, "port", "", "a port the container exposes")
	flags.StringVarP(&o.labels, "labels", "l", "", "labels of the pod, key=value[,key=value…]; replaces run=NAME")
	flags.StringArrayVar(&o.annotations, "annotations", nil, "an annotation of the pod, key=value; repeat for more")
	flags.StringArrayVar(&o.env, "env", nil, "an environment variable of the container, NAME=value; repeat for more")
	flags.BoolVar(&o.command, "command", false, "the words after -- are the command (replacing the image's entrypoint), not its args")
	flags.BoolVar(&o.expose, "expose", false, "also create a ClusterIP Service named NAME for --port")
	flags.BoolVarP(&o.stdin, "stdin", "i", false, "pass stdin to the container (and attach to it)")
	flags.BoolVarP(&o.tty, "tty", "t", false, "give the container a terminal; needs -i")
	flags.BoolVar(&o.attach, "attach", false, "attach to the container once it runs (default with -i or -t)")
	flags.BoolVar(&o.rm, "rm", false, "delete the pod once the attached session ends (needs attaching)")
	o.write.add(flags, "kubectl-run")
	return cmd
}

// run is `ctl run`.
func (o *runOptions) run(cmd *cobra.Command, f *factory, args []string) error {
	path := cmd.CommandPath()
	if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
		return usageError(path, "NAME is required for run")
	}
	dryRun, _, _, err := o.write.parsed()
	if err != nil {
		return err
	}
	attaching := o.stdin || o.tty || o.attach
	if attaching && dryRun != "" {
		return usageError(path, "--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)")
	}
	if o.rm && !attaching {
		return usageError(path, "--rm should only be used for attached containers")
	}
	if o.tty && !o.stdin {
		return usageError(path, "-i/--stdin is required for containers with -t/--tty=true")
	}
	if o.expose && o.port == "" {
		return usageError(path, "--port must be set when exposing a service")
	}
	switch o.restart {
	case "Always", "OnFailure", "Never":
	default:
		return usageError(path, "invalid restart policy: %s", o.restart)
	}
	switch o.imagePullPolicy {
	case "", "Always", "IfNotPresent", "Never":
	default:
		return usageError(path, "invalid image pull policy: %s", o.imagePullPolicy)
	}
	pod, err := o.pod(args[0], args[1:])
	if err != nil {
		return err
	}
	if attaching {
		if o.expose {
			return usageError(path, "--expose can't be used with attached containers options (--attach, --stdin, or --tty)")
		}
		return o.runAttached(cmd.Context(), f, pod)
	}
	if o.expose {
		port, _ := strconv.Atoi(o.port) // checked by pod
		selector := podLabels(pod)
		svc := serviceObject(args[0], nil, selector, []servicePortSpec{{port: int64(port), targetPort: int64(port), protocol: "TCP"}}, "")
		if err := generated(cmd.Context(), f, &o.write, svc, false); err != nil {
			return err
		}
		if o.write.output == "yaml" {
			// kubectl separates the two documents with two "---" lines.
			fmt.Fprintln(f.out(), "---\n---")
		}
	}
	return generated(cmd.Context(), f, &o.write, pod, false)
}

// pod builds the Pod kubectl's run generator builds.
func (o *runOptions) pod(name string, words []string) (map[string]any, error) {
	labels := map[string]any{"run": name}
	if o.labels != "" {
		parsed, err := parseLabelSpec(o.labels)
		if err != nil {
			return nil, err
		}
		labels = parsed
	}
	container := map[string]any{"name": name, "image": o.image, "resources": map[string]any{}}
	if len(words) > 0 {
		field := "args"
		if o.command {
			field = "command"
		}
		container[field] = stringsToAny(words)
	}
	if len(o.env) > 0 {
		var env []any
		for _, e := range o.env {
			key, value, ok := strings.Cut(e, "=")
			if !ok || key == "" {
				return nil, fmt.Errorf("invalid env: %s", e)
			}
			env = append(env, map[string]any{"name": key, "value": value})
		}
		container["env"] = env
	}
	if o.imagePullPolicy != "" {
		container["imagePullPolicy"] = o.imagePullPolicy
	}
	if o.port != "" {
		port, err := strconv.Atoi(o.port)
		if err != nil {
			return nil, err
		}
		if port > 0 {
			container["ports"] = []any{map[string]any{"containerPort": int64(port)}}
		}
	}
	meta := map[string]any{"name": name, "labels": labels, "creationTimestamp": nil}
	if len(o.annotations) > 0 {
		annotations := map[string]any{}
		for _, a := range o.annotations {
			key, value, ok := strings.Cut(a, "=")
			if !ok || key == "" {
				return nil, fmt.Errorf("invalid annotation spec: %s", a)
			}
			annotations[key] = value
		}
		meta["annotations"] = annotations
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": meta,
		"spec": map[string]any{
			"containers":    []any{container},
			"dnsPolicy":     "ClusterFirst",
			"restartPolicy": o.restart,
		},
		"status": map[string]any{},
	}, nil
}

// parseLabelSpec reads key=value[,key=value…] (run's --labels, expose's
// --labels and --selector), with kubectl's message for a malformed one.
func parseLabelSpec(spec string) (map[string]any, error) {
	out := map[string]any{}
	for _, pair := range strings.Split(spec, ",") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("unexpected label spec: %s", pair)
		}
		out[key] = value
	}
	return out, nil
}

// podLabels returns a generated pod's labels.
func podLabels(pod map[string]any) map[string]any {
	meta, _ := pod["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	return labels
}

// stringsToAny converts a []string for a JSON object.
func stringsToAny(words []string) []any {
	out := make([]any, len(words))
	for i, w := range words {
		out[i] = w
	}
	return out
}
