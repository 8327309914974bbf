package apiserver

// This file serves ServiceAccount issuer discovery, upstream's
// ServiceAccountIssuerDiscovery (pkg/serviceaccount/openidmetadata.go):
// GET /.well-known/openid-configuration names the issuer and where its
// keys are, GET /openid/v1/jwks lists the public keys with the key ids
// tokens carry in their header. With them, a system outside the cluster
// can verify a pod's token offline, as it would an OIDC ID token.
// Callers must be authenticated; the bootstrap policy's
// system:service-account-issuer-discovery role lets every ServiceAccount
// read both. They exist only when the issuer is an https URL.

import (
	"encoding/json"
	"net/http"
	"net/url"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/serviceaccount"
)

// oidcCacheControl lets clients keep the documents an hour, as upstream.
const oidcCacheControl = "public, max-age=3600"

// servesIssuerDiscovery says whether the discovery documents exist: only
// for an issuer that is an https URL, which an OIDC client can fetch them
// under (upstream installs the endpoints only then).
func (s *Server) servesIssuerDiscovery() bool {
	u, err := url.Parse(s.serviceAccounts.issuer.Name())
	return err == nil && u.Scheme == "https" && u.Host != ""
}

// jwksURI is where the discovery document says the keys are:
// --service-account-jwks-uri, or this server's own /openid/v1/jwks.
func (s *Server) jwksURI() string {
	if s.opts.ServiceAccountJWKSURI != "" {
		return s.opts.ServiceAccountJWKSURI
	}
	return s.url + serviceaccount.JWKSPath
}

// serveOpenIDConfiguration answers GET /.well-known/openid-configuration.
func (s *Server) serveOpenIDConfiguration(w http.ResponseWriter, _ *http.Request) {
	if !s.servesIssuerDiscovery() {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	doc := serviceaccount.NewOpenIDConfiguration(s.serviceAccounts.issuer.Name(), s.jwksURI())
	data, err := json.Marshal(doc)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Cache-Control", oidcCacheControl)
	response.WriteRaw(w, http.StatusOK, "application/json", data)
}

// serveJWKS answers GET /openid/v1/jwks.
func (s *Server) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	if !s.servesIssuerDiscovery() {
		response.WriteError(w, response.NotFoundPath())
		return
	}
	data, err := serviceaccount.JWKS(s.serviceAccounts.keys)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Cache-Control", oidcCacheControl)
	response.WriteRaw(w, http.StatusOK, "application/jwk-set+json", data)
}
