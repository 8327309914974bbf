package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// rl builds a ResourceList from name/amount pairs.
func rl(pairs ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[pairs[i]] = api.MustParseQuantity(pairs[i+1])
	}
	return l
}

// Through the API: a pod created right after a LimitRange (before the
// watch cache need have it) gets the defaults, the annotation and the QoS
// class they make; a container over max is refused with upstream's Status;
// a namespace without LimitRanges is left alone; a dry run is refused too.
func TestLimitRangeAdmissionForPods(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()

	if _, err := c.LimitRanges("default").Create(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "cpu-mem"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
			Max: rl("cpu", "1"), Default: rl("cpu", "500m", "memory", "256Mi"), DefaultRequest: rl("cpu", "100m", "memory", "128Mi")}}}},
		client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := c.Pods("default")
	web, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create a pod without resources: %v", err)
	}
	res := web.Spec.Containers[0].Resources
	if got := res.Requests.Cpu(); got.String() != "100m" {
		t.Errorf("cpu request = %s, want the defaultRequest 100m", got.String())
	}
	if got := res.Limits.Memory(); got.String() != "256Mi" {
		t.Errorf("memory limit = %s, want the default 256Mi", got.String())
	}
	wantNote := "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web"
	if got := web.Annotations["kubernetes.io/limit-ranger"]; got != wantNote {
		t.Errorf("annotation = %q, want %q", got, wantNote)
	}
	if web.Status.QOSClass != api.PodQOSBurstable {
		t.Errorf("QoS class = %s, want Burstable (computed after the defaults)", web.Status.QOSClass)
	}

	// A container that sets only limits: defaulting copies them into its
	// requests before LimitRange admission, so the pod is Guaranteed.
	guaranteed, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "guaranteed"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx",
			Resources: api.ResourceRequirements{Limits: rl("cpu", "200m", "memory", "64Mi")}}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := guaranteed.Spec.Containers[0].Resources.Requests.Cpu(); got.String() != "200m" {
		t.Errorf("request of a container with only a limit = %s, want its limit 200m", got.String())
	}
	if guaranteed.Status.QOSClass != api.PodQOSGuaranteed {
		t.Errorf("QoS class = %s, want Guaranteed", guaranteed.Status.QOSClass)
	}

	// Field validation runs between the two halves: a request above the
	// limit the LimitRange just gave the container is Invalid (422), as
	// upstream answers, before any LimitRange bound is checked.
	_, err = pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "request-over-default-limit"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx",
			Resources: api.ResourceRequirements{Requests: rl("memory", "1Gi")}}}}}, client.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "must be less than or equal to memory limit of 256Mi") {
		t.Errorf("request above the default limit: err = %v, want Invalid against the defaulted 256Mi limit", err)
	}

	big := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "big"}, Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx",
		Resources: api.ResourceRequirements{Limits: rl("cpu", "2")}}}}}
	for _, dryRun := range []bool{true, false} {
		opts := client.CreateOptions{}
		if dryRun {
			opts.DryRun = true
		}
		_, err = pods.Create(ctx, api.DeepCopy(big), opts)
		if !apierrors.IsForbidden(err) {
			t.Fatalf("pod over max (dry run %v): err = %v, want Forbidden", dryRun, err)
		}
		want := `pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`
		if err.Error() != want {
			t.Errorf("refusal = %q, want %q", err.Error(), want)
		}
	}
	if _, err := pods.Get(ctx, "big", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused pod was stored: %v", err)
	}

	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "free"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	free, err := c.Pods("free").Create(ctx, api.DeepCopy(big), client.CreateOptions{})
	if err != nil {
		t.Fatalf("a namespace without LimitRanges refused the pod: %v", err)
	}
	if _, ok := free.Annotations["kubernetes.io/limit-ranger"]; ok || len(free.Spec.Containers[0].Resources.Limits) != 1 {
		t.Errorf("a pod in a namespace without LimitRanges was changed: %+v %v", free.Spec.Containers[0].Resources, free.Annotations)
	}
}

