package kubelet

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/stats"
	"kplane/pkg/kubelet/token"
)

// ServerFunc starts the kubelet's HTTPS server on a port of env.Address — the one
// the apiserver's pods/log reaches for `kubectl logs` — serving the
// containers of every node of the process through env.Containers. It
// returns the port, which every node then reports in
// status.daemonEndpoints.kubeletEndpoint, and must stop serving when ctx
// ends.
type ServerFunc func(ctx context.Context, env ServerEnv) (port int32, err error)

// ServerEnv is what the kubelet hands its server.
type ServerEnv struct {
	// Containers finds the containers and pods of every node of the process.
	Containers ContainerFinder
	// Client is the kubelet's own client, acting as its node: the server
	// asks it the SubjectAccessReviews that authorize each call.
	Client *client.Client
	// Tokens authenticates bearer tokens by TokenReview, with the one
	// answer cache the kubelet's debug server uses too.
	Tokens debug.Authenticator
	// Logger is the kubelet's logger.
	Logger *slog.Logger
	// Address is the IP to listen on (Options.Address, --address).
	Address string
	// NodeIP is the node's InternalIP (Options.NodeIP, --node-ip), which
	// the apiserver dials: the serving certificate names it.
	NodeIP string
}

// ContainerFinder finds the runs of containers and the pods for the
// kubelet's server: logs, exec, attach and port-forward.
type ContainerFinder interface {
	// FindContainer returns the latest run of a container of a pod this
	// process runs (with previous, the run before it). An empty
	// containerName means the pod's only container. Errors are
	// *ContainerLookupError.
	FindContainer(namespace, podName, containerName string, previous bool) (runtime.Container, error)
	// FindPod returns a pod this process runs and the runtime of its node.
	// Errors are *ContainerLookupError.
	FindPod(namespace, podName string) (*api.Pod, runtime.Runtime, error)
	// Summary returns the resource usage of the node named nodeName
	// (stats.go). Errors are *ContainerLookupError.
	Summary(nodeName string) (*stats.Summary, error)
}

