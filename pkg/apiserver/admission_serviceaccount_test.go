package apiserver

import (
	"encoding/json"
	"testing"

	"kplane/pkg/api"
)

// TestMountServiceAccountToken: every container and init container gets
// the read-only mount, the volume is added once, a container that already
// mounts something at the path is left alone, and an existing
// kube-api-access-* volume is reused rather than doubled.
func TestMountServiceAccountToken(t *testing.T) {
	mount := func(name string) api.VolumeMount {
		return api.VolumeMount{Name: name, ReadOnly: true, MountPath: ServiceAccountMountPath}
	}
	own := api.VolumeMount{Name: "mine", MountPath: ServiceAccountMountPath}
	tests := []struct {
		name        string
		pod         api.PodSpec
		wantMounts  [][]api.VolumeMount // init containers, then containers
		wantVolumes []string
	}{
		{"every container and init container",
			api.PodSpec{InitContainers: []api.Container{{Name: "init"}}, Containers: []api.Container{{Name: "a"}, {Name: "b"}}},
			[][]api.VolumeMount{{mount("kube-api-access-new")}, {mount("kube-api-access-new")}, {mount("kube-api-access-new")}},
			[]string{"kube-api-access-new"}},
		{"a container with its own credentials is left alone",
			api.PodSpec{Containers: []api.Container{{Name: "a", VolumeMounts: []api.VolumeMount{own}}, {Name: "b"}}},
			[][]api.VolumeMount{{own}, {mount("kube-api-access-new")}},
			[]string{"kube-api-access-new"}},
		{"no container needs it: no volume",
			api.PodSpec{Containers: []api.Container{{Name: "a", VolumeMounts: []api.VolumeMount{own}}}},
			[][]api.VolumeMount{{own}},
			nil},
		{"an existing token volume is reused",
			api.PodSpec{Volumes: []api.Volume{{Name: "kube-api-access-old"}}, Containers: []api.Container{{Name: "a"}}},
			[][]api.VolumeMount{{mount("kube-api-access-old")}},
			[]string{"kube-api-access-old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: tt.pod}
			mountServiceAccountToken(pod, "kube-api-access-new")
			var gotMounts [][]api.VolumeMount
			for _, c := range append(append([]api.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
				gotMounts = append(gotMounts, c.VolumeMounts)
			}
			var gotVolumes []string
			for _, v := range pod.Spec.Volumes {
				gotVolumes = append(gotVolumes, v.Name)
			}
			if g, w := jsonOf(t, gotMounts), jsonOf(t, tt.wantMounts); g != w {
				t.Errorf("mounts = %s\nwant     %s", g, w)
			}
			if g, w := jsonOf(t, gotVolumes), jsonOf(t, tt.wantVolumes); g != w {
				t.Errorf("volumes = %s, want %s", g, w)
			}
		})
	}
}

// TestServiceAccountTokenVolume: the projected volume is the one a real
// 1.32 cluster stores, field for field.
func TestServiceAccountTokenVolume(t *testing.T) {
	want := `{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},` +
		`{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},` +
		`{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],` +
		`"defaultMode":420}`
	if got := jsonOf(t, serviceAccountTokenVolume()); got != want {
		t.Errorf("volume = %s\nwant     %s", got, want)
	}
}

// TestAutomountServiceAccountToken: the pod's choice wins over the
// account's, and without either the token is mounted.
func TestAutomountServiceAccountToken(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name           string
		pod, account   *bool
		accountMissing bool
		want           bool
	}{
		{"neither says", nil, nil, false, true},
		{"account missing", nil, nil, true, true},
		{"account says no", nil, &no, false, false},
		{"pod says no", &no, nil, false, false},
		{"pod says yes over the account's no", &yes, &no, false, true},
		{"pod says no over the account's yes", &no, &yes, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{AutomountServiceAccountToken: tt.pod}}
			account := &api.ServiceAccount{AutomountServiceAccountToken: tt.account}
			if tt.accountMissing {
				account = nil
			}
			if got := automountServiceAccountToken(pod, account); got != tt.want {
				t.Errorf("automount = %v, want %v", got, tt.want)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
