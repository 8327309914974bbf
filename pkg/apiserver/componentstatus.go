package apiserver

// This file serves core/v1 componentstatuses, `kubectl get cs`: the
// apiserver probes the scheduler, the controller-manager and etcd at the
// moment of the request and answers with what it found. Nothing is stored;
// the resource has get and list and no other verb.
//
// Upstream probes fixed ports on its own host (10259 for the scheduler,
// 10257 for the controller-manager) and each etcd server, which is why the
// API was deprecated in v1.19: on a control plane spread over machines it
// cannot see the others. kplane's components listen on ports the kernel
// picks, so the apiserver reads where they are from the files they
// announce themselves in, <data-dir>/debug/<component>.json, the ones `ctl`
// reads too, and probes each one's /healthz as upstream does.
//
//	NAME                 STATUS    MESSAGE   ERROR
//	scheduler            Healthy   ok
//	controller-manager   Healthy   ok
//	etcd-0               Healthy   ok

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/debug"
)

// componentStatusWarning is the warning upstream sends with every
// componentstatuses answer; kubectl prints it before the table.
const componentStatusWarning = "v1 ComponentStatus is deprecated in v1.19+"

// componentStatusesPath is the resource's collection path.
const componentStatusesPath = "/api/v1/componentstatuses"

// componentProbeTimeout bounds one probe, so a hung component costs a
// `kubectl get cs` seconds, not upstream's 20.
const componentProbeTimeout = 5 * time.Second

// probeClient makes the probes' requests: one connection per probe, none
// kept open between `kubectl get cs` calls.
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// componentProbe is one component componentstatuses reports on: its name
// in the list and how to check it.
type componentProbe struct {
	name  string
	check func(context.Context) api.ComponentCondition
}

// routeComponentStatuses routes GET of the collection and of one item, and
// answers every other method with 405, as upstream does for a resource
// whose storage only reads.
func (s *Server) routeComponentStatuses(r chi.Router) {
	r.Get(componentStatusesPath, s.serveComponentStatusList)
	r.Get(componentStatusesPath+"/{name}", s.serveComponentStatus)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		r.MethodFunc(method, componentStatusesPath, serveMethodNotAllowed)
		r.MethodFunc(method, componentStatusesPath+"/{name}", serveMethodNotAllowed)
	}
}

// serveComponentStatusList probes every component at once and lists the
// results in a fixed order, filtered by the request's selectors.
func (s *Server) serveComponentStatusList(w http.ResponseWriter, r *http.Request) {
	res := s.componentStatusResource()
	if queryOf(r).bool("watch") {
		response.WriteError(w, apierrors.NewMethodNotSupported(res.qualified(), "watch"))
		return
	}
	sel, err := parseSelectors(r, res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	probes := s.componentProbes()
	statuses := make([]*api.ComponentStatus, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() { statuses[i] = runComponentProbe(r.Context(), p) })
	}
	wg.Wait()
	var items []*storedObject
	for _, cs := range statuses {
		if so := componentStatusObject(res, cs); sel.matches(so) {
			items = append(items, so)
		}
	}
	addWarnings(w, []string{componentStatusWarning})
	if response.TableRequested(r) {
		response.WriteJSONAs(w, response.ContentTypeTable, s.table(res, items, queryOf(r).string("includeObject"), true))
		return
	}
	list := api.List[*api.ComponentStatus]{TypeMeta: api.TypeMeta{Kind: "ComponentStatusList", APIVersion: "v1"},
		Items: []*api.ComponentStatus{}}
	for _, so := range items {
		list.Items = append(list.Items, so.obj.(*api.ComponentStatus))
	}
	response.WriteJSON(w, http.StatusOK, list)
}

// serveComponentStatus probes one component; a name kplane does not
// report on is 404, as upstream.
func (s *Server) serveComponentStatus(w http.ResponseWriter, r *http.Request) {
	res := s.componentStatusResource()
	name := chi.URLParam(r, "name")
	probes := s.componentProbes()
	i := slices.IndexFunc(probes, func(p componentProbe) bool { return p.name == name })
	if i < 0 {
		response.WriteError(w, apierrors.NewNotFound(apierrors.Resource{Resource: res.singular}, name))
		return
	}
	addWarnings(w, []string{componentStatusWarning})
	so := componentStatusObject(res, runComponentProbe(r.Context(), probes[i]))
	if response.TableRequested(r) {
		response.WriteJSONAs(w, response.ContentTypeTable, s.table(res, []*storedObject{so}, queryOf(r).string("includeObject"), true))
		return
	}
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, so.raw)
}

// componentStatusResource is the registry's componentstatuses resource.
func (s *Server) componentStatusResource() *resource {
	i := slices.IndexFunc(s.reg.virtual, func(r *resource) bool { return r.probed })
	return s.reg.virtual[i]
}

