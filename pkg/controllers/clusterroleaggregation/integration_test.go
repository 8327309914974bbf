package clusterroleaggregation_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/pkg/controllers/clusterroleaggregation"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

// An aggregated ClusterRole picks up the rules of a labelled ClusterRole,
// drops them when the label goes, and what it aggregates is what RBAC
// grants: a user bound to it may do what the labelled role lists.
func TestAggregationFollowsLabelledRoles(t *testing.T) {
	ctx := context.Background()
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeRBAC}
	})
	admin := a.Client(t, nil)
	controllertest.RunController(t, admin, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*clusterroleaggregation.Controller, error) {
		return clusterroleaggregation.New(admin, f, rec, clusterroleaggregation.Options{Logger: logger})
	})

	label := map[string]string{"example.com/aggregate-to-reader": "true"}
	mustCreate(t, admin.ClusterRoles(), &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "reader"},
		AggregationRule: &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{{MatchLabels: label}}}})
	mustCreate(t, admin.ClusterRoleBindings(), &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-reads"},
		Subjects: []api.Subject{{Kind: api.UserKind, APIGroup: api.RBACGroupName, Name: "alice"}},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: "reader"}})
	mustCreate(t, admin.ClusterRoles(), &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "config-reader", Labels: label},
		Rules: []api.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}})

	waitRules(t, admin, "reader", "[{[get list] [] [configmaps] [] []}]")
	alice := a.ClientAs(t, auth.User{Name: "alice"}, nil)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.ConfigMaps("default").List(ctx, client.ListOptions{})
		return err == nil, fmt.Sprintf("alice lists configmaps: %v", err)
	})

	// Unlabelled, the role no longer feeds the aggregate.
	cr, err := admin.ClusterRoles().Get(ctx, "config-reader", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cr.Labels = nil
	if _, err := admin.ClusterRoles().Update(ctx, cr, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(t, admin, "reader", "[]")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.ConfigMaps("default").List(ctx, client.ListOptions{})
		return apierrors.IsForbidden(err), fmt.Sprintf("alice lists configmaps: %v, want 403", err)
	})
}

func waitRules(t *testing.T, c *client.Client, name, want string) {
	t.Helper()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		cr, err := c.ClusterRoles().Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		got := fmt.Sprint(cr.Rules)
		return got == want, "rules " + got
	})
}

func mustCreate[T api.Object](t *testing.T, c *client.TypedClient[T], obj T) {
	t.Helper()
	if _, err := c.Create(context.Background(), obj, client.CreateOptions{}); err != nil {
		t.Fatalf("create %s: %v", obj.GetObjectMeta().Name, err)
	}
}
