package validation

import (
	"testing"

	"kplane/pkg/api"
)

func TestValidateAPIService(t *testing.T) {
	port := func(p int32) *int32 { return &p }
	valid := func() *api.APIService {
		return &api.APIService{ObjectMeta: api.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: api.APIServiceSpec{
			Service: &api.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: port(443)},
			Group:   "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 100,
			CABundle: []byte("pem")}}
	}
	tests := []struct {
		name   string
		change func(*api.APIService)
		want   []fieldErr
	}{
		{"valid", func(*api.APIService) {}, nil},
		{"local core v1", func(s *api.APIService) {
			s.Name, s.Spec = "v1.", api.APIServiceSpec{Version: "v1", GroupPriorityMinimum: 18000, VersionPriority: 1}
		}, nil},
		{"name is not version.group", func(s *api.APIService) { s.Name = "metrics" }, []fieldErr{{invalid, "metadata.name"}}},
		{"empty group needs v1", func(s *api.APIService) { s.Name, s.Spec.Group = "v1beta1.", "" }, []fieldErr{{required, "spec.group"}}},
		{"priorities out of range", func(s *api.APIService) { s.Spec.GroupPriorityMinimum, s.Spec.VersionPriority = 0, 1001 },
			[]fieldErr{{invalid, "spec.groupPriorityMinimum"}, {invalid, "spec.versionPriority"}}},
		{"local with a caBundle", func(s *api.APIService) { s.Spec.Service = nil }, []fieldErr{{invalid, "spec.caBundle"}}},
		{"service without name and port", func(s *api.APIService) { s.Spec.Service.Name, s.Spec.Service.Port = "", port(0) },
			[]fieldErr{{required, "spec.service.name"}, {invalid, "spec.service.port"}}},
		{"insecure with a caBundle", func(s *api.APIService) { s.Spec.InsecureSkipTLSVerify = true }, []fieldErr{{invalid, "spec.insecureSkipTLSVerify"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid()
			tt.change(s)
			expectFields(t, ValidateCreate(s), tt.want...)
		})
	}
}
