package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/authorization/bootstrappolicy"
	"kplane/pkg/store"
)

// reconcileBootstrapPolicy makes the stored RBAC objects hold at least the
// bootstrap policy (package bootstrappolicy), as upstream's apiserver does
// at every start (its rbac/bootstrap-roles post-start hook): missing
// objects are created; an object annotated
// rbac.authorization.kubernetes.io/autoupdate=true gets back the rules,
// subjects, labels and annotations it lost; an object annotated "false" is
// left alone. It reads each kind with one list, and a second start with
// nothing changed writes nothing.
func (s *Server) reconcileBootstrapPolicy(ctx context.Context) error {
	if err := reconcilePolicy(ctx, s, "clusterroles", bootstrappolicy.ClusterRoles(), noRecreate(bootstrappolicy.ReconcileClusterRole)); err != nil {
		return err
	}
	if err := reconcilePolicy(ctx, s, "clusterrolebindings", bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ReconcileClusterRoleBinding); err != nil {
		return err
	}
	if err := reconcilePolicy(ctx, s, "roles", bootstrappolicy.Roles(), noRecreate(bootstrappolicy.ReconcileRole)); err != nil {
		return err
	}
	return reconcilePolicy(ctx, s, "rolebindings", bootstrappolicy.RoleBindings(), bootstrappolicy.ReconcileRoleBinding)
}

// policyObject is a pointer to one of the four RBAC kinds.
type policyObject[T any] interface {
	*T
	api.Object
}

// reconcileFunc merges expected into existing: the object to store,
// whether it differs from existing, and whether it must be deleted and
// created again (a binding's roleRef cannot be updated).
type reconcileFunc[T any] func(existing, expected T) (T, bool, bool)

// noRecreate adapts a role's reconcile function, which never needs to
// recreate, to reconcileFunc.
func noRecreate[T any](f func(existing, expected T) (T, bool)) reconcileFunc[T] {
	return func(existing, expected T) (T, bool, bool) {
		out, changed := f(existing, expected)
		return out, changed, false
	}
}

// reconcilePolicy reconciles the objects of one kind (plural) against
// expected.
func reconcilePolicy[T any, P policyObject[T]](ctx context.Context, s *Server, plural string, expected []T, reconcile reconcileFunc[T]) error {
	res := s.reg.byPluralAny[plural]
	list, err := s.store.List(ctx, res.keyPrefix(""), store.ListOptions{})
	if err != nil {
		return fmt.Errorf("bootstrap policy: list %s: %w", plural, storeError(err, res, ""))
	}
	stored := make(map[string]*T, len(list.Items))
	for _, kv := range list.Items {
		so, err := s.decodeStored(res, kv)
		if err != nil {
			return fmt.Errorf("bootstrap policy: decode %s: %w", kv.Key, err)
		}
		obj, ok := so.obj.(P)
		if !ok {
			return fmt.Errorf("bootstrap policy: %s holds a %T", kv.Key, so.obj)
		}
		meta := obj.GetObjectMeta()
		stored[meta.Namespace+"/"+meta.Name] = (*T)(obj)
	}
	// The objects are independent, so they are written a few at a time:
	// a fresh data dir needs every one of them created before the
	// apiserver serves, and each create waits for its etcd commit.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, bootstrapPolicyWriters)
	)
	for i := range expected {
		meta := P(&expected[i]).GetObjectMeta()
		existing, found := stored[meta.Namespace+"/"+meta.Name]
		if found && bootstrappolicy.Protected(*P(existing).GetObjectMeta()) {
			continue
		}
		if found {
			if _, changed, _ := reconcile(*existing, expected[i]); !changed {
				continue
			}
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(want T) {
			defer func() { <-sem; wg.Done() }()
			var err error
			if found {
				err = writeReconciled[T, P](ctx, s, res, want, reconcile)
			} else if _, err = s.create(ctx, res, P(&want), false); err != nil && !apierrors.IsAlreadyExists(err) {
				err = fmt.Errorf("bootstrap policy: create %s %s: %w", res.kind, meta.Name, err)
			} else {
				err = nil
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(expected[i])
	}
	wg.Wait()
	return errors.Join(errs...)
}

// bootstrapPolicyWriters is how many policy objects are written at once:
// enough to overlap etcd commits, few enough not to crowd a starting
// server.
const bootstrapPolicyWriters = 8

// errRecreate stops an update whose object must be replaced instead.
var errRecreate = errors.New("roleRef changed: recreate")

// writeReconciled writes one reconciled object, merging against what is
// stored at the moment of the write; a binding whose roleRef changed is
// deleted and created anew.
func writeReconciled[T any, P policyObject[T]](ctx context.Context, s *Server, res *resource, expected T, reconcile reconcileFunc[T]) error {
	meta := P(&expected).GetObjectMeta()
	recreate := false
	_, err := s.guaranteedUpdate(ctx, res, meta.Namespace, meta.Name, updateMain, false, func(current *storedObject) (api.Object, error) {
		existing, ok := current.obj.(P)
		if !ok {
			return nil, fmt.Errorf("%s %s is a %T", res.kind, meta.Name, current.obj)
		}
		out, _, again := reconcile(*existing, expected)
		if again {
			recreate = true
			return nil, errRecreate
		}
		return P(&out), nil
	})
	if recreate {
		if _, _, err := s.delete(ctx, res, meta.Namespace, meta.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("bootstrap policy: replace %s %s: %w", res.kind, meta.Name, err)
		}
		// A peer apiserver may have recreated it first.
		if _, err = s.create(ctx, res, P(&expected), false); apierrors.IsAlreadyExists(err) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("bootstrap policy: reconcile %s %s: %w", res.kind, meta.Name, err)
	}
	s.log.Info("bootstrap policy: reconciled", "kind", res.kind, "namespace", meta.Namespace, "name", meta.Name)
	return nil
}
