package resourcehelper

import (
	"testing"

	"kplane/pkg/api"
)

func TestPodRequestsAndLimits(t *testing.T) {
	q := api.MustParseQuantity
	always := api.ContainerRestartPolicyAlways
	cpu := func(request, limit string) api.ResourceRequirements {
		r := api.ResourceRequirements{Requests: api.ResourceList{}, Limits: api.ResourceList{}}
		if request != "" {
			r.Requests["cpu"] = q(request)
		}
		if limit != "" {
			r.Limits["cpu"] = q(limit)
		}
		return r
	}
	tests := []struct {
		name                   string
		spec                   api.PodSpec
		opts                   Options
		wantRequest, wantLimit string
	}{
		{name: "containers add up", spec: api.PodSpec{Containers: []api.Container{{Resources: cpu("100m", "200m")}, {Resources: cpu("200m", "300m")}}},
			wantRequest: "300m", wantLimit: "500m"},
		{name: "the largest init container wins over a smaller sum", spec: api.PodSpec{
			InitContainers: []api.Container{{Resources: cpu("500m", "1")}, {Resources: cpu("200m", "")}},
			Containers:     []api.Container{{Resources: cpu("100m", "200m")}}},
			wantRequest: "500m", wantLimit: "1"},
		{name: "a sidecar adds to the containers and to the init containers after it", spec: api.PodSpec{
			InitContainers: []api.Container{{Resources: cpu("50m", "50m"), RestartPolicy: &always}, {Resources: cpu("400m", "400m")}},
			Containers:     []api.Container{{Resources: cpu("100m", "100m")}}},
			wantRequest: "450m", wantLimit: "450m"},
		{name: "overhead is added to requests, and to limits only where limited", spec: api.PodSpec{
			Containers: []api.Container{{Resources: cpu("100m", "")}},
			Overhead:   api.ResourceList{"cpu": q("10m")}},
			wantRequest: "110m", wantLimit: ""},
		{name: "ExcludeOverhead leaves it out", spec: api.PodSpec{
			Containers: []api.Container{{Resources: cpu("100m", "200m")}},
			Overhead:   api.ResourceList{"cpu": q("10m")}},
			opts:        Options{ExcludeOverhead: true},
			wantRequest: "100m", wantLimit: "200m"},
		{name: "pod-level resources replace the containers' sum", spec: api.PodSpec{
			Containers: []api.Container{{Resources: cpu("100m", "")}, {Resources: cpu("100m", "")}},
			Resources:  &api.ResourceRequirements{Requests: api.ResourceList{"cpu": q("1")}, Limits: api.ResourceList{"cpu": q("2")}}},
			wantRequest: "1", wantLimit: "2"},
		{name: "SkipPodLevelResources counts the containers", spec: api.PodSpec{
			Containers: []api.Container{{Resources: cpu("100m", "")}, {Resources: cpu("100m", "")}},
			Resources:  &api.ResourceRequirements{Requests: api.ResourceList{"cpu": q("1")}}},
			opts:        Options{SkipPodLevelResources: true},
			wantRequest: "200m", wantLimit: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: tt.spec}
			show := func(l api.ResourceList) string {
				if v, ok := l["cpu"]; ok {
					return v.String()
				}
				return ""
			}
			if got := show(PodRequests(pod, tt.opts)); got != tt.wantRequest {
				t.Errorf("cpu request = %q, want %q", got, tt.wantRequest)
			}
			if got := show(PodLimits(pod, tt.opts)); got != tt.wantLimit {
				t.Errorf("cpu limit = %q, want %q", got, tt.wantLimit)
			}
		})
	}
}
