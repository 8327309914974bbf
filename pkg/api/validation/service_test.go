package validation

import (
	"testing"

	"kplane/pkg/api"
)

const baseService = `
apiVersion: v1
kind: Service
metadata:
  name: nginx-deploy
spec:
  type: NodePort
  selector:
    app: nginx-deploy
  ports:
  - name: http
    port: 8080
    targetPort: 80
    nodePort: 31555
  - name: metrics
    port: 9090
    targetPort: metrics
`

func TestValidateService(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *api.Service)
		want   []fieldErr
	}{
		{"valid", func(s *api.Service) {}, nil},
		{"name must start with a letter", func(s *api.Service) { s.Name = "1nginx" }, []fieldErr{{invalid, "metadata.name"}}},
		{"no ports", func(s *api.Service) { s.Spec.Ports = nil }, []fieldErr{{required, "spec.ports"}}},
		{"headless without ports", func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeClusterIP
			s.Spec.ExternalTrafficPolicy = ""
			s.Spec.ClusterIP = "None"
			s.Spec.Ports = nil
		}, nil},
		{"ExternalName without ports", func(s *api.Service) {
			s.Spec = api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com"}
		}, nil},
		{"ExternalName without name", func(s *api.Service) { s.Spec = api.ServiceSpec{Type: api.ServiceTypeExternalName} },
			[]fieldErr{{required, "spec.externalName"}}},
		{"ExternalName with clusterIP", func(s *api.Service) {
			s.Spec = api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com", ClusterIP: "10.96.0.10"}
		}, []fieldErr{{forbidden, "spec.clusterIP"}}},
		{"port name missing with two ports", func(s *api.Service) { s.Spec.Ports[1].Name = "" }, []fieldErr{{required, "spec.ports[1].name"}}},
		{"single unnamed port ok", func(s *api.Service) { s.Spec.Ports = s.Spec.Ports[:1]; s.Spec.Ports[0].Name = "" }, nil},
		{"duplicate port name", func(s *api.Service) { s.Spec.Ports[1].Name = "http" }, []fieldErr{{duplicate, "spec.ports[1].name"}}},
		{"duplicate port", func(s *api.Service) { s.Spec.Ports[1].Port = 8080 }, []fieldErr{{duplicate, "spec.ports[1]"}}},
		{"same port other protocol ok", func(s *api.Service) { s.Spec.Ports[1].Port = 8080; s.Spec.Ports[1].Protocol = api.ProtocolUDP }, nil},
		{"bad port", func(s *api.Service) { s.Spec.Ports[0].Port = 0 }, []fieldErr{{invalid, "spec.ports[0].port"}}},
		{"bad targetPort", func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromInt(65536) }, []fieldErr{{invalid, "spec.ports[0].targetPort"}}},
		{"bad targetPort name", func(s *api.Service) { s.Spec.Ports[1].TargetPort = api.FromString("metrics-port-too-long") },
			[]fieldErr{{invalid, "spec.ports[1].targetPort"}}},
		{"bad type", func(s *api.Service) { s.Spec.Type = "Internal" }, []fieldErr{{notSupported, "spec.type"}}},
		{"None for NodePort", func(s *api.Service) { s.Spec.ClusterIP = "None" }, []fieldErr{{invalid, "spec.clusterIP"}}},
		{"bad clusterIP", func(s *api.Service) { s.Spec.ClusterIP = "10.96.0.300" }, []fieldErr{{invalid, "spec.clusterIP"}}},
		{"nodePort out of range", func(s *api.Service) { s.Spec.Ports[0].NodePort = 8080 }, []fieldErr{{invalid, "spec.ports[0].nodePort"}}},
		{"duplicate nodePort", func(s *api.Service) { s.Spec.Ports[1].NodePort = 31555 }, []fieldErr{{duplicate, "spec.ports[1].nodePort"}}},
		{"nodePort on ClusterIP", func(s *api.Service) { s.Spec.Type = api.ServiceTypeClusterIP; s.Spec.ExternalTrafficPolicy = "" },
			[]fieldErr{{forbidden, "spec.ports[0].nodePort"}}},
		{"externalTrafficPolicy on ClusterIP", func(s *api.Service) { s.Spec.Type = api.ServiceTypeClusterIP; s.Spec.Ports[0].NodePort = 0 },
			[]fieldErr{{invalid, "spec.externalTrafficPolicy"}}},
		{"bad selector", func(s *api.Service) { s.Spec.Selector["app"] = "nginx deploy" }, []fieldErr{{invalid, "spec.selector"}}},
		{"bad sessionAffinity", func(s *api.Service) { s.Spec.SessionAffinity = "Cookie" }, []fieldErr{{notSupported, "spec.sessionAffinity"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := decode[*api.Service](t, baseService)
			tt.mutate(s)
			expectFields(t, ValidateCreate(s), tt.want...)
		})
	}
	s := decode[*api.Service](t, baseService)
	s.Spec.Ports[0].NodePort = 8080
	expectMessages(t, ValidateCreate(s),
		"spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767")
}

func TestValidateServiceUpdate(t *testing.T) {
	old := asStored(decode[*api.Service](t, baseService))
	old.Spec.ClusterIP = "10.99.227.2"
	old.Spec.ClusterIPs = []string{"10.99.227.2"}

	s := asStored(old)
	s.Spec.ClusterIP = "10.99.227.3"
	s.Spec.ClusterIPs = []string{"10.99.227.3"}
	expectMessages(t, ValidateUpdate(s, old), `spec.clusterIP: Invalid value: "10.99.227.3": field is immutable`)

	s = asStored(old)
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil // not sent: the registry keeps the allocated one
	expectFields(t, ValidateUpdate(s, old))

	s = asStored(old)
	s.Spec.Ports[0].Port = 8081
	expectFields(t, ValidateUpdate(s, old))
}
