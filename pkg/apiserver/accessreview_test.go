package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/api"
	"kplane/pkg/apiserver/protobuf"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// recordingAuthorizer allows alice to get pods, denies mallory outright,
// has no opinion on anything else, and remembers what it was asked.
type recordingAuthorizer struct{ asked []authorizer.Attributes }

func (z *recordingAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	z.asked = append(z.asked, a)
	switch {
	case a.User.Name == "alice" && a.Verb == "get" && a.Resource == "pods":
		return authorizer.DecisionAllow, `RBAC: allowed by RoleBinding "read/default"`, nil
	case a.User.Name == "mallory":
		return authorizer.DecisionDeny, "banned", nil
	case a.User.Name == "broken":
		return authorizer.DecisionNoOpinion, "", errors.New("cache not ready")
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// fixedRules is a rule resolver with a fixed answer.
type fixedRules struct {
	resource    []authorizer.ResourceRule
	nonResource []authorizer.NonResourceRule
	incomplete  bool
	err         error
}

func (f fixedRules) RulesFor(context.Context, auth.User, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return f.resource, f.nonResource, f.incomplete, f.err
}

// postReview sends body to handler as user, through a chi router so URL
// parameters are set, and returns the status code and decoded answer.
func postReview(t *testing.T, handler http.HandlerFunc, pattern, path, contentType string, body []byte, user *auth.User) (int, map[string]any) {
	t.Helper()
	router := chi.NewRouter()
	router.Post(pattern, handler)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	if user != nil {
		req = req.WithContext(auth.WithUser(req.Context(), *user))
	}
	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("decode answer %s: %v", rec.Body, err)
	}
	return rec.Code, out
}

// TestSubjectAccessReview: the spec's user and groups are what the
// authorizer is asked about (no implicit system:authenticated), and the
// decision, reason and evaluation error come back in status, 201 with the
// object echoed.
func TestSubjectAccessReview(t *testing.T) {
	z := &recordingAuthorizer{}
	s := &Server{authorizer: z}
	const path = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	cases := []struct {
		name, body                      string
		allowed, denied                 bool
		reason, evaluationError, wantNS string
	}{
		{name: "allowed", body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","groups":["dev"],"resourceAttributes":{"namespace":"default","verb":"get","resource":"pods","name":"web"}}}`,
			allowed: true, reason: `RBAC: allowed by RoleBinding "read/default"`, wantNS: "default"},
		{name: "no opinion", body: `{"spec":{"user":"alice","resourceAttributes":{"verb":"delete","resource":"pods"}}}`},
		{name: "denied", body: `{"spec":{"user":"mallory","resourceAttributes":{"verb":"get","resource":"pods"}}}`, denied: true, reason: "banned"},
		{name: "evaluation error", body: `{"spec":{"user":"broken","nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`, evaluationError: "cache not ready"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := postReview(t, s.serveSubjectAccessReview, path, path, "application/json", []byte(tc.body), nil)
			if code != http.StatusCreated || out["kind"] != "SubjectAccessReview" || out["apiVersion"] != "authorization.k8s.io/v1" {
				t.Fatalf("answer %d %v, want 201 with a SubjectAccessReview", code, out)
			}
			status := out["status"].(map[string]any)
			if status["allowed"] != tc.allowed || (status["denied"] == true) != tc.denied ||
				(status["reason"] == nil && tc.reason != "") || (tc.reason != "" && status["reason"] != tc.reason) ||
				(tc.evaluationError != "" && status["evaluationError"] != tc.evaluationError) {
				t.Errorf("status %v, want allowed %v denied %v reason %q evaluationError %q", status, tc.allowed, tc.denied, tc.reason, tc.evaluationError)
			}
			if out["spec"].(map[string]any)["user"] == nil {
				t.Errorf("spec not echoed: %v", out)
			}
		})
	}
	first := z.asked[0]
	if first.User.Name != "alice" || len(first.User.Groups) != 1 || first.User.Groups[0] != "dev" || !first.ResourceRequest ||
		first.Namespace != "default" || first.Name != "web" || first.Verb != "get" {
		t.Errorf("authorizer asked %+v, want alice in [dev] (only) to get pods/web in default", first)
	}
	last := z.asked[len(z.asked)-1]
	if last.ResourceRequest || last.Path != "/healthz" || last.Verb != "get" {
		t.Errorf("non-resource review asked %+v, want get /healthz", last)
	}
}

