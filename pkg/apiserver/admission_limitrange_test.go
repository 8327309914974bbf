package apiserver

import (
	"testing"

	"kplane/pkg/api"
)

// resources builds a ResourceList from name/amount pairs.
func resources(pairs ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[pairs[i]] = api.MustParseQuantity(pairs[i+1])
	}
	return l
}

// limitRange builds a defaulted LimitRange, as admission reads it from storage.
func limitRange(items ...api.LimitRangeItem) *api.LimitRange {
	lr := &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "limits", Namespace: "default"}, Spec: api.LimitRangeSpec{Limits: items}}
	api.SetDefaults(lr)
	return lr
}

// A container that sets nothing gets default limits and, from
// defaultRequest, requests; what a container sets itself stays; the
// annotation lists what was set, per container, in upstream's words.
func TestApplyLimitRangeDefaults(t *testing.T) {
	lr := limitRange(api.LimitRangeItem{Type: api.LimitTypeContainer,
		Default:        resources("cpu", "500m", "memory", "256Mi"),
		DefaultRequest: resources("cpu", "100m", "memory", "128Mi")})
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.PodSpec{
		InitContainers: []api.Container{{Name: "setup", Resources: api.ResourceRequirements{
			Limits: resources("cpu", "1", "memory", "64Mi"), Requests: resources("cpu", "1", "memory", "64Mi")}}},
		Containers: []api.Container{
			{Name: "web"},
			{Name: "sidecar", Resources: api.ResourceRequirements{Requests: resources("cpu", "50m")}},
		}}}
	applyLimitRangeDefaults(lr, pod)

	check := func(c api.Container, wantRequests, wantLimits api.ResourceList) {
		t.Helper()
		for name, want := range wantRequests {
			if got := c.Resources.Requests[name]; got.Cmp(want) != 0 {
				t.Errorf("container %s: request %s = %s, want %s", c.Name, name, got.String(), want.String())
			}
		}
		for name, want := range wantLimits {
			if got := c.Resources.Limits[name]; got.Cmp(want) != 0 {
				t.Errorf("container %s: limit %s = %s, want %s", c.Name, name, got.String(), want.String())
			}
		}
	}
	check(pod.Spec.Containers[0], resources("cpu", "100m", "memory", "128Mi"), resources("cpu", "500m", "memory", "256Mi"))
	check(pod.Spec.Containers[1], resources("cpu", "50m", "memory", "128Mi"), resources("cpu", "500m", "memory", "256Mi"))
	check(pod.Spec.InitContainers[0], resources("cpu", "1", "memory", "64Mi"), resources("cpu", "1", "memory", "64Mi"))

	want := "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web; " +
		"memory request for container sidecar; cpu, memory limit for container sidecar"
	if got := pod.Annotations[limitRangerAnnotation]; got != want {
		t.Errorf("annotation =\n  %q\nwant\n  %q", got, want)
	}
}

// A pod whose containers set everything is left without the annotation.
func TestApplyLimitRangeDefaultsNothingToSet(t *testing.T) {
	lr := limitRange(api.LimitRangeItem{Type: api.LimitTypeContainer, Default: resources("cpu", "500m")})
	pod := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Resources: api.ResourceRequirements{
		Limits: resources("cpu", "200m"), Requests: resources("cpu", "200m")}}}}}
	applyLimitRangeDefaults(lr, pod)
	if _, ok := pod.Annotations[limitRangerAnnotation]; ok {
		t.Errorf("annotation set although nothing was defaulted: %q", pod.Annotations[limitRangerAnnotation])
	}
	if got := pod.Spec.Containers[0].Resources.Limits["cpu"]; got.String() != "200m" {
		t.Errorf("the container's own limit became %s", got.String())
	}
}