// Run runs a kubelet process — one node, or Options.NodeCount hollow
// nodes — until ctx ends: it registers the nodes, heartbeats their Leases,
// keeps their statuses current and runs the pods bound to them. It returns
// once every goroutine it started has stopped; containers are left to the
// runtime, and a kubelet started later adopts them.
func Run(ctx context.Context, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var virtual *clock.Virtual
	opts.Clock, virtual = clock.ForComponent(opts.Clock, opts.VirtualClock)
	c := opts.Client
	if c == nil {
		cfg, err := client.ConfigFromKubeconfig(opts.Kubeconfig, "")
		if err != nil {
			return fmt.Errorf("kubelet: %w", err)
		}
		cfg.UserAgent = "kplane-kubelet/" + KubeletVersion
		cfg.Logger = log
		cfg.QPS, cfg.Burst = opts.KubeAPIQPS, opts.KubeAPIBurst
		cfg.OnWrite = writeHook(opts.Journal)
		if c, err = client.New(cfg); err != nil {
			return fmt.Errorf("kubelet: %w", err)
		}
		defer c.Close()
	}
	network := c
	if opts.NetworkKubeconfig != "" {
		cfg, err := client.ConfigFromKubeconfig(opts.NetworkKubeconfig, "")
		if err != nil {
			return fmt.Errorf("kubelet: --network-kubeconfig: %w", err)
		}
		cfg.UserAgent = "kplane-kubelet/" + KubeletVersion + " (simulated network)"
		cfg.Logger = log
		if network, err = client.New(cfg); err != nil {
			return fmt.Errorf("kubelet: --network-kubeconfig: %w", err)
		}
		defer network.Close()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// On the cluster clock, every timer must start from the cluster's time.
	stopFollowing, err := clusterclock.Follow(ctx, c, virtual, log)
	if err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	defer stopFollowing()

	names := opts.nodeNames()
	// One pod informer for the whole process: a single node watches only
	// its pods (spec.nodeName=<node>, as upstream); hollow nodes share a
	// watch of every bound pod, keep only their own (so that several such
	// processes do not each cache every pod of the cluster) and pick theirs
	// in the handler.
	selector := "spec.nodeName=" + names[0]
	factoryOpts := informer.ComponentOptions(log, opts.Clock, opts.Journal, opts.InformerFIFO, opts.TraceInformers)
	if len(names) > 1 {
		selector = "spec.nodeName!="
		factoryOpts = append(factoryOpts, informer.WithObjectFilter(onNodes(names)))
	}
	factoryOpts = append(factoryOpts, informer.WithTweakListOptions(func(o *client.ListOptions) { o.FieldSelector = selector }))
	factory := informer.NewSharedInformerFactory(c, 0, factoryOpts...)
	podInformer := factory.Pods()
	if err := informer.IndexPodsByNode(podInformer.Informer()); err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	defer factory.Shutdown()
	status := newStatusManager(c, podInformer.Lister(), opts.StatusBatchDelay, opts.Clock, log.With("component", "kubelet"))

	eventClient := c.WithRateLimit(eventQPS(opts.EventRecordQPS, len(names)), opts.EventBurst)
	nodes := &nodeSet{byName: map[string]*Kubelet{}, pods: podInformer.Lister()}
	for i, name := range names {
		k, err := newKubelet(name, i, &opts, c, network, eventClient, podInformer, status, log)
		if err != nil {
			return err
		}
		nodes.byName[name] = k
		nodes.ordered = append(nodes.ordered, k)
	}
	defer nodes.shutdownRecorders()
	nodes.registerPauseRoutes(opts.Journal)

	factory.Start(ctx)
	factory.WaitForCacheSync(ctx)
	if ctx.Err() != nil {
		return nil
	}

	// One TokenReview cache for the process: the kubelet's server and its
	// debug server accept the same bearer tokens.
	tokens := debug.TokenReviewAuthenticator(c)
	port := opts.KubeletPort
	if opts.Server != nil {
		p, err := opts.Server(ctx, ServerEnv{Containers: nodes, Client: c, Tokens: tokens, Logger: log, Address: opts.Address, NodeIP: opts.NodeIP})
		if err != nil {
			return fmt.Errorf("kubelet: start server: %w", err)
		}
		port = p
	}
	stopDebugServer, err := startDebugServer(&opts, tokens, nodes, log)
	if err != nil {
		return fmt.Errorf("kubelet: debug server: %w", err)
	}
	if stopDebugServer != nil {
		defer stopDebugServer()
	}

	var wg sync.WaitGroup
	wg.Go(func() { status.run(ctx) })
	for _, k := range nodes.ordered {
		k.kubeletPort = port
		wg.Go(func() { k.run(ctx) })
	}
	// Pods are handed to the nodes once every node is registered (they need
	// the node's podCIDR) and holds the IPs its pods already have, so a new
	// pod can never be given an address an existing one still uses.
	for _, k := range nodes.ordered {
		select {
		case <-ctx.Done():
		case <-k.ready:
		}
	}
	if ctx.Err() == nil {
		if _, err := podInformer.Informer().AddEventHandler(nodes.podHandler()); err != nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("kubelet: %w", err)
		}
		log.Info("kubelet running", "nodes", len(names), "runtime", opts.Runtime, "kubeletPort", port)
	}
	<-ctx.Done()
	wg.Wait()
	return nil
}

// onNodes accepts the pods bound to one of names: the pods a process of
// hollow nodes keeps of its watch of every bound pod. A pod's
// spec.nodeName never changes once set, as FilterListWatch requires.
func onNodes(names []string) func(api.Object) bool {
	set := make(map[string]bool, len(names))
	for _, name := range names {
		set[name] = true
	}
	return func(obj api.Object) bool {
		pod, ok := obj.(*api.Pod)
		return ok && set[pod.Spec.NodeName]
	}
}

