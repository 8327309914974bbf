// Package labels selects objects by their labels, the way Kubernetes does for
// `?labelSelector=`, `kubectl get -l`, and the selectors inside Deployments,
// ReplicaSets, Services and friends.
//
// A Selector is a list of Requirements that must all hold (there is no OR).
// Each Requirement relates one label key to a set of values with an Operator:
//
//	app=nginx              Equals: the label is present and equal
//	tier!=db               NotEquals: absent, or present with another value
//	env in (prod,staging)  In: present, with one of the values
//	env notin (dev)        NotIn: absent, or present with none of the values
//	partition              Exists: present, with any value
//	!partition             DoesNotExist: absent
//	replicas>3             GreaterThan / LessThan: present and an integer
//
// Selectors come from two places, and both end up as the same type:
//   - Parse reads the query-string syntax above (upstream's labels.Parse);
//   - FromLabelSelector converts the structured matchLabels/matchExpressions
//     form stored in objects (upstream's metav1.LabelSelectorAsSelector).
//
// String renders a selector canonically (requirements sorted by key, values
// sorted), which is what kubectl prints in `get rs -o wide` and `describe`,
// and Parse(sel.String()) gives back an equivalent selector.
//
// Error messages and validation rules mirror upstream's apimachinery, so what
// a student sees here is what a real apiserver answers.
package labels
