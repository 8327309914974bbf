package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// deploymentAt builds a Deployment with spec.replicas and the given
// generation, observedGeneration and status counts.
func deploymentAt(replicas int32, generation, observed int64, status api.DeploymentStatus) *api.Deployment {
	d := &api.Deployment{}
	d.Name = "web"
	d.Generation = generation
	d.Spec.Replicas = &replicas
	status.ObservedGeneration = observed
	d.Status = status
	return d
}

func TestDeploymentStatus(t *testing.T) {
	progressing := func(reason string) []api.DeploymentCondition {
		return []api.DeploymentCondition{{Type: api.DeploymentProgressing, Status: api.ConditionFalse, Reason: reason}}
	}
	tests := []struct {
		name     string
		d        *api.Deployment
		revision int64
		want     string
		done     bool
		wantErr  string
	}{
		{"not observed yet", deploymentAt(3, 2, 1, api.DeploymentStatus{}), 0,
			"Waiting for deployment spec update to be observed...\n", false, ""},
		{"new replicas being created", deploymentAt(3, 1, 1, api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1}), 0,
			"Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...\n", false, ""},
		{"old replicas terminating", deploymentAt(3, 1, 1, api.DeploymentStatus{Replicas: 5, UpdatedReplicas: 3}), 0,
			"Waiting for deployment \"web\" rollout to finish: 2 old replicas are pending termination...\n", false, ""},
		{"not all available", deploymentAt(3, 1, 1, api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 1}), 0,
			"Waiting for deployment \"web\" rollout to finish: 1 of 3 updated replicas are available...\n", false, ""},
		{"done", deploymentAt(3, 1, 1, api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}), 0,
			"deployment \"web\" successfully rolled out\n", true, ""},
		{"deadline exceeded", deploymentAt(3, 1, 1, api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, Conditions: progressing("ProgressDeadlineExceeded")}), 0,
			"", false, "deployment \"web\" exceeded its progress deadline"},
		// A deadline exceeded on an older generation does not count until
		// the controller has seen the new one.
		{"deadline of an older generation", deploymentAt(3, 2, 1, api.DeploymentStatus{Conditions: progressing("ProgressDeadlineExceeded")}), 0,
			"Waiting for deployment spec update to be observed...\n", false, ""},
		{"pinned to another revision", withRevision(deploymentAt(3, 1, 1, api.DeploymentStatus{}), "2"), 1,
			"", false, "desired revision (1) is different from the running revision (2)"},
		{"pinned to this revision", withRevision(deploymentAt(1, 1, 1, api.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "2"), 2,
			"deployment \"web\" successfully rolled out\n", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, done, err := deploymentStatus(tt.d, tt.revision)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || done != tt.done {
				t.Errorf("= %q, %v, %v; want %q, %v", got, done, err, tt.want, tt.done)
			}
		})
	}
}

func withRevision(d *api.Deployment, revision string) *api.Deployment {
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: revision}
	return d
}

func TestDaemonSetAndStatefulSetStatus(t *testing.T) {
	ds := &api.DaemonSet{}
	ds.Name = "agent"
	ds.Spec.UpdateStrategy.Type = api.RollingUpdateDaemonSetStrategyType
	ds.Status = api.DaemonSetStatus{DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 2}
	if got, done, err := daemonSetStatus(ds); err != nil || done || got != "Waiting for daemon set \"agent\" rollout to finish: 2 of 3 updated pods are available...\n" {
		t.Errorf("daemon set = %q %v %v", got, done, err)
	}
	ds.Spec.UpdateStrategy.Type = api.OnDeleteDaemonSetStrategyType
	if _, done, err := daemonSetStatus(ds); err == nil || !done || err.Error() != "rollout status is only available for RollingUpdate strategy type" {
		t.Errorf("OnDelete daemon set: done %v, err %v", done, err)
	}

	replicas := int32(3)
	sts := &api.StatefulSet{}
	sts.Name = "db"
	sts.Generation = 1
	sts.Spec.Replicas = &replicas
	sts.Spec.UpdateStrategy.Type = api.RollingUpdateStatefulSetStrategyType
	sts.Status = api.StatefulSetStatus{ObservedGeneration: 1, ReadyReplicas: 1}
	if got, done, _ := statefulSetStatus(sts); done || got != "Waiting for 2 pods to be ready...\n" {
		t.Errorf("stateful set = %q %v", got, done)
	}
	sts.Status = api.StatefulSetStatus{ObservedGeneration: 1, ReadyReplicas: 3, CurrentReplicas: 3, CurrentRevision: "db-1", UpdateRevision: "db-1"}
	if got, done, _ := statefulSetStatus(sts); !done || got != "statefulset rolling update complete 3 pods at revision db-1...\n" {
		t.Errorf("stateful set = %q %v", got, done)
	}
}