// Each refusal carries upstream's message word for word.
func TestValidatePodAgainstLimitRange(t *testing.T) {
	container := func(requests, limits api.ResourceList) api.Container {
		return api.Container{Name: "web", Resources: api.ResourceRequirements{Requests: requests, Limits: limits}}
	}
	tests := []struct {
		name       string
		item       api.LimitRangeItem
		containers []api.Container
		init       []api.Container
		want       string
	}{
		{"within bounds", api.LimitRangeItem{Type: api.LimitTypeContainer, Min: resources("cpu", "100m"), Max: resources("cpu", "1")},
			[]api.Container{container(resources("cpu", "200m"), resources("cpu", "500m"))}, nil, ""},
		{"limit over max", api.LimitRangeItem{Type: api.LimitTypeContainer, Max: resources("cpu", "500m")},
			[]api.Container{container(resources("cpu", "200m"), resources("cpu", "1"))}, nil,
			"maximum cpu usage per Container is 500m, but limit is 1"},
		{"request over max", api.LimitRangeItem{Type: api.LimitTypeContainer, Max: resources("memory", "1Gi")},
			[]api.Container{container(resources("memory", "2Gi"), resources("memory", "1Gi"))}, nil,
			"maximum memory usage per Container is 1Gi, but request is 2Gi"},
		{"no limit against a max", api.LimitRangeItem{Type: api.LimitTypeContainer, Max: resources("cpu", "500m"), Default: resources("cpu", "500m")},
			[]api.Container{{Name: "web", Resources: api.ResourceRequirements{Limits: api.ResourceList{}}}}, nil,
			"maximum cpu usage per Container is 500m.  No limit is specified"},
		{"request under min", api.LimitRangeItem{Type: api.LimitTypeContainer, Min: resources("memory", "10Mi")},
			[]api.Container{container(resources("memory", "5Mi"), nil)}, nil,
			"minimum memory usage per Container is 10Mi, but request is 5Mi"},
		{"limit under min", api.LimitRangeItem{Type: api.LimitTypeContainer, Min: resources("memory", "10Mi")},
			[]api.Container{container(resources("memory", "10Mi"), resources("memory", "8Mi"))}, nil,
			"minimum memory usage per Container is 10Mi, but limit is 8Mi"},
		{"no request against a min", api.LimitRangeItem{Type: api.LimitTypeContainer, Min: resources("cpu", "100m"), DefaultRequest: resources("cpu", "100m")},
			[]api.Container{{Name: "web", Resources: api.ResourceRequirements{Requests: api.ResourceList{}}}}, nil,
			"minimum cpu usage per Container is 100m.  No request is specified"},
		{"ratio over max", api.LimitRangeItem{Type: api.LimitTypeContainer, MaxLimitRequestRatio: resources("cpu", "2")},
			[]api.Container{container(resources("cpu", "250m"), resources("cpu", "1"))}, nil,
			"cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"},
		{"fractional ratio honoured exactly", api.LimitRangeItem{Type: api.LimitTypeContainer, MaxLimitRequestRatio: resources("cpu", "1500m")},
			[]api.Container{container(resources("cpu", "100m"), resources("cpu", "150m"))}, nil, ""},
		{"ratio without a limit", api.LimitRangeItem{Type: api.LimitTypeContainer, MaxLimitRequestRatio: resources("memory", "2")},
			[]api.Container{container(resources("memory", "1Gi"), nil)}, nil,
			"memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0"},
		{"ratio without a request", api.LimitRangeItem{Type: api.LimitTypeContainer, MaxLimitRequestRatio: resources("memory", "2")},
			[]api.Container{container(nil, resources("memory", "1Gi"))}, nil,
			"memory max limit to request ratio per Container is 2, but no request is specified or request is 0"},
		{"init containers are held to the Container bounds", api.LimitRangeItem{Type: api.LimitTypeContainer, Max: resources("cpu", "500m")},
			[]api.Container{container(resources("cpu", "100m"), resources("cpu", "100m"))},
			[]api.Container{container(resources("cpu", "100m"), resources("cpu", "2"))},
			"maximum cpu usage per Container is 500m, but limit is 2"},
		{"the pod's containers add up against a Pod max", api.LimitRangeItem{Type: api.LimitTypePod, Max: resources("cpu", "1")},
			[]api.Container{container(resources("cpu", "300m"), resources("cpu", "600m")), container(resources("cpu", "300m"), resources("cpu", "600m"))}, nil,
			"maximum cpu usage per Pod is 1, but limit is 1200m"},
		{"a Pod min against the sum", api.LimitRangeItem{Type: api.LimitTypePod, Min: resources("memory", "100Mi")},
			[]api.Container{container(resources("memory", "40Mi"), nil), container(resources("memory", "40Mi"), nil)}, nil,
			"minimum memory usage per Pod is 100Mi, but request is 80Mi"},
		{"several violations are listed together", api.LimitRangeItem{Type: api.LimitTypeContainer, Max: resources("cpu", "500m", "memory", "1Gi")},
			[]api.Container{container(resources("cpu", "100m", "memory", "100Mi"), resources("cpu", "1", "memory", "2Gi"))}, nil,
			"[maximum cpu usage per Container is 500m, but limit is 1, maximum memory usage per Container is 1Gi, but limit is 2Gi]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := &api.LimitRange{Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{tt.item}}}
			pod := &api.Pod{Spec: api.PodSpec{Containers: tt.containers, InitContainers: tt.init}}
			err := validatePodAgainstLimitRange(lr, pod)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A Pod item bounds the pod's totals as the author wrote them: the
// runtime's overhead is not counted, and pod-level resources stand for
// the containers' sum.
func TestPodTotalsForLimitRange(t *testing.T) {
	lr := &api.LimitRange{Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypePod, Max: resources("cpu", "1")}}}}
	container := func(cpu string) api.Container {
		return api.Container{Name: "app", Resources: api.ResourceRequirements{Requests: resources("cpu", cpu), Limits: resources("cpu", cpu)}}
	}
	withOverhead := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{container("1")}, Overhead: resources("cpu", "250m")}}
	if err := validatePodAgainstLimitRange(lr, withOverhead); err != nil {
		t.Errorf("a pod at max plus overhead: %v, want it admitted (overhead is not the author's)", err)
	}
	if got := withOverhead.Spec.Overhead.Cpu(); got.String() != "250m" {
		t.Errorf("the pod's overhead became %s", got.String())
	}
	podLevel := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{container("400m"), container("400m")},
		Resources: &api.ResourceRequirements{Limits: resources("cpu", "2")}}}
	want := "maximum cpu usage per Pod is 1, but limit is 2"
	if err := validatePodAgainstLimitRange(lr, podLevel); err == nil || err.Error() != want {
		t.Errorf("pod-level limit over max: err = %v, want %q", err, want)
	}
}

// A claim's storage request is held to min and max; its limits are not
// looked at.
func TestValidateClaimAgainstLimitRange(t *testing.T) {
	lr := &api.LimitRange{Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypePersistentVolumeClaim,
		Min: resources("storage", "1Gi"), Max: resources("storage", "2Gi")}}}}
	claim := func(requests, limits api.ResourceList) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{Spec: api.PersistentVolumeClaimSpec{Resources: api.VolumeResourceRequirements{Requests: requests, Limits: limits}}}
	}
	tests := []struct {
		name  string
		claim *api.PersistentVolumeClaim
		want  string
	}{
		{"within bounds", claim(resources("storage", "1536Mi"), resources("storage", "10Gi")), ""},
		{"over max", claim(resources("storage", "5Gi"), nil), "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi"},
		{"under min", claim(resources("storage", "500Mi"), nil), "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"},
		{"no request", claim(nil, nil), "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, " +
			"maximum storage usage per PersistentVolumeClaim is 2Gi.  No request is specified]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateClaimAgainstLimitRange(lr, tt.claim)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