// componentProbes lists what componentstatuses reports on, in the order
// it lists them: the scheduler, every controller-manager (one, or one per
// control-plane "node" in an HA layout), and each etcd member.
func (s *Server) componentProbes() []componentProbe {
	dir := filepath.Join(s.opts.DataDir, debug.EndpointsDir)
	probes := []componentProbe{announcedHealthProbe(dir, "scheduler")}
	for _, name := range controllerManagersIn(dir) {
		probes = append(probes, announcedHealthProbe(dir, name))
	}
	if len(s.opts.EtcdServers) == 0 {
		probes = append(probes, componentProbe{name: "etcd-0", check: func(ctx context.Context) api.ComponentCondition {
			if _, err := s.store.CurrentRevision(ctx); err != nil {
				return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionFalse, Error: err.Error()}
			}
			return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionTrue, Message: "ok"}
		}})
	}
	for i, url := range s.opts.EtcdServers {
		probes = append(probes, componentProbe{name: "etcd-" + strconv.Itoa(i), check: func(ctx context.Context) api.ComponentCondition {
			return etcdMemberHealth(ctx, url)
		}})
	}
	return probes
}

// controllerManagersIn names the controller-managers announced in dir:
// "controller-manager" always (reported Unhealthy when it never
// announced itself), then controller-manager-2, -3, … of an HA layout.
func controllerManagersIn(dir string) []string {
	names := []string{"controller-manager"}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		if n, ok := strings.CutPrefix(name, "controller-manager-"); ok && name != e.Name() {
			if _, err := strconv.Atoi(n); err == nil {
				names = append(names, name)
			}
		}
	}
	return names
}

// announcedHealthProbe checks component by GET /healthz at the URL it
// announced in dir. As upstream's HTTP probe, a 2xx answer is healthy
// with the body as message, any other status or a refused connection is
// unhealthy with the reason as message.
func announcedHealthProbe(dir, component string) componentProbe {
	return componentProbe{name: component, check: func(ctx context.Context) api.ComponentCondition {
		unhealthy := func(message string) api.ComponentCondition {
			return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionFalse, Message: message}
		}
		endpoint, err := readEndpoint(filepath.Join(dir, component+".json"))
		if err != nil {
			return unhealthy(err.Error())
		}
		body, code, err := httpGet(ctx, endpoint.URL+"/healthz")
		switch {
		case err != nil:
			return unhealthy(err.Error())
		case code < 200 || code >= 400:
			return unhealthy(fmt.Sprintf("HTTP probe failed with statuscode: %d", code))
		}
		return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionTrue, Message: body}
	}}
}

// readEndpoint reads the address a component announced in path.
func readEndpoint(path string) (debug.Endpoint, error) {
	var e debug.Endpoint
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return e, fmt.Errorf("no address announced in %s: the component has not started here", path)
	}
	if err != nil {
		return e, fmt.Errorf("read the announced address: %w", err)
	}
	if err := json.Unmarshal(data, &e); err != nil || e.URL == "" {
		return e, fmt.Errorf("read the announced address in %s: no url", path)
	}
	return e, nil
}

// etcdMemberHealth asks one etcd member its /health, as `etcdctl endpoint
// health` does: healthy when it answers {"health":"true"}.
func etcdMemberHealth(ctx context.Context, clientURL string) api.ComponentCondition {
	body, code, err := httpGet(ctx, strings.TrimSuffix(clientURL, "/")+"/health")
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("etcd answered %d: %s", code, body)
	}
	var health struct {
		Health string `json:"health"`
		Reason string `json:"reason"`
	}
	if err == nil {
		if jsonErr := json.Unmarshal([]byte(body), &health); jsonErr != nil || health.Health != "true" {
			err = fmt.Errorf("etcd is not healthy: %s", body)
		}
	}
	if err != nil {
		return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionFalse, Error: err.Error()}
	}
	return api.ComponentCondition{Type: api.ComponentHealthy, Status: api.ConditionTrue, Message: "ok"}
}

// httpGet fetches url within componentProbeTimeout and returns the body
// (its first 10 KiB, as upstream's prober reads) and the status code.
func httpGet(ctx context.Context, url string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, componentProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 10<<10))
	if err != nil {
		return "", 0, err
	}
	return string(body), resp.StatusCode, nil
}

// runComponentProbe runs p and wraps its condition as the ComponentStatus
// named after it.
func runComponentProbe(ctx context.Context, p componentProbe) *api.ComponentStatus {
	return &api.ComponentStatus{
		TypeMeta:   api.TypeMeta{Kind: "ComponentStatus", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: p.name},
		Conditions: []api.ComponentCondition{p.check(ctx)},
	}
}

// componentStatusObject wraps cs the way stored objects travel through
// the read path, so the list's selectors and tables apply to it unchanged.
func componentStatusObject(res *resource, cs *api.ComponentStatus) *storedObject {
	raw, err := json.Marshal(cs)
	if err != nil {
		panic("componentstatus: marshal: " + err.Error()) // plain strings always marshal
	}
	return &storedObject{res: res, obj: cs, raw: raw,
		fields: map[string]string{"metadata.name": cs.Name, "metadata.namespace": ""}}
}
