package metricsserver

// This file serves NodeMetrics and PodMetrics, upstream's pkg/api/node.go
// and pod.go. Nothing is stored: each request lists the nodes or pods the
// informers know (label and field selectors apply to them, as upstream
// lists them from its listers), looks their usage up in the store, and
// leaves out those without metrics yet. A pod counts only while it is
// Running, as upstream's pod informer only follows running pods.

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/informer"
)

// GroupName and Version are the API group and version served.
const (
	GroupName    = "metrics.k8s.io"
	Version      = "v1beta1"
	GroupVersion = GroupName + "/" + Version
)

// The resources as errors name them: upstream names them by kind,
// `podmetrics.metrics.k8s.io "web-1" not found`, not by their path.
var (
	nodeMetricsResource = apierrors.Resource{Group: GroupName, Resource: "nodemetrics"}
	podMetricsResource  = apierrors.Resource{Group: GroupName, Resource: "podmetrics"}
)

// nodeFields and podFields are the field selectors each resource supports.
var (
	nodeFields = []string{"metadata.name"}
	podFields  = []string{"metadata.name", "metadata.namespace"}
)

// API answers the metrics.k8s.io requests from the store and the listers.
type API struct {
	store *Store
	nodes *informer.Lister[*api.Node]
	pods  *informer.Lister[*api.Pod]
	// now stamps each answer's creationTimestamp, as upstream does.
	now func() time.Time
}

// NewAPI returns the API over store, listing nodes and pods from the
// listers.
func NewAPI(store *Store, nodes *informer.Lister[*api.Node], pods *informer.Lister[*api.Pod], now func() time.Time) *API {
	return &API{store: store, nodes: nodes, pods: pods, now: now}
}

// listOptions are the query parameters a list honours.
type listOptions struct {
	labels labels.Selector
	fields fields.Selector
}

// parseListOptions reads labelSelector and fieldSelector, checking the
// fields against allowed.
func parseListOptions(q url.Values, allowed []string) (listOptions, error) {
	opts := listOptions{labels: labels.Everything(), fields: fields.Everything()}
	var err error
	if s := q.Get("labelSelector"); s != "" {
		if opts.labels, err = labels.Parse(s); err != nil {
			return opts, apierrors.NewBadRequest(err.Error())
		}
	}
	if s := q.Get("fieldSelector"); s != "" {
		if opts.fields, err = fields.Parse(s); err != nil {
			return opts, apierrors.NewBadRequest(err.Error())
		}
		if err := fields.ValidateFor(opts.fields, allowed); err != nil {
			return opts, apierrors.NewBadRequest(err.Error())
		}
	}
	return opts, nil
}

// nodeMetrics is the NodeMetrics of node, false while it has none.
func (a *API) nodeMetrics(node *api.Node) (api.NodeMetrics, bool) {
	u, ok := a.store.NodeUsage(node.Name)
	if !ok {
		return api.NodeMetrics{}, false
	}
	return api.NodeMetrics{
		TypeMeta: api.TypeMeta{Kind: "NodeMetrics", APIVersion: GroupVersion},
		ObjectMeta: api.ObjectMeta{Name: node.Name, Labels: node.Labels,
			CreationTimestamp: api.NewTime(a.now().UTC().Truncate(time.Second))},
		Timestamp: api.NewTime(u.Timestamp.UTC()),
		Window:    api.Duration{Duration: u.Window},
		Usage:     u.Resources,
	}, true
}

// podMetrics is the PodMetrics of pod, false while it has none.
func (a *API) podMetrics(pod *api.Pod) (api.PodMetrics, bool) {
	if pod.Status.Phase != api.PodRunning {
		return api.PodMetrics{}, false
	}
	containers, u, ok := a.store.PodUsage(PodRef{Namespace: pod.Namespace, Name: pod.Name})
	if !ok {
		return api.PodMetrics{}, false
	}
	pm := api.PodMetrics{
		TypeMeta: api.TypeMeta{Kind: "PodMetrics", APIVersion: GroupVersion},
		ObjectMeta: api.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: pod.Labels,
			CreationTimestamp: api.NewTime(a.now().UTC().Truncate(time.Second))},
		Timestamp:  api.NewTime(u.Timestamp.UTC()),
		Window:     api.Duration{Duration: u.Window},
		Containers: make([]api.ContainerMetrics, 0, len(containers)),
	}
	for _, c := range containers {
		pm.Containers = append(pm.Containers, api.ContainerMetrics{Name: c.Name, Usage: c.Resources})
	}
	return pm, true
}

// listNodeMetrics is the NodeMetrics of every node opts select that has
// metrics, by name.
func (a *API) listNodeMetrics(opts listOptions) ([]api.NodeMetrics, error) {
	nodes, err := a.nodes.List(opts.labels)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	items := []api.NodeMetrics{}
	for _, node := range nodes {
		if !opts.fields.Matches(fields.Set{"metadata.name": node.Name}) {
			continue
		}
		if nm, ok := a.nodeMetrics(node); ok {
			items = append(items, nm)
		}
	}
	slices.SortFunc(items, func(x, y api.NodeMetrics) int { return cmp.Compare(x.Name, y.Name) })
	return items, nil
}

