// Package runtime is the kubelet's container runtime: the one place that
// knows how a container actually runs. Upstream, the kubelet talks to
// containerd or CRI-O over the CRI gRPC API; kplane keeps the same split with
// a small Go interface and two implementations chosen per kubelet:
//
//   - simulated (simulated.go): nothing runs. A container "runs" for as long
//     as the pod's sim.kplane.io/* annotations say, then exits with the code
//     they say; probes answer as they say. It is cheap enough for a thousand
//     pods in one process. docs/kubelet.md lists the annotations.
//   - process (process.go): a container's command runs as a local process,
//     its output captured for `kubectl logs`.
//
// The contract is deliberately small. The kubelet (pkg/kubelet) decides
// everything that is policy — when to start, when to restart and with what
// back-off, when a probe failure means a kill — and asks the runtime only to
// start one run of one container and to report how it ended. That is the
// same division of labour as upstream's kuberuntime manager versus the CRI.
package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime/simshell"
)

// Runtime starts and stops containers for the kubelet.
type Runtime interface {
	// Start runs one container of a pod (attempt = restartCount, 0 for the
	// first run). ctx bounds the container's life: when it is cancelled
	// (the kubelet is shutting down) the runtime ends the run. Start may
	// take a while (a simulated image pull, a process spawn); the kubelet
	// calls it from the pod's own worker, never from a shared loop.
	Start(ctx context.Context, pod *api.Pod, container *api.Container, attempt int) (Container, error)
	// Name is "simulated" or "process".
	Name() string
}

// Container is one run of a container.
type Container interface {
	// Done is closed when the container has exited.
	Done() <-chan struct{}
	// ExitCode and Reason ("Completed", "Error", "OOMKilled", …) are valid after Done.
	ExitCode() int
	Reason() string
	// Stop asks the container to exit (SIGTERM for processes) and kills it after grace.
	Stop(grace time.Duration)
	// Logs returns the output written so far and, with follow, what comes later until exit.
	Logs(follow bool) io.ReadCloser
	// Usage samples the container's CPU and memory use now (the zero
	// Usage once it has exited). Each call is a new sample.
	Usage() Usage
	// StartedAt is when the container started.
	StartedAt() time.Time
}

// Usage is one sample of a container's resource use, in the units of
// upstream's Summary API (k8s.io/kubelet/pkg/apis/stats/v1alpha1): what
// cAdvisor reads from a container's cgroup, and what kplane's runtimes
// compute instead (the simulated one from the load model of package
// simload, the process one from /proc).
type Usage struct {
	// Time is when the sample was taken, on the runtime's clock.
	Time time.Time
	// UsageCoreNanoSeconds is the CPU time used since the container
	// started, in core-nanoseconds: a counter that never decreases.
	UsageCoreNanoSeconds uint64
	// UsageNanoCores is the current CPU rate, in billionths of a core.
	UsageNanoCores uint64
	// WorkingSetBytes is the memory in use that cannot be reclaimed (the
	// figure the kubelet evicts on and `kubectl top` shows).
	WorkingSetBytes uint64
}

// UsageSampler is implemented by a Container whose usage can be sampled at
// a given instant of the kubelet's clock: the simulated runtime's, whose
// figures come from a model rather than a measurement. The kubelet then
// samples a node and all its containers at one instant, so the node's CPU
// counter grows by exactly its containers' growth plus the base.
type UsageSampler interface {
	UsageAt(now time.Time) Usage
}

// Prober runs one probe (liveness, readiness or startup) against one
// container and says whether it passed, with the output a failure reports
// in the Unhealthy event ("HTTP probe failed with statuscode: 503").
//
// The kubelet owns the probe schedule (initialDelaySeconds, periodSeconds,
// thresholds) and asks a Prober only for single results. It looks for one
// in this order: the container run itself (the simulated runtime's runs
// answer from the pod's annotations and their own age), then the Runtime
// (the process runtime dials 127.0.0.1 or runs the exec command), and
// otherwise every probe passes. probe is one of container.LivenessProbe,
// ReadinessProbe or StartupProbe, so an implementation can tell which kind
// it is asked about by comparing pointers.
type Prober interface {
	Probe(ctx context.Context, pod *api.Pod, container *api.Container, probe *api.Probe) (ok bool, output string)
}

