package serviceaccount

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// fakeObjects is an ObjectGetter over maps keyed "namespace/name".
type fakeObjects struct {
	accounts map[string]*api.ServiceAccount
	pods     map[string]*api.Pod
	secrets  map[string]*api.Secret
	nodes    map[string]*api.Node
}

func newFakeObjects() *fakeObjects {
	f := &fakeObjects{accounts: map[string]*api.ServiceAccount{}, pods: map[string]*api.Pod{},
		secrets: map[string]*api.Secret{}, nodes: map[string]*api.Node{}}
	f.accounts["default/default"] = &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "default", UID: "sa-uid"}}
	f.pods["default/web"] = &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "pod-uid"}}
	f.nodes["node1"] = &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1", UID: "node-uid"}}
	return f
}

func lookup[T any](m map[string]*T, key string) (*T, error) {
	if o, ok := m[key]; ok {
		return o, nil
	}
	return nil, fmt.Errorf("%s not found", key)
}

func (f *fakeObjects) ServiceAccount(_ context.Context, ns, name string) (*api.ServiceAccount, error) {
	return lookup(f.accounts, ns+"/"+name)
}
func (f *fakeObjects) Pod(_ context.Context, ns, name string) (*api.Pod, error) {
	return lookup(f.pods, ns+"/"+name)
}
func (f *fakeObjects) Secret(_ context.Context, ns, name string) (*api.Secret, error) {
	return lookup(f.secrets, ns+"/"+name)
}
func (f *fakeObjects) Node(_ context.Context, name string) (*api.Node, error) {
	return lookup(f.nodes, name)
}

// fixture is a signing key, an issuer and an authenticator that trusts it,
// with a fixed clock.
type fixture struct {
	key     *rsa.PrivateKey
	issuer  *Issuer
	authn   *Authenticator
	objects *fakeObjects
	now     time.Time
}

// testKeys are two RSA keys made once per test binary: generating one
// takes a while, and the tests need only "the key" and "another key".
var testKeys = sync.OnceValues(func() ([2]*rsa.PrivateKey, error) {
	var keys [2]*rsa.PrivateKey
	for i := range keys {
		key, err := rsa.GenerateKey(rand.Reader, keyBits)
		if err != nil {
			return keys, err
		}
		keys[i] = key
	}
	return keys, nil
})

// newFixture signs with the first test key; newOtherFixture with the second.
func newFixture(t *testing.T) *fixture { return newFixtureWith(t, 0) }

func newOtherFixture(t *testing.T) *fixture { return newFixtureWith(t, 1) }

