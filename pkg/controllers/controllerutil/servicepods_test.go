package controllerutil_test

// An external test package: the pod and Service fixtures live in
// test/framework/controllertest, which imports this package.

import (
	"log/slog"
	"maps"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
)

// serviceCache is a lister over services, as the informer's would be.
func serviceCache(t *testing.T, services ...*api.Service) *informer.Lister[*api.Service] {
	t.Helper()
	idx := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.StandardIndexers())
	for _, s := range services {
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return informer.NewLister[*api.Service](idx, apierrors.Resource{Resource: "services"})
}

// selecting is WebService renamed name, with selector.
func selecting(name string, selector map[string]string) *api.Service {
	s := controllertest.WebService()
	s.Name, s.Spec.Selector = name, selector
	return s
}

func TestServicesToUpdateOnPodChange(t *testing.T) {
	lister := serviceCache(t,
		selecting("web", map[string]string{"app": "web"}),
		selecting("canary", map[string]string{"app": "web", "track": "canary"}),
		selecting("api", map[string]string{"app": "api"}),
		selecting("manual", nil), // no selector: never ours
	)
	base := controllertest.WebPod("p", "10.244.1.2")
	next := func(change controllertest.PodOption) *api.Pod {
		p := api.DeepCopy(base)
		p.ResourceVersion = "2"
		if change != nil {
			change(p)
		}
		return p
	}
	tests := []struct {
		name   string
		newPod *api.Pod
		want   []string
	}{
		{"resync (same resourceVersion)", api.DeepCopy(base), nil},
		{"annotation only", next(func(p *api.Pod) { p.Annotations = map[string]string{"x": "y"} }), nil},
		{"became not ready", next(controllertest.NotReady), []string{"default/web"}},
		{"marked for deletion", next(controllertest.Terminating), []string{"default/web"}},
		{"new IP", next(func(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "10.244.9.9", []api.PodIP{{IP: "10.244.9.9"}} }), []string{"default/web"}},
		{"joined canary: only canary", next(controllertest.WithLabels(map[string]string{"app": "web", "track": "canary"})), []string{"default/canary"}},
		{"moved to api: left web, joined api", next(controllertest.WithLabels(map[string]string{"app": "api"})), []string{"default/api", "default/web"}},
		{"moved and not ready: old and new", next(func(p *api.Pod) {
			p.Labels = map[string]string{"app": "web", "track": "canary"}
			controllertest.NotReady(p)
		}), []string{"default/canary", "default/web"}},
	}
	for _, tc := range tests {
		got, err := controllerutil.ServicesToUpdateOnPodChange(lister.Namespace("default"), base, tc.newPod)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
			t.Errorf("%s: services %v, want %v", tc.name, keys, tc.want)
		}
	}
}

func TestServicesForPodStaysInNamespace(t *testing.T) {
	elsewhere := selecting("web", map[string]string{"app": "web"})
	elsewhere.Namespace = "other"
	lister := serviceCache(t, selecting("web", map[string]string{"app": "web"}), elsewhere)
	got, err := controllerutil.ServicesForPod(lister.Namespace("default"), controllertest.WebPod("p", "10.244.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"default/web"}) {
		t.Fatalf("services %v, want [default/web]", keys)
	}
}

// Each pod event queues the keys of the Services it concerns; an update
// no endpoint shows queues nothing, and a tombstone is unwrapped.
func TestServicePodHandlers(t *testing.T) {
	lister := serviceCache(t, controllertest.WebService(), selecting("other", map[string]string{"app": "other"}))
	var queued []string
	handlers := controllerutil.ServicePodHandlers(lister, func(key string) { queued = append(queued, key) }, slog.New(slog.DiscardHandler))
	expect := func(what string, want ...string) {
		t.Helper()
		slices.Sort(queued)
		if !slices.Equal(queued, want) {
			t.Errorf("%s queued %v, want %v", what, queued, want)
		}
		queued = nil
	}

	pod := controllertest.WebPod("a", "10.244.1.2")
	handlers.OnAdd(pod, false)
	expect("add", "default/web")
	moved := api.DeepCopy(pod)
	moved.ResourceVersion, moved.Labels = "2", map[string]string{"app": "other"}
	handlers.OnUpdate(pod, moved)
	expect("update (labels)", "default/other", "default/web")
	annotated := api.DeepCopy(pod)
	annotated.ResourceVersion, annotated.Annotations = "3", map[string]string{"x": "y"}
	handlers.OnUpdate(pod, annotated)
	expect("update (annotation only)")
	handlers.OnDelete(pod)
	expect("delete", "default/web")
	handlers.OnDelete(informer.DeletedFinalStateUnknown{Key: "default/a", Obj: pod})
	expect("delete (tombstone)", "default/web")
	handlers.OnAdd(&api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}, false)
	expect("add of something not a pod")
}