// eventQPS is the rate of the process's event bucket: --event-qps, but at
// least one event per node every 5 s. Each node's recorder writes one event
// at a time (one writer) and a write times out after 10 s, so with thousands of hollow
// nodes all waiting on one bucket at upstream's 50/s, most would give up.
func eventQPS(flag float32, nodes int) float32 {
	if flag <= 0 {
		return 0
	}
	return max(flag, float32(nodes)/5)
}

// nodeSet is the process's nodes; it routes pods to them and finds
// containers across them.
type nodeSet struct {
	byName  map[string]*Kubelet
	ordered []*Kubelet
	pods    *informer.Lister[*api.Pod]
}

// podHandler routes the pod informer's events to the pods' nodes.
func (s *nodeSet) podHandler() informer.ResourceEventHandler {
	route := func(obj api.Object, deleted bool) {
		pod, ok := obj.(*api.Pod)
		if !ok {
			return
		}
		k := s.byName[pod.Spec.NodeName]
		if k == nil {
			return
		}
		if deleted {
			k.handlePodDeleted(pod)
		} else {
			k.handlePod(pod)
		}
	}
	return informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj api.Object) { route(obj, false) },
		UpdateFunc: func(_, obj api.Object) { route(obj, false) },
		DeleteFunc: func(obj any) {
			if o, ok := informer.DeletedObject[api.Object](obj); ok {
				route(o, true)
			}
		},
	}
}

// FindContainer implements ContainerFinder across the process's nodes.
func (s *nodeSet) FindContainer(namespace, podName, containerName string, previous bool) (runtime.Container, error) {
	if pod, err := s.pods.Namespace(namespace).Get(podName); err == nil {
		if k := s.byName[pod.Spec.NodeName]; k != nil {
			return k.FindContainer(namespace, podName, containerName, previous)
		}
	}
	for _, k := range s.ordered {
		if c, err := k.FindContainer(namespace, podName, containerName, previous); !IsContainerLookupNotFound(err) {
			return c, err
		}
	}
	return nil, &ContainerLookupError{http.StatusNotFound, fmt.Sprintf("pod %s/%s is not running on this kubelet", namespace, podName)}
}

// FindPod implements ContainerFinder across the process's nodes.
func (s *nodeSet) FindPod(namespace, podName string) (*api.Pod, runtime.Runtime, error) {
	if pod, err := s.pods.Namespace(namespace).Get(podName); err == nil {
		if k := s.byName[pod.Spec.NodeName]; k != nil {
			return k.FindPod(namespace, podName)
		}
	}
	return nil, nil, &ContainerLookupError{http.StatusNotFound, fmt.Sprintf("pod %s/%s is not running on this kubelet", namespace, podName)}
}

// shutdownRecorders flushes every node's pending events.
func (s *nodeSet) shutdownRecorders() {
	var wg sync.WaitGroup
	for _, k := range s.ordered {
		if k.events != nil {
			wg.Go(k.events.Shutdown)
		}
	}
	wg.Wait()
}

