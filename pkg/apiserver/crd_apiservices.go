package apiserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Each group/version a CRD serves gets a Local APIService, so that
// `kubectl get apiservices` lists it beside the built-in ones, as
// upstream's crdRegistrationController registers them: named
// "<version>.<group>", with a low group priority (custom groups come after
// every built-in one) and one version priority for all, so that versions
// sort the Kubernetes way. They carry the automanaged label "true": the
// start-up autoregistration (aggregator_autoregister.go) leaves them to
// this controller, which deletes them when no CRD serves their version.

// autoManagedSync marks the APIServices kept in sync with the CRDs.
const autoManagedSync = "true"

// crdAPIServicePriority is upstream's priority for CRD group/versions.
var crdAPIServicePriority = apiServicePriority{group: 1000, version: 100}

// syncAPIServices registers a Local APIService for every version some CRD
// of group serves, and deletes the ones registered for versions no CRD of
// it serves any more.
func (c *crdController) syncAPIServices(ctx context.Context, group string) error {
	served := map[string]bool{}
	for _, crd := range c.listCRDs() {
		if crd.Spec.Group != group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served[v.Name] = true
			}
		}
	}
	res := c.s.reg.byPluralAny["apiservices"]
	stored := map[string]*api.APIService{}
	entries, _, err := c.s.caches[res].List(ctx, res.keyPrefix(""), 0)
	if err != nil {
		return fmt.Errorf("list apiservices: %w", err)
	}
	for _, e := range entries {
		apiService := e.Object.(*storedObject).obj.(*api.APIService)
		stored[apiService.Name] = apiService
	}
	var errs []error
	for version := range served {
		desired := &api.APIService{
			ObjectMeta: api.ObjectMeta{Name: version + "." + group, Labels: map[string]string{autoManagedLabel: autoManagedSync}},
			Spec: api.APIServiceSpec{Group: group, Version: version,
				GroupPriorityMinimum: crdAPIServicePriority.group, VersionPriority: crdAPIServicePriority.version},
		}
		if localAPIServiceSettled(stored[desired.Name], desired) {
			continue
		}
		errs = append(errs, c.s.ensureLocalAPIService(ctx, res, desired))
	}
	for name, apiService := range stored {
		if apiService.Spec.Group != group || served[apiService.Spec.Version] || apiService.Spec.Service != nil ||
			apiService.Labels[autoManagedLabel] != autoManagedSync {
			continue
		}
		if _, _, err := c.s.delete(ctx, res, "", name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete apiservice %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// groupOfCRDName is the group a CRD's name ends with ("<plural>.<group>").
func groupOfCRDName(name string) string {
	_, group, _ := strings.Cut(name, ".")
	return group
}
