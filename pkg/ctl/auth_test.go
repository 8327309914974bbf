package ctl

import (
	"bytes"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// TestPrintRules: can-i --list's table as kubectl prints it — rules broken
// down per group, resource and name, verbs of the same resource joined,
// rows sorted by their printed form (verbs, then groups: a URL rule's
// empty group list sorts before "apps"), "*.*" for everything.
func TestPrintRules(t *testing.T) {
	status := api.SubjectRulesReviewStatus{
		ResourceRules: []api.ResourceRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"", "apps"}, Resources: []string{"pods"}},
			{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"pods"}},
			{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, ResourceNames: []string{"web", "api"}},
			{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		},
		NonResourceRules: []api.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/api/*"}}},
	}
	var out bytes.Buffer
	if err := printRules(&out, status, true); err != nil {
		t.Fatal(err)
	}
	want := `Resources                                       Non-Resource URLs   Resource Names   Verbs
*.*                                             []                  []               [*]
selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]
pods                                            []                  []               [get list watch delete]
pods.apps                                       []                  []               [get list watch]
                                                [/api/*]            []               [get]
                                                [/healthz]          []               [get]
deployments.apps/scale                          []                  [api]            [get]
deployments.apps/scale                          []                  [web]            [get]
`
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	printRules(&out, api.SubjectRulesReviewStatus{}, false)
	if out.String() != "" {
		t.Errorf("no rules, no headers: %q, want nothing", out.String())
	}
}

// TestCanIAnswer: yes, or no with the reason and evaluation error.
func TestCanIAnswer(t *testing.T) {
	for _, tc := range []struct {
		status api.SubjectAccessReviewStatus
		want   string
	}{
		{api.SubjectAccessReviewStatus{Allowed: true, Reason: "ignored"}, "yes\n"},
		{api.SubjectAccessReviewStatus{}, "no\n"},
		{api.SubjectAccessReviewStatus{Reason: "banned", EvaluationError: "cache not ready"}, "no - banned - cache not ready\n"},
	} {
		if got := canIAnswer(tc.status); got != tc.want {
			t.Errorf("canIAnswer(%+v) = %q, want %q", tc.status, got, tc.want)
		}
	}
}

// TestPrintUserInfo: whoami's table, extra keys in order, empty rows left out.
func TestPrintUserInfo(t *testing.T) {
	var out bytes.Buffer
	printUserInfo(&out, api.UserInfo{Username: "system:serviceaccount:default:default",
		Groups: []string{"system:serviceaccounts", "system:authenticated"},
		Extra:  map[string][]string{"authentication.kubernetes.io/pod-uid": {"u1"}, "authentication.kubernetes.io/pod-name": {"web"}}})
	want := `ATTRIBUTE                                      VALUE
Username                                       system:serviceaccount:default:default
Groups                                         [system:serviceaccounts system:authenticated]
Extra: authentication.kubernetes.io/pod-name   [web]
Extra: authentication.kubernetes.io/pod-uid    [u1]
`
	if out.String() != want {
		t.Errorf("whoami table:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestAuthCanI: against a real apiserver, the admin may do anything (exit
// 0, "yes"), -q prints nothing, --list prints the masters' rules, and the
// command line is checked as kubectl checks it.
func TestAuthCanI(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, tc := range []struct {
		args             []string
		wantCode         int
		wantOut, wantErr string
	}{
		{[]string{"auth", "can-i", "create", "pods"}, 0, "yes\n", ""},
		{[]string{"auth", "can-i", "delete", "deploy/web", "-n", "kube-system"}, 0, "yes\n", ""},
		{[]string{"auth", "can-i", "get", "/healthz"}, 0, "yes\n", ""},
		// -q silences the answer, not the warnings, as in kubectl.
		{[]string{"auth", "can-i", "get", "nodes", "-q"}, 0, "", "Warning: resource 'nodes' is not namespace scoped\n"},
		{[]string{"auth", "can-i", "get", "pods", "-q"}, 0, "", ""},
		{[]string{"auth", "can-i", "get", "nodes"}, 0, "yes\n", "Warning: resource 'nodes' is not namespace scoped\n"},
		{[]string{"auth", "can-i", "frob", "widgets"}, 0, "yes\n", "Warning: the server doesn't have a resource type 'widgets'\nWarning: verb 'frob' is not a known verb\n"},
		{[]string{"auth", "can-i", "create"}, 1, "", "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'ctl auth can-i -h' for help and examples\n"},
		{[]string{"auth", "can-i", "--list", "pods"}, 1, "", "error: list option must be specified with no arguments\n"},
		{[]string{"auth", "can-i", "get", "pods", "--no-headers"}, 1, "", "error: --no-headers cannot be set without --list specified\n"},
	} {
		code, out, errOut := runIn(t, a, "", tc.args...)
		if code != tc.wantCode || out != tc.wantOut || errOut != tc.wantErr {
			t.Errorf("ctl %s = %d, stdout %q, stderr %q; want %d, %q, %q", strings.Join(tc.args, " "), code, out, errOut, tc.wantCode, tc.wantOut, tc.wantErr)
		}
	}
	out := mustRun(t, a, "auth", "can-i", "--list")
	if lines := strings.Split(out, "\n"); len(lines) < 3 || strings.Join(strings.Fields(lines[1]), " ") != "*.* [] [] [*]" ||
		strings.Join(strings.Fields(lines[2]), " ") != "[*] [] [*]" {
		t.Errorf("admin's --list:\n%s\nwant the cluster-admin binding's *.* and * URL rules", out)
	}
}

// TestAuthWhoAmI: `ctl auth whoami` prints who the apiserver authenticated
// the request as — the admin, or with --as the impersonated user — as
// kubectl's table, or the SelfSubjectReview with -o json.
func TestAuthWhoAmI(t *testing.T) {
	a := framework.StartAPIServer(t)
	out := mustRun(t, a, "auth", "whoami")
	want := "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [system:masters system:authenticated]\n"
	if out != want {
		t.Errorf("whoami:\n%s\nwant:\n%s", out, want)
	}
	out = mustRun(t, a, "auth", "whoami", "--as", "alice", "--as-group", "dev")
	want = "ATTRIBUTE   VALUE\nUsername    alice\nGroups      [dev system:authenticated]\n"
	if out != want {
		t.Errorf("whoami --as alice --as-group dev:\n%s\nwant:\n%s", out, want)
	}
	out = mustRun(t, a, "auth", "whoami", "-o", "json")
	if !strings.Contains(out, `"kind": "SelfSubjectReview"`) || !strings.Contains(out, `"username": "kubernetes-admin"`) {
		t.Errorf("whoami -o json:\n%s", out)
	}
	if code, _, errOut := runIn(t, a, "", "auth", "whoami", "--as-group", "dev"); code != 1 || !strings.Contains(errOut, "without impersonating a user") {
		t.Errorf("--as-group without --as: exit %d %q", code, errOut)
	}
}