// Kubelet is one simulated node: its registration, heartbeat and status,
// and a worker per pod bound to it.
type Kubelet struct {
	nodeName string
	opts     *Options
	client   *client.Client
	// clock is opts.Clock: every time the node reads or waits on.
	clock    clock.Clock
	log      *slog.Logger
	runtime  runtime.Runtime
	recorder eventRecorder
	events   *events.Recorder
	// tokens holds the ServiceAccount tokens of the node's pods' projected
	// volumes (pkg/kubelet/token).
	tokens *token.Manager
	status *statusManager
	// pods and podIndexer read the process's pod informer cache.
	pods       *informer.Lister[*api.Pod]
	podIndexer informer.Indexer
	// flagPodCIDR is this node's --pod-cidr (zero when not given).
	flagPodCIDR netip.Prefix
	nodeInfo    api.NodeSystemInfo
	env         *podEnv
	static      *staticPods // nil without --pod-manifest-path
	// heartbeat holds the Lease and node status loops while the debug
	// API has paused them (pause.go).
	heartbeat *heartbeatGate
	// statusPhase delays the node status loop's first tick (node.go).
	statusPhase time.Duration
	// registered is closed once the Node exists; ready once, in addition,
	// the IPs its pods already hold are reserved.
	registered, ready chan struct{}
	// startedAt is when this kubelet started (the Summary's node
	// startTime); nodeCPU is the node's CPU counter (stats.go).
	startedAt time.Time
	nodeCPU   nodeCPU
	// memoryCapacity is --memory in bytes (the summary's availableBytes
	// is counted from it), parsed once; 0 when it does not parse.
	memoryCapacity uint64

	mu          sync.Mutex
	ctx         context.Context // the run's, for pod workers
	nodeUID     string
	ipam        *ipam
	kubeletPort int32
	// lastReported is the desired status last written, at lastReportTime.
	lastReported   *api.NodeStatus
	lastReportTime time.Time
	// workers holds a worker per pod UID.
	workers   map[string]*podWorker
	workersWG sync.WaitGroup
}

// newKubelet prepares node number index of the process; its Events are
// written through eventClient, and its simulated network reads other
// pods through network.
func newKubelet(name string, index int, opts *Options, c, network, eventClient *client.Client, podInformer informer.TypedInformer[*api.Pod],
	status *statusManager, baseLog *slog.Logger) (*Kubelet, error) {
	log := baseLog.With("component", "kubelet", "node", name)
	tokens := token.NewManager(c, opts.Clock)
	rtConfig := runtime.Config{NodeName: name, Logger: log, Clock: opts.Clock,
		NodeIP: opts.NodeIP, ClusterDNS: opts.ClusterDNS, ClusterDomain: opts.ClusterDomain,
		DNSAddress: opts.DNSAddress, KubeProxyAddress: opts.KubeProxyAddress, Cluster: shellCluster{client: c, network: network, tokens: tokens, log: log}}
	var rt runtime.Runtime
	var err error
	if opts.NewRuntime != nil {
		rt, err = opts.NewRuntime(rtConfig)
	} else {
		rt, err = runtime.New(opts.Runtime, rtConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("kubelet %s: %w", name, err)
	}
	// One writer per node, as upstream's broadcaster writes a node's events
	// one at a time: with thousands of hollow nodes in one process, more
	// would be thousands of goroutines waiting on the shared bucket.
	rec := events.NewRecorder(eventClient, api.EventSource{Component: "kubelet", Host: name}, log,
		events.WithClock(opts.Clock), events.WithClientBucket(), events.WithWriters(1))
	k := &Kubelet{
		nodeName: name, opts: opts, client: c, clock: opts.Clock, log: log, runtime: rt, recorder: rec, events: rec, status: status, tokens: tokens,
		pods: podInformer.Lister(), podIndexer: podInformer.Informer().GetIndexer(),
		nodeInfo:   newNodeInfo(name, rt.Name()),
		registered: make(chan struct{}), ready: make(chan struct{}), startedAt: opts.Clock.Now(),
		workers: map[string]*podWorker{}, heartbeat: newHeartbeatGate(),
		statusPhase: statusPhase(index, opts.NodeCount, opts.NodeStatusUpdateFrequency),
	}
	if q, err := api.ParseQuantity(opts.Memory); err == nil && q.Value() > 0 {
		k.memoryCapacity = uint64(q.Value())
	}
	if opts.PodCIDR != "" {
		k.flagPodCIDR = nthBlock(netip.MustParsePrefix(opts.PodCIDR), index)
	}
	k.env = &podEnv{nodeIP: opts.NodeIP, runtime: rt, recorder: rec, status: status, ipam: k.currentIPAM,
		images: &imageCache{}, backOffInitial: opts.BackOffInitial, backOffMax: opts.BackOffMax, clock: opts.Clock, log: log,
		journal: opts.Journal}
	if opts.PodManifestPath != "" {
		k.static = newStaticPods(k, opts.PodManifestPath)
	}
	return k, nil
}

// currentIPAM returns the node's pod IP allocator.
func (k *Kubelet) currentIPAM() *ipam {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ipam
}

// run registers the node, then runs its loops until ctx ends and waits for
// them and for the pod workers.
func (k *Kubelet) run(ctx context.Context) {
	k.mu.Lock()
	k.ctx = ctx
	k.mu.Unlock()
	if err := k.registerNode(ctx); err != nil {
		return
	}
	k.reserveExistingIPs()
	close(k.ready)
	var wg sync.WaitGroup
	wg.Go(func() { k.runLease(ctx) })
	wg.Go(func() { k.runNodeStatus(ctx) })
	if k.static != nil {
		wg.Go(func() { k.static.run(ctx) })
	}
	<-ctx.Done()
	wg.Wait()
	k.workersWG.Wait()
}

// reserveExistingIPs records the IPs the node's pods already hold (set by
// a previous kubelet process) before any new pod gets one. A mirror pod's
// IP is its static pod's, reserved under the static pod's UID (the mirror's
// config.mirror hash).
func (k *Kubelet) reserveExistingIPs() {
	objs, _ := k.podIndexer.ByIndex(informer.NodeNameIndex, k.nodeName)
	a := k.currentIPAM()
	for _, obj := range objs {
		pod, ok := obj.(*api.Pod)
		if !ok || pod.Spec.HostNetwork || pod.Status.PodIP == "" ||
			pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
			continue
		}
		owner := pod.UID
		if isMirrorPod(pod) {
			owner = pod.Annotations[AnnotationConfigMirror]
		}
		if ip, err := parseAddr(pod.Status.PodIP); err == nil {
			a.Reserve(owner, ip)
		}
	}
}

