package fieldmanager

import (
	"kplane/pkg/api"
)

// Request says who writes, and how.
type Request struct {
	// Manager is the field manager (the fieldManager parameter, or the
	// client's user agent for a write that is not an apply).
	Manager string
	// Subresource is "" or "status".
	Subresource string
	// APIVersion is the object's apiVersion as written.
	APIVersion string
	// Force takes conflicting fields from their managers (apply only).
	Force bool
	// Now is the time recorded in the manager's entry.
	Now api.Time
	// Shape is the object's shape (ObjectShape of its schema).
	Shape Shape
	// Owns says which fields a write through this subresource may own:
	// upstream resets the status of a write to the main resource and
	// everything but status of a write to /status. Nil owns all.
	Owns func(Path) bool
}

// serverOwned are the fields no manager owns: upstream strips them from
// every set (its stripMeta manager).
var serverOwned = []Path{
	{"f:apiVersion"}, {"f:kind"}, {"f:metadata", "f:name"}, {"f:metadata", "f:namespace"},
	{"f:metadata", "f:uid"}, {"f:metadata", "f:resourceVersion"}, {"f:metadata", "f:generation"},
	{"f:metadata", "f:creationTimestamp"}, {"f:metadata", "f:selfLink"}, {"f:metadata", "f:managedFields"},
	{"f:metadata", "f:deletionTimestamp"}, {"f:metadata", "f:deletionGracePeriodSeconds"},
}

// ownable removes from s what nobody owns and what the request's
// subresource may not own.
func (r Request) ownable(s *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		if len(p) == 1 && p[0] == "f:metadata" {
			continue
		}
		if isServerOwned(p) || (r.Owns != nil && !r.Owns(p)) {
			continue
		}
		out.Insert(p)
	}
	return out
}

func isServerOwned(p Path) bool {
	for _, owned := range serverOwned {
		if len(p) >= len(owned) && equalPrefix(p, owned) {
			return true
		}
	}
	return false
}

func equalPrefix(p, prefix Path) bool {
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// Update records a write that is not an apply (upstream's Updater.Update
// with force): the fields it added or changed become the writer's, taken
// from any other manager, and the fields it removed leave every manager.
func Update(old, updated map[string]any, managers Managers, r Request) Managers {
	// A create (old is nil) sets every field it has.
	changed, removed := FieldSet(updated, r.Shape), &Set{}
	if old != nil {
		changed, removed = Compare(old, updated, r.Shape)
	}
	// A write through a subresource neither takes nor drops what it may not
	// change: a status update without spec leaves spec's owners alone.
	changed, removed = r.ownable(changed), r.ownable(removed)
	self := Entry{Manager: r.Manager, Operation: OperationUpdate, Subresource: r.Subresource}
	out := make(Managers, 0, len(managers)+1)
	for _, e := range managers {
		if e.sameManager(self) {
			self = e
			continue
		}
		e.Fields = e.Fields.Difference(changed).Difference(removed)
		out = append(out, e)
	}
	self.Fields = self.Fields.Union(changed).Difference(removed)
	if self.Fields.Empty() {
		return out
	}
	self.APIVersion = r.APIVersion
	if !changed.Empty() || self.Time == nil {
		self.Time = &r.Now
	}
	return append(out, self)
}

// Apply merges config into live as r.Manager applies it (upstream's
// Updater.Apply): it returns the new object and managers, or a *Conflicts
// when fields whose value would change are owned by other managers and r
// does not force.
func Apply(live, config map[string]any, managers Managers, r Request) (map[string]any, Managers, error) {
	managers = managers.clone()
	if live != nil && len(managers) == 0 {
		managers = Managers{{Manager: BeforeFirstApply, Operation: OperationUpdate, APIVersion: r.APIVersion,
			Time: &r.Now, Fields: r.ownable(FieldSet(live, r.Shape))}}
	}
	var liveValue any = map[string]any{}
	if live != nil {
		liveValue = live
	}
	// The merge shares live's untouched subtrees and Remove edits maps in
	// place: merge a copy, so live stays what the comparison below needs.
	merged, _ := Merge(deepCopy(liveValue), config, r.Shape).(map[string]any)
	self := Entry{Manager: r.Manager, Operation: OperationApply, Subresource: r.Subresource}
	last, _ := managers.find(self)
	applied := r.ownable(FieldSet(config, r.Shape))

	// Fields this manager applied before and applies no more go, unless
	// another manager still owns them (or something below them).
	for _, p := range last.Fields.Difference(applied).Paths() {
		if applied.HasUnder(p) || ownedByOthers(managers, self, p) {
			continue
		}
		merged, _ = Remove(merged, p, r.Shape).(map[string]any)
	}

	changed, removed := Compare(liveValue, merged, r.Shape)
	var conflicts Conflicts
	out := make(Managers, 0, len(managers)+1)
	for _, e := range managers {
		if e.sameManager(self) {
			continue
		}
		for _, p := range e.Fields.Intersection(changed).Paths() {
			conflicts = append(conflicts, Conflict{Manager: e, Path: p})
		}
		e.Fields = e.Fields.Difference(removed)
		out = append(out, e)
	}
	if len(conflicts) > 0 && !r.Force {
		return nil, nil, &conflicts
	}
	for i := range out {
		out[i].Fields = out[i].Fields.Difference(changed.Intersection(applied))
	}
	self.Fields, self.APIVersion, self.Time = applied, r.APIVersion, &r.Now
	if last.Time != nil && sameJSON(liveValue, merged) {
		// An apply that changes nothing keeps its time, as upstream's, so
		// the object is not written again: a controller applying the same
		// configuration on every pass must not wake itself up.
		self.Time = last.Time
	}
	return merged, append(out, self), nil
}

func ownedByOthers(managers Managers, self Entry, p Path) bool {
	for _, e := range managers {
		if !e.sameManager(self) && e.Fields.HasUnder(p) {
			return true
		}
	}
	return false
}

// deepCopy copies decoded JSON: its maps and lists, not its scalars.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, child := range v {
			out[k] = deepCopy(child)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, child := range v {
			out[i] = deepCopy(child)
		}
		return out
	}
	return v
}