// replicaSet builds a ReplicaSet with a revision, a change-cause and a
// template running image, labelled with its pod-template-hash as the
// deployment controller labels it.
func replicaSet(revision, image, cause string) *api.ReplicaSet {
	rs := &api.ReplicaSet{}
	rs.Name = "web-" + revision
	rs.Annotations = map[string]string{api.DeploymentRevisionAnnotation: revision}
	if cause != "" {
		rs.Annotations[changeCauseAnnotation] = cause
	}
	rs.Spec.Template.Labels = map[string]string{"app": "web", api.DefaultDeploymentUniqueLabelKey: "hash" + revision}
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: image}}
	return rs
}

func TestRollbackTarget(t *testing.T) {
	rss := []*api.ReplicaSet{replicaSet("3", "nginx:3", ""), replicaSet("1", "nginx:1", ""), replicaSet("4", "nginx:4", ""), replicaSet("2", "nginx:2", "")}
	for _, tt := range []struct {
		toRevision int64
		want       string
		wantErr    string
	}{
		{0, "web-3", ""}, // the one before the latest (4)
		{2, "web-2", ""},
		{4, "web-4", ""},
		{7, "", "unable to find specified revision 7 in history"},
	} {
		got, err := rollbackTarget("web", rss, tt.toRevision)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("to %d: err = %v, want %q", tt.toRevision, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Name != tt.want {
			t.Errorf("to %d = %v %v, want %s", tt.toRevision, got, err, tt.want)
		}
	}
	if _, err := rollbackTarget("web", rss[:1], 0); err == nil || err.Error() != `no rollout history found for deployment "web"` {
		t.Errorf("one revision only: err = %v", err)
	}
}

func TestEqualIgnoringHash(t *testing.T) {
	rs := replicaSet("1", "nginx:1", "")
	d := &api.Deployment{}
	d.Spec.Template = api.DeepCopyValue(rs.Spec.Template)
	delete(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey)
	if !equalIgnoringHash(rs.Spec.Template, d.Spec.Template) {
		t.Error("templates differing only in pod-template-hash should be equal")
	}
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if equalIgnoringHash(rs.Spec.Template, d.Spec.Template) {
		t.Error("templates with different images should differ")
	}
}

func TestRollbackPatch(t *testing.T) {
	d := &api.Deployment{}
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "4", lastAppliedAnnotation: "{}", changeCauseAnnotation: "now"}
	target := replicaSet("2", "nginx:2", "then")
	target.Annotations[api.DeploymentDesiredReplicasAnnotation] = "3"
	data, err := rollbackPatch(d, target)
	if err != nil {
		t.Fatal(err)
	}
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Path != "/spec/template" || ops[1].Path != "/metadata/annotations" {
		t.Fatalf("patch = %s", data)
	}
	var template api.PodTemplateSpec
	if err := json.Unmarshal(ops[0].Value, &template); err != nil {
		t.Fatal(err)
	}
	if _, ok := template.Labels[api.DefaultDeploymentUniqueLabelKey]; ok || template.Spec.Containers[0].Image != "nginx:2" {
		t.Errorf("template = %+v, want nginx:2 without pod-template-hash", template)
	}
	if _, ok := target.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey]; !ok {
		t.Error("rollbackPatch changed the ReplicaSet it was given")
	}
	var annotations map[string]string
	if err := json.Unmarshal(ops[1].Value, &annotations); err != nil {
		t.Fatal(err)
	}
	// The Deployment keeps its own revision and last-applied; the
	// change-cause comes from the revision rolled back to; the
	// ReplicaSet's replica bookkeeping is not copied.
	want := map[string]string{api.DeploymentRevisionAnnotation: "4", lastAppliedAnnotation: "{}", changeCauseAnnotation: "then"}
	if len(annotations) != len(want) {
		t.Errorf("annotations = %v, want %v", annotations, want)
	}
	for k, v := range want {
		if annotations[k] != v {
			t.Errorf("annotations = %v, want %v", annotations, want)
		}
	}
}

