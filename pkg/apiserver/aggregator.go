package apiserver

// The aggregation layer lets another server answer an API group as if the
// apiserver served it: metrics-server answers metrics.k8s.io, and
// `kubectl top` asks the apiserver, never metrics-server itself. An
// apiregistration.k8s.io/v1 APIService registers one group/version:
//
//   - a Local APIService (no spec.service) says "this apiserver serves it";
//     the apiserver registers one for each of its own group/versions at start
//     (aggregator_autoregister.go);
//   - an APIService with spec.service says "proxy this group/version to that
//     Service"; the aggregator checks that the backend answers
//     (this file), proxies requests to it (aggregator_proxy.go) and merges
//     its resources into discovery (aggregator_discovery.go).
//
// kplane's loopback rule: add-ons run as processes on this host, so the
// aggregator never dials a Service or Pod IP. It looks the Service up, takes
// the port whose `port` is spec.service.port, and dials
// https://127.0.0.1:<targetPort>, checking the backend's certificate against
// spec.caBundle for the name <service>.<namespace>.svc, as upstream checks it.
//
// Upstream: staging/src/k8s.io/kube-aggregator/pkg/apiserver/handler_proxy.go
// (proxying), handler_apis.go and handler_discovery.go (discovery),
// pkg/controllers/status/available_controller.go (availability) and
// pkg/controllers/autoregister (Local APIServices). docs/apiserver.md, "The
// aggregation layer", follows a request through it.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/auth"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// defaultAPIServiceCheckInterval is how often every APIService is checked
// again when nothing changed: upstream's available controller and its
// discovery aggregation controller both resync every 30 s.
const defaultAPIServiceCheckInterval = 30 * time.Second

// discoveryCheckTimeout bounds one backend discovery request. Upstream's
// available controller gives the backend 5 s (and retries twice); a backend
// slower than that is not available.
const discoveryCheckTimeout = 5 * time.Second

// aggregatorUser is who the apiserver says it is when it checks a backend's
// discovery itself, as upstream's available controller does.
const aggregatorUser = "system:kube-aggregator"

// backend is what the aggregator knows about one non-Local APIService: where
// to send its requests and, once discovery answered, what it serves. A
// backend is built by one check and never changed afterwards, so requests
// read it without a lock.
type backend struct {
	apiService *api.APIService
	// url is https://127.0.0.1:<targetPort>; nil when the Service or its
	// port is missing.
	url *url.URL
	// transport dials url with the TLS settings of the APIService; nil
	// when url is. The next check keeps it while those settings stay.
	transport *http.Transport
	// proxy forwards requests to url over transport (aggregator_proxy.go);
	// nil when url is.
	proxy *httputil.ReverseProxy
	// resources is the backend's APIResourceList for the group/version,
	// fetched by this check; nil when the check failed. The backend is
	// available (its Available condition is True) iff resources is set.
	resources *apiResourceList
	// discovery is resources in the aggregated discovery form, converted
	// once by the check rather than on every /apis request.
	discovery []discoveryResource
}

// backendSet is what one sync found: the backends keyed by
// "<group>/<version>", and the available ones in discovery order.
type backendSet struct {
	byGroupVersion map[string]*backend
	// available holds the backends whose check passed, sorted as upstream
	// orders groups and versions: groupPriorityMinimum, then
	// versionPriority, both highest first, then by name.
	available []*backend
}

