package apiserver

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// systemNamespaces exist on every cluster from its first start.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// bootstrap creates what a fresh cluster has before anyone asks: the system
// namespaces and the `kubernetes` Service (10.96.0.1:443) in default, whose
// Endpoints and EndpointSlice point at this apiserver, and the bootstrap RBAC
// policy (bootstrap_rbac.go). It runs at every start and only creates
// what is missing (the Endpoints follow the port of this run).
func (s *Server) bootstrap(ctx context.Context, port int) error {
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
			return fmt.Errorf("create service kubernetes: %w", err)
		}
	} else if err != nil {
		return err
	}

	epRes := s.reg.byPluralAny["endpoints"]
	endpoints := func() *api.Endpoints {
		return &api.Endpoints{
			ObjectMeta: api.ObjectMeta{Name: "kubernetes", Namespace: "default",
				Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"}},
			Subsets: []api.EndpointSubset{{
				Addresses: []api.EndpointAddress{{IP: "127.0.0.1"}},
				Ports:     []api.EndpointPort{{Name: "https", Port: int32(port), Protocol: api.ProtocolTCP}},
			}},
		}
	}
	_, err := s.guaranteedUpdate(ctx, epRes, "default", "kubernetes", updateMain, false,
		func(*storedObject) (api.Object, error) { return endpoints(), nil })
	if apierrors.IsNotFound(err) {
		_, err = s.create(ctx, epRes, endpoints(), false)
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("write endpoints kubernetes: %w", err)
	}
	if err := s.bootstrapEndpointSlice(ctx, port); err != nil {
		return err
	}
	return s.reconcileBootstrapPolicy(ctx)
}

// bootstrapEndpointSlice writes the EndpointSlice "kubernetes" next to the
// Endpoints, as upstream's apiserver does (its EndpointsAdapter keeps
// both): same address and port, labelled with the Service's name but not
// managed-by, since no controller writes it.
func (s *Server) bootstrapEndpointSlice(ctx context.Context, port int) error {
	sliceRes := s.reg.byPluralAny["endpointslices"]
	slice := func() *api.EndpointSlice {
		ready, name, protocol, number := true, "https", api.ProtocolTCP, int32(port)
		return &api.EndpointSlice{
			ObjectMeta: api.ObjectMeta{Name: "kubernetes", Namespace: "default",
				Labels: map[string]string{api.LabelServiceName: "kubernetes"}},
			AddressType: api.AddressTypeIPv4,
			Endpoints:   []api.Endpoint{{Addresses: []string{"127.0.0.1"}, Conditions: api.EndpointConditions{Ready: &ready}}},
			Ports:       []api.EndpointSlicePort{{Name: &name, Port: &number, Protocol: &protocol}},
		}
	}
	_, err := s.guaranteedUpdate(ctx, sliceRes, "default", "kubernetes", updateMain, false,
		func(*storedObject) (api.Object, error) { return slice(), nil })
	if apierrors.IsNotFound(err) {
		_, err = s.create(ctx, sliceRes, slice(), false)
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("write endpointslice kubernetes: %w", err)
	}
	return nil
}