func TestDeploymentHistory(t *testing.T) {
	rss := []*api.ReplicaSet{replicaSet("10", "nginx:10", ""), replicaSet("2", "nginx:2", "image 2")}
	bad := replicaSet("x", "nginx", "")
	got, err := deploymentHistory(append(rss, bad), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "REVISION  CHANGE-CAUSE\n2         image 2\n10        <none>\n"
	if got != want {
		t.Errorf("history =\n%s\nwant\n%s", got, want)
	}
	if got, _ := deploymentHistory(nil, 0); got != "No rollout history found." {
		t.Errorf("no ReplicaSets: %q", got)
	}
	if _, err := deploymentHistory(rss, 3); err == nil || err.Error() != "unable to find the specified revision" {
		t.Errorf("missing revision: err = %v", err)
	}
	template, err := deploymentHistory(rss, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"Pod Template:\n", "  Labels:\tapp=web\n", "  Annotations:\tkubernetes.io/change-cause: image 2\n", "    Image:\tnginx:2\n"} {
		if !strings.Contains(template, line) {
			t.Errorf("revision 2 template lacks %q:\n%s", line, template)
		}
	}
}

func TestRestartPatcher(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	patcher := restartPatcher(func() time.Time { return now })
	info := resourceInfo{name: "web", object: map[string]any{"spec": map[string]any{"paused": true}}}
	info.resource.Group, info.resource.Kind = "apps", "Deployment"
	if _, err := patcher(info); err == nil || err.Error() != "can't restart paused deployment (run rollout resume first)" {
		t.Errorf("paused: err = %v", err)
	}
	info.object = map[string]any{"spec": map[string]any{}}
	patch, err := patcher(info)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2025-01-02T03:04:05Z"}}}}}`; string(patch) != want {
		t.Errorf("patch = %s, want %s", patch, want)
	}
	info.object = map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
		"annotations": map[string]any{restartedAtAnnotation: "2025-01-02T03:04:05Z"}}}}}
	if _, err := patcher(info); err == nil || !strings.Contains(err.Error(), "within the past second") {
		t.Errorf("restart twice in a second: err = %v", err)
	}
	info.resource.Group, info.resource.Kind = "", "Pod"
	if _, err := patcher(info); err == nil || err.Error() != "restarting is not supported" {
		t.Errorf("pod: err = %v", err)
	}
}

// daemonSetAt builds the DaemonSet "web" (uid "uid-web") running image.
func daemonSetAt(image string) *api.DaemonSet {
	ds := &api.DaemonSet{TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}}
	ds.Name, ds.Namespace, ds.UID = "web", "default", "uid-web"
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ds.Spec.Template.Labels = map[string]string{"app": "web"}
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: image}}
	return ds
}

