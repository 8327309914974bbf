package main

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

// deploymentDrift sees only the fields the controller owns: what the
// apiserver fills in is no drift, or every sync would update.
func TestDeploymentDrift(t *testing.T) {
	website := newWebsite("nginx:1.27", 2, 8080)
	cases := []struct {
		name   string
		change func(*api.Deployment)
		want   []string
	}{
		{"as created", func(*api.Deployment) {}, nil},
		{"defaults filled in by the apiserver", func(d *api.Deployment) {
			d.Spec.Strategy.Type = api.RollingUpdateDeploymentStrategyType
			d.Spec.Template.Spec.Containers[0].ImagePullPolicy = "IfNotPresent"
			d.Spec.Template.Spec.RestartPolicy = "Always"
		}, nil},
		{"scaled by hand", func(d *api.Deployment) { d.Spec.Replicas = new(int32(7)) }, []string{"replicas 7 → 2"}},
		{"replicas unset (1 by default)", func(d *api.Deployment) { d.Spec.Replicas = nil }, []string{"replicas 1 → 2"}},
		{"other image and port", func(d *api.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "httpd:2"
			d.Spec.Template.Spec.Containers[0].Ports = nil
		}, []string{"image httpd:2 → nginx:1.27", "port 0 → 8080"}},
		{"container renamed", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Name = "other" }, []string{"container web missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeployment(website)
			tc.change(d)
			if got := deploymentDrift(d, website); !slices.Equal(got, tc.want) {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
			if got := deploymentDrift(updateDeployment(d, website), website); len(got) != 0 {
				t.Errorf("after updateDeployment the drift is still %q", got)
			}
		})
	}
}

// serviceDrift sees the selector and the port; the allocated cluster IP
// and the defaults are no drift, and updateService keeps them.
func TestServiceDrift(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	cases := []struct {
		name   string
		change func(*api.Service)
		want   []string
	}{
		{"as created", func(*api.Service) {}, nil},
		{"allocated and defaulted", func(s *api.Service) {
			s.Spec.ClusterIP, s.Spec.SessionAffinity = "10.96.0.9", "None"
		}, nil},
		{"selector edited", func(s *api.Service) { s.Spec.Selector["extra"] = "x" },
			[]string{"selector map[examples.kplane.dev/website:hello extra:x] → map[examples.kplane.dev/website:hello]"}},
		{"target port edited", func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromInt32(8080) },
			[]string{"port 80→8080 → 80→80"}},
		{"second port added", func(s *api.Service) { s.Spec.Ports = append(s.Spec.Ports, api.ServicePort{Port: 443}) },
			[]string{"2 ports → 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(website)
			s.Spec.ClusterIP = "10.96.0.9"
			tc.change(s)
			if got := serviceDrift(s, website); !slices.Equal(got, tc.want) {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
			updated := updateService(s, website)
			if got := serviceDrift(updated, website); len(got) != 0 || updated.Spec.ClusterIP != "10.96.0.9" {
				t.Errorf("after updateService: drift %q, clusterIP %q", got, updated.Spec.ClusterIP)
			}
		})
	}
}
