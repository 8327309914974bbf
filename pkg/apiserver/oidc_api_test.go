package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/serviceaccount"
	"kplane/test/framework"
)

// TestOIDCDiscovery: the discovery document names the issuer and the JWKS
// URL; the JWKS holds the key whose id issued tokens carry in their header.
func TestOIDCDiscovery(t *testing.T) {
	a := framework.StartAPIServer(t)
	resp := a.Do(t, http.MethodGet, serviceaccount.OpenIDConfigurationPath, nil)
	var doc serviceaccount.OpenIDConfiguration
	if err := json.Unmarshal(resp.Body, &doc); err != nil || resp.Code != http.StatusOK {
		t.Fatalf("openid-configuration: %d %s", resp.Code, resp.Body)
	}
	if doc.Issuer != serviceaccount.DefaultIssuer || doc.JWKSURI != a.URL()+"/openid/v1/jwks" ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "public, max-age=3600" {
		t.Errorf("openid-configuration: %s %v", resp.Body, resp.Header)
	}

	resp = a.Do(t, http.MethodGet, serviceaccount.JWKSPath, nil)
	var jwks struct {
		Keys []struct{ Kid, Kty, Alg, Use, N, E string } `json:"keys"`
	}
	if err := json.Unmarshal(resp.Body, &jwks); err != nil || resp.Code != http.StatusOK || len(jwks.Keys) != 1 {
		t.Fatalf("jwks: %d %s", resp.Code, resp.Body)
	}
	if resp.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Errorf("jwks content type %q", resp.Header.Get("Content-Type"))
	}

	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"default"}}`, nil)
	header := decodeSegment(t, strings.Split(mustToken(t, a, "default"), ".")[0])
	if header["kid"] != jwks.Keys[0].Kid || header["alg"] != "RS256" || jwks.Keys[0].Kty != "RSA" || jwks.Keys[0].Use != "sig" {
		t.Errorf("token header %v, JWKS key %+v: want the same kid, RS256", header, jwks.Keys[0])
	}

	// A ServiceAccount may read both (the bootstrap policy's
	// system:service-account-issuer-discovery); a user without bindings
	// may not.
	saToken := mustToken(t, a, "default")
	for _, path := range []string{serviceaccount.OpenIDConfigurationPath, serviceaccount.JWKSPath} {
		if resp := a.DoWithToken(t, saToken, http.MethodGet, path, nil); resp.Code != http.StatusOK {
			t.Errorf("GET %s as a ServiceAccount: %d %s", path, resp.Code, resp.Body)
		}
		if resp := a.DoWithToken(t, a.TokenFor(t, auth.User{Name: "alice"}), http.MethodGet, path, nil); resp.Code != http.StatusForbidden {
			t.Errorf("GET %s as alice: %d, want 403", path, resp.Code)
		}
	}

	// Without credentials: 401, as upstream without anonymous access.
	if resp := a.DoWithToken(t, "", http.MethodGet, serviceaccount.JWKSPath, nil); resp.Code != http.StatusUnauthorized {
		t.Errorf("anonymous jwks: %d, want 401", resp.Code)
	}
}

// TestOIDCDiscoveryNeedsAnHTTPSIssuer: with an issuer that is no https URL
// the discovery endpoints do not exist, as upstream; tokens still work.
func TestOIDCDiscoveryNeedsAnHTTPSIssuer(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.ServiceAccountIssuers = []string{"kplane"} })
	for _, path := range []string{serviceaccount.OpenIDConfigurationPath, serviceaccount.JWKSPath} {
		if resp := a.Do(t, http.MethodGet, path, nil); resp.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.Code)
		}
	}
	createObject(t, a, "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"default"}}`, nil)
	token := mustToken(t, a, "default")
	if claims := decodeClaims(t, token); claims["iss"] != "kplane" {
		t.Errorf("iss = %v", claims["iss"])
	}
	if name, _, ok := authenticates(t, a, token); !ok || name != "system:serviceaccount:default:default" {
		t.Errorf("token of issuer kplane: %q %v", name, ok)
	}
}
