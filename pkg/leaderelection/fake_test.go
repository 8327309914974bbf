package leaderelection

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

var leasesResource = apierrors.Resource{Group: "coordination.k8s.io", Resource: "leases"}

// fakeLeaseStore is an in-memory stand-in for the apiserver's Lease
// storage with the one property leader election relies on: an update whose
// resourceVersion is not the stored one fails with Conflict.
type fakeLeaseStore struct {
	mu     sync.Mutex
	leases map[string]*api.Lease
	rv     int64
	// writes is every successful create or update, in order.
	writes []api.LeaseSpec
	// beforeUpdate, if set, runs (without mu held) before each update is
	// applied, so a test can slip a competing write in between.
	beforeUpdate func()
}

func newFakeLeaseStore() *fakeLeaseStore {
	return &fakeLeaseStore{leases: map[string]*api.Lease{}}
}

func (s *fakeLeaseStore) get(name string) (*api.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lease, ok := s.leases[name]
	if !ok {
		return nil, apierrors.NewNotFound(leasesResource, name)
	}
	return api.DeepCopy(lease), nil
}

func (s *fakeLeaseStore) create(lease *api.Lease) (*api.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.leases[lease.Name]; ok {
		return nil, apierrors.NewAlreadyExists(leasesResource, lease.Name)
	}
	return s.storeLocked(lease), nil
}

func (s *fakeLeaseStore) update(lease *api.Lease) (*api.Lease, error) {
	if hook := s.beforeUpdate; hook != nil {
		hook()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.leases[lease.Name]
	if !ok {
		return nil, apierrors.NewNotFound(leasesResource, lease.Name)
	}
	if lease.ResourceVersion != "" && lease.ResourceVersion != old.ResourceVersion {
		return nil, apierrors.NewConflict(leasesResource, lease.Name,
			"the object has been modified; please apply your changes to the latest version and try again")
	}
	return s.storeLocked(lease), nil
}

func (s *fakeLeaseStore) storeLocked(lease *api.Lease) *api.Lease {
	s.rv++
	stored := api.DeepCopy(lease)
	stored.ResourceVersion = strconv.FormatInt(s.rv, 10)
	// The API keeps microseconds only; drop the rest as a round trip would.
	for _, t := range []*api.MicroTime{stored.Spec.AcquireTime, stored.Spec.RenewTime} {
		if t != nil {
			t.Time = t.Truncate(time.Microsecond)
		}
	}
	s.leases[lease.Name] = stored
	s.writes = append(s.writes, api.DeepCopyValue(stored.Spec))
	return api.DeepCopy(stored)
}

// put writes a Lease directly, as another tool (kubectl) would.
func (s *fakeLeaseStore) put(lease *api.Lease) *api.Lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.storeLocked(lease)
}

// history returns a copy of every write so far.
func (s *fakeLeaseStore) history() []api.LeaseSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.LeaseSpec(nil), s.writes...)
}

// errUnreachable is what a partitioned fake client returns.
var errUnreachable = errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")

// fakeLeaseClient is one candidate's connection to a fakeLeaseStore. A test
// can cut it off (fail), make it hang until the caller gives up (hang), or
// give every request a random delay on the way in and out (delay), in which
// case the store may apply a request whose caller has already given up —
// just as a real apiserver can.
type fakeLeaseClient struct {
	store *fakeLeaseStore

	mu    sync.Mutex
	fail  bool
	hang  bool
	delay func() time.Duration
	// calls counts requests by verb ("get", "create", "update").
	calls map[string]int
	// inFlight tracks delayed requests still travelling after their caller
	// gave up, so a test can wait for them before it ends.
	inFlight sync.WaitGroup
}

func (c *fakeLeaseClient) setDelay(delay func() time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delay = delay
}

func (c *fakeLeaseClient) count(verb string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[verb]
}

func (c *fakeLeaseClient) setFail(fail bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = fail
}

func (c *fakeLeaseClient) setHang(hang bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hang = hang
}

func (c *fakeLeaseClient) Get(ctx context.Context, name string, _ client.GetOptions) (*api.Lease, error) {
	return c.call(ctx, "get", func() (*api.Lease, error) { return c.store.get(name) })
}

func (c *fakeLeaseClient) Create(ctx context.Context, lease *api.Lease, _ client.CreateOptions) (*api.Lease, error) {
	lease = api.DeepCopy(lease)
	return c.call(ctx, "create", func() (*api.Lease, error) { return c.store.create(lease) })
}

func (c *fakeLeaseClient) Update(ctx context.Context, lease *api.Lease, _ client.UpdateOptions) (*api.Lease, error) {
	lease = api.DeepCopy(lease)
	return c.call(ctx, "update", func() (*api.Lease, error) { return c.store.update(lease) })
}

func (c *fakeLeaseClient) call(ctx context.Context, verb string, op func() (*api.Lease, error)) (*api.Lease, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[verb]++
	fail, hang, delay := c.fail, c.hang, c.delay
	c.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case fail:
		return nil, errUnreachable
	case hang:
		<-ctx.Done()
		return nil, ctx.Err()
	case delay == nil:
		return op()
	}
	type result struct {
		lease *api.Lease
		err   error
	}
	done := make(chan result, 1)
	c.inFlight.Go(func() {
		time.Sleep(delay()) // the request travelling to the server
		lease, err := op()
		time.Sleep(delay()) // the response travelling back
		done <- result{lease, err}
	})
	select {
	case r := <-done:
		return r.lease, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
