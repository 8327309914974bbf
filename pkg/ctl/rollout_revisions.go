package ctl

// This file is `rollout history` and `rollout undo` for the workloads whose
// history is a list of ControllerRevisions: DaemonSets and StatefulSets
// (kubectl's DaemonSetHistoryViewer, StatefulSetHistoryViewer,
// DaemonSetRollbacker and StatefulSetRollbacker). A Deployment's history is
// its ReplicaSets instead (rollout_history.go, rollout_undo.go).
//
// Their controllers (pkg/controllers/controllerutil/history.go) store each pod template the
// workload has run as a ControllerRevision whose data is a strategic merge
// patch, {"spec":{"template":{…,"$patch":"replace"}}}. Viewing revision N
// applies that patch to the workload and shows the resulting template;
// rolling back to N sends that same patch to the server, and the controller
// then sees a template it already has a revision for and renumbers that
// revision as the newest.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/api/patch"
	"kplane/pkg/client"
	"kplane/pkg/ctl/describe"
)

// keepsControllerRevisions reports whether the object is a DaemonSet or a
// StatefulSet, the kinds whose history is ControllerRevisions.
func keepsControllerRevisions(info resourceInfo) bool {
	return info.resource.Group == "apps" && (info.resource.Kind == "DaemonSet" || info.resource.Kind == "StatefulSet")
}

// revisionedWorkload is a DaemonSet or StatefulSet as read from the server,
// with the ControllerRevisions it controls.
type revisionedWorkload struct {
	// kind is "DaemonSet" or "StatefulSet"; namespace and name locate it.
	kind, namespace, name string
	// encoded is the object's JSON, which a revision's patch is applied to,
	// and goType its Go type, whose patch tags the strategic merge reads.
	encoded []byte
	goType  reflect.Type
	// template is the object's spec.template now.
	template api.PodTemplateSpec
	// revisions are the ControllerRevisions its selector matches and whose
	// controller ownerReference is the object, in the order listed.
	revisions []*api.ControllerRevision
}

// getRevisionedWorkload reads the DaemonSet or StatefulSet info names and
// its ControllerRevisions, with kubectl's daemonSetHistory /
// statefulSetHistory error messages.
func getRevisionedWorkload(ctx context.Context, c *client.Client, info resourceInfo) (*revisionedWorkload, error) {
	w := &revisionedWorkload{kind: info.resource.Kind, namespace: info.namespace, name: info.name}
	var (
		object   any
		meta     *api.ObjectMeta
		selector *api.LabelSelector
	)
	switch w.kind {
	case "DaemonSet":
		ds, err := c.DaemonSets(info.namespace).Get(ctx, info.name, client.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("failed to retrieve DaemonSet %s: %w", info.name, err)
		}
		object, meta, selector, w.template = ds, &ds.ObjectMeta, ds.Spec.Selector, ds.Spec.Template
	case "StatefulSet":
		sts, err := c.StatefulSets(info.namespace).Get(ctx, info.name, client.GetOptions{})
		if err != nil {
			// kubectl spells the kind "Statefulset" in this one message.
			return nil, fmt.Errorf("failed to retrieve Statefulset %s: %w", info.name, err)
		}
		object, meta, selector, w.template = sts, &sts.ObjectMeta, sts.Spec.Selector, sts.Spec.Template
	default:
		return nil, fmt.Errorf("%s keeps no ControllerRevisions", groupKind(info))
	}
	encoded, err := json.Marshal(object)
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", w.kind, w.name, err)
	}
	w.encoded, w.goType = encoded, reflect.TypeOf(object)
	parsed, err := labels.FromLabelSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("failed to create selector for %s %s: %w", w.kind, w.name, err)
	}
	w.revisions, err = controlledRevisions(ctx, c, w.namespace, parsed, meta.UID)
	if err != nil {
		return nil, fmt.Errorf("unable to find history controlled by %s %s: %w", w.kind, w.name, err)
	}
	return w, nil
}

// controlledRevisions lists the ControllerRevisions in namespace that
// selector matches and whose controller ownerReference has uid.
func controlledRevisions(ctx context.Context, c *client.Client, namespace string, selector labels.Selector, uid string) ([]*api.ControllerRevision, error) {
	list, err := c.ControllerRevisions(namespace).List(ctx, client.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, err
	}
	var owned []*api.ControllerRevision
	for _, r := range list.Items {
		if controlledBy(&r.ObjectMeta, uid) {
			owned = append(owned, r)
		}
	}
	return owned, nil
}

