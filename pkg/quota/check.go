package quota

import (
	"time"

	"kplane/pkg/api"
)

// Refusal is quota's reason to refuse a request; the apiserver answers it
// with 403 Forbidden and the message.
type Refusal struct{ Message string }

// Error returns the message, as the apiserver shows it after "is forbidden: ".
func (r *Refusal) Error() string { return r.Message }

// Charge is the new status.used of one quota once a request is admitted.
type Charge struct {
	Quota *api.ResourceQuota
	Used  api.ResourceList
	// Requested is what the request adds: Used is Quota.Status.Used plus
	// Requested. It is what is given back when the request's write fails.
	Requested api.ResourceList
}

// Request is one write quota admission judges.
type Request struct {
	Operation Operation
	// Object is the object to be written; Old is the stored one on an update.
	Object, Old api.Object
	// Now is the server's time, for pods past their deletion grace period.
	Now time.Time
}

// CheckRequest decides whether req fits the namespace's quotas and, when it
// does, what each quota's usage becomes (upstream's CheckRequest in the
// admission plugin's controller.go). In order:
//
//  1. the quotas that count the object (Matches);
//  2. for each, the object must satisfy its constraints, and the controller
//     must already have computed usage for what the quota limits;
//  3. the delta: the object's usage, or on an update what it adds to the
//     old object's (never a refund);
//  4. each quota's used + delta must stay within hard, for the resources
//     the delta touches.
//
// A request that charges nothing returns no charges and no error. The
// caller has asked e.Handles(req.Operation) first, before reading quotas.
func CheckRequest(quotas []*api.ResourceQuota, e Evaluator, req Request) ([]Charge, error) {
	var matching []*api.ResourceQuota
	for _, q := range quotas {
		match, err := Matches(e, q, req.Object)
		if err != nil {
			return nil, err
		}
		if !match {
			continue
		}
		limited := e.MatchingResources(ResourceNames(q.Status.Hard))
		if err := e.Constraints(limited, req.Object); err != nil {
			return nil, &Refusal{Message: FailedMessage(q.Name, err)}
		}
		if !hasUsage(q, limited) {
			return nil, &Refusal{Message: StatusUnknownMessage(q.Name, limited)}
		}
		matching = append(matching, q)
	}
	if len(matching) == 0 {
		return nil, nil
	}
	usage, err := e.Usage(req.Object, req.Now)
	if err != nil {
		return nil, err
	}
	if negative := IsNegative(usage); len(negative) > 0 {
		return nil, &Refusal{Message: NegativeUsageMessage(negative)}
	}

	var charges []Charge
	for _, q := range matching {
		delta := usage
		if req.Operation == Update && req.Old != nil {
			// An object the quota already counted is charged only its growth.
			if counted, err := Matches(e, q, req.Old); err != nil {
				return nil, err
			} else if counted {
				oldUsage, err := e.Usage(req.Old, req.Now)
				if err != nil {
					return nil, err
				}
				delta = SubtractNonNegative(usage, oldUsage)
			}
		}
		requested := RemoveZeros(Mask(delta, ResourceNames(q.Status.Hard)))
		if len(requested) == 0 {
			continue
		}
		used := Add(q.Status.Used, requested)
		if ok, exceeded := LessThanOrEqual(Mask(used, ResourceNames(requested)), q.Status.Hard); !ok {
			return nil, &Refusal{Message: ExceededMessage(q.Name, requested, q.Status.Used, q.Status.Hard, exceeded)}
		}
		charges = append(charges, Charge{Quota: q, Used: used, Requested: requested})
	}
	return charges, nil
}

// hasUsage reports whether the quota's status has a used figure for every
// resource of limited (names taken from its status.hard).
func hasUsage(q *api.ResourceQuota, limited []api.ResourceName) bool {
	for _, name := range limited {
		if _, ok := q.Status.Used[name]; !ok {
			return false
		}
	}
	return true
}

// CalculateUsage is what the resourcequota controller writes to a quota's
// status.used for one resource: the sum of what each object the quota
// counts charges, for the quota's hard names e matches, with a zero for
// each of those names nothing charges.
func CalculateUsage(q *api.ResourceQuota, e Evaluator, objects []api.Object, now time.Time) (api.ResourceList, error) {
	names := e.MatchingResources(ResourceNames(q.Spec.Hard))
	used := api.ResourceList{}
	for _, name := range names {
		used[name] = api.NewQuantity(0, api.DecimalSI)
	}
	if len(names) == 0 {
		return used, nil
	}
	selectors := ScopeSelectors(q)
	for _, obj := range objects {
		if in, err := inScopes(e, selectors, obj); err != nil {
			return nil, err
		} else if !in {
			continue
		}
		usage, err := e.Usage(obj, now)
		if err != nil {
			return nil, err
		}
		used = Add(used, Mask(usage, names))
	}
	return used, nil
}
