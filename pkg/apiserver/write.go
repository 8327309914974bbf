package apiserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"

	"github.com/google/uuid"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
)

// The write path. Every create and update — from a POST, a PUT, a PATCH, a
// subresource or the server's own bootstrap — goes through create or
// guaranteedUpdate here, so the rules live in one place:
//
//	prepare (server-owned metadata) → admit (defaults, allocation, namespace
//	lifecycle) → validate → validating admission (quota) → encode →
//	compare-and-swap in etcd → hand the written object to the watch cache
//
// Admission may allocate (a Service's ClusterIP and node ports); a deferred
// release in create and finishUpdate gives the allocation back whenever the
// object does not reach etcd.
//
// The last step is the recent-writes hand-off (recent.go). The write path
// holds the object it has just written, typed and with its response JSON
// ready, while the watch cache is about to receive the same change from its
// etcd watch and would otherwise decode it all over again. So stored
// remembers the object under its etcd key and revision, and the cache's
// decoder (set up in server.go) takes it from there: each write is decoded
// once, not twice. The cache decodes only what it was not handed — writes
// by another apiserver or by etcdctl. Like every cached object, the one
// handed over is read-only from then on; writers start from copyOf.

// updateMode says which part of an object a write may change.
type updateMode int

const (
	// updateMain writes spec and metadata; the stored status is kept.
	updateMain updateMode = iota
	// updateStatus writes status only (the /status subresource).
	updateStatus
	// updateAll writes spec and status together; only the server itself
	// uses it (pods/binding sets nodeName and the PodScheduled condition).
	updateAll
	// updateApproval writes a CertificateSigningRequest's conditions only
	// (the /approval subresource, certificates.go).
	updateApproval
)

// copyOf returns a private, mutable copy of a stored object.
func copyOf(res *resource, so *storedObject) (api.Object, error) {
	obj := res.newObject()
	if err := json.Unmarshal(so.raw, obj); err != nil {
		return nil, fmt.Errorf("copy %s: %w", res.kind, err)
	}
	return obj, nil
}

// nameAlphabet is what Kubernetes draws generated name suffixes from: no
// vowels (no accidental words) and no look-alike characters.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// randomSuffix returns n characters from nameAlphabet.
func randomSuffix(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = nameAlphabet[int(b[i])%len(nameAlphabet)]
	}
	return string(b)
}

// prepareForCreate sets the metadata the server owns on a new object, its
// creationTimestamp now (the server's clock: the cluster clock with
// --virtual-clock).
func prepareForCreate(res *resource, obj api.Object, now api.Time) {
	meta := obj.GetObjectMeta()
	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = meta.GenerateName + randomSuffix(5)
	}
	meta.UID = uuid.NewString()
	meta.CreationTimestamp = now
	meta.ResourceVersion = ""
	meta.DeletionTimestamp = nil
	meta.DeletionGracePeriodSeconds = nil
	meta.Generation = 0
	if res.tracksGeneration {
		meta.Generation = 1
	}
	if res.clearStatusOnCreate {
		status := fieldOf(obj, "Status")
		status.Set(reflect.Zero(status.Type()))
	}
}

// fieldOf returns a top-level field (Spec, Status) of an object by Go name.
func fieldOf(obj api.Object, name string) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName(name)
}