// revisionOf builds revision number of the template parent would have
// with image, as the controller does, annotated with cause.
func revisionOf(t *testing.T, parent *api.DaemonSet, number int64, image, cause string) *api.ControllerRevision {
	t.Helper()
	at := daemonSetAt(image)
	data, err := api.RevisionData(&at.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	r := controllerutil.NewControllerRevision(parent, "apps/v1", "DaemonSet", at.Spec.Template.Labels, data, number, nil)
	r.Annotations = nil
	if cause != "" {
		r.Annotations = map[string]string{changeCauseAnnotation: cause}
	}
	return r
}

// daemonSetInfo is what the resource visitor hands the rollout verbs for
// daemonset/web.
func daemonSetInfo() resourceInfo {
	info := resourceInfo{namespace: "default", name: "web"}
	info.resource.Group, info.resource.Kind = "apps", "DaemonSet"
	return info
}

// TestTemplatePatchEncodesAsTheController pins the invariant undo relies
// on: the current template is "already at revision N" exactly when its
// patch has the bytes the controller stored.
func TestTemplatePatchEncodesAsTheController(t *testing.T) {
	template := daemonSetAt("nginx:1").Spec.Template
	template.Annotations = map[string]string{"b": "2", "a": "1"}
	want, err := api.RevisionData(&template)
	if err != nil {
		t.Fatal(err)
	}
	got, err := api.RevisionData(&template)
	if err != nil || string(got) != string(want) {
		t.Errorf("templatePatch = %s, %v; the controller stores %s", got, err, want)
	}
	if !strings.HasPrefix(string(got), `{"spec":{"template":{"$patch":"replace","metadata":`) {
		t.Errorf("templatePatch = %s, want upstream's replace patch of spec.template", got)
	}
}

func TestFindRevision(t *testing.T) {
	ds := daemonSetAt("nginx:3")
	revs := []*api.ControllerRevision{revisionOf(t, ds, 3, "nginx:3", ""), revisionOf(t, ds, 1, "nginx:1", ""), revisionOf(t, ds, 2, "nginx:2", "")}
	for _, tt := range []struct {
		toRevision int64
		want       string // image of the revision found, "" for none
	}{
		{0, "nginx:2"}, // the one before the newest (3)
		{1, "nginx:1"},
		{3, "nginx:3"},
		{7, ""},
	} {
		got := findRevision(revs, tt.toRevision)
		if (got == nil) != (tt.want == "") || got != nil && !strings.Contains(string(got.Data), tt.want) {
			t.Errorf("findRevision(%d) = %v, want the revision of %q", tt.toRevision, got, tt.want)
		}
	}
	if got := findRevision(revs[:1], 0); got != nil {
		t.Errorf("one revision only: findRevision(0) = %v, want none", got)
	}
	if revs[0].Revision != 3 {
		t.Error("findRevision sorted the caller's slice")
	}
}

func TestControllerRevisionHistory(t *testing.T) {
	ds := daemonSetAt("nginx:2")
	encoded, _ := json.Marshal(ds)
	w := &revisionedWorkload{kind: "DaemonSet", namespace: "default", name: "web", encoded: encoded, goType: reflect.TypeOf(ds),
		template: ds.Spec.Template, revisions: []*api.ControllerRevision{revisionOf(t, ds, 10, "nginx:2", "to 2"), revisionOf(t, ds, 2, "nginx:1", "")}}

	got, err := controllerRevisionHistory(w, 0)
	if want := "REVISION  CHANGE-CAUSE\n2         <none>\n10        to 2\n"; err != nil || got != want {
		t.Errorf("history = %q, %v; want\n%s", got, err, want)
	}
	// --revision applies the revision's patch to the DaemonSet: the
	// template of revision 2 runs nginx:1, not the current nginx:2.
	got, err = controllerRevisionHistory(w, 2)
	if err != nil || !strings.HasPrefix(got, "Pod Template:\n  Labels:\tapp=web\n") || !strings.Contains(got, "    Image:\tnginx:1\n") {
		t.Errorf("revision 2 = %q, %v; want the template running nginx:1", got, err)
	}
	if _, err := controllerRevisionHistory(w, 3); err == nil || err.Error() != "unable to find the specified revision" {
		t.Errorf("missing revision: err = %v", err)
	}
	w.revisions[1].Data = []byte(`{"spec":{"template":"not an object"}}`)
	if _, err := controllerRevisionHistory(w, 2); err == nil || err.Error() != "unable to parse history "+w.revisions[1].Name {
		t.Errorf("bad data: err = %v", err)
	}
	w.revisions = nil
	if got, err := controllerRevisionHistory(w, 0); err != nil || got != "No rollout history found." {
		t.Errorf("no revisions: %q, %v", got, err)
	}
}

// fakeAppsServer serves one DaemonSet and a list of ControllerRevisions,
// and records the PATCH requests sent to the DaemonSet.
type fakeAppsServer struct {
	ds        *api.DaemonSet
	revisions []*api.ControllerRevision

	mu      sync.Mutex
	patches []fakePatch
}

// fakePatch is one PATCH request the fake server received.
type fakePatch struct {
	contentType, query, body string
}

func (s *fakeAppsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/apis/apps/v1/namespaces/default/daemonsets/web" && r.Method == http.MethodGet:
		_ = json.NewEncoder(w).Encode(s.ds)
	case r.URL.Path == "/apis/apps/v1/namespaces/default/daemonsets/web" && r.Method == http.MethodPatch:
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.patches = append(s.patches, fakePatch{r.Header.Get("Content-Type"), r.URL.RawQuery, string(body)})
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(s.ds)
	case r.URL.Path == "/apis/apps/v1/namespaces/default/controllerrevisions" && r.Method == http.MethodGet:
		if got := r.URL.Query().Get("labelSelector"); got != "app=web" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"labelSelector %q, want the DaemonSet's app=web","code":400}`, got)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "ControllerRevisionList", "apiVersion": "apps/v1", "metadata": map[string]any{}, "items": s.revisions})
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"%s %s not served","reason":"NotFound","code":404}`, r.Method, r.URL.Path)
	}
}

