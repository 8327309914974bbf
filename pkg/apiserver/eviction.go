package apiserver

// This file is the pods/eviction subresource: POST an Eviction (policy/v1,
// or policy/v1beta1 as upstream still accepts) to ask for a pod's deletion
// that respects its PodDisruptionBudget. It is what `kubectl drain` and
// `ctl drain` use. It mirrors upstream's
// pkg/registry/core/pod/storage/eviction.go:
//
//  1. A pod that is not running — Pending, Succeeded, Failed, or already
//     being deleted — is deleted at once: evicting it disrupts nothing.
//  2. Otherwise the budgets whose selector matches the pod are found. None:
//     delete. More than one: 500, which eviction does not support.
//  3. A pod that is not Ready counts for nothing in its budget, so while
//     the budget is met (currentHealthy ≥ desiredHealthy > 0), or when the
//     budget says unhealthyPodEvictionPolicy: AlwaysAllow, it is deleted
//     without using up a disruption — with its resourceVersion as a
//     precondition, so that a pod that became Ready in between is not.
//  4. A Ready pod takes one disruption: the budget must have been computed
//     for its current generation (else 429, "still being processed") and
//     allow one (else 429 with a DisruptionBudget cause giving the numbers).
//     The eviction then decrements status.disruptionsAllowed and records
//     the pod in status.disruptedPods with a compare-and-swap on the
//     budget; of two evictions racing for the last disruption, one wins
//     and the other reads the new status and gets the 429. The disruption
//     controller drops the entry when it sees the pod go, or after two
//     minutes when it does not.
//  5. The pod gets the DisruptionTarget condition (EvictionByEvictionAPI)
//     and is deleted with the Eviction's deleteOptions (grace period,
//     preconditions, dryRun).
//
// A success is 201 with a Success Status.

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/api/poddisruptionbudget"
	"kplane/pkg/apiserver/response"
)

// maxDisruptedPods caps status.disruptedPods: past it, evictions are
// refused until the disruption controller catches up (upstream's
// MaxDisruptedPodSize).
const maxDisruptedPods = 2000

// The messages of refused evictions, upstream's words.
const (
	evictionViolatesBudget = "Cannot evict pod as it would violate the pod's disruption budget."
	evictionTooManyBudgets = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
)

// The DisruptionTarget condition an evicted pod gets before its deletion,
// so that a Job's podFailurePolicy can tell an eviction from a failure.
const (
	reasonEvictionByEvictionAPI  = "EvictionByEvictionAPI"
	messageEvictionByEvictionAPI = "Eviction API: evicting"
)

