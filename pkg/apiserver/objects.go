package apiserver

import (
	"encoding/json"
	"fmt"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/store"
)

// storedObject is an object read back from etcd, prepared once for every
// reader: decoded, with resourceVersion set to the etcd mod revision (etcd
// values never contain it, just as upstream strips it before writing), encoded
// again for responses, and with its labels and selectable fields at hand for
// label and field selectors. The watch cache holds these, so a LIST or a watch
// event costs no decoding. A storedObject is shared: never modify obj.
type storedObject struct {
	res      *resource // the resource whose form obj and raw are in
	obj      api.Object
	raw      []byte
	labels   map[string]string
	fields   map[string]string
	revision int64
}

// decodeStored turns a stored value into a storedObject of resource res.
func (s *Server) decodeStored(res *resource, kv store.KV) (*storedObject, error) {
	if conv := res.conversion; conv != nil {
		stored := conv.newStored()
		if err := json.Unmarshal(kv.Value, stored); err != nil {
			return nil, fmt.Errorf("decode %s: %w", kv.Key, err)
		}
		return newStoredObject(res, conv.fromStored(stored), kv.ModRevision)
	}
	obj := res.newObject()
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", kv.Key, err)
	}
	return newStoredObject(res, obj, kv.ModRevision)
}

// newStoredObject sets obj's resourceVersion and type and prepares it for readers.
func newStoredObject(res *resource, obj api.Object, revision int64) (*storedObject, error) {
	setTypeMeta(res, obj)
	meta := obj.GetObjectMeta()
	meta.ResourceVersion = strconv.FormatInt(revision, 10)
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", res.kind, meta.Name, err)
	}
	return preparedObject(res, obj, raw, revision), nil
}

// newWrittenObject is newStoredObject for an object the write path has just
// written at revision, value being what it wrote (encodeForStorage's
// encoding of obj): the readers' JSON is value with the resourceVersion put
// in, so obj is not encoded a second time.
func newWrittenObject(res *resource, obj api.Object, value []byte, revision int64) (*storedObject, error) {
	meta := obj.GetObjectMeta()
	if res.conversion != nil || (res.custom != nil && res.custom.storageAPIVersion != res.groupVersion()) {
		// value is in the stored version, not the one readers get (a
		// converted kind, or a CRD version other than the storage one).
		return newStoredObject(res, obj, revision)
	}
	raw, ok := readerJSONOf(value, meta.UID, revision)
	if !ok {
		return newStoredObject(res, obj, revision)
	}
	setTypeMeta(res, obj)
	meta.ResourceVersion = strconv.FormatInt(revision, 10)
	return preparedObject(res, obj, raw, revision), nil
}

// preparedObject gathers what readers select on (labels, selectable
// fields) beside obj and its JSON, raw.
func preparedObject(res *resource, obj api.Object, raw []byte, revision int64) *storedObject {
	meta := obj.GetObjectMeta()
	fields := map[string]string{"metadata.name": meta.Name, "metadata.namespace": meta.Namespace}
	if res.fieldsOf != nil {
		for k, v := range res.fieldsOf(obj) {
			fields[k] = v
		}
	}
	return &storedObject{res: res, obj: obj, raw: raw, labels: meta.Labels, fields: fields, revision: revision}
}

// setTypeMeta fills kind and apiVersion, which every response carries.
func setTypeMeta(res *resource, obj api.Object) {
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = res.kind, res.groupVersion()
}

// encodeForStorage is the value written to etcd: the object without its
// resourceVersion, since that is the etcd revision of the write itself.
func encodeForStorage(res *resource, obj api.Object) ([]byte, error) {
	setTypeMeta(res, obj)
	if conv := res.conversion; conv != nil {
		// Stored in the other form; the copy needs no resourceVersion
		// restored afterwards.
		stored := conv.toStored(obj)
		tm := stored.GetTypeMeta()
		tm.Kind, tm.APIVersion = conv.storedKind, conv.storedAPIVersion
		stored.GetObjectMeta().ResourceVersion = ""
		b, err := json.Marshal(stored)
		if err != nil {
			return nil, fmt.Errorf("encode %s %q: %w", res.kind, obj.GetObjectMeta().Name, err)
		}
		return b, nil
	}
	if res.custom != nil {
		// Stored in the storage version, whichever version served the
		// write (conversion None rewrites only apiVersion).
		tm := obj.GetTypeMeta()
		tm.APIVersion = res.custom.storageAPIVersion
		defer func() { tm.APIVersion = res.groupVersion() }()
	}
	meta := obj.GetObjectMeta()
	rv := meta.ResourceVersion
	meta.ResourceVersion = ""
	defer func() { meta.ResourceVersion = rv }()
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", res.kind, meta.Name, err)
	}
	return b, nil
}

// parseResourceVersion reads a resourceVersion string; "" and "0" are 0.
func parseResourceVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid resource version %q", rv)
	}
	return n, nil
}
