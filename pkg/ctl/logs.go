package ctl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// logsOptions are the flags of `ctl logs`.
type logsOptions struct {
	f *factory

	container         string
	follow            bool
	previous          bool
	tail              int64
	timestamps        bool
	since             time.Duration
	sinceTime         string
	limitBytes        int64
	allContainers     bool
	prefix            bool
	selector          string
	maxLogRequests    int
	ignoreErrors      bool
	podRunningTimeout time.Duration
}

// defaultContainerAnnotation names the container `logs` (and exec) use
// when -c is not given, as kubectl reads it.
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// logsPollInterval is how often logs looks for a pod of a workload that
// has none yet, within --pod-running-timeout.
const logsPollInterval = time.Second

// newLogsCommand is `ctl logs`.
func newLogsCommand(f *factory) *cobra.Command {
	o := &logsOptions{f: f, tail: -1, maxLogRequests: 5, podRunningTimeout: 20 * time.Second}
	cmd := &cobra.Command{
		Use:   "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]",
		Short: "Print the logs for a container in a pod",
		Long: `logs prints what a container wrote. The apiserver holds no logs: it answers
GET pods/NAME/log by proxying the request to the kubelet of the pod's node,
which reads the container's output (see pkg/apiserver/podlogs.go). With -f
the answer is a stream that stays open and delivers each line as the
container writes it.

What a kplane container writes depends on the kubelet's runtime: with
` + "`ctl up --runtime process`" + ` the command's real output; with the simulated
runtime, the text of the pod's sim.kplane.io/logs annotation (see
docs/kubelet.md).

TYPE/NAME picks one pod of a workload (deploy/x, rs/x, sts/x, ds/x, job/x,
svc/x), the same one kubectl would: scheduled, running and ready first, the
longest ready, the most restarted, the oldest. -l prints the logs of every
pod matching the selector (the last 10 lines of each unless --tail says).`,
		Example: `  ctl logs web-0
  ctl logs -f deploy/ng-dep
  ctl logs web-0 -c sidecar --tail=20 --timestamps
  ctl logs -p crashy
  ctl logs -l app=nginx --prefix`,
		ValidArgsFunction: completeResourceNames(f, "pods"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args, cmd.Flags().Changed("tail"))
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.container, "container", "c", "", "print the logs of this container (default: the pod's only one, or its default-container annotation, or its first)")
	flags.BoolVarP(&o.follow, "follow", "f", false, "keep printing new lines as the container writes them")
	flags.BoolVarP(&o.previous, "previous", "p", false, "print the logs of the container's previous run (after a restart)")
	flags.Int64Var(&o.tail, "tail", -1, "print only the last N lines; -1 (default) all, or 10 with a selector")
	flags.BoolVar(&o.timestamps, "timestamps", false, "start each line with the time it was written (RFC 3339)")
	flags.DurationVar(&o.since, "since", 0, "print only lines newer than this duration, e.g. 5s, 2m, 3h")
	flags.StringVar(&o.sinceTime, "since-time", "", "print only lines written after this time (RFC 3339)")
	flags.Int64Var(&o.limitBytes, "limit-bytes", 0, "print at most this many bytes")
	flags.BoolVar(&o.allContainers, "all-containers", false, "print the logs of every container of the pod(s)")
	flags.BoolVar(&o.prefix, "prefix", false, "start each line with its source, [pod/NAME/CONTAINER]")
	flags.StringVarP(&o.selector, "selector", "l", "", "print the logs of every pod matching this label selector")
	flags.IntVar(&o.maxLogRequests, "max-log-requests", 5, "with -l and -f, how many streams may be followed at once")
	flags.BoolVar(&o.ignoreErrors, "ignore-errors", false, "with several streams, carry on when one fails")
	flags.DurationVar(&o.podRunningTimeout, "pod-running-timeout", o.podRunningTimeout, "how long to wait for a pod of TYPE/NAME to exist")
	return cmd
}

// logRequest is one container whose logs are to be printed.
type logRequest struct {
	pod       *api.Pod
	container string
}

