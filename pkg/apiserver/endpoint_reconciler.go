package apiserver

// This file keeps the `kubernetes` Service's Endpoints and EndpointSlice
// listing every live apiserver, after upstream's lease endpoint reconciler
// (pkg/controlplane/reconcilers/lease.go). Each apiserver keeps a key
// /registry/masterleases/<advertise address> tied to an etcd lease of
// 15 s and rewrites it every 10 s; the key vanishes on its own when its
// apiserver stops renewing it (killed, hung, cut off from etcd). After each
// renewal the apiserver lists the keys and, if the Endpoints do not list
// exactly those addresses (sorted) with its port, rewrites them. So a new
// apiserver appears within one interval, and a dead one drops out within
// the lease's TTL plus one interval of a survivor. A graceful shutdown
// deletes its own key first and rewrites the Endpoints without itself, so
// clients that follow them stop coming before it goes. Every apiserver of
// a cluster serves on the same port, as upstream assumes.
//
// The last apiserver to stop leaves its address in place: with no key left
// the reconciler refuses to empty the Endpoints, as upstream does, so a
// restarted single apiserver finds them as it left them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
)

// Endpoint reconciler types (--endpoint-reconciler-type), as upstream's.
const (
	// EndpointReconcilerLease keeps the Endpoints through leases in etcd.
	EndpointReconcilerLease = "lease"
	// EndpointReconcilerNone leaves the Endpoints alone: something else
	// (or nobody) writes them.
	EndpointReconcilerNone = "none"
)

const (
	// masterLeasePrefix holds one key per live apiserver (upstream's
	// name); outside every resource's prefix, so no list or watch of
	// objects sees it.
	masterLeasePrefix = "/registry/masterleases/"
	// DefaultEndpointReconcilerTTL is how long an apiserver's key lives
	// without renewal (upstream: 15 s).
	DefaultEndpointReconcilerTTL = 15 * time.Second
	// DefaultEndpointReconcilerInterval is how often an apiserver renews
	// its key and checks the Endpoints (upstream: 10 s; with the 15 s TTL
	// a renewal may come half an interval late before the key expires).
	DefaultEndpointReconcilerInterval = 10 * time.Second
	// endpointRemovalTimeout bounds the removal at shutdown.
	endpointRemovalTimeout = 5 * time.Second
)

// errNoLiveAPIServers refuses to empty the Endpoints.
var errNoLiveAPIServers = errors.New("no apiserver address is listed in etcd; refusing to erase the endpoints of the kubernetes Service")

// leaseEndpointReconciler is one apiserver's side of the reconciler.
type leaseEndpointReconciler struct {
	s *Server
	// etcd holds the lease keys (PutWithTTL is etcd's, not the Store
	// interface's).
	etcd *store.EtcdStore
	// address is this apiserver's --advertise-address; port the port
	// every apiserver serves on.
	address       string
	port          int
	ttl, interval time.Duration
	// stopped is closed when run returns, so that shutdown's removal
	// cannot be undone by a renewal still in flight.
	stopped chan struct{}
}

// newLeaseEndpointReconciler returns the reconciler for this server.
func (s *Server) newLeaseEndpointReconciler(port int) *leaseEndpointReconciler {
	ttl, interval := s.opts.EndpointReconcilerTTL, s.opts.EndpointReconcilerInterval
	if ttl <= 0 {
		ttl = DefaultEndpointReconcilerTTL
	}
	if interval <= 0 {
		interval = DefaultEndpointReconcilerInterval
	}
	return &leaseEndpointReconciler{s: s, etcd: s.etcd, address: s.advertiseAddress(), port: port, ttl: ttl, interval: interval,
		stopped: make(chan struct{})}
}

// advertiseAddress is the address this apiserver lists in the Endpoints:
// --advertise-address, else --bind-address, else (bound to every
// interface) loopback.
func (s *Server) advertiseAddress() string {
	if s.opts.AdvertiseAddress != "" {
		return s.opts.AdvertiseAddress
	}
	if ip := net.ParseIP(s.opts.BindAddress); ip != nil && !ip.IsUnspecified() {
		return ip.String()
	}
	return "127.0.0.1"
}

// run renews and reconciles every interval until ctx ends.
func (r *leaseEndpointReconciler) run(ctx context.Context) {
	defer close(r.stopped)
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if err := r.reconcile(ctx); err != nil && ctx.Err() == nil {
			r.s.log.Error("reconcile the kubernetes endpoints", "err", err)
		}
	}
}