// create admits, validates and stores a new object.
func (s *Server) create(ctx context.Context, res *resource, obj api.Object, dryRun bool) (*storedObject, error) {
	prepareForCreate(res, obj, s.now())
	meta := obj.GetObjectMeta()
	if meta.Name == "" {
		return nil, apierrors.NewInvalid(res.kind, res.group, "", apierrors.FieldErrorList{
			apierrors.Required("metadata.name", "name or generateName is required")})
	}
	release, namespaceRevision, err := s.admit(ctx, res, obj, nil, dryRun)
	if err != nil {
		return nil, err
	}
	// What admission allocated for obj goes back unless etcd may hold obj:
	// on a refusal, a write that certainly failed and a dry run alike. A
	// write whose outcome is unknown (a timeout, a lost leader) keeps it;
	// if the Service was not stored after all, the repair pass frees the
	// values (allocator_repair.go), where releasing them here could free
	// the values of a stored Service.
	kept := false
	defer func() {
		if !kept {
			release()
		}
	}()
	if errs := validateNew(res, obj); len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.kind, res.group, meta.Name, errs)
	}
	giveBack, err := s.validatingAdmission(ctx, res, obj, nil, false, dryRun)
	if err != nil {
		giveBack()
		return nil, err
	}
	value, err := s.encodeChecked(res, obj)
	if err != nil {
		giveBack()
		return nil, err
	}
	if dryRun {
		return newStoredObject(res, obj, 0)
	}
	began := s.writeBegins()
	kv, err := s.storeCreate(ctx, res, obj, value, namespaceRevision)
	var refused *apierrors.StatusError
	if errors.As(err, &refused) {
		giveBack() // the namespace refused it: certainly not written
		return nil, err
	}
	if err != nil {
		if errors.Is(err, store.ErrAlreadyExists) || errors.Is(err, store.ErrGuardChanged) {
			// Certainly not written: the quota charge comes off again
			// and the deferred release gives the allocations back.
			giveBack()
		} else {
			// Any other store error may hide a write that happened.
			kept = true
		}
		return nil, storeError(err, res, meta.Name)
	}
	kept = true
	s.recordWrite(ctx, "create", res, obj, kv.ModRevision, began)
	return s.storedValue(res, kv.Key, obj, value, kv.ModRevision)
}

// maxNamespaceGuardRetries bounds how often a create retries because its
// namespace changed under it (a label edit, a status update) without
// being marked for deletion.
const maxNamespaceGuardRetries = 5

// storeCreate writes a new object to etcd. In a namespace the write is
// guarded by the namespace's key at namespaceRevision, the one admission
// checked (admitNamespaceLifecycle explains why); when the namespace moved,
// it is checked again from etcd, which refuses (a StatusError) or gives the
// revision to retry with.
func (s *Server) storeCreate(ctx context.Context, res *resource, obj api.Object, value []byte, namespaceRevision int64) (store.KV, error) {
	meta := obj.GetObjectMeta()
	key := res.key(meta.Namespace, meta.Name)
	if !res.namespaced || namespaceRevision == 0 {
		return s.store.Create(ctx, key, value)
	}
	nsKey := s.reg.byPluralAny["namespaces"].key("", meta.Namespace)
	for attempt := 0; ; attempt++ {
		kv, err := s.etcd.CreateGuarded(ctx, key, value, nsKey, namespaceRevision)
		if !errors.Is(err, store.ErrGuardChanged) || attempt == maxNamespaceGuardRetries {
			return kv, err
		}
		if namespaceRevision, err = s.admitNamespaceLifecycle(ctx, res, obj, true); err != nil {
			return store.KV{}, err
		}
	}
}

// encodeChecked encodes for storage and refuses what etcd would refuse.
func (s *Server) encodeChecked(res *resource, obj api.Object) ([]byte, error) {
	value, err := encodeForStorage(res, obj)
	if err != nil {
		return nil, err
	}
	if len(value) > store.MaxRequestBytes-64<<10 {
		return nil, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("the object is %d bytes; the store takes at most about %d", len(value), store.MaxRequestBytes))
	}
	return value, nil
}

// errRetry asks guaranteedUpdate to read the object again and retry.
var errRetry = errors.New("retry")

// maxUpdateRetries bounds the compare-and-swap loops of delete and
// eviction; guaranteedUpdate retries while the request lives.
const maxUpdateRetries = 8

// updateFunc computes the new object from the current one. It returns a
// StatusError to stop, or a Conflict when the caller pinned a stale
// resourceVersion.
type updateFunc func(current *storedObject) (api.Object, error)