func newFixtureWith(t *testing.T, keyIndex int) *fixture {
	t.Helper()
	keys, err := testKeys()
	if err != nil {
		t.Fatal(err)
	}
	key := keys[keyIndex]
	issuer, err := NewIssuer(DefaultIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{key: key, issuer: issuer, objects: newFakeObjects(), now: time.Unix(1_800_000_000, 0)}
	f.authn = &Authenticator{Issuers: []string{DefaultIssuer}, Keys: []*rsa.PublicKey{&key.PublicKey},
		APIAudiences: []string{DefaultIssuer}, Getter: f.objects, Now: func() time.Time { return f.now }}
	return f
}

func (f *fixture) spec() TokenSpec {
	return TokenSpec{Namespace: "default", ServiceAccountName: "default", ServiceAccountUID: "sa-uid",
		Audiences: []string{DefaultIssuer}, IssuedAt: f.now, Expiration: time.Hour}
}

func (f *fixture) issue(t *testing.T, spec TokenSpec) string {
	t.Helper()
	token, err := f.issuer.Issue(spec)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func (f *fixture) authenticate(t *testing.T, token string, audiences ...string) (auth.User, bool, error) {
	t.Helper()
	result, ok, err := f.authn.AuthenticateToken(context.Background(), token, audiences)
	return result.User, ok, err
}

// TestTokenAudiencesIntersect: the result names those of the requested
// audiences the token's aud claim holds, not every one requested; a token
// meant for none of them is refused with upstream's words.
func TestTokenAudiencesIntersect(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Audiences = []string{"vault"}
	token := f.issue(t, spec)

	result, ok, err := f.authn.AuthenticateToken(context.Background(), token, []string{"etcd", "vault"})
	if !ok || err != nil {
		t.Fatalf("token for vault, asked for etcd and vault: ok=%v err=%v", ok, err)
	}
	if !slices.Equal(result.Audiences, []string{"vault"}) {
		t.Errorf("audiences = %q, want [vault]", result.Audiences)
	}

	_, ok, err = f.authn.AuthenticateToken(context.Background(), token, []string{"etcd"})
	want := `token audiences ["vault"] is invalid for the target audiences ["etcd"]`
	if ok || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("token for vault, asked for etcd: ok=%v err=%v, want refused with %q", ok, err, want)
	}

	// No audience asked: the apiserver's, which the default token holds.
	result, ok, _ = f.authn.AuthenticateToken(context.Background(), f.issue(t, f.spec()), nil)
	if !ok || !slices.Equal(result.Audiences, []string{DefaultIssuer}) {
		t.Errorf("default token, no audience asked: ok=%v audiences=%q, want [%s]", ok, result.Audiences, DefaultIssuer)
	}
}

func TestBoundTokenAuthenticatesAsServiceAccount(t *testing.T) {
	f := newFixture(t)
	user, ok, err := f.authenticate(t, f.issue(t, f.spec()))
	if err != nil || !ok {
		t.Fatalf("authenticate: ok=%v err=%v", ok, err)
	}
	if user.Name != "system:serviceaccount:default:default" || user.UID != "sa-uid" {
		t.Errorf("user = %+v", user)
	}
	if !slices.Equal(user.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:default"}) {
		t.Errorf("groups = %v", user.Groups)
	}
	if id := user.Extra[CredentialIDExtraKey]; len(id) != 1 || !strings.HasPrefix(id[0], "JTI=") {
		t.Errorf("credential-id = %v", id)
	}
}

// TestTokenFormat decodes a token by hand: the header names RS256 and the
// key's id; the payload has upstream's claims.
func TestTokenFormat(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Binding = Binding{Pod: &ObjectRef{Name: "web", UID: "pod-uid"}, Node: &ObjectRef{Name: "node1", UID: "node-uid"}}
	parts := strings.Split(f.issue(t, spec), ".")
	decode := func(s string) map[string]any {
		raw, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	header, payload := decode(parts[0]), decode(parts[1])
	kid, _ := KeyID(&f.key.PublicKey)
	if header["alg"] != "RS256" || header["kid"] != kid {
		t.Errorf("header = %v, want alg RS256 kid %s", header, kid)
	}
	for _, claim := range []string{"iss", "sub", "aud", "exp", "iat", "nbf", "jti", "kubernetes.io"} {
		if _, ok := payload[claim]; !ok {
			t.Errorf("payload lacks %q: %v", claim, payload)
		}
	}
	k := payload["kubernetes.io"].(map[string]any)
	if k["namespace"] != "default" || k["serviceaccount"].(map[string]any)["uid"] != "sa-uid" ||
		k["pod"].(map[string]any)["name"] != "web" || k["node"].(map[string]any)["uid"] != "node-uid" {
		t.Errorf("kubernetes.io claim = %v", k)
	}
	if payload["exp"].(float64)-payload["iat"].(float64) != 3600 {
		t.Errorf("lifetime = %v s", payload["exp"].(float64)-payload["iat"].(float64))
	}
}

func TestBoundTokenRefused(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *fixture, spec *TokenSpec)
		// after runs once the token is issued.
		after     func(f *fixture)
		audiences []string
	}{
		{name: "expired", after: func(f *fixture) { f.now = f.now.Add(time.Hour + 2*time.Minute) }},
		{name: "not yet valid", after: func(f *fixture) { f.now = f.now.Add(-5 * time.Minute) }},
		{name: "other audience", mutate: func(_ *fixture, s *TokenSpec) { s.Audiences = []string{"vault"} }},
		{name: "audience not requested", audiences: []string{"vault"}},
		{name: "service account deleted", after: func(f *fixture) { delete(f.objects.accounts, "default/default") }},
		{name: "service account recreated", after: func(f *fixture) {
			f.objects.accounts["default/default"] = &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "default", UID: "new-uid"}}
		}},
		{name: "bound pod deleted",
			mutate: func(_ *fixture, s *TokenSpec) { s.Binding.Pod = &ObjectRef{Name: "web", UID: "pod-uid"} },
			after:  func(f *fixture) { delete(f.objects.pods, "default/web") }},
		{name: "bound pod terminated over a minute ago",
			mutate: func(_ *fixture, s *TokenSpec) { s.Binding.Pod = &ObjectRef{Name: "web", UID: "pod-uid"} },
			after: func(f *fixture) {
				when := api.NewTime(f.now.Add(-2 * time.Minute))
				f.objects.pods["default/web"].DeletionTimestamp = &when
			}},
		{name: "bound pod recreated",
			mutate: func(_ *fixture, s *TokenSpec) { s.Binding.Pod = &ObjectRef{Name: "web", UID: "pod-uid"} },
			after: func(f *fixture) {
				f.objects.pods["default/web"] = &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "other"}}
			}},
		{name: "bound node deleted",
			mutate: func(_ *fixture, s *TokenSpec) { s.Binding.Node = &ObjectRef{Name: "node1", UID: "node-uid"} },
			after:  func(f *fixture) { delete(f.objects.nodes, "node1") }},
		{name: "bound secret deleted",
			mutate: func(f *fixture, s *TokenSpec) {
				f.objects.secrets["default/s"] = &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "s", UID: "secret-uid"}}
				s.Binding.Secret = &ObjectRef{Name: "s", UID: "secret-uid"}
			},
			after: func(f *fixture) { delete(f.objects.secrets, "default/s") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			spec := f.spec()
			if tt.mutate != nil {
				tt.mutate(f, &spec)
			}
			token := f.issue(t, spec)
			if _, ok, err := f.authenticate(t, token, tt.audiences...); !ok || err != nil {
				if tt.after != nil {
					t.Fatalf("fresh token refused: ok=%v err=%v", ok, err)
				}
			}
			if tt.after != nil {
				tt.after(f)
			}
			if user, ok, err := f.authenticate(t, token, tt.audiences...); ok || err == nil {
				t.Fatalf("authenticated as %+v (err %v), want refused", user, err)
			}
		})
	}
}

