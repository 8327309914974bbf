package informer

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"kplane/pkg/api"
)

// ResourceEventHandler is told about every change the informer applies to
// its cache. The informer calls each handler from that handler's own
// goroutine, one notification at a time, in the order the changes happened;
// a handler that is slow only delays itself.
//
// Handlers must not modify the objects they receive: they are the cache's
// own copies, shared with every other handler and lister. The usual handler
// computes the object's key and adds it to a workqueue, nothing more.
type ResourceEventHandler interface {
	// OnAdd is called when an object enters the cache. isInInitialList is
	// true for the objects of the informer's first list (and for the
	// replay a handler added late receives), false for objects created
	// later.
	OnAdd(obj api.Object, isInInitialList bool)
	// OnUpdate is called when a cached object changes, and on resync with
	// oldObj and newObj the same (same resourceVersion).
	OnUpdate(oldObj, newObj api.Object)
	// OnDelete is called when an object leaves the cache. obj is the
	// object's last state (an api.Object) or, when the deletion was found
	// by a relist rather than seen on the watch, a DeletedFinalStateUnknown
	// holding the key and the last state the cache had.
	OnDelete(obj any)
}

// ResourceEventHandlerFuncs adapts plain functions to ResourceEventHandler;
// a nil function ignores that kind of notification. AddFunc does not learn
// whether the add is part of the initial list; implement
// ResourceEventHandler to know that.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj api.Object)
	UpdateFunc func(oldObj, newObj api.Object)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerFuncs) OnAdd(obj api.Object, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj api.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f ResourceEventHandlerFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// FilteringResourceEventHandler passes to Handler only the objects
// FilterFunc accepts, turning updates that cross the filter into adds and
// deletes: an object that starts matching is added, one that stops
// matching is deleted, as upstream's filtering handler does.
type FilteringResourceEventHandler struct {
	FilterFunc func(obj any) bool
	Handler    ResourceEventHandler
}

// OnAdd forwards obj if it passes the filter.
func (f FilteringResourceEventHandler) OnAdd(obj api.Object, isInInitialList bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards an update, an add or a delete depending on which of the
// two versions pass the filter.
func (f FilteringResourceEventHandler) OnUpdate(oldObj, newObj api.Object) {
	oldMatches, newMatches := f.FilterFunc(oldObj), f.FilterFunc(newObj)
	switch {
	case oldMatches && newMatches:
		f.Handler.OnUpdate(oldObj, newObj)
	case !oldMatches && newMatches:
		f.Handler.OnAdd(newObj, false)
	case oldMatches && !newMatches:
		f.Handler.OnDelete(oldObj)
	}
}

// OnDelete forwards obj if it passes the filter.
func (f FilteringResourceEventHandler) OnDelete(obj any) {
	if f.FilterFunc(obj) {
		f.Handler.OnDelete(obj)
	}
}

// ResourceEventHandlerRegistration is the handle AddEventHandler returns:
// pass it to RemoveEventHandler, or ask it whether this handler has been
// given the whole initial list.
type ResourceEventHandlerRegistration interface {
	// HasSynced is true once the informer has synced and this handler has
	// returned from every OnAdd of the initial list (or of the replay it
	// got when added late). A controller waits for it before its workers
	// trust their listers.
	HasSynced() bool
}

// handlerName gives a handler a name for traces and logs. For
// ResourceEventHandlerFuncs it is the name of the first function set, e.g.
// "deployment.(*Controller).addReplicaSet", so the trace says which
// controller method was called; otherwise the Go type.
func handlerName(h ResourceEventHandler) string {
	if named, ok := h.(interface{ HandlerName() string }); ok {
		return named.HandlerName()
	}
	if f, ok := h.(ResourceEventHandlerFuncs); ok {
		for _, fn := range []any{f.AddFunc, f.UpdateFunc, f.DeleteFunc} {
			if name := funcName(fn); name != "" {
				return name
			}
		}
	}
	return fmt.Sprintf("%T", h)
}

// funcName returns the short name of a non-nil function value.
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	name := f.Name()
	// "kplane/pkg/controllers/deployment.(*Controller).addReplicaSet-fm"
	// → "deployment.(*Controller).addReplicaSet"
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(name, "-fm")
}