// guaranteedUpdate reads the object, lets tryUpdate compute the new state,
// and writes it with compare-and-swap on the revision it read. When another
// writer got there first and the caller did not pin a resourceVersion, it
// reads again and retries — the loop upstream calls GuaranteedUpdate. As
// upstream's, it retries for as long as the request lives (its context,
// which the request timeout ends), however many writers race it; a
// caller that pinned a resourceVersion gets its 409 at once instead.
//
// The first attempt starts from the watch cache's copy of the object instead
// of reading etcd, as upstream's GuaranteedUpdate starts from the cacher's
// (its cachedExistingObject): a binding or a status update is then one
// write to etcd, not a read and a write. That copy may be behind etcd, so it
// never decides the outcome on its own: when the compare-and-swap fails,
// when tryUpdate or the update rules refuse it, or when the update would
// change nothing, the loop reads etcd and tries again (see cachedState and
// finishUpdate's fresh).
func (s *Server) guaranteedUpdate(ctx context.Context, res *resource, namespace, name string, mode updateMode,
	dryRun bool, tryUpdate updateFunc) (*storedObject, error) {
	key := res.key(namespace, name)
	// A dry run answers from etcd's state: nothing is written that would
	// catch a stale copy.
	fresh := dryRun
	for {
		current, kv, cached := (*storedObject)(nil), store.KV{}, false
		if !fresh {
			current, kv, cached = s.cachedState(res, key, mode == updateAll)
		}
		if !cached {
			var err error
			if kv, err = s.store.Get(ctx, key); err != nil {
				return nil, storeError(err, res, name)
			}
			if current, err = s.decodeStored(res, kv); err != nil {
				return nil, err
			}
			fresh = true
		}
		updated, err := tryUpdate(current)
		if err != nil && !fresh {
			fresh = true // refused what may be an old state: ask etcd
			continue
		}
		if err != nil {
			return nil, err
		}
		result, err := s.finishUpdate(ctx, res, current, kv, updated, mode, dryRun, fresh)
		if !errors.Is(err, errRetry) {
			return result, err
		}
		fresh = true
		if ctx.Err() != nil {
			return nil, apierrors.NewTimeoutError(fmt.Sprintf("the update of %s %q kept conflicting with other writers until the request ended", res.plural, name), 1)
		}
	}
}

// cachedState is the watch cache's copy of the object at key, as
// guaranteedUpdate's first attempt uses it: a storedObject of its own (its
// object decoded afresh from the cached JSON, since the update rules change
// it and the cache's copy is shared by every reader) and the KV etcd held
// at the cached revision, its value encoded again for finishUpdate's
// nothing-changed test. ok is false when the cache cannot give one (no
// entry, not synced, or a resource stored in another version), and the
// caller reads etcd.
//
// shared gives the cache's own storedObject instead of a decoded copy. It
// is for the server's own writes (updateAll, the binding), whose update
// function copies what it changes and which skip admission and the update
// rules, so nothing writes to the old object: a binding then costs no
// decoding of the pod.
func (s *Server) cachedState(res *resource, key string, shared bool) (current *storedObject, kv store.KV, ok bool) {
	c := s.cacheFor(res)
	if c == nil || res.conversion != nil || (res.custom != nil && res.custom.storageAPIVersion != res.groupVersion()) {
		return nil, store.KV{}, false
	}
	entry, found := c.Get(key)
	if !found {
		return nil, store.KV{}, false
	}
	cached, isStored := entry.Object.(*storedObject)
	if !isStored || cached.res != res {
		return nil, store.KV{}, false
	}
	value, derived := storageValueOf(cached.raw, cached.revision)
	if shared {
		if !derived {
			// encodeForStorage sets the type and clears the
			// resourceVersion for a moment: not on a shared object.
			return nil, store.KV{}, false
		}
		return cached, store.KV{Key: key, Value: value, ModRevision: entry.Revision}, true
	}
	obj, err := copyOf(res, cached)
	if err != nil {
		return nil, store.KV{}, false
	}
	if !derived {
		if value, err = encodeForStorage(res, obj); err != nil {
			return nil, store.KV{}, false
		}
	}
	current = &storedObject{res: res, obj: obj, raw: cached.raw, labels: obj.GetObjectMeta().Labels,
		fields: cached.fields, revision: cached.revision}
	return current, store.KV{Key: key, Value: value, ModRevision: entry.Revision}, true
}

