package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

// The bootstrap policy as the running apiserver enforces it (Node,RBAC,
// the policy reconciled at start): SubjectAccessReviews for the components and the
// controllers' ServiceAccounts answer as their upstream roles do. The full
// table over the policy data is TestComponentAndControllerRights in
// pkg/authorization/bootstrappolicy; these rows check the same policy
// through the real authorizer.
func TestBootstrapPolicyEnforced(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeNode, apiserver.AuthorizationModeRBAC}
	})
	c := a.Client(t, nil)
	sa := func(name string) (string, []string) {
		return auth.ServiceAccountUsername("kube-system", name), append(auth.ServiceAccountGroups("kube-system"), auth.AuthenticatedGroup)
	}
	type row struct {
		user                                        string
		groups                                      []string
		verb, group, resource, sub, namespace, name string
		want                                        bool
	}
	rows := []row{
		{auth.SchedulerUserName, nil, "create", "", "pods", "binding", "default", "web", true},
		{auth.SchedulerUserName, nil, "delete", "apps", "deployments", "", "default", "web", false},
		{auth.KubeProxyUserName, nil, "watch", "discovery.k8s.io", "endpointslices", "", "", "", true},
		{auth.KubeProxyUserName, nil, "create", "", "services", "", "default", "", false},
		{auth.ControllerManagerUserName, nil, "create", "", "serviceaccounts", "token", "kube-system", "job-controller", true},
		{auth.ControllerManagerUserName, nil, "delete", "", "pods", "", "default", "p", false},
		{"alice", nil, "list", "", "pods", "", "default", "", false},
		{"alice", nil, "get", "", "configmaps", "", "kube-system", "kplane-clock", true},
	}
	for _, r := range []struct {
		account                                     string
		verb, group, resource, sub, namespace, name string
		want                                        bool
	}{
		{"replicaset-controller", "create", "", "pods", "", "default", "", true},
		{"replicaset-controller", "delete", "", "nodes", "", "", "node1", false},
		{"node-controller", "update", "", "nodes", "status", "", "node1", true},
		{"coredns", "create", "", "services", "", "kube-system", "", true},
		{"coredns", "create", "", "services", "", "default", "", false},
		{"metrics-server", "get", "", "nodes", "metrics", "", "node1", true},
		{"hostpath-provisioner", "update", "", "persistentvolumes", "", "", "pv", true},
	} {
		user, groups := sa(r.account)
		rows = append(rows, row{user, groups, r.verb, r.group, r.resource, r.sub, r.namespace, r.name, r.want})
	}
	ctx := context.Background()
	review := func(r row) (bool, error) {
		body, _ := json.Marshal(&api.SubjectAccessReview{
			TypeMeta: api.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
			Spec: api.SubjectAccessReviewSpec{User: r.user, Groups: append(r.groups, auth.AuthenticatedGroup),
				ResourceAttributes: &api.ResourceAttributes{Verb: r.verb, Group: r.group, Resource: r.resource,
					Subresource: r.sub, Namespace: r.namespace, Name: r.name}},
		})
		_, resp, err := c.Do(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", body, nil)
		if err != nil {
			return false, err
		}
		var answer api.SubjectAccessReview
		if err := json.Unmarshal(resp, &answer); err != nil {
			return false, fmt.Errorf("decode review: %w", err)
		}
		return answer.Status.Allowed, nil
	}
	for _, r := range rows {
		// The policy reaches the authorizer through its watch caches,
		// which may trail the start by a moment.
		framework.Eventually(t, 5*time.Second, func() (bool, string) {
			got, err := review(r)
			if err != nil {
				return false, err.Error()
			}
			return got == r.want, fmt.Sprintf("%s %v: %s %s/%s %q in %q name %q allowed = %v, want %v",
				r.user, r.groups, r.verb, r.resource, r.sub, r.group, r.namespace, r.name, got, r.want)
		})
	}
}