func TestRollbackToControllerRevision(t *testing.T) {
	ds := daemonSetAt("nginx:3")
	other := daemonSetAt("nginx:9")
	other.UID = "uid-other"
	fake := &fakeAppsServer{ds: ds, revisions: []*api.ControllerRevision{
		revisionOf(t, ds, 1, "nginx:1", ""),
		revisionOf(t, ds, 3, "nginx:3", "to 3"),
		revisionOf(t, ds, 2, "nginx:2", ""),
		// Matched by the selector but controlled by another DaemonSet:
		// never a candidate.
		revisionOf(t, other, 4, "nginx:9", ""),
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rollback := func(toRevision int64, dryRun dryRunStrategy) (string, error) {
		return rollbackToControllerRevision(ctx, c, daemonSetInfo(), toRevision, dryRun)
	}

	// The previous revision is 2 (3 is current; 4 is not this DaemonSet's).
	got, err := rollback(0, "client")
	if err != nil || !strings.HasPrefix(got, "will roll back to Pod Template:\n") || !strings.Contains(got, "    Image:\tnginx:2\n") {
		t.Errorf("undo --dry-run=client = %q, %v; want the template of revision 2", got, err)
	}
	if got, err := rollback(3, ""); err != nil || got != "skipped rollback (current template already matches revision 3)" {
		t.Errorf("undo to the current revision = %q, %v", got, err)
	}
	for _, tt := range []struct {
		toRevision int64
		wantErr    string
	}{
		{-1, "unable to find specified revision -1 in history"},
		{4, "unable to find specified revision 4 in history"},
		{7, "unable to find specified revision 7 in history"},
	} {
		if _, err := rollback(tt.toRevision, ""); err == nil || err.Error() != tt.wantErr {
			t.Errorf("undo --to-revision=%d: err = %v, want %q", tt.toRevision, err, tt.wantErr)
		}
	}
	if len(fake.patches) != 0 {
		t.Fatalf("dry runs, skips and errors sent patches: %+v", fake.patches)
	}

	if got, err := rollback(1, ""); err != nil || got != "rolled back" {
		t.Errorf("undo --to-revision=1 = %q, %v", got, err)
	}
	if got, err := rollback(0, "server"); err != nil || got != "rolled back" {
		t.Errorf("undo --dry-run=server = %q, %v", got, err)
	}
	// Each rollback sends the revision's data, as it is, as a strategic
	// merge patch; the server dry run says so in the query.
	want := []fakePatch{
		{string(client.StrategicMergePatchType), "", string(fake.revisions[0].Data)},
		{string(client.StrategicMergePatchType), "dryRun=All", string(fake.revisions[2].Data)},
	}
	if len(fake.patches) != len(want) {
		t.Fatalf("patches = %+v, want %+v", fake.patches, want)
	}
	for i := range want {
		if fake.patches[i] != want[i] {
			t.Errorf("patch %d = %+v, want %+v", i, fake.patches[i], want[i])
		}
	}

	fake.revisions = fake.revisions[1:2]
	if _, err := rollback(0, ""); err == nil || err.Error() != "no last revision to roll back to" {
		t.Errorf("one revision only: err = %v", err)
	}
	fake.ds = nil
	if _, err := rollbackToControllerRevision(ctx, c, resourceInfo{namespace: "default", name: "gone", resource: daemonSetInfo().resource}, 0, ""); err == nil || !strings.HasPrefix(err.Error(), "failed to retrieve DaemonSet gone: ") {
		t.Errorf("missing DaemonSet: err = %v", err)
	}
}