// finishUpdate applies the update rules to obj (the client's new state) given
// the current stored object, and writes it. fresh says current was read from
// etcd; when it came from the watch cache instead (which may be behind), a
// refusal or a write that would change nothing is not the answer yet: it
// returns errRetry, and guaranteedUpdate tries again from etcd's state, as
// upstream's GuaranteedUpdate does when its cached state proves stale.
func (s *Server) finishUpdate(ctx context.Context, res *resource, current *storedObject, kv store.KV, obj api.Object,
	mode updateMode, dryRun, fresh bool) (*storedObject, error) {
	old := current.obj
	oldMeta, meta := old.GetObjectMeta(), obj.GetObjectMeta()
	refuse := func(err error) error {
		if !fresh {
			return errRetry
		}
		return err
	}

	// A pinned resourceVersion must still be current.
	if meta.ResourceVersion != "" && meta.ResourceVersion != oldMeta.ResourceVersion {
		return nil, refuse(apierrors.NewConflict(res.qualified(), oldMeta.Name, "the object has been modified; please apply your changes to the latest version and try again"))
	}

	switch mode {
	case updateStatus:
		// Only status changes: start from the stored object, take the new status.
		next, err := copyOf(res, current)
		if err != nil {
			return nil, err
		}
		if csr, ok := next.(*api.CertificateSigningRequest); ok {
			sent := obj.(*api.CertificateSigningRequest)
			if err := s.authorizeCSRSigning(ctx, csr, sent); err != nil {
				return nil, refuse(err)
			}
			csrStatusUpdate(csr, sent)
		} else {
			copyStatus(next, obj)
		}
		if res.custom != nil || len(meta.ManagedFields) > 0 {
			// The status writer's fields, recorded by recordManagedFields
			// or the apply (for a built-in object, once it has any).
			next.GetObjectMeta().ManagedFields = meta.ManagedFields
		}
		obj, meta = next, next.GetObjectMeta()
	case updateApproval:
		next, err := copyOf(res, current)
		if err != nil {
			return nil, err
		}
		csr, ok := next.(*api.CertificateSigningRequest)
		if !ok {
			return nil, apierrors.NewBadRequest("only certificatesigningrequests have an approval subresource")
		}
		if err := s.authorizeCSRApproval(ctx, csr); err != nil {
			return nil, refuse(err)
		}
		csrApprovalUpdate(csr, obj.(*api.CertificateSigningRequest))
		obj, meta = next, next.GetObjectMeta()
	case updateMain:
		if res.hasStatus {
			copyStatus(obj, old)
		}
	}

	// Metadata the server owns cannot be changed by an update. A uid in the
	// body is kept for validation to compare: it is how a client says "this
	// object, not a new one with the same name" (an ownerReference patch
	// carries the dependent's uid for exactly that), and a mismatch is
	// refused as upstream refuses it.
	meta.Name, meta.Namespace = oldMeta.Name, oldMeta.Namespace
	if meta.UID == "" {
		meta.UID = oldMeta.UID
	}
	meta.CreationTimestamp = oldMeta.CreationTimestamp
	meta.DeletionTimestamp, meta.DeletionGracePeriodSeconds = oldMeta.DeletionTimestamp, oldMeta.DeletionGracePeriodSeconds
	meta.Generation = oldMeta.Generation
	meta.ResourceVersion = oldMeta.ResourceVersion

	// updateAll is the server's own write (pods/binding). Upstream's binding
	// writes the pod straight to storage, without the pod's admission,
	// defaulting or update strategy: admission saw the Binding instead. So
	// does kplane's, which also lets the binding start from the cache's own
	// object (cachedState's shared): admission and defaulting write to the
	// old object's spec, which the new one shares.
	release := func() {}
	var err error
	if mode != updateAll {
		if release, _, err = s.admit(ctx, res, obj, old, dryRun); err != nil {
			return nil, refuse(err)
		}
	}
	// What admission allocated for obj (a Service's new ClusterIP or node
	// ports) goes back when obj is refused or its write fails. It stays
	// once obj is written; when the write is a dry run or changes nothing,
	// where admission kept nothing new; and when obj is deleted instead,
	// where what old and obj held is freed after the delete.
	kept := false
	defer func() {
		if !kept {
			release()
		}
	}()
	if res.tracksGeneration && generationChanges(res, old, obj) {
		meta.Generation = oldMeta.Generation + 1
	}
	// updateAll is the server's own write (pods/binding); it is not a user
	// update, so the rules for user updates (nodeName is immutable) do not
	// apply, and they are not even computed: a binding changes nodeName, so
	// validating it as a user's update would build a "spec is immutable"
	// refusal, with a field-by-field diff of the two specs, only to throw it
	// away — 14 % of W7's CPU when it did.
	if mode != updateAll {
		if errs := validateReplacement(res, obj, old); len(errs) > 0 {
			return nil, refuse(apierrors.NewInvalid(res.kind, res.group, meta.Name, errs))
		}
	}
	// giveBack takes a quota charge off again where obj's write certainly
	// did not happen: refused, or a lost compare-and-swap, whose retry is
	// charged afresh. A store error of unknown outcome keeps it.
	giveBack := noGiveBack
	if mode != updateAll {
		giveBack, err = s.validatingAdmission(ctx, res, obj, old, mode == updateStatus, dryRun)
		if err != nil {
			giveBack()
			return nil, refuse(err)
		}
	}

	// An object marked for deletion goes away once its last finalizer is
	// removed — unless its grace period is still running: a pod whose
	// kubelet has not yet confirmed that its containers stopped stays
	// until it does (upstream's ShouldDeleteDuringUpdate).
	if meta.DeletionTimestamp != nil && len(meta.Finalizers) == 0 && !hasNamespaceFinalizers(obj) && gracePeriodOver(meta) {
		if dryRun {
			kept = true
			return newStoredObject(res, obj, kv.ModRevision)
		}
		began := s.writeBegins()
		deleted, err := s.store.Delete(ctx, kv.Key, kv.ModRevision)
		if errors.Is(err, store.ErrConflict) {
			giveBack()
			return nil, errRetry // the deferred release frees this attempt's allocations
		}
		if err != nil {
			// obj was never written, so what admission allocated for it
			// goes back whether or not the delete happened; if it did,
			// the repair pass frees what old held.
			return nil, storeError(err, res, meta.Name)
		}
		kept = true
		if svc, ok := obj.(*api.Service); ok {
			// Everything old held, then what obj added: two disjoint
			// sets, since clearing one bit in two writes could free a
			// value a peer took in between.
			s.alloc.releaseService(old.(*api.Service), nil)
			s.alloc.releaseService(svc, old.(*api.Service))
		}
		s.recordWrite(ctx, "delete", res, obj, deleted.ModRevision, began)
		// Not s.stored: the cache's DELETED event carries the last state
		// etcd held, which still had the finalizer.
		return newStoredObject(res, obj, deleted.ModRevision)
	}

	value, err := s.encodeChecked(res, obj)
	if err != nil {
		giveBack()
		return nil, err
	}
	if bytes.Equal(value, kv.Value) {
		if !fresh {
			// Unchanged from the cache's copy, which may be older than
			// etcd's: only etcd's own state can say nothing changed.
			giveBack()
			return nil, errRetry
		}
		// Nothing changed: no write, and the resourceVersion stays the same.
		kept = true
		return current, nil
	}
	if dryRun {
		kept = true
		return newStoredObject(res, obj, kv.ModRevision)
	}
	began := s.writeBegins()
	written, err := s.store.Update(ctx, kv.Key, value, kv.ModRevision)
	if errors.Is(err, store.ErrConflict) {
		giveBack()
		return nil, errRetry
	}
	if err != nil {
		return nil, storeError(err, res, meta.Name)
	}
	kept = true
	if svc, ok := obj.(*api.Service); ok {
		s.alloc.releaseService(old.(*api.Service), svc)
	}
	s.recordWrite(ctx, "update", res, obj, written.ModRevision, began)
	return s.storedValue(res, kv.Key, obj, value, written.ModRevision)
}

