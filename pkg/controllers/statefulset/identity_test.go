package statefulset

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

func TestParentAndOrdinal(t *testing.T) {
	tests := []struct {
		name        string
		wantParent  string
		wantOrdinal int
	}{
		{"web-0", "web", 0},
		{"web-12", "web", 12},
		{"my-db-2-3", "my-db-2", 3},
		{"web", "", -1},
		{"web-", "", -1},
		{"web-x1", "", -1},
		{"-4", "", 4},
		{"web-99999999999", "", -1}, // does not fit an int32
	}
	for _, tt := range tests {
		parent, ordinal := parentAndOrdinal(tt.name)
		if parent != tt.wantParent || ordinal != tt.wantOrdinal {
			t.Errorf("parentAndOrdinal(%q) = %q, %d; want %q, %d", tt.name, parent, ordinal, tt.wantParent, tt.wantOrdinal)
		}
	}
}

func testSet() *api.StatefulSet {
	replicas := int32(3)
	return &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"},
		Spec: api.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: "nginx",
			Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: api.PodSpec{
					Containers: []api.Container{{Name: "nginx", Image: "nginx:1"}},
					Volumes:    []api.Volume{{Name: "www", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}, {Name: "cache"}},
				},
			},
			VolumeClaimTemplates: []api.PersistentVolumeClaim{{
				ObjectMeta: api.ObjectMeta{Name: "www", Labels: map[string]string{"tier": "storage"}},
				Spec: api.PersistentVolumeClaimSpec{
					AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
					Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{
						api.ResourceStorage: api.MustParseQuantity("1Gi")}},
				},
			}},
		},
	}
}

func TestNewPodIdentity(t *testing.T) {
	set := testSet()
	pod := newPod(set, &set.Spec.Template, "web-abc", 2)
	if pod.Name != "web-2" || pod.GenerateName != "" || pod.Namespace != "default" {
		t.Errorf("name %q generateName %q namespace %q", pod.Name, pod.GenerateName, pod.Namespace)
	}
	if pod.Spec.Hostname != "web-2" || pod.Spec.Subdomain != "nginx" {
		t.Errorf("hostname %q subdomain %q", pod.Spec.Hostname, pod.Spec.Subdomain)
	}
	want := map[string]string{"app": "nginx", api.StatefulSetPodNameLabel: "web-2", api.PodIndexLabel: "2", api.ControllerRevisionHashLabelKey: "web-abc"}
	for k, v := range want {
		if pod.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, pod.Labels[k], v)
		}
	}
	if !controllerutil.IsControlledBy(&pod.ObjectMeta, "uid-web") {
		t.Errorf("ownerReferences %+v", pod.OwnerReferences)
	}
	// The template volume "www" is replaced by the claim; "cache" is kept.
	if len(pod.Spec.Volumes) != 2 {
		t.Fatalf("volumes %+v", pod.Spec.Volumes)
	}
	www := pod.Spec.Volumes[0]
	if www.Name != "www" || www.PersistentVolumeClaim == nil || www.PersistentVolumeClaim.ClaimName != "www-web-2" || www.EmptyDir != nil {
		t.Errorf("www volume %+v", www)
	}
	if pod.Spec.Volumes[1].Name != "cache" {
		t.Errorf("cache volume lost: %+v", pod.Spec.Volumes)
	}
	// The template itself is untouched.
	if set.Spec.Template.Spec.Volumes[0].EmptyDir == nil || set.Spec.Template.Labels[api.StatefulSetPodNameLabel] != "" {
		t.Errorf("newPod modified the template: %+v", set.Spec.Template)
	}
}

func TestNewClaims(t *testing.T) {
	claims := newClaims(testSet(), 1)
	if len(claims) != 1 {
		t.Fatalf("claims %+v", claims)
	}
	c := claims[0]
	if c.Name != "www-web-1" || c.Namespace != "default" || c.Labels["tier"] != "storage" || c.Labels["app"] != "nginx" {
		t.Errorf("claim %+v", c.ObjectMeta)
	}
	if len(c.OwnerReferences) != 0 {
		t.Errorf("claim has owners %+v; Retain claims outlive the set", c.OwnerReferences)
	}
}

func TestIsMemberOf(t *testing.T) {
	set := testSet()
	for name, want := range map[string]bool{"web-0": true, "web-10": true, "web2-0": false, "db-0": false, "web": false} {
		if got := isMemberOf(set, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}}); got != want {
			t.Errorf("isMemberOf(%s) = %v", name, got)
		}
	}
}
