package apiserver

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// systemNamespaces exist on every cluster from its first start.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// bootstrap creates what a fresh cluster has before anyone asks: the system
// namespaces, the `kubernetes` Service (10.96.0.1:443) in default, the
// system PriorityClasses (priorityclass.go) and the bootstrap RBAC policy
// (bootstrap_rbac.go). It runs at every start and
// only creates what is missing. The Service's Endpoints and EndpointSlice,
// which list the live apiservers, are the endpoint reconciler's
// (endpoint_reconciler.go).
func (s *Server) bootstrap(ctx context.Context) error {
	nsRes := s.reg.byPluralAny["namespaces"]
	for _, name := range systemNamespaces {
		ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
		if _, err := s.create(ctx, nsRes, ns, false); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}

	svcRes := s.reg.byPluralAny["services"]
	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "kubernetes", Namespace: "default",
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: api.ServiceSpec{
			Type:      api.ServiceTypeClusterIP,
			ClusterIP: kubernetesService,
			Ports: []api.ServicePort{{Name: "https", Protocol: api.ProtocolTCP, Port: 443,
				TargetPort: api.FromInt(6443)}},
		},
	}
	if _, err := s.getStored(ctx, svcRes, "default", "kubernetes"); apierrors.IsNotFound(err) {
		if _, err := s.create(ctx, svcRes, svc, false); err != nil && !apierrors.IsAlreadyExists(err) {
			// A peer apiserver starting at the same moment may hold
			// 10.96.0.1 for the Service it is about to store: refused
			// here, but the Service is there once it has.
			if !s.waitForStored(ctx, svcRes, "default", "kubernetes", peerCreateWait) {
				return fmt.Errorf("create service kubernetes: %w", err)
			}
		}
	} else if err != nil {
		return err
	}

	if err := s.bootstrapSystemPriorityClasses(ctx); err != nil {
		return err
	}
	return s.reconcileBootstrapPolicy(ctx)
}

// peerCreateWait is how long a bootstrap object refused because a peer
// apiserver holds what it needs is waited for, for the peer to store it.
const peerCreateWait = 5 * time.Second

// waitForStored polls etcd for an object until it is there (true) or
// timeout passed (false).
func (s *Server) waitForStored(ctx context.Context, res *resource, namespace, name string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := s.getStored(ctx, res, namespace, name); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}