// listPodMetrics is the PodMetrics of every pod in namespace ("" for all)
// opts select that has metrics, by namespace and name.
func (a *API) listPodMetrics(namespace string, opts listOptions) ([]api.PodMetrics, error) {
	pods, err := a.pods.Namespace(namespace).List(opts.labels)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	items := []api.PodMetrics{}
	for _, pod := range pods {
		if !opts.fields.Matches(fields.Set{"metadata.name": pod.Name, "metadata.namespace": pod.Namespace}) {
			continue
		}
		if pm, ok := a.podMetrics(pod); ok {
			items = append(items, pm)
		}
	}
	slices.SortFunc(items, func(x, y api.PodMetrics) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	return items, nil
}

// getNodeMetrics is one node's metrics, or NotFound when the node is
// unknown or has none yet.
func (a *API) getNodeMetrics(name string) (api.NodeMetrics, error) {
	node, err := a.nodes.Get(name)
	if err == nil {
		if nm, ok := a.nodeMetrics(node); ok {
			return nm, nil
		}
	}
	return api.NodeMetrics{}, apierrors.NewNotFound(nodeMetricsResource, name)
}

// getPodMetrics is one pod's metrics, or NotFound when the pod is
// unknown, not running, or has none yet.
func (a *API) getPodMetrics(namespace, name string) (api.PodMetrics, error) {
	pod, err := a.pods.Namespace(namespace).Get(name)
	if err == nil {
		if pm, ok := a.podMetrics(pod); ok {
			return pm, nil
		}
	}
	return api.PodMetrics{}, apierrors.NewNotFound(podMetricsResource, name)
}

// Handler routes the metrics.k8s.io paths and the discovery documents.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	base := "/apis/" + GroupVersion
	mux.HandleFunc("/apis", serveGroupList)
	mux.HandleFunc("/apis/"+GroupName, serveGroup)
	mux.HandleFunc(base, serveResourceList)
	mux.HandleFunc(base+"/nodes", func(w http.ResponseWriter, r *http.Request) {
		a.serveList(w, r, func(opts listOptions) (any, []tableEntry, error) {
			items, err := a.listNodeMetrics(opts)
			return listOf("NodeMetricsList", items), nodeEntries(items), err
		}, nodeFields)
	})
	mux.HandleFunc(base+"/nodes/{name}", func(w http.ResponseWriter, r *http.Request) {
		a.serveGet(w, r, func() (any, []tableEntry, error) {
			nm, err := a.getNodeMetrics(r.PathValue("name"))
			return nm, nodeEntries([]api.NodeMetrics{nm}), err
		})
	})
	pods := func(w http.ResponseWriter, r *http.Request) {
		a.serveList(w, r, func(opts listOptions) (any, []tableEntry, error) {
			items, err := a.listPodMetrics(r.PathValue("namespace"), opts)
			return listOf("PodMetricsList", items), podEntries(items), err
		}, podFields)
	}
	mux.HandleFunc(base+"/pods", pods)
	mux.HandleFunc(base+"/namespaces/{namespace}/pods", pods)
	mux.HandleFunc(base+"/namespaces/{namespace}/pods/{name}", func(w http.ResponseWriter, r *http.Request) {
		a.serveGet(w, r, func() (any, []tableEntry, error) {
			pm, err := a.getPodMetrics(r.PathValue("namespace"), r.PathValue("name"))
			return pm, podEntries([]api.PodMetrics{pm}), err
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		response.WriteError(w, response.NotFoundPath())
	})
	return mux
}

// metricsList is NodeMetricsList or PodMetricsList.
type metricsList[T any] struct {
	api.TypeMeta `json:",inline"`
	api.ListMeta `json:"metadata"`
	Items        []T `json:"items"`
}

func listOf[T any](kind string, items []T) metricsList[T] {
	return metricsList[T]{TypeMeta: api.TypeMeta{Kind: kind, APIVersion: GroupVersion}, Items: items}
}

// serveList answers a list: the list, or its Table when asked for.
func (a *API) serveList(w http.ResponseWriter, r *http.Request, list func(listOptions) (any, []tableEntry, error), allowed []string) {
	if !readOnly(w, r) {
		return
	}
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		response.WriteError(w, apierrors.NewMethodNotSupported(resourceOf(r), "watch"))
		return
	}
	opts, err := parseListOptions(q, allowed)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	obj, entries, err := list(opts)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	writeObject(w, r, obj, entries)
}

// serveGet answers a get: the object, or its one-row Table.
func (a *API) serveGet(w http.ResponseWriter, r *http.Request, get func() (any, []tableEntry, error)) {
	if !readOnly(w, r) {
		return
	}
	obj, entries, err := get()
	if err != nil {
		response.WriteError(w, err)
		return
	}
	writeObject(w, r, obj, entries)
}

// readOnly answers 405 to anything but GET: the metrics API has only get
// and list.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	response.WriteError(w, apierrors.NewMethodNotSupported(resourceOf(r), r.Method))
	return false
}

// resourceOf names the path's resource for a MethodNotSupported error.
func resourceOf(r *http.Request) apierrors.Resource {
	if r.PathValue("namespace") != "" || r.URL.Path == "/apis/"+GroupVersion+"/pods" {
		return podMetricsResource
	}
	return nodeMetricsResource
}

// writeObject sends obj as JSON, or entries as a Table when the client
// asked for one.
func writeObject(w http.ResponseWriter, r *http.Request, obj any, entries []tableEntry) {
	if response.TableRequested(r) {
		response.WriteJSONAs(w, response.ContentTypeTable, newTable(entries, r.URL.Query().Get("includeObject")))
		return
	}
	response.WriteJSON(w, http.StatusOK, obj)
}
