package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/quota"
	"kplane/pkg/store"
)

// ResourceQuota admission, upstream's ResourceQuota plugin
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota). On a
// create, and on an update that can change usage (a Service's type, a
// claim's size), it finds the namespace's quotas that count the object,
// refuses what would exceed one of them with 403 Forbidden and upstream's
// message, and otherwise charges the object to each quota's status.used
// before the object is written.
//
// Charging is a compare-and-swap on each quota: two requests that read the
// same status.used cannot both write their new usage, so the loser reads
// the quota again and is judged against the winner's charge. That is what
// keeps ten concurrent creates against pods=2 from making more than two
// pods. Within one apiserver the charges of one namespace also take a lock
// (upstream batches a namespace's requests on one worker for the same
// reason), so the compare-and-swap loses only to other writers: another
// apiserver or the resourcequota controller.
//
// Like upstream, admission enforces only what the resourcequota controller
// has copied to status.hard, and refuses with "status unknown" while it has
// not computed status.used: a quota created a moment ago starts counting
// once the controller has seen it. Upstream leaves a request whose write
// fails after the charge charged until the controller recounts; kplane
// checks first for the commonest case, a create whose name is taken, and
// gives the charge back (admitQuota's giveBack) when the write certainly did
// not happen: refused at encoding, the name taken meanwhile, or a lost
// compare-and-swap that guaranteedUpdate retries (the retry is charged
// afresh). A store error of unknown outcome keeps the charge: too much
// used until the recount is the safe side. A dry run is judged but not
// charged.