// stored prepares a just-written object for the response and hands it to
// the watch cache, which will see the same revision come back from etcd. A
// LimitRange written makes LimitRange admission read again in every
// namespace (limitrange_misses.go).
func (s *Server) stored(res *resource, key string, obj api.Object, revision int64) (*storedObject, error) {
	return s.storedValue(res, key, obj, nil, revision)
}

// storedValue is stored for a write whose value (encodeForStorage's
// encoding of obj) is at hand: the readers' JSON is made from it rather
// than by encoding obj again. A nil value means encode.
func (s *Server) storedValue(res *resource, key string, obj api.Object, value []byte, revision int64) (*storedObject, error) {
	var so *storedObject
	var err error
	if value != nil {
		so, err = newWrittenObject(res, obj, value, revision)
	} else {
		so, err = newStoredObject(res, obj, revision)
	}
	if err != nil {
		return nil, err
	}
	s.recent.remember(key, so)
	if res.plural == "limitranges" {
		s.limitRangeMisses.forget()
	}
	return so, nil
}

// specChanged compares the Spec of two objects by their JSON encoding. A
// kind without a spec (EndpointSlice) compares every field but the
// metadata, and its labels, as upstream's endpointslice strategy does.
func specChanged(old, obj api.Object) bool {
	a, b := fieldOf(old, "Spec"), fieldOf(obj, "Spec")
	if !a.IsValid() || !b.IsValid() {
		return contentChanged(old, obj)
	}
	oldJSON, _ := json.Marshal(a.Interface())
	newJSON, _ := json.Marshal(b.Interface())
	return !bytes.Equal(oldJSON, newJSON)
}