// templateAt is the pod template the workload would have with revision
// applied: the revision's data patched onto the object as the server
// patches it (a strategic merge), then its spec.template.
func (w *revisionedWorkload) templateAt(revision *api.ControllerRevision) (*api.PodTemplateSpec, error) {
	patched, err := patch.Apply(patch.StrategicMergePatchType, w.encoded, revision.Data, w.goType)
	if err != nil {
		return nil, fmt.Errorf("apply revision %s to %s %s: %w", revision.Name, w.kind, w.name, err)
	}
	var restored struct {
		Spec struct {
			Template api.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(patched, &restored); err != nil {
		return nil, fmt.Errorf("decode %s %s at revision %s: %w", w.kind, w.name, revision.Name, err)
	}
	return &restored.Spec.Template, nil
}

// patch sends a strategic merge patch to the workload.
func (w *revisionedWorkload) patch(ctx context.Context, c *client.Client, data []byte, opts client.PatchOptions) error {
	var err error
	switch w.kind {
	case "DaemonSet":
		_, err = c.DaemonSets(w.namespace).Patch(ctx, w.name, client.StrategicMergePatchType, data, opts)
	case "StatefulSet":
		_, err = c.StatefulSets(w.namespace).Patch(ctx, w.name, client.StrategicMergePatchType, data, opts)
	}
	return err
}

// controllerRevisionHistory is kubectl's printHistory: the REVISION /
// CHANGE-CAUSE table, each revision's change-cause read from the
// ControllerRevision's own annotations (the controller copies the
// workload's when it makes the revision), or with revision > 0 the pod
// template of that revision. Two revisions with one number: the one listed
// last wins, as in kubectl.
func controllerRevisionHistory(w *revisionedWorkload, revision int64) (string, error) {
	byNumber := map[int64]*api.ControllerRevision{}
	for _, r := range w.revisions {
		byNumber[r.Revision] = r
	}
	if len(byNumber) == 0 {
		return "No rollout history found.", nil
	}
	if revision > 0 {
		r, ok := byNumber[revision]
		if !ok {
			return "", fmt.Errorf("unable to find the specified revision")
		}
		template, err := w.templateAt(r)
		if err != nil {
			return "", fmt.Errorf("unable to parse history %s", r.Name)
		}
		return describe.PodTemplate(template), nil
	}
	causes := make(map[int64]string, len(byNumber))
	for v, r := range byNumber {
		causes[v] = r.Annotations[changeCauseAnnotation]
	}
	return revisionTable(causes), nil
}

// rollbackToControllerRevision is kubectl's DaemonSetRollbacker and
// StatefulSetRollbacker: it returns what to print after the object's name.
// With --dry-run=client that is the template it would restore; otherwise
// it sends the revision's data, unchanged, as a strategic merge patch —
// unless the current template already encodes to exactly that data.
func rollbackToControllerRevision(ctx context.Context, c *client.Client, info resourceInfo, toRevision int64, dryRun dryRunStrategy) (string, error) {
	if toRevision < 0 {
		return "", revisionNotFound(toRevision)
	}
	w, err := getRevisionedWorkload(ctx, c, info)
	if err != nil {
		return "", err
	}
	if toRevision == 0 && len(w.revisions) <= 1 {
		return "", errors.New("no last revision to roll back to")
	}
	target := findRevision(w.revisions, toRevision)
	if target == nil {
		return "", revisionNotFound(toRevision)
	}
	if dryRun == "client" {
		template, err := w.templateAt(target)
		if err != nil {
			return "", err
		}
		return "will roll back to " + describe.PodTemplate(template), nil
	}
	current, err := api.RevisionData(&w.template)
	if err != nil {
		return "", err
	}
	// kubectl compares bytes, not templates: the controller and kubectl
	// encode a template the same way (sorted keys, no spaces).
	if bytes.Equal(current, target.Data) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision), nil
	}
	if err := w.patch(ctx, c, target.Data, client.PatchOptions{DryRun: dryRun == "server"}); err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %w", toRevision, err)
	}
	return "rolled back", nil
}

// findRevision is kubectl's findHistory: the revision numbered toRevision,
// or for 0 the one before the newest (the second-highest number). nil when
// there is none.
func findRevision(revisions []*api.ControllerRevision, toRevision int64) *api.ControllerRevision {
	if toRevision != 0 {
		for _, r := range revisions {
			if r.Revision == toRevision {
				return r
			}
		}
		return nil
	}
	if len(revisions) < 2 {
		return nil
	}
	sorted := slices.Clone(revisions)
	slices.SortStableFunc(sorted, func(a, b *api.ControllerRevision) int {
		switch {
		case a.Revision < b.Revision:
			return -1
		case a.Revision > b.Revision:
			return 1
		}
		return 0
	})
	return sorted[len(sorted)-2]
}