// serveEviction handles POST pods/<name>/eviction.
func (s *Server) serveEviction(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if r.Method != http.MethodPost {
		response.WriteError(w, apierrors.NewMethodNotSupported(apierrors.Resource{Resource: "pods/eviction"}, r.Method))
		return
	}
	eviction, err := decodeEviction(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if eviction.Name != info.name {
		response.WriteError(w, apierrors.NewBadRequest("name in URL does not match name in Eviction object"))
		return
	}
	if eviction.Namespace != "" && eviction.Namespace != info.namespace {
		response.WriteError(w, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	queryDryRun, err := isDryRun(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	opts, err := evictionDeleteOptions(eviction, queryDryRun)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	status, err := s.evict(r, info.res, info.namespace, info.name, opts)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	status.TypeMeta = api.TypeMeta{Kind: "Status", APIVersion: "v1"}
	response.WriteJSON(w, int(status.Code), status)
}

// decodeEviction reads the request body as an Eviction in JSON, YAML or
// protobuf (client-go's typed clients, kubectl drain among them, send
// protobuf). policy/v1 and policy/v1beta1 are both accepted, as upstream's
// EvictionREST.AcceptsGroupVersion.
func decodeEviction(r *http.Request) (*api.Eviction, error) {
	eviction := &api.Eviction{}
	if err := decodeKind(r, eviction, "Eviction", "policy/v1", "policy/v1beta1"); err != nil {
		return nil, err
	}
	return eviction, nil
}

// evictionDeleteOptions are the Eviction's deleteOptions with the request's
// dryRun merged in, as upstream's propagateDryRun: either may ask for a dry
// run, but if both do they must agree. (Upstream answers a disagreement
// with a 500; kplane says 400, the client's mistake.)
func evictionDeleteOptions(eviction *api.Eviction, queryDryRun bool) (api.DeleteOptions, error) {
	var opts api.DeleteOptions
	if eviction.DeleteOptions != nil {
		opts = *eviction.DeleteOptions
	}
	var fromQuery []string
	if queryDryRun {
		fromQuery = []string{api.DryRunAll}
	}
	if err := validateDryRun("DeleteOptions", opts.DryRun); err != nil {
		return opts, err
	}
	switch {
	case len(opts.DryRun) == 0:
		opts.DryRun = fromQuery
	case len(fromQuery) > 0 && !slices.Equal(opts.DryRun, fromQuery):
		return opts, apierrors.NewBadRequest(fmt.Sprintf("Non-matching dry-run options in request and content: %v and %v", fromQuery, opts.DryRun))
	}
	return opts, nil
}

// evict carries out an eviction (steps 1 to 5 of the file comment) and
// returns the Status to answer with.
func (s *Server) evict(r *http.Request, podRes *resource, namespace, name string, opts api.DeleteOptions) (*api.Status, error) {
	ctx := r.Context()
	dryRun := len(opts.DryRun) > 0
	success := &api.Status{Status: "Success", Code: http.StatusCreated}

	// 1. Nothing runs: no budget to consult. Unless the caller pinned a
	// resourceVersion, the one read here is pinned, so that a pod that
	// started running meanwhile is not deleted unchecked: that Conflict
	// reads the pod again and decides afresh (upstream's retry loop).
	var pod *api.Pod
	for attempt := 0; ; attempt++ {
		so, err := s.getStored(ctx, podRes, namespace, name)
		if err != nil {
			return nil, err
		}
		pod = so.obj.(*api.Pod)
		if err := nodeRestrictEviction(ctx, podRes, pod); err != nil {
			return nil, err
		}
		if !canIgnoreBudget(pod) {
			break
		}
		deleteOpts, pinned := opts, false
		if pod.DeletionTimestamp == nil && !isTerminal(pod) && !pinsResourceVersion(opts) {
			deleteOpts, pinned = withResourceVersion(opts, pod.ResourceVersion), true
		}
		err = s.markAndDeletePod(r, podRes, namespace, name, deleteOpts)
		if apierrors.IsConflict(err) && pinned && attempt < maxUpdateRetries {
			continue
		}
		if err != nil {
			return nil, err
		}
		return success, nil
	}

	// 2. The pod's budgets.
	budgets, err := s.budgetsFor(r, pod)
	if err != nil {
		return nil, err
	}
	if len(budgets) > 1 {
		return &api.Status{Status: "Failure", Code: http.StatusInternalServerError, Message: evictionTooManyBudgets}, nil
	}
	deleteOpts := opts
	if len(budgets) == 1 {
		budget := budgets[0]
		// pinned says step 3 pinned the pod's resourceVersion.
		pinned := false
		if !poddisruptionbudget.IsHealthy(pod) && unhealthyPodMayGo(budget) {
			// 3. An unready pod the budget does not count.
			if !pinsResourceVersion(opts) {
				deleteOpts, pinned = withResourceVersion(opts, pod.ResourceVersion), true
			}
		} else if err := s.takeDisruption(r, budget.Name, namespace, pod.Name, dryRun); err != nil {
			// 4. A disruption, or the 429.
			return nil, err
		}
		if err := s.markAndDeletePod(r, podRes, namespace, name, deleteOpts); err != nil {
			if apierrors.IsConflict(err) && pinned {
				// The unready pod changed (it may be Ready now): the
				// client should look again, as for a budget still being
				// processed.
				return nil, budgetBeingProcessed(budget.Name)
			}
			return nil, err
		}
		return success, nil
	}
	if err := s.markAndDeletePod(r, podRes, namespace, name, deleteOpts); err != nil {
		return nil, err
	}
	return success, nil
}

// canIgnoreBudget reports whether a pod can be evicted without consulting
// budgets: it does not run (Pending, Succeeded, Failed) or is already on its
// way out. Upstream's canIgnorePDB.
func canIgnoreBudget(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodPending || isTerminal(pod) || pod.DeletionTimestamp != nil
}

// isTerminal reports whether the pod has finished for good.
func isTerminal(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed
}

// unhealthyPodMayGo reports whether an unready pod under budget may be
// evicted without taking a disruption: always with AlwaysAllow; with
// IfHealthyBudget (the default) only while the budget is met.
func unhealthyPodMayGo(budget *api.PodDisruptionBudget) bool {
	if p := budget.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == api.AlwaysAllow {
		return true
	}
	return budget.Status.CurrentHealthy >= budget.Status.DesiredHealthy && budget.Status.DesiredHealthy > 0
}

// pinsResourceVersion reports whether the caller's deleteOptions carry a
// resourceVersion precondition.
func pinsResourceVersion(opts api.DeleteOptions) bool {
	return opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil
}

// withResourceVersion returns a copy of opts whose preconditions pin rv.
func withResourceVersion(opts api.DeleteOptions, rv string) api.DeleteOptions {
	pre := api.Preconditions{ResourceVersion: &rv}
	if opts.Preconditions != nil {
		pre.UID = opts.Preconditions.UID
	}
	opts.Preconditions = &pre
	return opts
}

// budgetsFor lists the pod's namespace's budgets from etcd (not the watch
// cache: a budget created a moment ago must count) and keeps those that
// select the pod.
func (s *Server) budgetsFor(r *http.Request, pod *api.Pod) ([]*api.PodDisruptionBudget, error) {
	res, ok := s.reg.byPluralAny["poddisruptionbudgets"]
	if !ok {
		return nil, nil
	}
	everything := selectors{labels: labels.Everything(), fields: fields.Everything()}
	list, err := s.listFromStore(r.Context(), res, res.keyPrefix(pod.Namespace), 0, "", 0, everything)
	if err != nil {
		return nil, fmt.Errorf("list the PodDisruptionBudgets of namespace %s: %w", pod.Namespace, err)
	}
	var budgets []*api.PodDisruptionBudget
	for _, so := range list.items {
		budget := so.obj.(*api.PodDisruptionBudget)
		if poddisruptionbudget.Selects(budget, pod.Labels) {
			budgets = append(budgets, budget)
		}
	}
	return budgets, nil
}

// takeDisruption uses up one of the budget's allowed disruptions for
// podName, with a compare-and-swap on the budget: guaranteedUpdate reads the
// budget again after a conflicting write and checks it afresh, so
// concurrent evictions never take more than disruptionsAllowed between
// them. A dry run takes the same path: guaranteedUpdate runs the check on
// the current budget and writes nothing.
func (s *Server) takeDisruption(r *http.Request, budgetName, namespace, podName string, dryRun bool) error {
	res := s.reg.byPluralAny["poddisruptionbudgets"]
	_, err := s.guaranteedUpdate(r.Context(), res, namespace, budgetName, updateStatus, dryRun,
		func(current *storedObject) (api.Object, error) {
			obj, err := copyOf(res, current)
			if err != nil {
				return nil, err
			}
			budget := obj.(*api.PodDisruptionBudget)
			if err := checkDisruptionAllowed(budget); err != nil {
				return nil, err
			}
			budget.Status.DisruptionsAllowed--
			if budget.Status.DisruptionsAllowed == 0 {
				poddisruptionbudget.UpdateDisruptionAllowedCondition(budget, s.now())
			}
			if budget.Status.DisruptedPods == nil {
				budget.Status.DisruptedPods = map[string]api.Time{}
			}
			budget.Status.DisruptedPods[podName] = s.now()
			return budget, nil
		})
	if apierrors.IsConflict(err) {
		// Every retry lost to another writer: upstream gives up the same
		// way, with a timeout that asks the client to try again.
		return apierrors.NewTooManyRequests(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", budgetName), 10)
	}
	return err
}

// checkDisruptionAllowed is upstream's checkAndDecrement without the
// decrement: the budget must be current and allow a disruption.
func checkDisruptionAllowed(budget *api.PodDisruptionBudget) error {
	switch {
	case budget.Status.ObservedGeneration < budget.Generation:
		return budgetBeingProcessed(budget.Name)
	case budget.Status.DisruptionsAllowed < 0:
		return apierrors.NewForbidden(apierrors.Resource{Group: "policy", Resource: "poddisruptionbudget"}, budget.Name,
			errors.New("pdb disruptions allowed is negative"))
	case len(budget.Status.DisruptedPods) > maxDisruptedPods:
		return apierrors.NewForbidden(apierrors.Resource{Group: "policy", Resource: "poddisruptionbudget"}, budget.Name,
			errors.New("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	case budget.Status.DisruptionsAllowed == 0:
		err := apierrors.NewTooManyRequests(evictionViolatesBudget, 0)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, api.StatusCause{Type: api.DisruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
				budget.Name, budget.Status.DesiredHealthy, budget.Status.CurrentHealthy)})
		return err
	}
	return nil
}

// budgetBeingProcessed is the 429 for a budget whose status the disruption
// controller has not computed for its current generation yet.
func budgetBeingProcessed(name string) *apierrors.StatusError {
	err := apierrors.NewTooManyRequests(evictionViolatesBudget, 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, api.StatusCause{Type: api.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name)})
	return err
}

// markAndDeletePod sets the DisruptionTarget condition on the pod and then
// deletes it with opts, as upstream's addConditionAndDeletePod. The
// preconditions are checked against the pod before the condition is
// written; a pinned resourceVersion then moves to the one that write
// produced, since the eviction itself made the change. A dry run writes
// nothing.
func (s *Server) markAndDeletePod(r *http.Request, podRes *resource, namespace, name string, opts api.DeleteOptions) error {
	ctx := r.Context()
	if len(opts.DryRun) == 0 {
		updated, err := s.guaranteedUpdate(ctx, podRes, namespace, name, updateStatus, false,
			func(current *storedObject) (api.Object, error) {
				if err := checkEvictionPreconditions(current.obj.(*api.Pod), opts.Preconditions); err != nil {
					return nil, err
				}
				obj, err := copyOf(podRes, current)
				if err != nil {
					return nil, err
				}
				pod := obj.(*api.Pod)
				pod.ResourceVersion = ""
				setDisruptionTarget(&pod.Status, s.now())
				return pod, nil
			})
		if err != nil {
			return err
		}
		if pinsResourceVersion(opts) {
			opts = withResourceVersion(opts, updated.obj.GetObjectMeta().ResourceVersion)
		}
	}
	_, _, err := s.delete(ctx, podRes, namespace, name, opts)
	return err
}

// checkEvictionPreconditions compares the caller's preconditions with the
// latest pod, with upstream's messages for this step.
func checkEvictionPreconditions(pod *api.Pod, pre *api.Preconditions) error {
	if pre == nil {
		return nil
	}
	podResource := apierrors.Resource{Resource: "Pod"}
	if uid := pre.UID; uid != nil && *uid != "" && *uid != pod.UID {
		return apierrors.NewConflict(podResource, pod.Name, fmt.Sprintf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, pod.UID))
	}
	if rv := pre.ResourceVersion; rv != nil && *rv != "" && *rv != pod.ResourceVersion {
		return apierrors.NewConflict(podResource, pod.Name, fmt.Sprintf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, pod.ResourceVersion))
	}
	return nil
}

// setDisruptionTarget sets DisruptionTarget=True (EvictionByEvictionAPI),
// keeping the transition time when the pod already had it True.
func setDisruptionTarget(status *api.PodStatus, now api.Time) {
	want := api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue,
		Reason: reasonEvictionByEvictionAPI, Message: messageEvictionByEvictionAPI, LastTransitionTime: now}
	for _, c := range status.Conditions {
		if c.Type == api.DisruptionTarget && c.Status == api.ConditionTrue {
			want.LastTransitionTime = c.LastTransitionTime
		}
	}
	setPodCondition(status, want)
}