// contentChanged compares two objects field by field, leaving out TypeMeta
// and ObjectMeta but not the labels.
func contentChanged(old, obj api.Object) bool {
	if !maps.Equal(old.GetObjectMeta().Labels, obj.GetObjectMeta().Labels) {
		return true
	}
	a, b := reflect.ValueOf(old).Elem(), reflect.ValueOf(obj).Elem()
	for i := range a.NumField() {
		switch a.Type().Field(i).Name {
		case "TypeMeta", "ObjectMeta":
			continue
		}
		oldJSON, _ := json.Marshal(a.Field(i).Interface())
		newJSON, _ := json.Marshal(b.Field(i).Interface())
		if !bytes.Equal(oldJSON, newJSON) {
			return true
		}
	}
	return false
}

// hasNamespaceFinalizers reports spec.finalizers of a Namespace, which hold
// its deletion until the namespace controller has emptied it.
func hasNamespaceFinalizers(obj api.Object) bool {
	ns, ok := obj.(*api.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

// gracePeriodOver reports whether an object marked for deletion has no
// grace period left to wait for: none was given, or it was 0 (every
// deletion but a running pod's, and a pod's once its kubelet confirmed).
func gracePeriodOver(meta *api.ObjectMeta) bool {
	return meta.DeletionGracePeriodSeconds == nil || *meta.DeletionGracePeriodSeconds == 0
}