// TestBoundPodAuthenticatesUntilDeleted is the life of a pod's token: its
// user carries the pod (and node) in extra; gone with the pod.
func TestBoundPodAuthenticatesUntilDeleted(t *testing.T) {
	f := newFixture(t)
	spec := f.spec()
	spec.Binding = Binding{Pod: &ObjectRef{Name: "web", UID: "pod-uid"}, Node: &ObjectRef{Name: "node1", UID: "node-uid"}}
	token := f.issue(t, spec)
	user, ok, err := f.authenticate(t, token)
	if !ok || err != nil {
		t.Fatalf("authenticate: ok=%v err=%v", ok, err)
	}
	want := map[string]string{PodNameExtraKey: "web", PodUIDExtraKey: "pod-uid", NodeNameExtraKey: "node1", NodeUIDExtraKey: "node-uid"}
	for k, v := range want {
		if got := user.Extra[k]; len(got) != 1 || got[0] != v {
			t.Errorf("extra %s = %v, want %s", k, got, v)
		}
	}
	// The node is informational for a pod-bound token: its absence does
	// not matter.
	delete(f.objects.nodes, "node1")
	if _, ok, err := f.authenticate(t, token); !ok || err != nil {
		t.Fatalf("after node deletion: ok=%v err=%v", ok, err)
	}
	delete(f.objects.pods, "default/web")
	if _, ok, _ := f.authenticate(t, token); ok {
		t.Fatal("token authenticates after its pod was deleted")
	}
}