// apiResourceList is the legacy discovery document a backend serves at
// /apis/<group>/<version>.
type apiResourceList struct {
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// aggregator keeps the non-Local APIServices' backends up to date and checks
// their availability. It runs on every apiserver; each writes an
// APIService's status only when its own check disagrees with the stored one.
type aggregator struct {
	s        *Server
	interval time.Duration

	// backends is the last sync's backendSet. sync replaces it whole; every
	// request reads it, without a lock.
	backends atomic.Pointer[backendSet]

	// services holds the keys of the Services the last sync's APIServices
	// name in spec.service: a change to any other Service cannot change a
	// check, so it does not start one.
	services atomic.Pointer[map[string]bool]
}

// newBackendSet indexes backends (keyed by "<group>/<version>") and sorts
// the available ones in discovery order.
func newBackendSet(backends map[string]*backend) *backendSet {
	set := &backendSet{byGroupVersion: backends}
	for _, b := range backends {
		if b.resources != nil {
			set.available = append(set.available, b)
		}
	}
	slices.SortFunc(set.available, compareDiscoveryOrder)
	return set
}

func newAggregator(s *Server, interval time.Duration) *aggregator {
	if interval <= 0 {
		interval = defaultAPIServiceCheckInterval
	}
	a := &aggregator{s: s, interval: interval}
	a.backends.Store(newBackendSet(map[string]*backend{}))
	a.services.Store(&map[string]bool{})
	return a
}

// lookup returns the backend serving group/version, or nil when the
// apiserver serves it itself (or nobody does).
func (a *aggregator) lookup(group, version string) *backend {
	return a.backends.Load().byGroupVersion[group+"/"+version]
}

// availableBackends returns the backends that passed their last check, in
// discovery order (backendSet.available). The slice is shared: never
// modify it.
func (a *aggregator) availableBackends() []*backend {
	return a.backends.Load().available
}

// compareDiscoveryOrder orders backends as upstream orders groups and
// versions in discovery.
func compareDiscoveryOrder(x, y *backend) int {
	sx, sy := x.apiService.Spec, y.apiService.Spec
	// The priorities compare y with x: highest first.
	return cmp.Or(
		cmp.Compare(sy.GroupPriorityMinimum, sx.GroupPriorityMinimum),
		strings.Compare(sx.Group, sy.Group),
		cmp.Compare(sy.VersionPriority, sx.VersionPriority),
		strings.Compare(sx.Version, sy.Version))
}

// run checks every APIService now, again whenever an APIService is added,
// deleted or has its spec changed, or a Service one names changes, and
// every interval, until ctx ends. While a backend is
// unavailable it checks sooner, 1 s then doubling up to the interval, so
// that an add-on that starts listening just after it registered (as
// metrics-server under `ctl up` does) is picked up in seconds, not 30.
func (a *aggregator) run(ctx context.Context) {
	changed := make(chan struct{}, 1)
	go a.watchChanges(ctx, a.s.reg.byPluralAny["apiservices"], changed, apiServiceSpecChanged)
	go a.watchChanges(ctx, a.s.reg.byPluralAny["services"], changed, a.checkedService)
	defer a.closeIdleConnections()
	retry := unavailableRetryStart
	for {
		next := a.interval
		unavailable, err := a.sync(ctx)
		if err != nil && ctx.Err() == nil {
			a.s.log.Warn("aggregator: check APIServices", "err", err)
		}
		if unavailable > 0 || err != nil {
			next, retry = min(retry, a.interval), min(2*retry, a.interval)
		} else {
			retry = unavailableRetryStart
		}
		timer := time.NewTimer(next)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-changed:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// unavailableRetryStart is the first delay before an unavailable backend
// is checked again.
const unavailableRetryStart = time.Second

// watchChanges signals changed (without blocking: one pending signal is
// enough) on every event of res that matters, watching again when a watch
// ends. An Added or Deleted event always matters, a Modified one when
// matters says so.
func (a *aggregator) watchChanges(ctx context.Context, res *resource, changed chan<- struct{}, matters func(cache.Event) bool) {
	c := a.s.caches[res]
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, res.keyPrefix(""), c.Revision(), false)
		if err != nil {
			if !errors.Is(err, cache.ErrStopped) && ctx.Err() == nil {
				a.s.log.Warn("aggregator: watch", "resource", res.plural, "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == store.Modified && !matters(ev) {
				continue
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}
		w.Stop()
	}
}

// apiServiceSpecChanged says whether a Modified APIService event changed
// the spec: the aggregator's own status writes change only the status, and
// must not start another check.
func apiServiceSpecChanged(ev cache.Event) bool {
	prev, ok := ev.PrevObject.(*storedObject)
	if !ok {
		return true
	}
	return !reflect.DeepEqual(prev.obj.(*api.APIService).Spec, ev.Object.(*storedObject).obj.(*api.APIService).Spec)
}

// checkedService says whether a Modified Service event is about a Service
// some APIService names in spec.service.
func (a *aggregator) checkedService(ev cache.Event) bool {
	return (*a.services.Load())[ev.Key]
}

// sync checks every APIService once: Local ones are always available; for
// the others it resolves the Service, asks the backend for its discovery
// document, records the result as the backend, and writes the Available
// condition when it changed.
//
// It returns how many APIServices are unavailable.
func (a *aggregator) sync(ctx context.Context) (unavailable int, err error) {
	res := a.s.reg.byPluralAny["apiservices"]
	entries, _, err := a.s.caches[res].List(ctx, res.keyPrefix(""), 0)
	if err != nil {
		return 0, fmt.Errorf("list apiservices: %w", err)
	}
	// The Services to watch are known before the checks read them: a change
	// the watch then skips was in the cache before the check looked.
	services := a.s.reg.byPluralAny["services"]
	watched := map[string]bool{}
	for _, e := range entries {
		if ref := e.Object.(*storedObject).obj.(*api.APIService).Spec.Service; ref != nil {
			watched[services.key(ref.Namespace, ref.Name)] = true
		}
	}
	a.services.Store(&watched)
	prev := a.backends.Load()
	backends := map[string]*backend{}
	conditions := make([]api.APIServiceCondition, len(entries))
	for i, e := range entries {
		apiService := e.Object.(*storedObject).obj.(*api.APIService)
		ref := apiService.Spec.Service
		if ref == nil {
			conditions[i] = localAvailableCondition()
			continue
		}
		gv := apiService.Spec.Group + "/" + apiService.Spec.Version
		b := a.check(ctx, apiService, prev.byGroupVersion[gv])
		conditions[i] = b.condition
		backends[gv] = b.backend
		if b.backend.resources == nil {
			unavailable++
		}
	}
	// The backends are served before the conditions are written, so that a
	// client that sees Available=True finds the group/version in discovery
	// (and one that sees False no longer does).
	next := newBackendSet(backends)
	a.backends.Store(next)
	closeDroppedTransports(prev, next)
	for i, e := range entries {
		apiService := e.Object.(*storedObject).obj.(*api.APIService)
		if err := a.writeCondition(ctx, apiService, conditions[i]); err != nil && ctx.Err() == nil {
			a.s.log.Warn("aggregator: update APIService status", "apiservice", apiService.Name, "err", err)
		}
	}
	return unavailable, nil
}

// closeDroppedTransports closes the idle connections of the transports prev
// used and next no longer does. A request still on one finishes: only idle
// connections close.
func closeDroppedTransports(prev, next *backendSet) {
	kept := map[*http.Transport]bool{}
	for _, b := range next.byGroupVersion {
		kept[b.transport] = true
	}
	for _, b := range prev.byGroupVersion {
		if b.transport != nil && !kept[b.transport] {
			b.transport.CloseIdleConnections()
		}
	}
}

// checkResult is one backend and the Available condition its check gave.
type checkResult struct {
	backend   *backend
	condition api.APIServiceCondition
}

// check resolves apiService's Service to a loopback URL and asks the
// backend for /apis/<group>/<version>. prev is the group/version's backend
// from the last sync, if any: its transport is kept while the TLS settings
// stay, so that connections to the backend survive the periodic checks.
// The reasons and messages are upstream's (available_controller.go).
func (a *aggregator) check(ctx context.Context, apiService *api.APIService, prev *backend) checkResult {
	ref := apiService.Spec.Service
	b := &backend{apiService: apiService}
	unavailable := func(reason, message string) checkResult {
		return checkResult{b, api.APIServiceCondition{Type: api.APIServiceAvailable, Status: api.ConditionFalse, Reason: reason, Message: message}}
	}
	svc, ok := a.service(ref.Namespace, ref.Name)
	if !ok {
		return unavailable("ServiceNotFound", fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace))
	}
	// Defaulting set the port (443 unless given) before validation let the
	// APIService in.
	port := *ref.Port
	targetPort, ok := loopbackPort(svc, port)
	if !ok {
		return unavailable("ServicePortError", fmt.Sprintf("service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port))
	}
	target := &url.URL{Scheme: "https", Host: "127.0.0.1:" + strconv.Itoa(int(targetPort))}
	transport, err := a.transportFor(apiService, prev)
	if err != nil {
		return unavailable("FailedDiscoveryCheck", fmt.Sprintf("failing or missing response from %s: %v", target, err))
	}
	b.url, b.transport = target, transport
	b.proxy = a.reverseProxy(b)
	discoveryURL := target.String() + "/apis/" + apiService.Spec.Group + "/" + apiService.Spec.Version
	list, err := fetchDiscovery(ctx, transport, discoveryURL)
	if err != nil {
		return unavailable("FailedDiscoveryCheck", fmt.Sprintf("failing or missing response from %s: %v", discoveryURL, err))
	}
	b.resources = list
	b.discovery = toDiscoveryResources(apiService.Spec.Group, apiService.Spec.Version, list.Resources)
	return checkResult{b, api.APIServiceCondition{Type: api.APIServiceAvailable, Status: api.ConditionTrue, Reason: "Passed", Message: "all checks passed"}}
}

// localAvailableCondition is the condition of every Local APIService.
func localAvailableCondition() api.APIServiceCondition {
	return api.APIServiceCondition{Type: api.APIServiceAvailable, Status: api.ConditionTrue, Reason: "Local", Message: "Local APIServices are always available"}
}

// service reads a Service from the watch cache.
func (a *aggregator) service(namespace, name string) (*api.Service, bool) {
	res := a.s.reg.byPluralAny["services"]
	e, ok := a.s.caches[res].Get(res.key(namespace, name))
	if !ok {
		return nil, false
	}
	return e.Object.(*storedObject).obj.(*api.Service), true
}

// loopbackPort finds the Service port whose `port` is port and returns its
// numeric targetPort: the loopback port the add-on listens on. A named
// targetPort would need a pod to resolve it, which an add-on process has
// not, so it does not count.
func loopbackPort(svc *api.Service, port int32) (int32, bool) {
	for _, p := range svc.Spec.Ports {
		if p.Port != port {
			continue
		}
		if p.TargetPort.Type == api.IntOrStringInt && p.TargetPort.IntVal > 0 {
			return p.TargetPort.IntVal, true
		}
		if p.TargetPort.IsZero() {
			return p.Port, true
		}
		return 0, false
	}
	return 0, false
}

// transportFor returns the transport for apiService's TLS settings: trust
// spec.caBundle (or nothing, with insecureSkipTLSVerify), expect the name
// <service>.<namespace>.svc, and present the apiserver's kubelet-client
// certificate, which upstream calls the proxy client certificate. It is
// prev's transport when prev had one for the same settings.
func (a *aggregator) transportFor(apiService *api.APIService, prev *backend) (*http.Transport, error) {
	if prev != nil && prev.transport != nil && sameTLSSettings(prev.apiService.Spec, apiService.Spec) {
		return prev.transport, nil
	}
	ref := apiService.Spec.Service
	serverName := ref.Name + "." + ref.Namespace + ".svc"
	config := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		ServerName:   serverName,
		Certificates: []tls.Certificate{a.s.pki.KubeletClientCert},
		// Without a caBundle nothing but insecureSkipTLSVerify can make
		// the backend trusted: the system roots do not sign add-ons.
		RootCAs:            x509.NewCertPool(),
		InsecureSkipVerify: apiService.Spec.InsecureSkipTLSVerify, // the APIService asks for it; upstream honours it too
	}
	if len(apiService.Spec.CABundle) > 0 && !config.RootCAs.AppendCertsFromPEM(apiService.Spec.CABundle) {
		return nil, errors.New("spec.caBundle holds no PEM certificate")
	}
	return &http.Transport{
		TLSClientConfig:     config,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}, nil
}

// sameTLSSettings says whether two APIService specs (both with a service)
// ask for the same transport: the same server name, caBundle and
// insecureSkipTLSVerify.
func sameTLSSettings(x, y api.APIServiceSpec) bool {
	return x.Service.Name == y.Service.Name && x.Service.Namespace == y.Service.Namespace &&
		x.InsecureSkipTLSVerify == y.InsecureSkipTLSVerify && bytes.Equal(x.CABundle, y.CABundle)
}

// closeIdleConnections closes the backends' idle connections, at shutdown.
func (a *aggregator) closeIdleConnections() {
	for _, b := range a.backends.Load().byGroupVersion {
		if b.transport != nil {
			b.transport.CloseIdleConnections()
		}
	}
}

// fetchDiscovery asks a backend for its APIResourceList as the aggregator
// itself (system:kube-aggregator in system:masters) and accepts only a 2xx
// answer that decodes.
func fetchDiscovery(ctx context.Context, transport http.RoundTripper, url string) (*apiResourceList, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	setRemoteUser(req.Header, auth.User{Name: aggregatorUser, Groups: []string{"system:masters"}})
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("bad status from %s: %d", url, resp.StatusCode)
	}
	var list apiResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decode the APIResourceList: %w", err)
	}
	return &list, nil
}

// writeCondition stores condition as apiService's Available condition when
// it differs from the stored one, stamping lastTransitionTime when the
// status flips, as upstream's SetAPIServiceCondition does.
func (a *aggregator) writeCondition(ctx context.Context, apiService *api.APIService, condition api.APIServiceCondition) error {
	for _, c := range apiService.Status.Conditions {
		if c.Type == condition.Type && c.Status == condition.Status && c.Reason == condition.Reason && c.Message == condition.Message {
			return nil
		}
	}
	res := a.s.reg.byPluralAny["apiservices"]
	_, err := a.s.guaranteedUpdate(ctx, res, "", apiService.Name, updateStatus, false, func(current *storedObject) (api.Object, error) {
		stored := current.obj.(*api.APIService)
		if !reflect.DeepEqual(stored.Spec, apiService.Spec) {
			// The spec moved since the check: the next sync checks again.
			return nil, errConditionStale
		}
		updated := &api.APIService{ObjectMeta: stored.ObjectMeta, Spec: stored.Spec}
		updated.Status.Conditions = setAPIServiceCondition(stored.Status.Conditions, condition, a.s.now())
		return updated, nil
	})
	if errors.Is(err, errConditionStale) || apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		a.s.log.Info("aggregator: APIService availability", "apiservice", apiService.Name,
			"available", condition.Status, "reason", condition.Reason, "message", condition.Message)
	}
	return err
}

// errConditionStale stops a status write computed for an older spec.
var errConditionStale = errors.New("apiservice spec changed during the check")

// setAPIServiceCondition returns conditions with condition in place of the
// one of its type; lastTransitionTime moves only when the status changes.
func setAPIServiceCondition(conditions []api.APIServiceCondition, condition api.APIServiceCondition, now api.Time) []api.APIServiceCondition {
	out := make([]api.APIServiceCondition, 0, len(conditions)+1)
	condition.LastTransitionTime = now
	replaced := false
	for _, c := range conditions {
		if c.Type != condition.Type {
			out = append(out, c)
			continue
		}
		if c.Status == condition.Status {
			condition.LastTransitionTime = c.LastTransitionTime
		}
		out = append(out, condition)
		replaced = true
	}
	if !replaced {
		out = append(out, condition)
	}
	return out
}