// handlePod gives a pod bound to this node to its worker, starting one for
// a pod seen for the first time.
func (k *Kubelet) handlePod(pod *api.Pod) {
	if isMirrorPod(pod) {
		if k.static != nil {
			k.static.mirrorChanged(pod)
		}
		return
	}
	k.addPod(pod, false)
}

// handlePodDeleted tells a pod's worker its object is gone.
func (k *Kubelet) handlePodDeleted(pod *api.Pod) {
	if isMirrorPod(pod) {
		if k.static != nil {
			k.static.poke() // put it back
		}
		return
	}
	k.removePod(pod.UID)
	if k.tokens != nil {
		k.tokens.Forget(pod.UID)
	}
}

// addStaticPod runs a pod read from a manifest file.
func (k *Kubelet) addStaticPod(pod *api.Pod) { k.addPod(pod, true) }

func (k *Kubelet) addPod(pod *api.Pod, static bool) {
	k.mu.Lock()
	w, ok := k.workers[pod.UID]
	if !ok {
		if k.ctx == nil || k.ctx.Err() != nil {
			k.mu.Unlock()
			return
		}
		w = newPodWorker(k.env, pod, static)
		k.workers[pod.UID] = w
		ctx := k.ctx
		k.workersWG.Add(1)
		go func() {
			defer k.workersWG.Done()
			w.run(ctx)
			k.mu.Lock()
			if k.workers[w.uid] == w {
				delete(k.workers, w.uid)
			}
			k.mu.Unlock()
		}()
	}
	k.mu.Unlock()
	if ok {
		w.update(pod)
	}
}

// removePod tells the worker of the pod with uid that its pod is gone.
func (k *Kubelet) removePod(uid string) {
	k.mu.Lock()
	w := k.workers[uid]
	k.mu.Unlock()
	if w != nil {
		w.remove()
	}
}

// parseAddr parses an IP address.
func parseAddr(s string) (netip.Addr, error) { return netip.ParseAddr(s) }

// NodeNames lists the nodes the process runs, in order; the kubelet's
// server authorizes calls against them.
func (s *nodeSet) NodeNames() []string {
	names := make([]string, len(s.ordered))
	for i, k := range s.ordered {
		names[i] = k.nodeName
	}
	return names
}
