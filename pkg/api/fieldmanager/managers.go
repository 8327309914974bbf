package fieldmanager

import (
	"fmt"
	"sort"

	"kplane/pkg/api"
)

// Operations a managedFields entry records.
const (
	// OperationApply is a server-side apply.
	OperationApply = "Apply"
	// OperationUpdate is any other write (create, update, patch).
	OperationUpdate = "Update"
)

// BeforeFirstApply is the manager upstream gives the fields of an object
// that had no managedFields when it was first applied, so the apply
// conflicts on them as it would with their real writer.
const BeforeFirstApply = "before-first-apply"

// Entry is one manager's fields on an object.
type Entry struct {
	// Manager, Operation and Subresource name the entry: one manager has
	// an entry per operation and subresource.
	Manager, Operation, Subresource string
	// APIVersion is the version the manager wrote in.
	APIVersion string
	// Time is when the manager last changed its fields.
	Time *api.Time
	// Fields are the fields the entry owns.
	Fields *Set
}

func (e Entry) sameManager(other Entry) bool {
	return e.Manager == other.Manager && e.Operation == other.Operation && e.Subresource == other.Subresource
}

// Managers are an object's managedFields, decoded.
type Managers []Entry

// Decode reads an object's managedFields.
func Decode(entries []api.ManagedFieldsEntry) (Managers, error) {
	out := make(Managers, 0, len(entries))
	for i, e := range entries {
		fields, err := SetFromFieldsV1(e.FieldsV1)
		if err != nil {
			return nil, fmt.Errorf("managedFields[%d]: %w", i, err)
		}
		out = append(out, Entry{Manager: e.Manager, Operation: e.Operation, Subresource: e.Subresource,
			APIVersion: e.APIVersion, Time: e.Time, Fields: fields})
	}
	return out, nil
}

// Encode writes the managers as managedFields, in upstream's order (Apply
// before Update, then oldest first, then by manager), leaving out entries
// that own nothing.
func (m Managers) Encode() []api.ManagedFieldsEntry {
	var out []api.ManagedFieldsEntry
	for _, e := range m {
		if e.Fields.Empty() {
			continue
		}
		out = append(out, api.ManagedFieldsEntry{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion,
			Time: e.Time, FieldsType: "FieldsV1", FieldsV1: e.Fields.FieldsV1(), Subresource: e.Subresource})
	}
	sort.SliceStable(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		pt, qt := int64(0), int64(0)
		if p.Time != nil {
			pt = p.Time.Unix()
		}
		if q.Time != nil {
			qt = q.Time.Unix()
		}
		if pt != qt {
			return pt < qt
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		return p.Subresource < q.Subresource
	})
	return out
}

// find is the entry named like e, if any.
func (m Managers) find(e Entry) (Entry, bool) {
	for _, other := range m {
		if other.sameManager(e) {
			return other, true
		}
	}
	return Entry{}, false
}

// clone copies the list so a failed request leaves the caller's alone.
func (m Managers) clone() Managers { return append(Managers(nil), m...) }