// run is `ctl logs`.
func (o *logsOptions) run(ctx context.Context, commandPath string, args []string, tailSet bool) error {
	usage := func() error {
		return usageError(commandPath, "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command")
	}
	switch {
	case o.selector != "" && len(args) > 0:
		return fmt.Errorf("only a selector (-l) or a POD name is allowed")
	case o.selector == "" && (len(args) == 0 || len(args) > 2):
		return usage()
	case len(args) == 2:
		// The old form `logs POD CONTAINER`.
		if o.container != "" {
			return fmt.Errorf("only one of -c or an inline [CONTAINER] arg is allowed")
		}
		o.container = args[1]
		args = args[:1]
	}
	if o.since != 0 && o.sinceTime != "" {
		return fmt.Errorf("at most one of `sinceTime` or `sinceSeconds` may be specified")
	}
	if o.sinceTime != "" {
		if _, err := time.Parse(time.RFC3339, o.sinceTime); err != nil {
			return fmt.Errorf("--since-time must be in RFC3339 format: %w", err)
		}
	}
	if o.limitBytes < 0 {
		return fmt.Errorf("--limit-bytes must be greater than 0")
	}
	if o.since < 0 {
		return fmt.Errorf("--since must be greater than 0")
	}
	if o.tail < -1 {
		return fmt.Errorf("--tail must be greater than or equal to -1")
	}
	if o.selector != "" && !tailSet {
		o.tail = 10
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}
	var pods []*api.Pod
	if o.selector != "" {
		list, err := c.Pods(namespace).List(ctx, client.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return err
		}
		pods = list.Items
	} else {
		pod, err := o.podFor(ctx, c, namespace, args[0])
		if err != nil {
			return err
		}
		pods = []*api.Pod{pod}
	}
	var requests []logRequest
	for _, pod := range pods {
		containers, err := o.containersOf(pod)
		if err != nil {
			return err
		}
		for _, name := range containers {
			requests = append(requests, logRequest{pod: pod, container: name})
		}
	}
	if o.follow && len(requests) > o.maxLogRequests {
		return fmt.Errorf("you are attempting to follow %d log streams, but maximum allowed concurrency is %d, use --max-log-requests to increase the limit", len(requests), o.maxLogRequests)
	}
	if o.follow && len(requests) > 1 {
		return o.followAll(ctx, c, requests)
	}
	for _, r := range requests {
		if err := o.stream(ctx, c, r, o.f.out()); err != nil {
			if o.ignoreErrors {
				fmt.Fprintf(o.f.errOut(), "error: %v\n", err)
				continue
			}
			return err
		}
	}
	return nil
}

// podFor finds the pod whose logs to print: the pod named, or one pod of
// the object TYPE/NAME names.
func (o *logsOptions) podFor(ctx context.Context, c *client.Client, namespace, arg string) (*api.Pod, error) {
	typ, name, hasType := strings.Cut(arg, "/")
	if !hasType {
		typ, name = "pods", arg
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return nil, err
	}
	r, err := m.ResourceFor(typ)
	if err != nil {
		return nil, err
	}
	obj, err := c.Dynamic(r.Client()).Namespace(namespace).Get(ctx, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		// kubectl's builder words a missing object this way here.
		return nil, fmt.Errorf("error from server (NotFound): %s %q not found in namespace %q", r.GroupResource(), name, namespace)
	}
	if err != nil {
		return nil, err
	}
	if r.Group == "" && r.Kind == "Pod" {
		return decodeInto[api.Pod](obj)
	}
	selector, err := podSelectorOf(r.Group, r.Kind, obj)
	if err != nil {
		return nil, err
	}
	pod, total, err := o.firstPod(ctx, c, namespace, selector)
	if err != nil {
		return nil, err
	}
	if total > 1 {
		fmt.Fprintf(o.f.errOut(), "Found %d pods, using pod/%s\n", total, pod.Name)
	}
	return pod, nil
}

