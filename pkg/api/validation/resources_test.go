package validation

import (
	"testing"

	"kplane/pkg/api"
)

func TestValidateResourceRequirements(t *testing.T) {
	q := api.MustParseQuantity
	tests := []struct {
		name             string
		requests, limits api.ResourceList
		want             []fieldErr
	}{
		{"none", nil, nil, nil},
		{"requests below limits", api.ResourceList{"cpu": q("250m"), "memory": q("64Mi")}, api.ResourceList{"cpu": q("500m"), "memory": q("128Mi")}, nil},
		{"equal in other units", api.ResourceList{"memory": q("1Gi")}, api.ResourceList{"memory": q("1024Mi")}, nil},
		{"extended resource", api.ResourceList{"example.com/gpu": q("1")}, nil, nil},
		{"request above limit", api.ResourceList{"cpu": q("2")}, api.ResourceList{"cpu": q("1")}, []fieldErr{{invalid, "resources.requests"}}},
		{"negative", api.ResourceList{"memory": q("-1")}, nil, []fieldErr{{invalid, "resources.requests[memory]"}}},
		{"unknown unprefixed", nil, api.ResourceList{"gpu": q("1")}, []fieldErr{{invalid, "resources.limits[gpu]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectFields(t, ValidateResourceRequirements(tt.requests, tt.limits, "resources"), tt.want...)
		})
	}
	expectMessages(t, ValidateResourceRequirements(api.ResourceList{"cpu": q("2")}, api.ResourceList{"cpu": q("500m")}, "spec.containers[0].resources"),
		`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 500m`)
}

func TestValidatePortNumOrName(t *testing.T) {
	tests := []struct {
		port api.IntOrString
		want []fieldErr
	}{
		{api.FromInt(8080), nil},
		{api.FromString("http"), nil},
		{api.FromInt(0), []fieldErr{{invalid, "targetPort"}}},
		{api.FromInt(70000), []fieldErr{{invalid, "targetPort"}}},
		{api.FromString("8080"), []fieldErr{{invalid, "targetPort"}}},
	}
	for _, tt := range tests {
		expectFields(t, ValidatePortNumOrName(tt.port, "targetPort"), tt.want...)
	}
	expectFields(t, validateProtocol("HTTP", "protocol"), fieldErr{notSupported, "protocol"})
	expectMessages(t, validateProtocol("HTTP", "spec.ports[0].protocol"),
		`spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`)
	expectFields(t, validateProtocol("", "protocol"))
}
