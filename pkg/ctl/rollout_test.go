package ctl

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
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
