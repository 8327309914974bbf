package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// allowImpersonating is an authorizer that lets anyone impersonate the
// listed "resource/name" pairs ("serviceaccounts/ci/builder" for a
// ServiceAccount, "userextras/scopes/view" for an extra) and nothing else.
func allowImpersonating(allowed ...string) authorizerFunc {
	return func(_ *http.Request, a authorizer.Attributes) (authorizer.Decision, string, error) {
		key := a.Resource + "/" + a.Name
		switch a.Resource {
		case "serviceaccounts":
			key = a.Resource + "/" + a.Namespace + "/" + a.Name
		case "userextras":
			key = a.Resource + "/" + a.Subresource + "/" + a.Name
		}
		if a.Verb == "impersonate" && slices.Contains(allowed, key) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
}

// echoImpersonated answers with the user the request reached the handler
// as, and any impersonation header that was left on it.
var echoImpersonated = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	u, _ := auth.UserFrom(r.Context())
	var left []string
	for name := range r.Header {
		if strings.HasPrefix(name, "Impersonate-") {
			left = append(left, name)
		}
	}
	fmt.Fprintf(w, "%s uid=%q groups=%v extra=%v left=%v", u.Name, u.UID, u.Groups, u.Extra, left)
})

func TestImpersonation(t *testing.T) {
	alice := auth.User{Name: "alice", Groups: []string{"dev", auth.AuthenticatedGroup}}
	handler := impersonation(allowImpersonating(
		"users/bob", "users/system:anonymous", "groups/ops", "groups/system:masters",
		"serviceaccounts/ci/builder", "uids/1234", "userextras/scopes/view", "userextras/example.com/team/a"),
		echoImpersonated)

	tests := []struct {
		name     string
		headers  [][2]string
		wantCode int
		want     string // the body: who the handler saw, or the Status message
	}{
		{"no headers: the requestor", nil, 200, `alice uid="" groups=[dev system:authenticated] extra=map[] left=[]`},
		{"user", [][2]string{{"Impersonate-User", "bob"}}, 200,
			`bob uid="" groups=[system:authenticated] extra=map[] left=[]`},
		{"user and groups", [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Group", "ops"}, {"Impersonate-Group", "system:masters"}}, 200,
			`bob uid="" groups=[ops system:masters system:authenticated] extra=map[] left=[]`},
		{"ServiceAccount gets its groups", [][2]string{{"Impersonate-User", "system:serviceaccount:ci:builder"}}, 200,
			`system:serviceaccount:ci:builder uid="" groups=[system:serviceaccounts system:serviceaccounts:ci system:authenticated] extra=map[] left=[]`},
		{"ServiceAccount with groups gets only those", [][2]string{{"Impersonate-User", "system:serviceaccount:ci:builder"}, {"Impersonate-Group", "ops"}}, 200,
			`system:serviceaccount:ci:builder uid="" groups=[ops system:authenticated] extra=map[] left=[]`},
		{"uid and extras, key lowercased and unescaped", [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Uid", "1234"},
			{"Impersonate-Extra-Scopes", "view"}, {"Impersonate-Extra-Example.com%2fTeam", "a"}}, 200,
			`bob uid="1234" groups=[system:authenticated] extra=map[example.com/team:[a] scopes:[view]] left=[]`},
		{"anonymous is unauthenticated", [][2]string{{"Impersonate-User", "system:anonymous"}}, 200,
			`system:anonymous uid="" groups=[system:unauthenticated] extra=map[] left=[]`},

		{"user not allowed", [][2]string{{"Impersonate-User", "carol"}}, 403,
			`users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{"ServiceAccount not allowed", [][2]string{{"Impersonate-User", "system:serviceaccount:ci:deployer"}}, 403,
			`serviceaccounts "deployer" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ci"`},
		{"group not allowed", [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Group", "admins"}}, 403,
			`groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{"uid not allowed", [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Uid", "0"}}, 403,
			`uids.authentication.k8s.io "0" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`},
		{"extra not allowed", [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Extra-Scopes", "edit"}}, 403,
			`userextras.authentication.k8s.io "edit" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{"groups without a user", [][2]string{{"Impersonate-Group", "ops"}}, 400,
			`requested impersonation of groups, extra fields or a uid without impersonating a user (set Impersonate-User, kubectl --as)`},
		{"uid without a user", [][2]string{{"Impersonate-Uid", "1234"}}, 400,
			`requested impersonation of groups, extra fields or a uid without impersonating a user (set Impersonate-User, kubectl --as)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil)
			for _, h := range tt.headers {
				r.Header.Add(h[0], h[1])
			}
			r = r.WithContext(auth.WithUser(r.Context(), alice))
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, r)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d; body %s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantCode == 200 {
				if got := rec.Body.String(); got != tt.want {
					t.Errorf("handler saw %s\n            want %s", got, tt.want)
				}
				return
			}
			var status api.Status
			if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
				t.Fatalf("body is not a Status: %s", rec.Body)
			}
			wantReason := map[int]string{403: "Forbidden", 400: "BadRequest"}[tt.wantCode]
			if status.Kind != "Status" || status.Reason != wantReason || status.Code != int32(tt.wantCode) || status.Message != tt.want {
				t.Errorf("Status = %+v\nwant reason %s, message %s", status, wantReason, tt.want)
			}
		})
	}
}
