package endpoints

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

// asJSON prints subsets for failure messages and compares them as the
// apiserver would store them.
func asJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func TestDesiredSubsets(t *testing.T) {
	named := api.ServicePort{Name: "http", Port: 80, TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP}
	metrics := api.ServicePort{Name: "metrics", Port: 9090, TargetPort: api.FromString("metrics"), Protocol: api.ProtocolTCP}
	withMetrics := controllertest.WithPorts(
		api.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP},
		api.ContainerPort{Name: "metrics", ContainerPort: 9100, Protocol: api.ProtocolTCP},
	)
	tests := []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want []api.EndpointSubset
	}{
		{
			name: "no pods",
			svc:  controllertest.WebService(),
			want: nil,
		},
		{
			name: "ready and not ready pods share a subset, sorted by IP",
			svc:  controllertest.WebService(),
			pods: []*api.Pod{
				controllertest.WebPod("c", "10.244.1.9"),
				controllertest.WebPod("a", "10.244.1.10"),
				controllertest.WebPod("b", "10.244.2.3", controllertest.NotReady),
			},
			want: []api.EndpointSubset{{
				Addresses:         []api.EndpointAddress{addr("a", "10.244.1.10"), addr("c", "10.244.1.9")},
				NotReadyAddresses: []api.EndpointAddress{addr("b", "10.244.2.3")},
				Ports:             []api.EndpointPort{tcp("http", 8080)},
			}},
		},
		{
			name: "pods without IP, finished or terminating are left out",
			svc:  controllertest.WebService(),
			pods: []*api.Pod{
				controllertest.WebPod("a", "10.244.1.2"),
				controllertest.WebPod("pending", "", controllertest.NoIP, controllertest.InPhase(api.PodPending)),
				controllertest.WebPod("done", "10.244.1.3", controllertest.InPhase(api.PodSucceeded)),
				controllertest.WebPod("leaving", "10.244.1.4", controllertest.Terminating),
			},
			want: []api.EndpointSubset{{
				Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")},
				Ports:     []api.EndpointPort{tcp("http", 8080)},
			}},
		},
		{
			name: "publishNotReadyAddresses lists every pod as ready, terminating ones too",
			svc:  controllertest.WebService(controllertest.PublishNotReady),
			pods: []*api.Pod{
				controllertest.WebPod("a", "10.244.1.2", controllertest.NotReady),
				controllertest.WebPod("b", "10.244.1.3", controllertest.Terminating),
			},
			want: []api.EndpointSubset{{
				Addresses: []api.EndpointAddress{addr("a", "10.244.1.2"), addr("b", "10.244.1.3")},
				Ports:     []api.EndpointPort{tcp("http", 8080)},
			}},
		},
		{
			name: "named target port resolved per pod",
			svc:  controllertest.WebService(controllertest.ServicePorts(named)),
			pods: []*api.Pod{
				controllertest.WebPod("a", "10.244.1.2"),
				controllertest.WebPod("b", "10.244.1.3",
					controllertest.WithPorts(api.ContainerPort{Name: "http", ContainerPort: 9376, Protocol: api.ProtocolTCP})),
				controllertest.WebPod("c", "10.244.1.4",
					controllertest.WithPorts(api.ContainerPort{Name: "other", ContainerPort: 1, Protocol: api.ProtocolTCP})),
			},
			want: []api.EndpointSubset{
				{Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, Ports: []api.EndpointPort{tcp("http", 8080)}},
				{Addresses: []api.EndpointAddress{addr("b", "10.244.1.3")}, Ports: []api.EndpointPort{tcp("http", 9376)}},
			},
		},
		{
			name: "pods with the same port set share a subset; one lacking a port gets its own",
			svc:  controllertest.WebService(controllertest.ServicePorts(named, metrics)),
			pods: []*api.Pod{
				controllertest.WebPod("a", "10.244.1.2", withMetrics),
				controllertest.WebPod("b", "10.244.1.3", withMetrics, controllertest.NotReady),
				controllertest.WebPod("c", "10.244.1.4"), // http only
			},
			want: []api.EndpointSubset{
				{
					Addresses:         []api.EndpointAddress{addr("a", "10.244.1.2"), addr("c", "10.244.1.4")},
					NotReadyAddresses: []api.EndpointAddress{addr("b", "10.244.1.3")},
					Ports:             []api.EndpointPort{tcp("http", 8080)},
				},
				{
					Addresses:         []api.EndpointAddress{addr("a", "10.244.1.2")},
					NotReadyAddresses: []api.EndpointAddress{addr("b", "10.244.1.3")},
					Ports:             []api.EndpointPort{tcp("metrics", 9100)},
				},
			},
		},
		{
			name: "two ports offered by every pod share a subset",
			svc: controllertest.WebService(controllertest.ServicePorts(
				api.ServicePort{Name: "http", Port: 80, TargetPort: api.FromInt(8080), Protocol: api.ProtocolTCP},
				api.ServicePort{Name: "dns", Port: 53, TargetPort: api.FromInt(53), Protocol: api.ProtocolUDP},
			)),
			pods: []*api.Pod{controllertest.WebPod("b", "10.244.1.3"), controllertest.WebPod("a", "10.244.1.2")},
			want: []api.EndpointSubset{{
				Addresses: []api.EndpointAddress{addr("a", "10.244.1.2"), addr("b", "10.244.1.3")},
				Ports:     []api.EndpointPort{{Name: "dns", Port: 53, Protocol: api.ProtocolUDP}, tcp("http", 8080)},
			}},
		},
		{
			name: "headless service without ports lists addresses alone, with hostnames",
			svc:  controllertest.WebService(controllertest.Headless, controllertest.ServicePorts()),
			pods: []*api.Pod{
				controllertest.WebPod("web-1", "10.244.1.3", controllertest.WithHostname("web-1", "web")),
				controllertest.WebPod("web-0", "10.244.1.2", controllertest.WithHostname("web-0", "web"), controllertest.NotReady),
			},
			want: []api.EndpointSubset{{
				Addresses: []api.EndpointAddress{func() api.EndpointAddress {
					a := addr("web-1", "10.244.1.3")
					a.Hostname = "web-1"
					return a
				}()},
				NotReadyAddresses: []api.EndpointAddress{func() api.EndpointAddress {
					a := addr("web-0", "10.244.1.2")
					a.Hostname = "web-0"
					return a
				}()},
			}},
		},
		{
			name: "a ClusterIP service without ports lists nothing",
			svc:  controllertest.WebService(controllertest.ServicePorts()),
			pods: []*api.Pod{controllertest.WebPod("a", "10.244.1.2")},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := desiredSubsets(tc.svc, tc.pods)
			if asJSON(got) != asJSON(tc.want) {
				t.Fatalf("got %s\nwant %s", asJSON(got), asJSON(tc.want))
			}
			// The same pods in another order give the same bytes.
			reversed := slices.Clone(tc.pods)
			slices.Reverse(reversed)
			if again := desiredSubsets(tc.svc, reversed); asJSON(again) != asJSON(got) {
				t.Fatalf("order-dependent result:\n%s\nvs\n%s", asJSON(again), asJSON(got))
			}
		})
	}
}