// Adopter is implemented by a Runtime that can take over a container a
// previous kubelet process started, so that restarting the kubelet does not
// restart its pods (upstream's containers live on in containerd while the
// kubelet restarts). status is the container's last reported status, whose
// State.Running is set. A runtime that cannot find the container returns
// false; the kubelet then reports it as lost and restarts it as its pod's
// restartPolicy says.
type Adopter interface {
	Adopt(ctx context.Context, pod *api.Pod, container *api.Container, status *api.ContainerStatus) (Container, bool)
}

// PodObserver is implemented by a Container that wants to see later
// versions of its pod. The kubelet calls ObservePod on every current run
// whenever the pod object changes, which is how the simulated runtime lets
// `kubectl annotate` change a running container's reported usage.
type PodObserver interface {
	ObservePod(pod *api.Pod)
}

// PodForgetter is implemented by a Runtime that keeps something for a pod
// beyond its containers' runs: the simulated runtime keeps each pod's
// writable files (its emptyDir volumes) in memory. The kubelet calls
// ForgetPod once the pod object is gone and its containers have stopped,
// where upstream's kubelet removes the pod's volume directories from the
// node (cleanupOrphanedPodDirs).
type PodForgetter interface {
	ForgetPod(uid string)
}

// Config is what a Factory gets to build a runtime for one node.
type Config struct {
	// NodeName is the node the runtime's containers run on.
	NodeName string
	// Logger is the kubelet's logger for this node.
	Logger *slog.Logger
	// Clock is the kubelet's clock (nil: the wall clock). The simulated
	// runtime's containers live on it, so a test that steps a fake clock
	// sees them start, run out and stop. The process runtime ignores it:
	// its containers are real processes, which run, write their logs and
	// use CPU in wall time however a fake clock is stepped.
	Clock clock.Clock

	// The node's network as a pod sees it, for the simulated runtime's
	// shell (package simshell); the process runtime ignores them.
	//
	// NodeIP is the node's address. ClusterDNS and ClusterDomain are the
	// kubelet's --cluster-dns and --cluster-domain, written in each pod's
	// resolv.conf. DNSAddress is the loopback host:port where the cluster
	// DNS really answers (--dns-address): the shell's look-ups go there,
	// never to ClusterDNS, which is a label. KubeProxyAddress is the
	// node's kube-proxy (--kube-proxy-address), asked where a connection
	// to a Service address would go. Empty addresses: no DNS, no kube-proxy.
	NodeIP, ClusterDNS, ClusterDomain string
	DNSAddress, KubeProxyAddress      string
	// Cluster reads pods, ConfigMaps and Secrets from the API for the
	// shell (curl's destination pod, volume files); nil: none are found.
	Cluster simshell.Cluster
}

// Factory builds a Runtime for one node.
type Factory func(cfg Config) (Runtime, error)

// registry maps runtime names to their factories. Each implementation
// registers itself from an init function in its own file, the way
// database/sql drivers do, so the kubelet can pick one by the name given in
// --runtime without this file listing them.
var registry = struct {
	sync.Mutex
	factories map[string]Factory
}{factories: map[string]Factory{}}

// Register makes a runtime available to New under name. It panics if name
// is registered twice, which is a programming error.
func Register(name string, f Factory) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.factories[name]; dup {
		panic(fmt.Sprintf("runtime: %q registered twice", name))
	}
	registry.factories[name] = f
}

// New builds the runtime registered under name.
func New(name string, cfg Config) (Runtime, error) {
	registry.Lock()
	f, ok := registry.factories[name]
	registry.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown container runtime %q (known: %v)", name, Names())
	}
	rt, err := f(cfg)
	if err != nil {
		return nil, fmt.Errorf("start %s runtime: %w", name, err)
	}
	return rt, nil
}

// Names lists the registered runtimes, sorted.
func Names() []string {
	registry.Lock()
	defer registry.Unlock()
	names := make([]string, 0, len(registry.factories))
	for name := range registry.factories {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Exit reasons a runtime reports in Reason, as containerd reports them.
const (
	// ReasonCompleted is an exit with code 0.
	ReasonCompleted = "Completed"
	// ReasonError is an exit with any other code.
	ReasonError = "Error"
	// ReasonOOMKilled is a container killed for exceeding its memory limit.
	ReasonOOMKilled = "OOMKilled"
)

// ExitReason is the Reason of an ordinary exit with code: Completed for 0,
// Error otherwise.
func ExitReason(code int) string {
	if code == 0 {
		return ReasonCompleted
	}
	return ReasonError
}