func TestTamperedAndForeignTokens(t *testing.T) {
	f := newFixture(t)
	token := f.issue(t, f.spec())
	parts := strings.Split(token, ".")

	// Rewrite the subject in the payload and keep the signature.
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forged := strings.Replace(string(raw), "system:serviceaccount:default:default", "system:serviceaccount:kube-system:admin", 1)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
	if _, ok, err := f.authenticate(t, tampered); ok || err == nil {
		t.Errorf("tampered token: ok=%v err=%v, want refused with an error", ok, err)
	}

	// Signed by another key with the same issuer.
	other := newOtherFixture(t)
	if _, ok, err := f.authenticate(t, other.issue(t, other.spec())); ok || err == nil {
		t.Errorf("token of another key: ok=%v err=%v, want refused with an error", ok, err)
	}

	// Another issuer, or no JWT at all: not ours, no error, so the next
	// authenticator may try.
	foreign, _ := NewIssuer("https://elsewhere", other.key)
	for name, tok := range map[string]string{"other issuer": mustIssue(t, foreign, f.spec()), "static token": "abc123"} {
		if _, ok, err := f.authenticate(t, tok); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v, want not ours", name, ok, err)
		}
	}
}

func mustIssue(t *testing.T, i *Issuer, spec TokenSpec) string {
	t.Helper()
	tok, err := i.Issue(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestLegacyToken(t *testing.T) {
	f := newFixture(t)
	token, err := f.issuer.IssueLegacy("default", "default", "sa-uid", "default-token")
	if err != nil {
		t.Fatal(err)
	}
	f.objects.secrets["default/default-token"] = &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "default-token"},
		Type: SecretTypeServiceAccountToken, Data: map[string][]byte{SecretTokenKey: []byte(token)}}
	// Legacy tokens never expire.
	f.now = f.now.Add(10 * 365 * 24 * time.Hour)
	user, ok, err := f.authenticate(t, token)
	if !ok || err != nil || user.Name != "system:serviceaccount:default:default" || user.UID != "sa-uid" {
		t.Fatalf("legacy token: %+v ok=%v err=%v", user, ok, err)
	}
	if _, ok, _ := f.authenticate(t, token, "vault"); ok {
		t.Error("legacy token authenticated for a foreign audience")
	}
	f.objects.secrets["default/default-token"].Data[SecretTokenKey] = []byte("replaced")
	if _, ok, _ := f.authenticate(t, token); ok {
		t.Error("legacy token authenticates after its Secret was given another token")
	}
	delete(f.objects.secrets, "default/default-token")
	if _, ok, _ := f.authenticate(t, token); ok {
		t.Error("legacy token authenticates after its Secret was deleted")
	}
}

func TestEnsureSigningKeyReusesKey(t *testing.T) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, PrivateKeyFile), filepath.Join(dir, PublicKeyFile)
	first, err := EnsureSigningKey(priv, pub)
	if err != nil {
		t.Fatal(err)
	}
	second, err := EnsureSigningKey(priv, pub)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Equal(second) {
		t.Fatal("second start made a new key")
	}
	keys, err := LoadPublicKeys(pub)
	if err != nil || len(keys) != 1 || !keys[0].Equal(&first.PublicKey) {
		t.Fatalf("sa.pub: %v %v", keys, err)
	}
}

func TestJWKSAndDiscovery(t *testing.T) {
	f := newFixture(t)
	data, err := JWKS([]*rsa.PublicKey{&f.key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	kid, _ := KeyID(&f.key.PublicKey)
	if len(set.Keys) != 1 || set.Keys[0]["kid"] != kid || set.Keys[0]["kty"] != "RSA" || set.Keys[0]["alg"] != "RS256" ||
		set.Keys[0]["use"] != "sig" || set.Keys[0]["e"] != "AQAB" || set.Keys[0]["n"] == "" {
		t.Errorf("jwks = %s", data)
	}
	doc, _ := json.Marshal(NewOpenIDConfiguration(DefaultIssuer, "https://127.0.0.1:6443/openid/v1/jwks"))
	want := `{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks",` +
		`"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}`
	if string(doc) != want {
		t.Errorf("discovery = %s\nwant %s", doc, want)
	}
}