func TestRepackSubsets(t *testing.T) {
	a, b := addr("a", "10.244.1.2"), addr("b", "10.244.1.3")
	t.Run("not ready on one subset wins for that port", func(t *testing.T) {
		ready := api.EndpointSubset{Addresses: []api.EndpointAddress{a, b}, Ports: []api.EndpointPort{tcp("http", 80)}}
		notReady := api.EndpointSubset{NotReadyAddresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{tcp("http", 80)}}
		want := []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{b}, NotReadyAddresses: []api.EndpointAddress{a},
			Ports: []api.EndpointPort{tcp("http", 80)},
		}}
		for _, in := range [][]api.EndpointSubset{{ready, notReady}, {notReady, ready}} {
			if got := repackSubsets(in); asJSON(got) != asJSON(want) {
				t.Fatalf("got %s\nwant %s", asJSON(got), asJSON(want))
			}
		}
	})
	t.Run("duplicates merge, split subsets join", func(t *testing.T) {
		got := repackSubsets([]api.EndpointSubset{
			{Addresses: []api.EndpointAddress{b}, Ports: []api.EndpointPort{tcp("https", 443)}},
			{Addresses: []api.EndpointAddress{a, b}, Ports: []api.EndpointPort{tcp("http", 80)}},
			{Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{tcp("https", 443)}},
			{Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{tcp("http", 80)}},
		})
		want := []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{a, b},
			Ports:     []api.EndpointPort{tcp("http", 80), tcp("https", 443)},
		}}
		if asJSON(got) != asJSON(want) {
			t.Fatalf("got %s\nwant %s", asJSON(got), asJSON(want))
		}
	})
	t.Run("same IP, different pods stay apart", func(t *testing.T) {
		other := addr("other", "10.244.1.2")
		got := repackSubsets([]api.EndpointSubset{
			{Addresses: []api.EndpointAddress{other, a}, Ports: []api.EndpointPort{tcp("http", 80)}},
		})
		if n := len(got[0].Addresses); n != 2 {
			t.Fatalf("got %d addresses, want 2: %s", n, asJSON(got))
		}
	})
	t.Run("nothing in, nothing out", func(t *testing.T) {
		if got := repackSubsets(nil); got != nil {
			t.Fatalf("got %s, want nil", asJSON(got))
		}
	})
}

func TestSubsetsEqual(t *testing.T) {
	one := []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, Ports: []api.EndpointPort{tcp("http", 80)}}}
	changed := []api.EndpointSubset{{NotReadyAddresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, Ports: []api.EndpointPort{tcp("http", 80)}}}
	withEmpty := []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, NotReadyAddresses: []api.EndpointAddress{}, Ports: []api.EndpointPort{tcp("http", 80)}}}
	tests := []struct {
		name string
		a, b []api.EndpointSubset
		want bool
	}{
		{"nil and empty", nil, []api.EndpointSubset{}, true},
		{"same", one, api.DeepCopyValue(one), true},
		{"empty list inside equals nil", one, withEmpty, true},
		{"readiness differs", one, changed, false},
		{"one is empty", one, nil, false},
	}
	for _, tc := range tests {
		if got := subsetsEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDesiredLabels(t *testing.T) {
	if got, want := desiredLabels(controllertest.WebService()), map[string]string{"team": "shop"}; !maps.Equal(got, want) {
		t.Errorf("ClusterIP service: labels %v, want %v", got, want)
	}
	headless := controllertest.WebService(controllertest.Headless)
	if got, want := desiredLabels(headless), map[string]string{"team": "shop", headlessLabel: ""}; !maps.Equal(got, want) {
		t.Errorf("headless service: labels %v, want %v", got, want)
	}
	svc := controllertest.WebService()
	desiredLabels(svc)["x"] = "y"
	if _, ok := svc.Labels["x"]; ok {
		t.Error("desiredLabels returned the service's own map")
	}
}
