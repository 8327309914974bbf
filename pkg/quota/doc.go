// Package quota says what an object costs a namespace's ResourceQuotas: the
// evaluators that both the apiserver's quota admission and the
// resourcequota controller use, so that what admission charges and what
// the controller recounts are the same figures.
//
// An Evaluator knows one resource (pods, services, claims, or any other
// resource counted as count/<resource>.<group>). It answers four questions:
//
//   - MatchingResources: which of a quota's hard names concern it
//     ("requests.cpu" concerns pods, not services);
//   - MatchesScope: whether an object is in a quota scope (BestEffort,
//     NotBestEffort, Terminating, NotTerminating, PriorityClass), which only
//     pods have;
//   - Constraints: whether the object may be admitted at all under a quota
//     (a quota on requests.cpu needs every container to request cpu);
//   - Usage: what the object charges ({pods: 1, requests.cpu: 100m, …}).
//
// Matches combines them for one quota. The arithmetic on ResourceLists
// (Add, Subtract, Mask, LessThanOrEqual) is in resources.go, and the text
// of upstream's refusals in messages.go.
//
// It mirrors upstream's pkg/quota/v1 (resources.go, generic/evaluator.go)
// and pkg/quota/v1/evaluator/core (pods.go, services.go,
// persistent_volume_claims.go). See docs/controllers/resourcequota.md.
package quota