// TestAccessReviewValidation: upstream's validation messages, as 422
// Invalid, and the body checks as 400.
func TestAccessReviewValidation(t *testing.T) {
	s := &Server{authorizer: &recordingAuthorizer{}}
	alice := &auth.User{Name: "alice"}
	cases := []struct {
		name                 string
		handler              http.HandlerFunc
		pattern, path, body  string
		wantCode             int
		wantMessageFragments []string
	}{
		{"SAR without attributes", s.serveSubjectAccessReview, "/sar", "/sar", `{"spec":{"user":"alice"}}`, 422,
			[]string{`SubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: `, "exactly one of nonResourceAttributes or resourceAttributes must be specified"}},
		{"SAR with both", s.serveSubjectAccessReview, "/sar", "/sar", `{"spec":{"user":"alice","resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"path":"/"}}}`, 422,
			[]string{"spec.nonResourceAttributes: Invalid value: ", "cannot be specified in combination with resourceAttributes"}},
		{"SAR without user", s.serveSubjectAccessReview, "/sar", "/sar", `{"spec":{"resourceAttributes":{"verb":"get"}}}`, 422,
			[]string{`spec.user: Invalid value: "": at least one of user or group must be specified`}},
		{"SAR with a name", s.serveSubjectAccessReview, "/sar", "/sar", `{"metadata":{"name":"x"},"spec":{"user":"a","resourceAttributes":{"verb":"get"}}}`, 422,
			[]string{"metadata: Invalid value: ", "must be empty"}},
		{"self SAR without attributes", s.serveSelfSubjectAccessReview, "/ssar", "/ssar", `{"spec":{}}`, 422,
			[]string{`SelfSubjectAccessReview.authorization.k8s.io "" is invalid`, "exactly one of"}},
		{"wrong kind", s.serveSelfSubjectAccessReview, "/ssar", "/ssar", `{"kind":"Pod","spec":{}}`, 400,
			[]string{"the kind in the data (Pod) does not match the expected kind (SelfSubjectAccessReview)"}},
		{"wrong version", s.serveSubjectAccessReview, "/sar", "/sar", `{"apiVersion":"v1","spec":{}}`, 400,
			[]string{"the API version in the data (v1) does not match the expected API version (authorization.k8s.io/v1)"}},
		{"not JSON", s.serveSubjectAccessReview, "/sar", "/sar", `{"spec":`, 400,
			[]string{"SubjectAccessReview in version \"v1\" cannot be handled as a SubjectAccessReview"}},
		{"local SAR in another namespace", s.serveLocalSubjectAccessReview, "/ns/{namespace}/lsar", "/ns/default/lsar",
			`{"spec":{"user":"alice","resourceAttributes":{"namespace":"kube-system","verb":"get","resource":"pods"}}}`, 422,
			[]string{`LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace`}},
		{"local SAR with metadata of another namespace", s.serveLocalSubjectAccessReview, "/ns/{namespace}/lsar", "/ns/default/lsar",
			`{"metadata":{"namespace":"other"},"spec":{"user":"alice","resourceAttributes":{"namespace":"other","verb":"get"}}}`, 400,
			[]string{"the namespace of the provided object does not match the namespace sent on the request"}},
		{"local SAR about a URL", s.serveLocalSubjectAccessReview, "/ns/{namespace}/lsar", "/ns/default/lsar",
			`{"spec":{"user":"alice","nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`, 422,
			[]string{"spec.nonResourceAttributes: Invalid value: ", "disallowed on this kind of request"}},
		{"rules review without namespace", s.serveSelfSubjectRulesReview, "/ssrr", "/ssrr", `{"spec":{}}`, 400,
			[]string{"no namespace on request"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := postReview(t, tc.handler, tc.pattern, tc.path, "application/json", []byte(tc.body), alice)
			message, _ := out["message"].(string)
			if code != tc.wantCode || out["kind"] != "Status" {
				t.Fatalf("answer %d %v, want a %d Status", code, out, tc.wantCode)
			}
			for _, fragment := range tc.wantMessageFragments {
				if !strings.Contains(message, fragment) {
					t.Errorf("message %q lacks %q", message, fragment)
				}
			}
		})
	}
}

// TestLocalSubjectAccessReview: a review posted into its own namespace is
// answered, and takes the URL's namespace when its metadata names none.
func TestLocalSubjectAccessReview(t *testing.T) {
	s := &Server{authorizer: &recordingAuthorizer{}}
	body := `{"spec":{"user":"alice","resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}}}`
	code, out := postReview(t, s.serveLocalSubjectAccessReview, "/ns/{namespace}/lsar", "/ns/default/lsar", "application/json", []byte(body), nil)
	if code != http.StatusCreated || out["kind"] != "LocalSubjectAccessReview" || out["status"].(map[string]any)["allowed"] != true ||
		out["metadata"].(map[string]any)["namespace"] != "default" {
		t.Errorf("answer %d %v, want 201, allowed, metadata.namespace default", code, out)
	}
}

