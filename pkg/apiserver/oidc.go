package apiserver

// This file serves ServiceAccount issuer discovery, upstream's
// ServiceAccountIssuerDiscovery (pkg/serviceaccount/openidmetadata.go):
// GET /.well-known/openid-configuration names the issuer and where its
// keys are, GET /openid/v1/jwks lists the public keys with the key ids
// tokens carry in their header. With them, a system outside the cluster
// can verify a pod's token offline, as it would an OIDC ID token.
// Callers must be authenticated; the bootstrap policy's
// system:service-account-issuer-discovery role lets every ServiceAccount
// read both.

import (
	"encoding/json"
	"net/http"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/serviceaccount"
)

// oidcCacheControl lets clients keep the documents an hour, as upstream.
const oidcCacheControl = "public, max-age=3600"

// serveOpenIDConfiguration answers GET /.well-known/openid-configuration.
func (s *Server) serveOpenIDConfiguration(w http.ResponseWriter, _ *http.Request) {
	doc := serviceaccount.NewOpenIDConfiguration(s.serviceAccounts.issuer.Name(), s.url+serviceaccount.JWKSPath)
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
	data, err := serviceaccount.JWKS(s.serviceAccounts.keys)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Cache-Control", oidcCacheControl)
	response.WriteRaw(w, http.StatusOK, "application/jwk-set+json", data)
}
