package apiserver

import (
	"kplane/pkg/api"
)

// conversion serves one stored kind under a second API version with other
// field names, as upstream serves events.k8s.io/v1 Event from the storage
// of core/v1 Event. etcd holds one form, the stored form; a request to the
// other version converts its body to the stored form before admission,
// validation and the write, and every object it reads — from etcd, from the
// watch cache, in a watch event — back to its own form.
//
// Each version keeps its own watch cache over the same etcd keys (upstream
// runs one cacher per REST storage likewise), so each list and watch serves
// ready-encoded objects of its own version. Validation sees the version's
// own Go type, so it can apply that version's rules (events.k8s.io/v1 asks
// more of a new Event than core/v1 does).
type conversion struct {
	// storedKind and storedAPIVersion are the TypeMeta written to etcd.
	storedKind, storedAPIVersion string
	// newStored returns an empty object of the stored form.
	newStored func() api.Object
	// toStored converts an object of this version to the stored form, and
	// fromStored the other way; neither may share memory with its input.
	toStored   func(api.Object) api.Object
	fromStored func(api.Object) api.Object
}

// hpaV1Conversion serves autoscaling/v2 HPAs as autoscaling/v1 HPAs.
var hpaV1Conversion = &conversion{
	storedKind: "HorizontalPodAutoscaler", storedAPIVersion: "autoscaling/v2",
	newStored: func() api.Object { return &api.HorizontalPodAutoscaler{} },
	toStored:  func(o api.Object) api.Object { return o.(*api.HorizontalPodAutoscalerV1).ToV2() },
	fromStored: func(o api.Object) api.Object {
		return api.HorizontalPodAutoscalerV1FromV2(o.(*api.HorizontalPodAutoscaler))
	},
}

// eventsV1Conversion serves core/v1 Events as events.k8s.io/v1 Events.
var eventsV1Conversion = &conversion{
	storedKind: "Event", storedAPIVersion: "v1",
	newStored:  func() api.Object { return &api.Event{} },
	toStored:   func(o api.Object) api.Object { return o.(*api.EventsV1Event).ToCore() },
	fromStored: func(o api.Object) api.Object { return api.EventsV1EventFromCore(o.(*api.Event)) },
}
