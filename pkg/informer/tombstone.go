package informer

import "kplane/pkg/api"

// DeletedObject returns the object an OnDelete handler was given, as T.
//
// OnDelete receives either the deleted object itself or, when the deletion
// was found by a relist instead of seen on the watch, a
// DeletedFinalStateUnknown tombstone holding the last state the cache had
// (see DeltaFIFO). Every delete handler must accept both; this is the one
// place that unwraps them. ok is false when obj is neither a T nor a
// tombstone of a T (a tombstone whose last state was lost holds nil).
func DeletedObject[T api.Object](obj any) (object T, ok bool) {
	switch o := obj.(type) {
	case T:
		return o, true
	case DeletedFinalStateUnknown:
		object, ok = o.Obj.(T)
	case *DeletedFinalStateUnknown:
		if o != nil {
			object, ok = o.Obj.(T)
		}
	}
	return object, ok
}
