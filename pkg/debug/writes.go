package debug

import (
	"strings"
	"time"

	"kplane/pkg/client"
)

// WriteHook returns a client write hook (client.Config.OnWrite) that
// records each write the component made as a TypeWrite record: Stage is
// the verb, or what the subresource does (bind, status, scale, evict);
// ResourceVersion the one the server answered with, so `ctl trace` can
// line the write up with the apiserver's record of it. Actor is the one
// the request's context named (client.WithActor), else defaultActor.
// describe, when set, words the write in the record's Message (the
// kubelet says which phase it reported). A nil journal gives a nil hook:
// the client then skips reporting altogether.
func (j *Journal) WriteHook(defaultActor string, describe func(client.WriteInfo) string) func(client.WriteInfo) {
	if j == nil {
		return nil
	}
	return func(w client.WriteInfo) {
		r := Record{
			Type: TypeWrite, Stage: WriteStage(w.Verb, w.Subresource), Actor: w.Actor,
			Resource: w.Resource, Key: w.Key(), UID: w.UID, ResourceVersion: w.ResourceVersion, Owners: w.Owners,
			Detail: "took=" + w.Took.Round(time.Microsecond).String(),
		}
		if r.Actor == "" {
			r.Actor = defaultActor
		}
		if w.Subresource != "" {
			r.Detail = "verb=" + w.Verb + " subresource=" + w.Subresource + " " + r.Detail
		}
		if describe != nil {
			r.Message = describe(w)
		}
		// The write is dated when it was sent, not when its answer came
		// back: by then the apiserver has stored it and the informers may
		// already have seen it, and a trace should show the cause first.
		r.Time = j.clock.Now().Add(-w.Took)
		j.Add(r)
	}
}

// Now is the journal's time now (zero for a nil journal), for a recorder
// that dates a record by when something began rather than when it is
// added.
func (j *Journal) Now() time.Time {
	if j == nil {
		return time.Time{}
	}
	return j.clock.Now()
}

// WriteStage is the Stage of a write record: the verb (create, update,
// patch, delete, deletecollection), or for a subresource what writing it
// does — bind (pods/binding), status, scale, evict (pods/eviction) — or
// the subresource's name.
func WriteStage(verb, subresource string) string {
	switch subresource {
	case "":
		return verb
	case "binding":
		return "bind"
	case "eviction":
		return "evict"
	}
	return strings.ToLower(subresource)
}
