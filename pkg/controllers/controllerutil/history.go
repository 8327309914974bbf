package controllerutil

// This file keeps the revision history of StatefulSets and DaemonSets, as
// upstream's pkg/controller/history does. Unlike a Deployment, whose
// history is its ReplicaSets, these controllers own their pods directly, so
// each template they ever ran is stored as a ControllerRevision:
//
//   - name "<parent>-<hash>", where the hash covers the revision's data;
//   - data, the parent's pod template in upstream's patch form
//     {"spec":{"template":{…,"$patch":"replace"}}}, which `kubectl rollout
//     undo` applies back onto the parent;
//   - revision, a number that grows by one per new template (a rollback
//     re-numbers the old revision instead of creating a new one);
//   - the parent's template labels (so the parent's selector finds it), a
//     copy of the parent's annotations as they were when the revision was
//     made (its kubernetes.io/change-cause is what `kubectl rollout
//     history` shows), and a controller ownerReference to the parent.
//
// Pods carry the name of the revision they were made from in the
// controller-revision-hash label, which is how a controller tells updated
// pods from old ones.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// DefaultRevisionHistoryLimit is how many unused revisions a parent keeps
// when spec.revisionHistoryLimit is unset (upstream's default, 10).
const DefaultRevisionHistoryLimit = 10

// RevisionHashLabel is the label upstream's history package puts on a
// StatefulSet's ControllerRevisions with the hash of their data, so two
// revisions can be compared cheaply.
const RevisionHashLabel = "controller.kubernetes.io/hash"

// RevisionHashLabelFor returns the label that holds the hash on the
// revisions of a parent of kind. Upstream's DaemonSet controller builds its
// revisions itself and labels them controller-revision-hash (the label its
// pods carry too, apps.DefaultDaemonSetUniqueLabelKey); every other parent
// (StatefulSet) goes through the history package and its
// controller.kubernetes.io/hash.
func RevisionHashLabelFor(kind string) string {
	if kind == "DaemonSet" {
		return api.ControllerRevisionHashLabelKey
	}
	return RevisionHashLabel
}

// maxRevisionPrefix keeps "<parent>-<hash>" within the 253 characters of a
// name: upstream truncates the parent's name to 223 characters.
const maxRevisionPrefix = 223

// HashRevisionData hashes a revision's data: FNV-32a over the bytes, then,
// when collisionCount is set, its decimal digits (as upstream's
// HashControllerRevision writes its probe), written in decimal and passed
// through SafeEncodeString. Bumping the parent's status.collisionCount
// thus yields a fresh name when another revision holds the one the data
// hashes to.
func HashRevisionData(data []byte, collisionCount *int32) string {
	hasher := fnv.New32a()
	hasher.Write(data)
	if collisionCount != nil {
		hasher.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return SafeEncodeString(strconv.FormatUint(uint64(hasher.Sum32()), 10))
}

// ControllerRevisionName returns "<parent>-<hash>", the parent's name cut
// to 223 characters so that the result is a valid name.
func ControllerRevisionName(parentName, hash string) string {
	if len(parentName) > maxRevisionPrefix {
		parentName = parentName[:maxRevisionPrefix]
	}
	return parentName + "-" + hash
}

// NewControllerRevision builds (does not create) the revision number
// revision of parent holding data: named "<parent>-<hash>" after
// HashRevisionData(data, collisionCount), labelled with templateLabels plus
// the hash under RevisionHashLabelFor(kind), annotated with a copy of parent's annotations (as
// upstream's DaemonSet and StatefulSet controllers annotate theirs, which is
// where `kubectl rollout history` finds each revision's change-cause), and
// controlled by parent (apiVersion/kind, e.g. "apps/v1", "StatefulSet").
func NewControllerRevision(parent api.Object, apiVersion, kind string, templateLabels map[string]string, data json.RawMessage, revision int64, collisionCount *int32) *api.ControllerRevision {
	meta := parent.GetObjectMeta()
	hash := HashRevisionData(data, collisionCount)
	revLabels := make(map[string]string, len(templateLabels)+1)
	for k, v := range templateLabels {
		revLabels[k] = v
	}
	revLabels[RevisionHashLabelFor(kind)] = hash
	return &api.ControllerRevision{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: api.ObjectMeta{
			Name:            ControllerRevisionName(meta.Name, hash),
			Namespace:       meta.Namespace,
			Labels:          revLabels,
			Annotations:     maps.Clone(meta.Annotations),
			OwnerReferences: []api.OwnerReference{NewControllerRef(parent, apiVersion, kind)},
		},
		Data:     append(json.RawMessage(nil), data...),
		Revision: revision,
	}
}

// EqualRevision reports whether two revisions hold the same template. The
// data decides, compared as JSON values so that the apiserver re-encoding
// it does not matter; the names and hash labels do not, since the same
// data hashed under another collisionCount gets another name.
func EqualRevision(a, b *api.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	if bytes.Equal(a.Data, b.Data) {
		return true
	}
	var av, bv any
	if json.Unmarshal(a.Data, &av) != nil || json.Unmarshal(b.Data, &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}

// FindEqualRevisions returns the revisions among revisions that hold the
// same data as needle (EqualRevision), in the order given.
func FindEqualRevisions(revisions []*api.ControllerRevision, needle *api.ControllerRevision) []*api.ControllerRevision {
	var equal []*api.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle) {
			equal = append(equal, r)
		}
	}
	return equal
}