// quotaIgnoredResources are never counted (upstream's ignored resources):
// Events are written by the system on the user's behalf.
var quotaIgnoredResources = map[quota.GroupResource]bool{
	{Resource: "events"}:                         true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// maxQuotaChargeAttempts bounds the re-reads after a lost compare-and-swap.
// Within one server the namespace lock leaves only other writers to lose
// to, so a few attempts are plenty.
const maxQuotaChargeAttempts = 10

// quotaLocks serialises the quota charges of one namespace in this server.
type quotaLocks struct{ byNamespace sync.Map }

// lock takes namespace's lock and returns its unlock.
func (l *quotaLocks) lock(namespace string) func() {
	mu, _ := l.byNamespace.LoadOrStore(namespace, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// noGiveBack is admitQuota's giveBack when nothing was charged.
func noGiveBack() {}

// admitQuota judges obj against its namespace's quotas and charges it.
// old is nil on a create. The caller calls giveBack when obj's write
// certainly did not happen, to take the charge off the quotas again.
func (s *Server) admitQuota(ctx context.Context, res *resource, obj, old api.Object, dryRun bool) (giveBack func(), err error) {
	gr := quota.GroupResource{Group: res.group, Resource: res.plural}
	if !res.namespaced || quotaIgnoredResources[gr] {
		return noGiveBack, nil
	}
	req := quota.Request{Operation: quota.Create, Object: obj, Old: old, Now: s.now().Time}
	if old != nil {
		req.Operation = quota.Update
	}
	evaluator := quota.EvaluatorFor(gr)
	if !evaluator.Handles(req.Operation) {
		return noGiveBack, nil
	}
	namespace := obj.GetObjectMeta().Namespace
	quotaRes := s.reg.byPluralAny["resourcequotas"]
	// Most namespaces have no quota: the watch cache says so without a
	// round trip to etcd. A quota too new to be in the cache has no
	// status.hard yet, so it would enforce nothing anyway.
	if entries, _, err := s.caches[quotaRes].List(ctx, quotaRes.keyPrefix(namespace), 1); err != nil || len(entries) == 0 {
		return noGiveBack, err
	}

	if req.Operation == quota.Create && s.alreadyStored(ctx, res, obj) {
		// The create will fail with AlreadyExists (kubectl run twice):
		// charging it would leave the quota over-charged until the next
		// full resync. Upstream charges it; kplane checks first.
		return noGiveBack, nil
	}

	defer s.quotaLocks.lock(namespace)()
	// charged holds, by quota name, what this request has added to it so
	// far: a retry after a lost compare-and-swap skips those quotas.
	charged := map[string]api.ResourceList{}
	giveBack = func() {
		// The caller's ctx may be over (a client gone); the charge must
		// still come off.
		s.giveBackQuota(context.WithoutCancel(ctx), quotaRes, namespace, charged)
	}
	for attempt := 1; ; attempt++ {
		quotas, kvs, err := s.liveQuotas(ctx, quotaRes, namespace, charged)
		if err != nil {
			return giveBack, err
		}
		charges, err := quota.CheckRequest(quotas, evaluator, req)
		var refusal *quota.Refusal
		if errors.As(err, &refusal) {
			return giveBack, apierrors.NewForbidden(res.qualified(), obj.GetObjectMeta().Name, refusal)
		}
		if err != nil {
			return giveBack, apierrors.NewInternalError(fmt.Errorf("evaluate quota: %w", err))
		}
		if dryRun || len(charges) == 0 {
			return giveBack, nil
		}
		lost, err := s.chargeQuotas(ctx, quotaRes, charges, kvs, charged)
		if err != nil || !lost {
			return giveBack, err
		}
		if attempt == maxQuotaChargeAttempts {
			return giveBack, apierrors.NewConflict(quotaRes.qualified(), charges[0].Quota.Name,
				"the quota kept changing while this request was charged to it; please try again")
		}
	}
}

// alreadyStored reports whether etcd holds an object under obj's key.
func (s *Server) alreadyStored(ctx context.Context, res *resource, obj api.Object) bool {
	meta := obj.GetObjectMeta()
	_, err := s.store.Get(ctx, res.key(meta.Namespace, meta.Name))
	return err == nil
}

// liveQuotas reads the namespace's quotas from etcd (not the watch cache:
// the compare-and-swap needs the latest revision), leaving out those named
// in skip, with each quota's stored key and revision by name.
func (s *Server) liveQuotas(ctx context.Context, quotaRes *resource, namespace string, skip map[string]api.ResourceList) ([]*api.ResourceQuota, map[string]store.KV, error) {
	list, err := s.store.List(ctx, quotaRes.keyPrefix(namespace), store.ListOptions{})
	if err != nil {
		return nil, nil, storeError(err, quotaRes, "")
	}
	var quotas []*api.ResourceQuota
	kvs := map[string]store.KV{}
	for _, kv := range list.Items {
		so, err := s.decodeStored(quotaRes, kv)
		if err != nil {
			return nil, nil, err
		}
		q := so.obj.(*api.ResourceQuota)
		if _, ok := skip[q.Name]; ok {
			continue
		}
		quotas = append(quotas, q)
		kvs[q.Name] = kv
	}
	return quotas, kvs, nil
}

// chargeQuotas writes each charge's new status.used with a compare-and-swap
// on the revision it was computed from. It reports lost when a quota
// changed meanwhile; the quotas charged before that are noted in charged,
// so that the retry does not charge them twice.
func (s *Server) chargeQuotas(ctx context.Context, quotaRes *resource, charges []quota.Charge, kvs map[string]store.KV, charged map[string]api.ResourceList) (lost bool, err error) {
	for _, c := range charges {
		// c.Quota is liveQuotas' own decoded copy, not a cached object:
		// it may be copied and changed.
		kv := kvs[c.Quota.Name]
		updated := *c.Quota
		updated.Status.Used = c.Used
		value, err := s.encodeChecked(quotaRes, &updated)
		if err != nil {
			return false, err
		}
		began := s.writeBegins()
		written, err := s.store.Update(ctx, kv.Key, value, kv.ModRevision)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		if err != nil {
			return false, storeError(err, quotaRes, c.Quota.Name)
		}
		charged[c.Quota.Name] = c.Requested
		s.recordWrite(ctx, "update", quotaRes, &updated, written.ModRevision, began)
		if _, err := s.stored(quotaRes, kv.Key, &updated, written.ModRevision); err != nil {
			return false, err
		}
	}
	return false, nil
}

// giveBackQuota takes what a request added (charged, by quota name) off
// each quota's status.used again, with a compare-and-swap on a fresh read,
// after the request's own write did not happen. What cannot be given back
// (the quota is gone, or keeps changing) stays until the resourcequota
// controller recounts, as every charge did before.
func (s *Server) giveBackQuota(ctx context.Context, quotaRes *resource, namespace string, charged map[string]api.ResourceList) {
	if len(charged) == 0 {
		return
	}
	defer s.quotaLocks.lock(namespace)()
	for name, requested := range charged {
		if err := s.giveBackOne(ctx, quotaRes, namespace, name, requested); err != nil {
			s.log.Warn("give back a quota charge; it stays until the controller recounts",
				"quota", namespace+"/"+name, "err", err)
		}
	}
}

// giveBackOne takes requested off one quota's status.used, never below zero.
func (s *Server) giveBackOne(ctx context.Context, quotaRes *resource, namespace, name string, requested api.ResourceList) error {
	key := quotaRes.key(namespace, name)
	for range maxQuotaChargeAttempts {
		kv, err := s.store.Get(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		so, err := s.decodeStored(quotaRes, kv)
		if err != nil {
			return err
		}
		// decodeStored's object is this call's own: it may be changed.
		q := so.obj.(*api.ResourceQuota)
		q.Status.Used = quota.SubtractNonNegative(q.Status.Used, quota.Mask(requested, quota.ResourceNames(q.Status.Used)))
		value, err := s.encodeChecked(quotaRes, q)
		if err != nil {
			return err
		}
		began := s.writeBegins()
		written, err := s.store.Update(ctx, kv.Key, value, kv.ModRevision)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return err
		}
		s.recordWrite(ctx, "update", quotaRes, q, written.ModRevision, began)
		_, err = s.stored(quotaRes, kv.Key, q, written.ModRevision)
		return err
	}
	return errors.New("the quota kept changing")
}
