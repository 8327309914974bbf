package apiserver_test

import (
	"context"
	"regexp"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

var tokenVolumeName = regexp.MustCompile(`^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// TestServiceAccountAdmission: through the API, a bare pod runs as
// `default` and gets the token volume mounted in every container; the pod
// or its account can opt out; a pod naming a missing account is refused
// with upstream's message.
func TestServiceAccountAdmission(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	pods := c.Pods("default")
	containers := func() []api.Container { return []api.Container{{Name: "app", Image: "nginx"}} }

	bare, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "bare"},
		Spec: api.PodSpec{InitContainers: []api.Container{{Name: "init", Image: "busybox"}}, Containers: containers()}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bare.Spec.ServiceAccountName != "default" || bare.Spec.DeprecatedServiceAccount != "default" {
		t.Errorf("serviceAccountName = %q, serviceAccount = %q, want default", bare.Spec.ServiceAccountName, bare.Spec.DeprecatedServiceAccount)
	}
	if len(bare.Spec.Volumes) != 1 || !tokenVolumeName.MatchString(bare.Spec.Volumes[0].Name) || bare.Spec.Volumes[0].Projected == nil {
		t.Fatalf("volumes = %+v, want one projected kube-api-access-xxxxx", bare.Spec.Volumes)
	}
	volume := bare.Spec.Volumes[0].Name
	for _, ctr := range append(bare.Spec.InitContainers, bare.Spec.Containers...) {
		want := []api.VolumeMount{{Name: volume, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
		if len(ctr.VolumeMounts) != 1 || ctr.VolumeMounts[0] != want[0] {
			t.Errorf("container %s mounts %+v, want %+v", ctr.Name, ctr.VolumeMounts, want)
		}
	}

	no := false
	optedOut, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "opted-out"},
		Spec: api.PodSpec{AutomountServiceAccountToken: &no, Containers: containers()}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(optedOut.Spec.Volumes) != 0 || len(optedOut.Spec.Containers[0].VolumeMounts) != 0 {
		t.Errorf("automountServiceAccountToken: false on the pod still mounted %+v", optedOut.Spec.Volumes)
	}

	if _, err := c.ServiceAccounts("default").Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "quiet"},
		AutomountServiceAccountToken: &no}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	quiet, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "quiet"},
		Spec: api.PodSpec{ServiceAccountName: "quiet", Containers: containers()}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(quiet.Spec.Volumes) != 0 {
		t.Errorf("automountServiceAccountToken: false on the account still mounted %+v", quiet.Spec.Volumes)
	}

	_, err = pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "lost"},
		Spec: api.PodSpec{ServiceAccountName: "builder", Containers: containers()}}, client.CreateOptions{})
	const want = `pods "lost" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("pod with a missing account: %v\nwant Forbidden: %s", err, want)
	}
}
