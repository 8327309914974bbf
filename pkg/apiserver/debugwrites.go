package apiserver

import (
	"context"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/debug"
	"kplane/pkg/store/cache"
)

// This file feeds the apiserver's debug journal (Options.Journal) with the
// two things only the apiserver sees: each write it stored, with the etcd
// revision it produced (the object's new resourceVersion), and the watch
// fan-out of each change. With the journal off, each hook is one nil check.

// requestInfoKey carries a write request's requestInfo in its context, so
// the write path deep below the handler can say which API verb and
// subresource it is storing for. It is set only while the journal is on.
type requestInfoKey struct{}

// withRequestInfo returns ctx carrying info, when the journal is on.
func (s *Server) withRequestInfo(ctx context.Context, info *requestInfo) context.Context {
	if s.opts.Journal == nil {
		return ctx
	}
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// writeBegins is when a write goes to etcd, by the journal's clock (zero
// with the journal off). The write's record is dated then, so that it comes
// before the watch fan-out it causes, which the watch cache may record
// before the write returns.
func (s *Server) writeBegins() time.Time {
	return s.opts.Journal.Now()
}

// recordWrite records a write that reached etcd: op is what etcd did
// (create, update, delete), revision the revision it produced, began when
// it was sent (writeBegins). The record's
// Stage is the API's verb for it (a PATCH stored as an etcd update is a
// "patch"; a DELETE that only sets deletionTimestamp is a "delete" with
// etcd=update; a binding is "bind"), its Actor the authenticated user, or
// "apiserver" for the server's own writes (bootstrap, its identity Lease).
func (s *Server) recordWrite(ctx context.Context, op string, res *resource, obj api.Object, revision int64, began time.Time) {
	j := s.opts.Journal
	if j == nil {
		return
	}
	meta := obj.GetObjectMeta()
	r := debug.Record{
		Time: began, Type: debug.TypeWrite, Stage: op, Actor: "apiserver",
		Resource: res.qualified().String(), Key: objectKey(meta.Namespace, meta.Name),
		UID: meta.UID, ResourceVersion: strconv.FormatInt(revision, 10),
		Detail: "etcd=" + op,
	}
	for _, ref := range meta.OwnerReferences {
		r.Owners = append(r.Owners, ref.UID)
	}
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		r.Stage = debug.WriteStage(info.verb, info.subresource)
	}
	if user, ok := auth.UserFrom(ctx); ok {
		r.Actor = user.Name
	}
	j.Add(r)
}

// fanoutTracer returns the watch cache's dispatch hook for res: one trace
// record per change handed to watchers (nil when the journal is off).
// watchers counts the watches whose key prefix matched (a whole resource,
// or its namespace); their label and field selectors filter further on
// the way out.
func (s *Server) fanoutTracer(res *resource) func(ev cache.Event, watchers int) {
	j := s.opts.Journal
	if j == nil {
		return nil
	}
	resource := res.qualified().String()
	prefix := res.keyPrefix("")
	return func(ev cache.Event, watchers int) {
		j.Add(debug.Record{
			Type: debug.TypeTrace, Stage: "fanout", Actor: "watch-cache",
			Resource: resource, Key: strings.TrimPrefix(ev.Key, prefix),
			ResourceVersion: strconv.FormatInt(ev.Revision, 10),
			Detail:          "type=" + string(ev.Type) + " watchers=" + strconv.Itoa(watchers),
		})
	}
}

// objectKey is "namespace/name", or "name" for a cluster-scoped object.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
