package apiserver

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/audit"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// This file is impersonation: a user with the right to do so acts as
// someone else by sending Impersonate-* headers (kubectl --as, --as-group,
// --as-uid). It mirrors upstream's filter,
// staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go.
//
// Every part of the new identity is a separate question to the authorizer,
// with the verb "impersonate":
//
//	Impersonate-User: bob                  users "bob"                 (API group "")
//	Impersonate-User: system:serviceaccount:ns:sa
//	                                       serviceaccounts "sa" in ns  (API group "")
//	Impersonate-Group: dev (repeatable)    groups "dev"                (API group "")
//	Impersonate-Uid: 42                    uids "42"                   (authentication.k8s.io)
//	Impersonate-Extra-Scopes: view         userextras/scopes "view"    (authentication.k8s.io)
//
// The first "no" ends the request with 403; when all are "yes" the request
// goes on as the new user, without the headers, and authorization then
// judges the request itself as that user. The audit log keeps both names.

// Impersonation headers, as kubectl and client-go send them.
const (
	impersonateUserHeader        = "Impersonate-User"
	impersonateGroupHeader       = "Impersonate-Group"
	impersonateUIDHeader         = "Impersonate-Uid"
	impersonateExtraHeaderPrefix = "Impersonate-Extra-"
)

// impersonate acts on the impersonation headers with s.authorizer.
func (s *Server) impersonate(next http.Handler) http.Handler {
	return impersonation(authorizerFunc(func(r *http.Request, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		return s.authorizer.Authorize(r.Context(), attrs)
	}), next)
}

// authorizerFunc asks an authorizer in the context of a request; it lets
// tests and the server share impersonation without a Server.
type authorizerFunc func(r *http.Request, attrs authorizer.Attributes) (authorizer.Decision, string, error)

// impersonation checks every impersonation request of r with authorize
// and, when all are allowed, serves r as the impersonated user.
func impersonation(authorize authorizerFunc, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked, err := impersonationRequests(r.Header)
		if err != nil {
			response.WriteError(w, err)
			return
		}
		if len(asked) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		requestor, ok := auth.UserFrom(r.Context())
		if !ok {
			response.WriteError(w, apierrors.NewInternalError(errNoUser))
			return
		}
		for _, attrs := range asked {
			attrs.User = requestor
			decision, reason, err := authorize(r, attrs)
			if decision != authorizer.DecisionAllow || err != nil {
				response.WriteError(w, authorizer.Forbidden(attrs, reason))
				return
			}
		}
		user := impersonatedUser(asked, len(r.Header.Values(impersonateGroupHeader)) > 0)
		ctx := auth.WithUser(r.Context(), user)
		audit.SetImpersonatedUser(ctx, user)
		removeImpersonationHeaders(r.Header)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// errNoUser: impersonation runs after authentication, which always names
// a user; reaching it without one is a bug in the handler chain.
var errNoUser = errors.New("no user found for request")

// impersonationRequests reads the impersonation headers into the
// questions to ask the authorizer, in upstream's order: the user, the
// groups, the extras (sorted by key here, so that a 403 names the same one
// each time), the uid. Groups, extras or a uid without a user are a 400:
// there is nobody to give them to.
func impersonationRequests(h http.Header) ([]authorizer.Attributes, error) {
	var asked []authorizer.Attributes
	userName := h.Get(impersonateUserHeader)
	if userName != "" {
		attrs := authorizer.Attributes{Verb: "impersonate", ResourceRequest: true, APIVersion: "v1", Resource: "users", Name: userName}
		if namespace, name, ok := auth.SplitServiceAccountUsername(userName); ok {
			attrs.Resource, attrs.Namespace, attrs.Name = "serviceaccounts", namespace, name
		}
		asked = append(asked, attrs)
	}
	for _, group := range h.Values(impersonateGroupHeader) {
		asked = append(asked, authorizer.Attributes{
			Verb: "impersonate", ResourceRequest: true, APIVersion: "v1", Resource: "groups", Name: group})
	}
	var extraHeaders []string
	for name := range h {
		if strings.HasPrefix(name, impersonateExtraHeaderPrefix) {
			extraHeaders = append(extraHeaders, name)
		}
	}
	slices.Sort(extraHeaders)
	for _, name := range extraHeaders {
		key := extraKey(name)
		for _, value := range h.Values(name) {
			asked = append(asked, authorizer.Attributes{
				Verb: "impersonate", ResourceRequest: true, APIGroup: "authentication.k8s.io", APIVersion: "v1",
				Resource: "userextras", Subresource: key, Name: value})
		}
	}
	if uid := h.Get(impersonateUIDHeader); uid != "" {
		asked = append(asked, authorizer.Attributes{
			Verb: "impersonate", ResourceRequest: true, APIGroup: "authentication.k8s.io", APIVersion: "v1",
			Resource: "uids", Name: uid})
	}
	if userName == "" && len(asked) > 0 {
		return nil, apierrors.NewBadRequest("requested impersonation of groups, extra fields or a uid without impersonating a user (set Impersonate-User, kubectl --as)")
	}
	return asked, nil
}

// extraKey is the extra field a header names. Go has canonicalised the
// header name ("Impersonate-Extra-Scopes"), so upstream lowercases it; keys
// that are not valid in a header name arrive percent-encoded
// (example.com%2fscopes) and are unescaped, left as sent if that fails.
func extraKey(headerName string) string {
	key := strings.ToLower(strings.TrimPrefix(headerName, impersonateExtraHeaderPrefix))
	if unescaped, err := url.PathUnescape(key); err == nil {
		return unescaped
	}
	return key
}

// impersonatedUser is the user the allowed requests describe. Its groups
// are those asked for; a ServiceAccount impersonated without groups gets
// its fixed ones. As upstream, everyone but system:anonymous is in
// system:authenticated unless the groups asked for say otherwise, and
// system:anonymous is in system:unauthenticated.
func impersonatedUser(asked []authorizer.Attributes, groupsSpecified bool) auth.User {
	var user auth.User
	for _, a := range asked {
		switch a.Resource {
		case "users":
			user.Name = a.Name
		case "serviceaccounts":
			user.Name = auth.ServiceAccountUsername(a.Namespace, a.Name)
			if !groupsSpecified {
				user.Groups = auth.ServiceAccountGroups(a.Namespace)
			}
		case "groups":
			user.Groups = append(user.Groups, a.Name)
		case "userextras":
			if user.Extra == nil {
				user.Extra = map[string][]string{}
			}
			user.Extra[a.Subresource] = append(user.Extra[a.Subresource], a.Name)
		case "uids":
			user.UID = a.Name
		}
	}
	if user.Name == auth.AnonymousUserName {
		if !user.InGroup(auth.UnauthenticatedGroup) {
			user.Groups = append(user.Groups, auth.UnauthenticatedGroup)
		}
	} else if !user.InGroup(auth.AuthenticatedGroup) && !user.InGroup(auth.UnauthenticatedGroup) {
		user.Groups = append(user.Groups, auth.AuthenticatedGroup)
	}
	return user
}

// removeImpersonationHeaders drops the headers once they have been acted
// on, so that nothing further down (an aggregated server) acts on them
// again with the wrong requestor.
func removeImpersonationHeaders(h http.Header) {
	h.Del(impersonateUserHeader)
	h.Del(impersonateGroupHeader)
	h.Del(impersonateUIDHeader)
	for name := range h {
		if strings.HasPrefix(name, impersonateExtraHeaderPrefix) {
			h.Del(name)
		}
	}
}