// reconcile renews this apiserver's key, then brings the Endpoints in line
// with the keys. The renewal comes first and whatever happens after it,
// as upstream: a server that fails to write the Endpoints still keeps
// itself listed for the others to write.
func (r *leaseEndpointReconciler) reconcile(ctx context.Context) error {
	lease, err := json.Marshal(r.leaseObject())
	if err != nil {
		return fmt.Errorf("encode master lease: %w", err)
	}
	if _, err := r.etcd.PutWithTTL(ctx, masterLeasePrefix+r.address, lease, r.ttl); err != nil {
		return fmt.Errorf("renew master lease: %w", err)
	}
	return r.writeEndpoints(ctx)
}

// remove deletes this apiserver's key and rewrites the Endpoints without
// it: the graceful-shutdown step. It waits for run to have returned.
func (r *leaseEndpointReconciler) remove(ctx context.Context) error {
	select {
	case <-r.stopped:
	case <-ctx.Done():
		return ctx.Err()
	}
	if _, err := r.etcd.Delete(ctx, masterLeasePrefix+r.address, 0); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("remove master lease: %w", err)
	}
	err := r.writeEndpoints(ctx)
	if errors.Is(err, errNoLiveAPIServers) {
		return nil // the last one out leaves its address, as upstream
	}
	return err
}

// leaseObject is what a key holds: an Endpoints naming the address, as
// upstream stores it.
func (r *leaseEndpointReconciler) leaseObject() *api.Endpoints {
	return &api.Endpoints{TypeMeta: api.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: r.address},
		Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: r.address}}}}}
}

// liveAddresses lists the addresses with a key, sorted.
func (r *leaseEndpointReconciler) liveAddresses(ctx context.Context) ([]string, error) {
	list, err := r.etcd.List(ctx, masterLeasePrefix, store.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list master leases: %w", err)
	}
	addresses := make([]string, 0, len(list.Items))
	for _, kv := range list.Items {
		addresses = append(addresses, strings.TrimPrefix(kv.Key, masterLeasePrefix))
	}
	slices.Sort(addresses)
	return addresses, nil
}

// writeEndpoints makes the Endpoints and EndpointSlice list the live
// addresses; an object that already does is not written.
func (r *leaseEndpointReconciler) writeEndpoints(ctx context.Context) error {
	addresses, err := r.liveAddresses(ctx)
	if err != nil {
		return err
	}
	if len(addresses) == 0 {
		return errNoLiveAPIServers
	}
	if err := r.s.writeKubernetesEndpoints(ctx, addresses, r.port); err != nil {
		return err
	}
	return r.s.writeKubernetesEndpointSlice(ctx, addresses, r.port)
}

// writeKubernetesEndpoints writes the Endpoints "kubernetes" in default:
// one subset of addresses with the https port. The update path skips a
// write that changes nothing, so a steady cluster writes nothing.
func (s *Server) writeKubernetesEndpoints(ctx context.Context, addresses []string, port int) error {
	epRes := s.reg.byPluralAny["endpoints"]
	endpoints := func() *api.Endpoints {
		ep := &api.Endpoints{
			ObjectMeta: api.ObjectMeta{Name: "kubernetes", Namespace: "default",
				Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"}},
			Subsets: []api.EndpointSubset{{
				Ports: []api.EndpointPort{{Name: "https", Port: int32(port), Protocol: api.ProtocolTCP}},
			}},
		}
		for _, address := range addresses {
			ep.Subsets[0].Addresses = append(ep.Subsets[0].Addresses, api.EndpointAddress{IP: address})
		}
		return ep
	}
	_, err := s.guaranteedUpdate(ctx, epRes, "default", "kubernetes", updateMain, false,
		func(*storedObject) (api.Object, error) { return endpoints(), nil })
	if apierrors.IsNotFound(err) {
		_, err = s.create(ctx, epRes, endpoints(), false)
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("write endpoints kubernetes: %w", err)
	}
	return nil
}

// writeKubernetesEndpointSlice writes the EndpointSlice "kubernetes" next
// to the Endpoints, as upstream's apiserver does (its EndpointsAdapter
// keeps both): the same addresses and port, each ready, labelled with the
// Service's name but not managed-by, since no controller writes it.
func (s *Server) writeKubernetesEndpointSlice(ctx context.Context, addresses []string, port int) error {
	sliceRes := s.reg.byPluralAny["endpointslices"]
	slice := func() *api.EndpointSlice {
		name, protocol, number := "https", api.ProtocolTCP, int32(port)
		es := &api.EndpointSlice{
			ObjectMeta: api.ObjectMeta{Name: "kubernetes", Namespace: "default",
				Labels: map[string]string{api.LabelServiceName: "kubernetes"}},
			AddressType: api.AddressTypeIPv4,
			Ports:       []api.EndpointSlicePort{{Name: &name, Port: &number, Protocol: &protocol}},
		}
		for _, address := range addresses {
			ready := true
			es.Endpoints = append(es.Endpoints, api.Endpoint{Addresses: []string{address}, Conditions: api.EndpointConditions{Ready: &ready}})
		}
		return es
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
