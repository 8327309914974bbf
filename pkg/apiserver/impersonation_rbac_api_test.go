package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

// TestImpersonationWithRBAC: with RBAC on, impersonation is itself
// authorized. alice, allowed to impersonate only bob, acts as bob
// (kubectl --as bob auth whoami); as carol she gets upstream's 403; and
// what she does as bob is judged with bob's rights, not hers.
func TestImpersonationWithRBAC(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{"Node", "RBAC"}
	})
	for _, obj := range []struct{ path, body string }{
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"impersonate-bob"},
			  "rules":[{"apiGroups":[""],"resources":["users"],"verbs":["impersonate"],"resourceNames":["bob"]}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"alice-impersonates-bob"},
			  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"impersonate-bob"},
			  "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]}`},
	} {
		if r := a.Do(t, http.MethodPost, obj.path, []byte(obj.body)); r.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", obj.path, r.Code, r.Body)
		}
	}
	aliceToken := a.TokenFor(t, auth.User{Name: "alice"})
	waitFor := func(desc string, ok func() bool) {
		t.Helper()
		// RBAC reads bindings from the watch cache, a moment behind the write.
		for i := 0; i < 100 && !ok(); i++ {
			a.Do(t, http.MethodGet, "/api/v1/namespaces/default", nil)
		}
		if !ok() {
			t.Fatalf("%s never happened", desc)
		}
	}
	asBob := func() framework.Response {
		return a.DoWithToken(t, aliceToken, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
			[]byte(selfSubjectReviewBody), "Impersonate-User", "bob")
	}
	waitFor("alice impersonating bob", func() bool { return asBob().Code == http.StatusCreated })
	if got := whoami(t, asBob()); got.Status.UserInfo.Username != "bob" {
		t.Errorf("alice as bob: whoami says %+v", got.Status.UserInfo)
	}

	r := a.DoWithToken(t, aliceToken, http.MethodGet, "/api/v1/namespaces/default/pods", nil, "Impersonate-User", "carol")
	want := `users \"carol\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope`
	if r.Code != http.StatusForbidden || !strings.Contains(string(r.Body), want) {
		t.Errorf("alice as carol: %d %s, want 403 with %s", r.Code, r.Body, want)
	}
	r = a.DoWithToken(t, aliceToken, http.MethodGet, "/api/v1/namespaces/default/pods", nil, "Impersonate-User", "bob", "Impersonate-Group", "system:masters")
	want = `groups \"system:masters\" is forbidden: User \"alice\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope`
	if r.Code != http.StatusForbidden || !strings.Contains(string(r.Body), want) {
		t.Errorf("alice as bob in system:masters: %d %s, want 403 with %s", r.Code, r.Body, want)
	}
	r = a.DoWithToken(t, aliceToken, http.MethodGet, "/api/v1/namespaces/default/pods", nil, "Impersonate-User", "bob")
	want = `pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"`
	if r.Code != http.StatusForbidden || !strings.Contains(string(r.Body), want) {
		t.Errorf("alice as bob lists pods: %d %s, want 403 judged as bob: %s", r.Code, r.Body, want)
	}
}
