package apiserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

// csrBody is the JSON of a CertificateSigningRequest for the subject
// cn/orgs to signer; spoil breaks the request's signature.
func csrBody(t *testing.T, name, signer, cn string, orgs []string, usages []string, spoil bool) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	if spoil {
		der[len(der)-1] ^= 0xff // the signature is the last field
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"request":    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			"signerName": signer, "usages": usages,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// What the apiserver refuses on create, as upstream's validation and
// subjectrestriction admission do: a client certificate in
// system:masters, a request not signed by its key, missing, unknown or
// repeated usages.
func TestCSRCreateRefusals(t *testing.T) {
	a := framework.StartAPIServer(t)
	client := []string{"client auth"}
	for _, tc := range []struct {
		name string
		body []byte
		code int
		want string
	}{
		{"masters", csrBody(t, "masters", "kubernetes.io/kube-apiserver-client", "eve", []string{"system:masters"}, client, false),
			http.StatusForbidden, `use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`},
		{"spoiled", csrBody(t, "spoiled", "kubernetes.io/kube-apiserver-client", "eve", nil, client, true),
			http.StatusUnprocessableEntity, "invalid signature"},
		{"no-usages", csrBody(t, "no-usages", "kubernetes.io/kube-apiserver-client", "eve", nil, nil, false),
			http.StatusUnprocessableEntity, `spec.usages: Required value`},
		{"bad-usage", csrBody(t, "bad-usage", "kubernetes.io/kube-apiserver-client", "eve", nil, []string{"client auth", "flying"}, false),
			http.StatusUnprocessableEntity, `spec.usages[1]: Unsupported value: \"flying\"`},
		{"twice", csrBody(t, "twice", "kubernetes.io/kube-apiserver-client", "eve", nil, []string{"client auth", "client auth"}, false),
			http.StatusUnprocessableEntity, `spec.usages[1]: Duplicate value`},
	} {
		r := a.Do(t, http.MethodPost, csrPath, tc.body)
		if r.Code != tc.code || !strings.Contains(string(r.Body), tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, r.Code, r.Body, tc.code, tc.want)
		}
	}
	// system:masters is refused only for the apiserver client signer.
	if r := a.Do(t, http.MethodPost, csrPath, csrBody(t, "other", "example.com/signer", "eve", []string{"system:masters"}, client, false)); r.Code != http.StatusCreated {
		t.Errorf("system:masters for another signer: %d %s", r.Code, r.Body)
	}
}

// Approving needs "approve" and issuing needs "sign" on the signer
// (signers/<name> or signers/<domain>/*), besides the right to write
// /approval and /status (upstream's certificates/approval and
// certificates/signing admission). Conditions can only be True, and
// Failed, once set, stays.
func TestCSRSignerVerbs(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{"Node", "RBAC"}
	})
	if r := a.Do(t, http.MethodPost, csrPath, csrBody(t, "req", "example.com/signer", "eve", nil, []string{"client auth"}, false)); r.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	post := func(path, body string) {
		t.Helper()
		if r := a.Do(t, http.MethodPost, path, []byte(body)); r.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, r.Code, r.Body)
		}
	}
	post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"csr-writer"},
		  "rules":[{"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests/approval","certificatesigningrequests/status"],"verbs":["patch","update"]}]}`)
	post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"dave-writes-csrs"},
		  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"csr-writer"},
		  "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"dave"}]}`)
	dave := a.TokenFor(t, auth.User{Name: "dave"})
	patch := func(subresource, body string) framework.Response {
		return a.DoWithToken(t, dave, http.MethodPatch, csrPath+"/req/"+subresource, []byte(body), "Content-Type", "application/merge-patch+json")
	}
	eventually := func(desc string, ok func() bool) {
		t.Helper()
		// RBAC reads bindings from the watch cache, a moment behind the write.
		for i := 0; i < 100 && !ok(); i++ {
			a.Do(t, http.MethodGet, "/api/v1/namespaces/default", nil)
		}
		if !ok() {
			t.Fatalf("%s never happened", desc)
		}
	}
	approve := `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"Test"}]}}`
	const notApprove = `user not permitted to approve requests with signerName \"example.com/signer\"`
	eventually("dave's approval refused by the signer check", func() bool {
		r := patch("approval", approve)
		return r.Code == http.StatusForbidden && strings.Contains(string(r.Body), notApprove)
	})

	post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"example-approver"},
		  "rules":[{"apiGroups":["certificates.k8s.io"],"resources":["signers"],"verbs":["approve"],"resourceNames":["example.com/*"]}]}`)
	post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"dave-approves"},
		  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"example-approver"},
		  "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"dave"}]}`)
	eventually("dave approves with approve on example.com/*", func() bool { return patch("approval", approve).Code == http.StatusOK })
	if r := patch("approval", `{"status":{"conditions":[{"type":"Approved","status":"False","reason":"Test"}]}}`); r.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), `status.conditions[0].status: Unsupported value: \"False\"`) {
		t.Errorf("Approved False: %d %s", r.Code, r.Body)
	}

	// Setting the certificate needs "sign"; a Failed condition does not.
	const notSign = `user not permitted to sign requests with signerName \"example.com/signer\"`
	if r := patch("status", `{"status":{"certificate":"eA=="}}`); r.Code != http.StatusForbidden || !strings.Contains(string(r.Body), notSign) {
		t.Errorf("dave signs without sign: %d %s, want 403 with %s", r.Code, r.Body, notSign)
	}
	if r := patch("status", `{"status":{"conditions":[{"type":"Failed","status":"True","reason":"Test"}]}}`); r.Code != http.StatusOK {
		t.Fatalf("dave marks it Failed: %d %s", r.Code, r.Body)
	}
	const keepFailed = `updates may not remove a condition of type \"Failed\"`
	if r := a.Do(t, http.MethodPatch, csrPath+"/req/status", []byte(`{"status":{"conditions":null}}`),
		"Content-Type", "application/merge-patch+json"); r.Code != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), keepFailed) {
		t.Errorf("remove Failed: %d %s, want 422 with %s", r.Code, r.Body, keepFailed)
	}
}