// A claim's storage request is held to the PersistentVolumeClaim item on
// create and on a resize; other updates of a claim, its status included,
// are not held to it.
func TestLimitRangeAdmissionForClaims(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	claims := c.PersistentVolumeClaims("default")
	claim := func(name, size string) *api.PersistentVolumeClaim {
		class := ""
		return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: &class,
			Resources: api.VolumeResourceRequirements{Requests: rl("storage", size)}}}
	}
	// A claim created before the LimitRange is not held to it later.
	early, err := claims.Create(ctx, claim("early", "10Gi"), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LimitRanges("default").Create(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "storage"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypePersistentVolumeClaim,
			Min: rl("storage", "1Gi"), Max: rl("storage", "2Gi")}}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	_, err = claims.Create(ctx, claim("huge", "5Gi"), client.CreateOptions{})
	want := `persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("claim over max: err = %v, want %q", err, want)
	}
	_, err = claims.Create(ctx, claim("tiny", "100Mi"), client.CreateOptions{})
	want = `persistentvolumeclaims "tiny" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("claim under min: err = %v, want %q", err, want)
	}
	data, err := claims.Create(ctx, claim("data", "1Gi"), client.CreateOptions{})
	if err != nil {
		t.Fatalf("claim within bounds: %v", err)
	}

	// Only a bound claim may be resized.
	data.Status.Phase = api.ClaimBound
	if data, err = claims.UpdateStatus(ctx, data, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	resized := api.DeepCopy(data)
	resized.Spec.Resources.Requests = rl("storage", "3Gi")
	_, err = claims.Update(ctx, resized, client.UpdateOptions{})
	want = `persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("resize over max: err = %v, want %q", err, want)
	}
	resized.Spec.Resources.Requests = rl("storage", "2Gi")
	if _, err := claims.Update(ctx, resized, client.UpdateOptions{}); err != nil {
		t.Fatalf("resize within max: %v", err)
	}

	labelled := api.DeepCopy(early)
	labelled.Labels = map[string]string{"tier": "old"}
	if _, err := claims.Update(ctx, labelled, client.UpdateOptions{}); err != nil {
		t.Fatalf("labelling a claim that predates the LimitRange: %v", err)
	}
	status, err := claims.Get(ctx, "early", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status.Status.Phase = api.ClaimLost
	if _, err := claims.UpdateStatus(ctx, status, client.UpdateOptions{}); err != nil {
		t.Fatalf("a status write of a claim over the LimitRange's max: %v", err)
	}
}

// LimitRange admission runs before ResourceQuota's, as upstream orders the
// plugins: a requests.cpu quota, which refuses a pod that states no CPU
// request, admits one whose request comes from a LimitRange's defaults and
// charges that default; a pod over the LimitRange's max is refused by the
// LimitRange and charges nothing.
func TestLimitRangeDefaultsSatisfyQuota(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	f := enforcedQuota(t, c, "team", "compute", rl("requests.cpu", "1"))
	pods := c.Pods("team")

	_, err := pods.Create(ctx, quotaPod("before", nil), client.CreateOptions{})
	want := `pods "before" is forbidden: failed quota: compute: must specify requests.cpu for: web`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("a pod without requests before the LimitRange: err = %v, want %q", err, want)
	}

	if _, err := c.LimitRanges("team").Create(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "defaults"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
			Max: rl("cpu", "500m"), DefaultRequest: rl("cpu", "300m")}}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, quotaPod("after", nil), client.CreateOptions{}); err != nil {
		t.Fatalf("a pod without requests after the LimitRange: %v", err)
	}
	if got := f.used(t, "compute")["requests.cpu"]; got.String() != "300m" {
		t.Errorf("quota used requests.cpu = %s, want the LimitRange's default 300m", got.String())
	}

	big := quotaPod("big", nil)
	big.Spec.Containers[0].Resources.Limits = rl("cpu", "800m")
	_, err = pods.Create(ctx, big, client.CreateOptions{})
	want = `pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 800m`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("a pod over the LimitRange's max: err = %v, want %q", err, want)
	}
	if got := f.used(t, "compute")["requests.cpu"]; got.String() != "300m" {
		t.Errorf("after a LimitRange refusal the quota's used requests.cpu = %s, want 300m unchanged", got.String())
	}
}

// Through the API: a namespace whose pods found no LimitRange (and is
// remembered as having none) gets the defaults of a LimitRange created
// the moment after, on the very next pod.
func TestLimitRangeAppliesRightAfterANamespaceHadNone(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	pods := c.Pods("default")
	plain, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "before"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create a pod with no LimitRange: %v", err)
	}
	if len(plain.Spec.Containers[0].Resources.Requests) != 0 {
		t.Fatalf("requests = %v with no LimitRange, want none", plain.Spec.Containers[0].Resources.Requests)
	}
	if _, err := c.LimitRanges("default").Create(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "cpu"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
			Default: rl("cpu", "500m"), DefaultRequest: rl("cpu", "100m")}}}},
		client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	after, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "after"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create a pod after the LimitRange: %v", err)
	}
	if got := after.Spec.Containers[0].Resources.Requests.Cpu(); got.String() != "100m" {
		t.Errorf("cpu request = %s, want the new LimitRange's defaultRequest 100m", got.String())
	}
}
