package apiserver

// Autoregistration: at every start the apiserver registers a Local
// APIService for each group/version it serves itself ("v1.", "v1.apps",
// "v2.autoscaling", …), so that `kubectl get apiservices` lists the whole
// API as on a real cluster, and deletes the Local ones it registered at an
// earlier start for a group/version it no longer serves. Upstream's
// kube-apiserver does this with its autoregister controller
// (kube-aggregator/pkg/controllers/autoregister/autoregister_controller.go,
// with the priorities of cmd/kube-apiserver/app/aggregator.go); it marks
// what it manages with the label below and leaves other APIServices alone.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// autoManagedLabel marks the APIServices the apiserver registered itself;
// "onstart" means "registered at start, removed when no longer served".
const (
	autoManagedLabel   = "kube-aggregator.kubernetes.io/automanaged"
	autoManagedOnStart = "onstart"
)

// apiServicePriority orders a group among groups and a version within its
// group, in discovery.
type apiServicePriority struct {
	group   int32
	version int32
}

// localAPIServicePriorities are upstream's priorities for the built-in
// group/versions (cmd/kube-apiserver/app/aggregator.go,
// apiVersionPriorities).
var localAPIServicePriorities = map[string]apiServicePriority{
	"v1":                           {18000, 1},
	"apiregistration.k8s.io/v1":    {18000, 15},
	"apps/v1":                      {17800, 15},
	"events.k8s.io/v1":             {17750, 15},
	"authentication.k8s.io/v1":     {17700, 15},
	"authorization.k8s.io/v1":      {17600, 15},
	"autoscaling/v2":               {17500, 30},
	"autoscaling/v1":               {17500, 15},
	"batch/v1":                     {17400, 15},
	"certificates.k8s.io/v1":       {17300, 15},
	"networking.k8s.io/v1":         {17200, 15},
	"policy/v1":                    {17100, 15},
	"rbac.authorization.k8s.io/v1": {17000, 15},
	"storage.k8s.io/v1":            {16800, 15},
	"apiextensions.k8s.io/v1":      {16700, 15},
	"scheduling.k8s.io/v1":         {16600, 15},
	"coordination.k8s.io/v1":       {16500, 15},
	"node.k8s.io/v1":               {16300, 15},
	"discovery.k8s.io/v1":          {16200, 15},
}

// defaultLocalPriority is for a group/version missing from the table: low,
// so that it never outranks a built-in group. (Upstream skips such a
// group/version and logs it; kplane registers it so that the list is whole.)
var defaultLocalPriority = apiServicePriority{1000, 15}

// localAPIService is the Local APIService for gv ("v1" or "apps/v1").
func localAPIService(gv string) *api.APIService {
	group, version, found := strings.Cut(gv, "/")
	if !found {
		group, version = "", gv
	}
	priority, ok := localAPIServicePriorities[gv]
	if !ok {
		priority = defaultLocalPriority
	}
	return &api.APIService{
		ObjectMeta: api.ObjectMeta{Name: version + "." + group, Labels: map[string]string{autoManagedLabel: autoManagedOnStart}},
		Spec:       api.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: priority.group, VersionPriority: priority.version},
	}
}

// autoregisterLocalAPIServices creates or corrects a Local APIService for
// each group/version the apiserver serves, and deletes the ones it
// registered before for group/versions it no longer serves.
func (s *Server) autoregisterLocalAPIServices(ctx context.Context) error {
	res := s.reg.byPluralAny["apiservices"]
	entries, _, err := s.caches[res].List(ctx, res.keyPrefix(""), 0)
	if err != nil {
		return fmt.Errorf("list apiservices: %w", err)
	}
	stored := map[string]*api.APIService{}
	for _, e := range entries {
		apiService := e.Object.(*storedObject).obj.(*api.APIService)
		stored[apiService.Name] = apiService
	}
	wanted := map[string]bool{}
	// The writes go out together: etcd commits concurrent writes in one
	// batch, which keeps a fresh apiserver's start-up short. On a restart
	// there are usually none.
	gvs := s.reg.servedGroupVersions()
	errs := make([]error, len(gvs))
	var wg sync.WaitGroup
	for i, gv := range gvs {
		desired := localAPIService(gv)
		wanted[desired.Name] = true
		if localAPIServiceSettled(stored[desired.Name], desired) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.ensureLocalAPIService(ctx, res, desired)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, e := range entries {
		existing := e.Object.(*storedObject).obj.(*api.APIService)
		if wanted[existing.Name] || existing.Spec.Service != nil || existing.Labels[autoManagedLabel] != autoManagedOnStart {
			continue
		}
		if _, _, err := s.delete(ctx, res, "", existing.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete stale apiservice %s: %w", existing.Name, err)
		}
		s.log.Info("aggregator: removed a Local APIService no longer served", "apiservice", existing.Name)
	}
	return nil
}

// localAPIServiceSettled says whether the stored APIService (nil when there
// is none) needs no write to match desired: it is the apiserver's own with
// desired's spec already, or it is someone else's (no automanaged label),
// which upstream's autoregister leaves alone.
func localAPIServiceSettled(stored, desired *api.APIService) bool {
	return stored != nil && (stored.Labels[autoManagedLabel] == "" || reflect.DeepEqual(stored.Spec, desired.Spec))
}

// ensureLocalAPIService creates desired, or puts its spec back on the
// stored one if the apiserver registered that one; the Available condition
// is the availability check's to write.
func (s *Server) ensureLocalAPIService(ctx context.Context, res *resource, desired *api.APIService) error {
	desired.Status.Conditions = []api.APIServiceCondition{localAvailableCondition()}
	desired.Status.Conditions[0].LastTransitionTime = s.now()
	_, err := s.create(ctx, res, desired, false)
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create apiservice %s: %w", desired.Name, err)
	}
	_, err = s.guaranteedUpdate(ctx, res, "", desired.Name, updateMain, false, func(current *storedObject) (api.Object, error) {
		stored := current.obj.(*api.APIService)
		// One without the label is someone else's (an add-on serving a
		// built-in group/version): upstream's autoregister leaves it alone.
		if localAPIServiceSettled(stored, desired) {
			return stored, nil
		}
		updated := *stored
		updated.Spec = desired.Spec
		return &updated, nil
	})
	if err != nil {
		return fmt.Errorf("update apiservice %s: %w", desired.Name, err)
	}
	return nil
}
