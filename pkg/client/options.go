package client

import (
	"net/url"
	"strconv"

	"kplane/pkg/api"
)

// ListOptions narrow a list or a watch; they travel as query parameters.
type ListOptions struct {
	// LabelSelector and FieldSelector filter objects ("app=web,tier!=db",
	// "spec.nodeName=node-1").
	LabelSelector, FieldSelector string
	// ResourceVersion says how fresh a list must be ("" = most recent,
	// "0" = any cached state) and where a watch starts (after this revision).
	ResourceVersion string
	// ResourceVersionMatch is "Exact" or "NotOlderThan" for a list.
	ResourceVersionMatch string
	// Limit and Continue page through a long list.
	Limit    int64
	Continue string
	// TimeoutSeconds asks the server to end a list or watch after this long.
	TimeoutSeconds *int64
	// AllowWatchBookmarks asks for BOOKMARK events on a watch.
	AllowWatchBookmarks bool
}

// query encodes the options the way the apiserver reads them.
func (o ListOptions) query() url.Values {
	q := url.Values{}
	setIf(q, "labelSelector", o.LabelSelector)
	setIf(q, "fieldSelector", o.FieldSelector)
	setIf(q, "resourceVersion", o.ResourceVersion)
	setIf(q, "resourceVersionMatch", o.ResourceVersionMatch)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	setIf(q, "continue", o.Continue)
	if o.TimeoutSeconds != nil {
		q.Set("timeoutSeconds", strconv.FormatInt(*o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	return q
}

// GetOptions qualify a GET of one object.
type GetOptions struct {
	// ResourceVersion "" reads the latest state, "0" any cached state.
	ResourceVersion string
}

func (o GetOptions) query() url.Values {
	q := url.Values{}
	setIf(q, "resourceVersion", o.ResourceVersion)
	return q
}

// CreateOptions qualify a write (create, update or patch).
type CreateOptions struct {
	// DryRun runs admission and validation without storing anything
	// (dryRun=All).
	DryRun bool
	// FieldValidation is Strict, Warn (the server's default) or Ignore: what
	// the server does with fields the kind does not have.
	FieldValidation string
	// FieldManager names the writer, e.g. "kplane-controller-manager".
	FieldManager string
}

func (o CreateOptions) query() url.Values {
	q := url.Values{}
	if o.DryRun {
		q.Set("dryRun", api.DryRunAll)
	}
	setIf(q, "fieldValidation", o.FieldValidation)
	setIf(q, "fieldManager", o.FieldManager)
	return q
}

// UpdateOptions qualify a PUT; they are the same as CreateOptions.
type UpdateOptions = CreateOptions

// PatchOptions qualify a PATCH; they are the same as CreateOptions.
type PatchOptions = CreateOptions

// DeleteOptions qualify a DELETE (grace period, propagation policy,
// preconditions, dry run); they travel as the request body.
type DeleteOptions = api.DeleteOptions

// PatchType is the Content-Type that says how a PATCH body is applied.
type PatchType string

// The patch flavours the apiserver understands.
const (
	// JSONPatchType is an RFC 6902 list of operations (add, remove, replace…).
	JSONPatchType PatchType = "application/json-patch+json"
	// MergePatchType is an RFC 7386 merge patch: objects merge, lists are replaced.
	MergePatchType PatchType = "application/merge-patch+json"
	// StrategicMergePatchType merges lists by their Kubernetes merge keys
	// (containers by name, …); it is what kubectl apply sends.
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
)

func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

// mergeQuery adds every value of extra to q.
func mergeQuery(q, extra url.Values) url.Values {
	for k, vs := range extra {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	return q
}
