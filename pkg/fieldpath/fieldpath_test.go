package fieldpath

import (
	"testing"

	"kplane/pkg/api"
)

func TestPodFieldValue(t *testing.T) {
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-1",
			Labels:      map[string]string{"app": "web", "tier": "front"},
			Annotations: map[string]string{"note": `say "hi"`}},
		Spec:   api.PodSpec{NodeName: "node1", ServiceAccountName: "default"},
		Status: api.PodStatus{HostIP: "10.0.0.1", PodIP: "10.244.0.5", PodIPs: []api.PodIP{{IP: "10.244.0.5"}, {IP: "fd00::5"}}},
	}
	tests := []struct{ path, want string }{
		{"metadata.name", "web"},
		{"metadata.namespace", "shop"},
		{"metadata.uid", "uid-1"},
		{"metadata.labels", "app=\"web\"\ntier=\"front\""},
		{"metadata.annotations", `note="say \"hi\""`},
		{"metadata.labels['tier']", "front"},
		{"metadata.labels['missing']", ""},
		{"metadata.annotations['note']", `say "hi"`},
		{"spec.nodeName", "node1"},
		{"spec.serviceAccountName", "default"},
		{"status.hostIP", "10.0.0.1"},
		{"status.podIP", "10.244.0.5"},
		{"status.podIPs", "10.244.0.5,fd00::5"},
	}
	for _, tt := range tests {
		if got, err := PodFieldValue(pod, tt.path); err != nil || got != tt.want {
			t.Errorf("PodFieldValue(%s) = %q, %v, want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := PodFieldValue(pod, "spec.hostname"); err == nil {
		t.Error("an unsupported path was read")
	}
	// A volume may name metadata only.
	if _, err := ExtractFieldPathAsString(pod, "spec.nodeName"); err == nil {
		t.Error("ExtractFieldPathAsString read a spec field")
	}
}
