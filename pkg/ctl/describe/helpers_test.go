package describe

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestEventInterval(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) api.Time { return api.NewTime(now.Add(-d)) }
	micro := func(d time.Duration) api.MicroTime { return api.MicroTime{Time: now.Add(-d)} }
	tests := []struct {
		name  string
		event api.Event
		want  string
	}{
		{"once", api.Event{Count: 1, FirstTimestamp: ago(15 * time.Minute), LastTimestamp: ago(15 * time.Minute)}, "15m"},
		{"repeated, as in the seed", api.Event{Count: 2, FirstTimestamp: ago(138 * time.Second), LastTimestamp: ago(64 * time.Second)}, "64s (x2 over 2m18s)"},
		{"series", api.Event{EventTime: micro(time.Hour), Series: &api.EventSeries{Count: 5, LastObservedTime: micro(30 * time.Second)}}, "30s (x5 over 60m)"},
		{"eventTime only", api.Event{EventTime: micro(3 * time.Second)}, "3s"},
		{"no time at all", api.Event{}, "<unknown>"},
		{"slightly in the future", api.Event{FirstTimestamp: api.NewTime(now.Add(time.Second))}, "0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EventInterval(tt.event, now); got != tt.want {
				t.Errorf("EventInterval = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSortEventsByLastSeen(t *testing.T) {
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	events := []api.Event{
		{Reason: "c", LastTimestamp: api.NewTime(base.Add(3 * time.Second))},
		{Reason: "a", EventTime: api.MicroTime{Time: base.Add(1 * time.Second)}},
		{Reason: "b", Series: &api.EventSeries{LastObservedTime: api.MicroTime{Time: base.Add(2 * time.Second)}}, LastTimestamp: api.NewTime(base.Add(9 * time.Second))},
	}
	SortEvents(events)
	var got []string
	for _, e := range events {
		got = append(got, e.Reason)
	}
	if strings.Join(got, "") != "abc" {
		t.Errorf("order = %v, want [a b c] (series time before lastTimestamp before eventTime)", got)
	}
}

func TestDescribeSortsEventsByLastTimestampOnly(t *testing.T) {
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	events := []api.Event{
		{Reason: "Pulling", LastTimestamp: api.NewTime(base)},
		{Reason: "Started", LastTimestamp: api.NewTime(base.Add(time.Second))},
		{Reason: "Scheduled", EventTime: api.MicroTime{Time: base.Add(500 * time.Millisecond)}},
	}
	sortByLastTimestamp(events)
	var got []string
	for _, e := range events {
		got = append(got, e.Reason)
	}
	if want := "Scheduled Pulling Started"; strings.Join(got, " ") != want {
		t.Errorf("order = %v, want %s (no lastTimestamp sorts first, as in kubectl describe)", got, want)
	}
}

func TestSmartLabel(t *testing.T) {
	tests := map[string]string{
		"apiVersion":           "API Version",
		"holderIdentity":       "Holder Identity",
		"uid":                  "UID",
		"leaseDurationSeconds": "Lease Duration Seconds",
		"involvedObject":       "Involved Object",
		"HTTPServer":           "HTTP Server",
		"ipv4":                 "ipv4",
		"kubernetes.io/x":      "kubernetes.io/x",
	}
	for in, want := range tests {
		if got := smartLabel(in); got != want {
			t.Errorf("smartLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatEndpointSlices(t *testing.T) {
	yes, no := true, false
	endpoint := func(ip string, ready *bool) api.Endpoint {
		return api.Endpoint{Addresses: []string{ip}, Conditions: api.EndpointConditions{Ready: ready}}
	}
	port := func(name string, number int32) api.EndpointSlicePort {
		return api.EndpointSlicePort{Name: &name, Port: &number}
	}
	withPorts := []api.EndpointSlice{{
		Endpoints: []api.Endpoint{endpoint("10.244.1.2", &yes), endpoint("10.244.1.3", nil), endpoint("10.244.9.9", &no)},
		Ports:     []api.EndpointSlicePort{port("http", 80), port("metrics", 9090)},
	}, {
		Endpoints: []api.Endpoint{endpoint("10.244.2.2", &yes), endpoint("10.244.2.3", &yes)},
		Ports:     []api.EndpointSlicePort{port("http", 80)},
	}}
	tests := []struct {
		name   string
		slices []api.EndpointSlice
		port   string
		want   string
	}{
		{"no slices", nil, "http", "<none>"},
		{"first three ready, then a count", withPorts, "http", "10.244.1.2:80,10.244.1.3:80,10.244.2.2:80 + 1 more..."},
		{"a port only one slice has", withPorts, "metrics", "10.244.1.2:9090,10.244.1.3:9090"},
		{"a port with no match", withPorts, "grpc", ""},
		{"the placeholder of a service without pods", []api.EndpointSlice{{}}, "http", ""},
		{"headless without ports", []api.EndpointSlice{{Endpoints: []api.Endpoint{endpoint("10.244.1.2", nil)}}}, "", "10.244.1.2"},
		// kubectl counts "more" before it skips a not-ready endpoint.
		{"three ready, then one not ready", []api.EndpointSlice{{
			Endpoints: []api.Endpoint{endpoint("10.244.1.2", &yes), endpoint("10.244.1.3", &yes), endpoint("10.244.1.4", &yes), endpoint("10.244.1.5", &no)},
			Ports:     []api.EndpointSlicePort{port("http", 80)},
		}}, "http", "10.244.1.2:80,10.244.1.3:80,10.244.1.4:80 + 0 more..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatEndpointSlices(tt.slices, tt.port); got != tt.want {
				t.Errorf("formatEndpointSlices = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitReplicaSets(t *testing.T) {
	yes := true
	template := func(image string) api.PodTemplateSpec {
		return api.PodTemplateSpec{
			ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: image}}},
		}
	}
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{UID: "d1"}, Spec: api.DeploymentSpec{Template: template("nginx:2")}}
	rs := func(name, ownerUID, image string, created int) api.ReplicaSet {
		t := template(image)
		t.Labels["pod-template-hash"] = name
		return api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Name: name, UID: name, CreationTimestamp: api.NewTime(time.Unix(int64(created), 0)),
				OwnerReferences: []api.OwnerReference{{UID: ownerUID, Controller: &yes}}},
			Spec: api.ReplicaSetSpec{Template: t},
		}
	}
	all := []api.ReplicaSet{
		rs("new-later", "d1", "nginx:2", 30),
		rs("old", "d1", "nginx:1", 10),
		rs("other-owner", "d2", "nginx:2", 5),
		rs("new", "d1", "nginx:2", 20),
	}
	old, newRS := splitReplicaSets(d, all)
	if newRS == nil || newRS.Name != "new" {
		t.Fatalf("new ReplicaSet = %v, want the oldest with the same template, \"new\"", newRS)
	}
	var names []string
	for _, r := range old {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "old,new-later" {
		t.Errorf("old ReplicaSets = %v, want [old new-later] (oldest first, other owners left out)", names)
	}
}

func TestPodQOS(t *testing.T) {
	q := api.MustParseQuantity
	container := func(req, lim api.ResourceList) api.Container {
		return api.Container{Resources: api.ResourceRequirements{Requests: req, Limits: lim}}
	}
	both := api.ResourceList{"cpu": q("100m"), "memory": q("64Mi")}
	tests := []struct {
		name       string
		containers []api.Container
		want       api.PodQOSClass
	}{
		{"nothing set", []api.Container{container(nil, nil)}, api.PodQOSBestEffort},
		{"limits equal requests", []api.Container{container(both, both)}, api.PodQOSGuaranteed},
		{"only requests", []api.Container{container(both, nil)}, api.PodQOSBurstable},
		{"one container without limits", []api.Container{container(both, both), container(nil, nil)}, api.PodQOSBurstable},
		{"extended resources do not count", []api.Container{container(api.ResourceList{"example.com/gpu": q("1")}, nil)}, api.PodQOSBestEffort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{Containers: tt.containers}}
			if got := podQOS(pod); got != tt.want {
				t.Errorf("podQOS = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPodRequests(t *testing.T) {
	q := api.MustParseQuantity
	always := api.ContainerRestartPolicyAlways
	req := func(cpu string) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{"cpu": q(cpu)}}
	}
	tests := []struct {
		name string
		spec api.PodSpec
		want string
	}{
		{"sum of containers", api.PodSpec{Containers: []api.Container{{Resources: req("100m")}, {Resources: req("200m")}}}, "300m"},
		{"a larger init container wins", api.PodSpec{
			InitContainers: []api.Container{{Resources: req("500m")}},
			Containers:     []api.Container{{Resources: req("100m")}},
		}, "500m"},
		{"a sidecar adds to the containers", api.PodSpec{
			InitContainers: []api.Container{{Resources: req("50m"), RestartPolicy: &always}},
			Containers:     []api.Container{{Resources: req("100m")}},
		}, "150m"},
		{"overhead is added", api.PodSpec{
			Containers: []api.Container{{Resources: req("100m")}},
			Overhead:   api.ResourceList{"cpu": q("10m")},
		}, "110m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := podRequests(&api.Pod{Spec: tt.spec})[api.ResourceCPU]
			if got.String() != tt.want {
				t.Errorf("cpu request = %s, want %s", got.String(), tt.want)
			}
		})
	}
}

// TestTabbedAlignment checks the column rules the whole output relies
// on: consecutive "label:\tvalue" lines share a column, and a line
// without a tab starts a new block.
func TestTabbedAlignment(t *testing.T) {
	got := tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", "x")
		w.write(level0, "Annotations:\t%s\n", "a")
		w.write(level0, "Section:\n")
		w.write(level1, "Key:\t%s\n", "v")
	})
	want := "Name:         x\nAnnotations:  a\nSection:\n  Key:  v\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