// SortRevisions sorts revisions oldest first: by revision number, then
// creation time, then name (upstream's byRevision), so the last one is the
// newest and truncation deletes from the front.
func SortRevisions(revisions []*api.ControllerRevision) {
	slices.SortStableFunc(revisions, func(a, b *api.ControllerRevision) int {
		if a.Revision != b.Revision {
			if a.Revision < b.Revision {
				return -1
			}
			return 1
		}
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
}

// NextRevision returns the number the next new revision gets: one more
// than the highest among revisions, 1 for an empty history.
func NextRevision(revisions []*api.ControllerRevision) int64 {
	var highest int64
	for _, r := range revisions {
		if r.Revision > highest {
			highest = r.Revision
		}
	}
	return highest + 1
}

// ClaimRevisions returns the revisions parent controls among revisions
// (usually every revision in its namespace, from a lister), adopting
// orphans its selector matches and releasing its own that no longer match,
// with the same rules as pods (see RefManager). canAdopt re-reads the
// parent fresh (RecheckDeletionTimestamp); nil skips that check.
func ClaimRevisions(ctx context.Context, c *client.Client, parent api.Object, apiVersion, kind string, selector labels.Selector, canAdopt func(ctx context.Context) error, revisions []*api.ControllerRevision) ([]*api.ControllerRevision, error) {
	ns := parent.GetObjectMeta().Namespace
	m := &RefManager{
		Owner:      parent,
		APIVersion: apiVersion,
		Kind:       kind,
		Selector:   selector,
		CanAdopt:   canAdopt,
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.ControllerRevisions(ns).Patch(ctx, name, client.StrategicMergePatchType, patch, client.PatchOptions{})
			return err
		},
	}
	return Claim(ctx, m, revisions)
}

// CreateControllerRevision creates revision of parent, moving to a new name while its
// name is taken by a revision with different data: each time it bumps
// *collisionCount (which the caller then records in the parent's status)
// and re-hashes. If the name is taken by an equal revision (another
// controller-manager, or an earlier sync, created it) that one is returned.
func CreateControllerRevision(ctx context.Context, c *client.Client, parent api.Object, revision *api.ControllerRevision, collisionCount *int32) (*api.ControllerRevision, error) {
	parentName := parent.GetObjectMeta().Name
	if collisionCount == nil {
		return nil, fmt.Errorf("create revision for %s: collisionCount must not be nil", parentName)
	}
	for {
		clone := api.DeepCopy(revision)
		hash := HashRevisionData(clone.Data, collisionCount)
		clone.Name = ControllerRevisionName(parentName, hash)
		if clone.Labels == nil {
			clone.Labels = map[string]string{}
		}
		clone.Labels[revisionHashLabelOf(clone)] = hash
		created, err := c.ControllerRevisions(clone.Namespace).Create(ctx, clone, client.CreateOptions{})
		if err == nil {
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create revision %s: %w", clone.Name, err)
		}
		existing, getErr := c.ControllerRevisions(clone.Namespace).Get(ctx, clone.Name, client.GetOptions{})
		if getErr != nil {
			return nil, fmt.Errorf("get existing revision %s: %w", clone.Name, getErr)
		}
		if EqualRevision(existing, clone) {
			return existing, nil
		}
		*collisionCount++
	}
}

// revisionHashLabelOf is the hash label of revision, after the kind of
// the parent that controls it.
func revisionHashLabelOf(revision *api.ControllerRevision) string {
	kind := ""
	if ref := GetControllerOf(&revision.ObjectMeta); ref != nil {
		kind = ref.Kind
	}
	return RevisionHashLabelFor(kind)
}

// RevisionsToTruncate returns the revisions to delete so that at most limit
// revisions not in live remain: the oldest unused ones. live holds the
// names of revisions still in use (the current and update revision, and
// those the parent's pods are labelled with), which are never deleted.
// revisions must be sorted oldest first (SortRevisions).
func RevisionsToTruncate(revisions []*api.ControllerRevision, live map[string]bool, limit int) []*api.ControllerRevision {
	var unused []*api.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			unused = append(unused, r)
		}
	}
	if limit < 0 {
		limit = 0
	}
	if len(unused) <= limit {
		return nil
	}
	return unused[:len(unused)-limit]
}

// TruncateHistory deletes RevisionsToTruncate(revisions, live, limit).
// A revision already gone is not an error.
func TruncateHistory(ctx context.Context, c *client.Client, revisions []*api.ControllerRevision, live map[string]bool, limit int) error {
	for _, r := range RevisionsToTruncate(revisions, live, limit) {
		err := c.ControllerRevisions(r.Namespace).Delete(ctx, r.Name, client.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete revision %s/%s: %w", r.Namespace, r.Name, err)
		}
	}
	return nil
}