func TestFindPort(t *testing.T) {
	always := api.ContainerRestartPolicyAlways
	pod := controllertest.WebPod("a", "10.244.1.2", controllertest.WithPorts(
		api.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP},
		api.ContainerPort{Name: "dns", ContainerPort: 5353, Protocol: api.ProtocolUDP},
		api.ContainerPort{Name: "plain", ContainerPort: 9000}, // protocol unset means TCP
	))
	pod.Spec.InitContainers = []api.Container{
		{Name: "setup", Ports: []api.ContainerPort{{Name: "setup", ContainerPort: 7000, Protocol: api.ProtocolTCP}}},
		{Name: "proxy", RestartPolicy: &always, Ports: []api.ContainerPort{{Name: "proxy", ContainerPort: 15001, Protocol: api.ProtocolTCP}}},
	}
	tests := []struct {
		name     string
		svcPort  api.ServicePort
		want     int32
		wantFind bool
	}{
		{"number", api.ServicePort{Port: 80, TargetPort: api.FromInt(8081), Protocol: api.ProtocolTCP}, 8081, true},
		{"unset means the service port", api.ServicePort{Port: 80, Protocol: api.ProtocolTCP}, 80, true},
		{"name", api.ServicePort{Port: 80, TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP}, 8080, true},
		{"name needs the same protocol", api.ServicePort{Port: 53, TargetPort: api.FromString("dns"), Protocol: api.ProtocolTCP}, 0, false},
		{"name with UDP", api.ServicePort{Port: 53, TargetPort: api.FromString("dns"), Protocol: api.ProtocolUDP}, 5353, true},
		{"unset protocols are TCP", api.ServicePort{Port: 90, TargetPort: api.FromString("plain")}, 9000, true},
		{"missing name", api.ServicePort{Port: 80, TargetPort: api.FromString("metrics"), Protocol: api.ProtocolTCP}, 0, false},
		{"sidecar port", api.ServicePort{Port: 80, TargetPort: api.FromString("proxy"), Protocol: api.ProtocolTCP}, 15001, true},
		{"plain init container port is not served", api.ServicePort{Port: 80, TargetPort: api.FromString("setup"), Protocol: api.ProtocolTCP}, 0, false},
	}
	for _, tc := range tests {
		got, ok := controllerutil.FindPort(pod, &tc.svcPort)
		if got != tc.want || ok != tc.wantFind {
			t.Errorf("%s: FindPort = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.wantFind)
		}
	}
}

// PodIPs reads status.podIPs, falling back to the single status.podIP.
func TestPodIPs(t *testing.T) {
	dual := controllertest.WebPod("a", "10.244.1.2", func(p *api.Pod) {
		p.Status.PodIPs = []api.PodIP{{IP: "10.244.1.2"}, {IP: "fd00::2"}}
	})
	onlyPodIP := controllertest.WebPod("b", "10.244.1.3", func(p *api.Pod) { p.Status.PodIPs = nil })
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		want []string
	}{
		{"dual-stack", dual, []string{"10.244.1.2", "fd00::2"}},
		{"only podIP", onlyPodIP, []string{"10.244.1.3"}},
		{"none", controllertest.WebPod("c", "", controllertest.NoIP), nil},
	} {
		if got := controllerutil.PodIPs(tc.pod); !slices.Equal(got, tc.want) {
			t.Errorf("%s: PodIPs = %v, want %v", tc.name, got, tc.want)
		}
	}
}
