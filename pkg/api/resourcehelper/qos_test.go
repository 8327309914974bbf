package resourcehelper

import (
	"testing"

	"kplane/pkg/api"
)

func TestQOSClass(t *testing.T) {
	q := api.MustParseQuantity
	res := func(req, lim api.ResourceList) api.PodSpec {
		return api.PodSpec{Containers: []api.Container{{Resources: api.ResourceRequirements{Requests: req, Limits: lim}}}}
	}
	cpuMem := api.ResourceList{"cpu": q("100m"), "memory": q("64Mi")}
	for _, tc := range []struct {
		spec api.PodSpec
		want api.PodQOSClass
	}{
		{res(nil, nil), api.PodQOSBestEffort},
		{res(cpuMem, cpuMem), api.PodQOSGuaranteed},
		{res(nil, cpuMem), api.PodQOSGuaranteed},
		{res(api.ResourceList{"cpu": q("50m")}, cpuMem), api.PodQOSBurstable},
		{res(api.ResourceList{"cpu": q("50m")}, nil), api.PodQOSBurstable},
	} {
		if got := QOSClass(&tc.spec); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.spec.Containers[0].Resources, got, tc.want)
		}
	}
}