// podSelectorOf is the label selector of the pods a workload or Service
// selects, as kubectl's SelectorsForObject finds it.
func podSelectorOf(group, kind string, obj map[string]any) (string, error) {
	spec, _ := obj["spec"].(map[string]any)
	switch group + "/" + kind {
	case "/ReplicationController", "/Service":
		raw, _ := spec["selector"].(map[string]any)
		if len(raw) == 0 {
			return "", fmt.Errorf("invalid %s: no selector", strings.ToLower(kind))
		}
		set := map[string]string{}
		for k, v := range raw {
			set[k], _ = v.(string)
		}
		return labels.SelectorFromSet(set).String(), nil
	case "apps/Deployment", "apps/ReplicaSet", "apps/StatefulSet", "apps/DaemonSet", "batch/Job":
		// All five keep a metav1.LabelSelector in spec.selector.
		workload, err := decodeInto[struct {
			Spec struct {
				Selector *api.LabelSelector `json:"selector"`
			} `json:"spec"`
		}](obj)
		if err != nil {
			return "", err
		}
		selector, err := labels.FromLabelSelector(workload.Spec.Selector)
		if err != nil {
			return "", fmt.Errorf("invalid label selector: %w", err)
		}
		return selector.String(), nil
	}
	// kubectl names the Go type it has no selector for: *v1.Node.
	apiVersion, _ := obj["apiVersion"].(string)
	version := apiVersion[strings.LastIndex(apiVersion, "/")+1:]
	return "", fmt.Errorf("cannot get the logs from *%s.%s: selector for *%s.%s not implemented", version, kind, version, kind)
}

// firstPod waits up to --pod-running-timeout for pods matching selector
// and returns the one kubectl would pick (see sortPodsForLogging) and how
// many there were.
func (o *logsOptions) firstPod(ctx context.Context, c *client.Client, namespace, selector string) (*api.Pod, int, error) {
	ctx, cancel := context.WithTimeout(ctx, o.podRunningTimeout)
	defer cancel()
	for {
		list, err := c.Pods(namespace).List(ctx, client.ListOptions{LabelSelector: selector})
		if err == nil && len(list.Items) > 0 {
			pods := list.Items
			sortPodsForLogging(pods)
			return pods[0], len(pods), nil
		}
		if err != nil && ctx.Err() == nil {
			return nil, 0, err
		}
		if sleepContext(ctx, logsPollInterval) != nil {
			return nil, 0, errWaitTimeout
		}
	}
}

// containersOf returns the containers of pod to print: -c, all of them
// with --all-containers, else the default one (announcing the choice on
// stderr when the pod has several, as kubectl does).
func (o *logsOptions) containersOf(pod *api.Pod) ([]string, error) {
	var all []string
	for _, c := range pod.Spec.InitContainers {
		all = append(all, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		all = append(all, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		all = append(all, c.Name)
	}
	if o.allContainers {
		if o.container != "" {
			return nil, fmt.Errorf("--all-containers=true should not be specified with container name %s", o.container)
		}
		return all, nil
	}
	if o.container != "" {
		for _, name := range all {
			if name == o.container {
				return []string{name}, nil
			}
		}
		return nil, fmt.Errorf("container %s is not valid for pod %s", o.container, pod.Name)
	}
	if len(pod.Spec.Containers) == 0 {
		return nil, fmt.Errorf("pod %s has no containers", pod.Name)
	}
	if name := pod.Annotations[defaultContainerAnnotation]; name != "" {
		for _, c := range pod.Spec.Containers {
			if c.Name == name {
				return []string{name}, nil
			}
		}
		fmt.Fprintf(o.f.errOut(), "Default container name %q not found in pod %s\n", name, pod.Name)
	}
	chosen := pod.Spec.Containers[0].Name
	if len(pod.Spec.Containers) > 1 || len(pod.Spec.InitContainers) > 0 || len(pod.Spec.EphemeralContainers) > 0 {
		fmt.Fprintf(o.f.errOut(), "Defaulted container %q out of: %s\n", chosen, containerList(pod))
	}
	return []string{chosen}, nil
}

// containerList is kubectl's "a, b, init (init), debug (ephem)".
func containerList(pod *api.Pod) string {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name+" (init)")
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name+" (ephem)")
	}
	return strings.Join(names, ", ")
}