// TestSelfSubjectAccessReview: the question is about the requesting user
// as authenticated (groups and extra included), and kubectl's protobuf
// body is read.
func TestSelfSubjectAccessReview(t *testing.T) {
	z := &recordingAuthorizer{}
	s := &Server{authorizer: z}
	alice := &auth.User{Name: "alice", Groups: []string{"dev", auth.AuthenticatedGroup}, Extra: map[string][]string{"scopes": {"a"}}}
	review := &api.SelfSubjectAccessReview{Spec: api.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &api.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "pods"}}}
	body, err := protobuf.Encode(review, "authorization.k8s.io/v1", "SelfSubjectAccessReview")
	if err != nil {
		t.Fatal(err)
	}
	code, out := postReview(t, s.serveSelfSubjectAccessReview, "/ssar", "/ssar", protobuf.MediaType, body, alice)
	if code != http.StatusCreated || out["status"].(map[string]any)["allowed"] != true {
		t.Fatalf("answer %d %v, want 201 and allowed", code, out)
	}
	asked := z.asked[0]
	if asked.User.Name != "alice" || len(asked.User.Groups) != 2 || asked.User.Extra["scopes"][0] != "a" || asked.Namespace != "default" {
		t.Errorf("authorizer asked %+v, want alice as authenticated, in default", asked)
	}
	code, out = postReview(t, s.serveSelfSubjectAccessReview, "/ssar", "/ssar", "application/json",
		[]byte(`{"spec":{"resourceAttributes":{"verb":"delete","resource":"pods"}}}`), alice)
	if code != http.StatusCreated || out["status"].(map[string]any)["allowed"] != false {
		t.Errorf("delete: %d %v, want 201 and not allowed", code, out)
	}
}

// TestSelfSubjectRulesReview: the rules of every resolver are merged, each
// rule said once; the masters hold everything; an unresolvable authorizer
// marks the answer incomplete with its error.
func TestSelfSubjectRulesReview(t *testing.T) {
	basic := fixedRules{
		resource: []authorizer.ResourceRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		},
		nonResource: []authorizer.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/version"}}},
	}
	nodeLike := fixedRules{incomplete: true, err: errors.New("node authorizer does not support user rule resolution")}
	s := &Server{authorizer: &recordingAuthorizer{}, ruleResolvers: []authorizer.RuleResolver{basic, nodeLike}}
	decodeStatus := func(user auth.User) api.SubjectRulesReviewStatus {
		t.Helper()
		router := chi.NewRouter()
		router.Post("/ssrr", s.serveSelfSubjectRulesReview)
		req := httptest.NewRequest(http.MethodPost, "/ssrr", strings.NewReader(`{"spec":{"namespace":"default"}}`))
		req = req.WithContext(auth.WithUser(req.Context(), user))
		rec := httptest.NewRecorder()
		router.ServeHTTP(rec, req)
		var out api.SelfSubjectRulesReview
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusCreated || out.Kind != "SelfSubjectRulesReview" || out.Spec.Namespace != "default" {
			t.Fatalf("answer %d %s (%v), want a 201 SelfSubjectRulesReview", rec.Code, rec.Body, err)
		}
		return out.Status
	}

	// The masters group lists no rules of its own (its rules come from the
	// cluster-admin binding): the admin gets what the resolvers say, as
	// alice does.
	for _, user := range []auth.User{auth.AdminUser(), {Name: "alice", Groups: []string{auth.AuthenticatedGroup}}} {
		status := decodeStatus(user)
		if len(status.ResourceRules) != 2 || status.ResourceRules[0].Verbs[0] != "create" || status.ResourceRules[1].Verbs[0] != "*" {
			t.Errorf("%s's resource rules %+v, want the resolver's two rules, in order", user.Name, status.ResourceRules)
		}
		if len(status.NonResourceRules) != 1 || status.NonResourceRules[0].NonResourceURLs[0] != "/healthz" {
			t.Errorf("%s's non-resource rules %+v, want the resolver's one", user.Name, status.NonResourceRules)
		}
		if !status.Incomplete || !strings.Contains(status.EvaluationError, "node authorizer does not support") {
			t.Errorf("%s: incomplete %v evaluationError %q, want incomplete with the node resolver's error", user.Name, status.Incomplete, status.EvaluationError)
		}
	}

	// Every resolver's rules are listed, repeats and all (AlwaysAllow's *
	// and basic's identical * rule); an error alone does not make the
	// answer incomplete: only a resolver says so.
	failing := fixedRules{err: errors.New("could not read the bindings")}
	s.ruleResolvers = []authorizer.RuleResolver{authorizer.AlwaysAllow(), basic, failing}
	status := decodeStatus(auth.User{Name: "bob"})
	if len(status.ResourceRules) != 3 || status.ResourceRules[0].Verbs[0] != "*" || status.ResourceRules[2].Verbs[0] != "*" {
		t.Errorf("bob's resource rules %+v, want AlwaysAllow's * then the resolver's two", status.ResourceRules)
	}
	if len(status.NonResourceRules) != 2 || status.NonResourceRules[0].NonResourceURLs[0] != "*" {
		t.Errorf("bob's non-resource rules %+v, want AlwaysAllow's * then /healthz,/version", status.NonResourceRules)
	}
	if status.Incomplete || status.EvaluationError != "could not read the bindings" {
		t.Errorf("bob: incomplete %v evaluationError %q, want complete with the error", status.Incomplete, status.EvaluationError)
	}
}