// logPath is the pods/log request of r, with the flags as its query.
func (o *logsOptions) logPath(r logRequest) string {
	q := url.Values{}
	q.Set("container", r.container)
	if o.follow {
		q.Set("follow", "true")
	}
	if o.previous {
		q.Set("previous", "true")
	}
	if o.timestamps {
		q.Set("timestamps", "true")
	}
	if o.tail >= 0 {
		q.Set("tailLines", strconv.FormatInt(o.tail, 10))
	}
	if o.since > 0 {
		q.Set("sinceSeconds", strconv.FormatInt(int64(math.Ceil(o.since.Seconds())), 10))
	}
	if o.sinceTime != "" {
		q.Set("sinceTime", o.sinceTime)
	}
	if o.limitBytes > 0 {
		q.Set("limitBytes", strconv.FormatInt(o.limitBytes, 10))
	}
	return fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/log?%s", url.PathEscape(r.pod.Namespace), url.PathEscape(r.pod.Name), q.Encode())
}

// stream copies one container's log to w, line by line with --prefix.
func (o *logsOptions) stream(ctx context.Context, c *client.Client, r logRequest, w io.Writer) error {
	body, err := c.Stream(ctx, o.logPath(r), map[string]string{"Accept": "*/*"})
	if err != nil {
		return err
	}
	defer body.Close()
	prefix := ""
	if o.prefix {
		prefix = fmt.Sprintf("[pod/%s/%s] ", r.pod.Name, r.container)
	}
	// Line by line, so that concurrent streams (followAll) write whole
	// lines.
	err = copyPrefixed(w, body, prefix)
	if err != nil && ctx.Err() != nil {
		return nil // interrupted while following
	}
	return err
}

// copyPrefixed copies r to w one line at a time, each line prefixed (the
// prefix may be empty).
func copyPrefixed(w io.Writer, r io.Reader, prefix string) error {
	reader := bufio.NewReader(r)
	for {
		line, err := reader.ReadString('\n')
		if line != "" {
			if _, werr := io.WriteString(w, prefix+line); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// followAll follows several streams at once (-l or --all-containers with
// -f). Each goroutine writes whole lines through one lock, so lines of
// different containers never mix. The first failure stops the others and
// is returned (kubectl's parallelConsumeRequest), since the streams that
// still work would otherwise hold the command open for ever; with
// --ignore-errors it is printed and the rest carry on.
func (o *logsOptions) followAll(ctx context.Context, c *client.Client, requests []logRequest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &lineWriter{w: o.f.out()}
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, r := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := o.stream(ctx, c, r, out)
			switch {
			case err == nil:
			case o.ignoreErrors:
				fmt.Fprintf(o.f.errOut(), "error: %v\n", err)
			default:
				once.Do(func() {
					first = err
					cancel()
				})
			}
		}()
	}
	wg.Wait()
	return first
}

// lineWriter serialises the writes of concurrent streams.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sortPodsForLogging orders pods the way kubectl's podutils.ByLogging
// does, best first: scheduled before unscheduled; Running before Unknown
// before Pending; ready before not ready; ready for longer first; more
// restarts first; older first. The first is the pod whose logs are most
// likely to be interesting.
func sortPodsForLogging(pods []*api.Pod) {
	phaseRank := map[api.PodPhase]int{api.PodRunning: 0, api.PodUnknown: 1, api.PodPending: 2}
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return a.Spec.NodeName != ""
		}
		if phaseRank[a.Status.Phase] != phaseRank[b.Status.Phase] {
			return phaseRank[a.Status.Phase] < phaseRank[b.Status.Phase]
		}
		readyA, sinceA := podReadySince(a)
		readyB, sinceB := podReadySince(b)
		if readyA != readyB {
			return readyA
		}
		if readyA && !sinceA.Equal(sinceB) {
			return afterOrZero(sinceB, sinceA)
		}
		if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
			return ra > rb
		}
		if !a.CreationTimestamp.Equal(b.CreationTimestamp.Time) {
			return afterOrZero(b.CreationTimestamp.Time, a.CreationTimestamp.Time)
		}
		return false
	})
}

// podReadySince reports whether the pod is Ready and since when.
func podReadySince(pod *api.Pod) (bool, time.Time) {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue, c.LastTransitionTime.Time
		}
	}
	return false, time.Time{}
}

// afterOrZero is kubectl's: a zero time sorts last, else t1 after t2.
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// maxRestarts is the highest restart count among the pod's containers.
func maxRestarts(pod *api.Pod) int32 {
	var highest int32
	for _, cs := range pod.Status.ContainerStatuses {
		highest = max(highest, cs.RestartCount)
	}
	return highest
}
