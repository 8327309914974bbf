package bench

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
)

// W3 with and without authorization: the budget is that
// authorization (Node,RBAC for a user who is not in system:masters, so
// every request is decided by RBAC) adds at most 10 % to W3's creates/s.
// Both servers run in the same process, and the rounds alternate between
// them so that a slower moment of a shared machine falls on both:
//
//	go test -run '^$' -bench W3Authorization -benchtime 1x -count 1 ./bench/
//
// It reports each mode's median creates/s over the rounds and their ratio
// (authorized / AlwaysAllow; 0.9 or more meets the budget).
func BenchmarkW3AuthorizationOverhead(b *testing.B) {
	const clients, total, rounds = 16, 2000, 5
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		open := startServerAs(b, []string{apiserver.AuthorizationModeAlwaysAllow})
		authorized := startServerAs(b, []string{apiserver.AuthorizationModeNode, apiserver.AuthorizationModeRBAC})
		var openRates, authorizedRates []float64
		for round := 0; round < rounds; round++ {
			prefix := fmt.Sprintf("r%d-%d", i, round)
			b.StartTimer()
			openRates = append(openRates, open.createConcurrently(b, "/api/v1/namespaces/default/configmaps", configMapBody, prefix, clients, total))
			authorizedRates = append(authorizedRates, authorized.createConcurrently(b, "/api/v1/namespaces/default/configmaps", configMapBody, prefix, clients, total))
			b.StopTimer()
		}
		openMedian, authorizedMedian := medianRate(openRates), medianRate(authorizedRates)
		b.ReportMetric(openMedian, "alwaysallow-creates/s")
		b.ReportMetric(authorizedMedian, "rbac-creates/s")
		b.ReportMetric(authorizedMedian/openMedian, "ratio")
	}
}

// medianRate is the median of rates.
func medianRate(rates []float64) float64 {
	sorted := slices.Clone(rates)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// benchUser is the identity the authorization benchmark writes as: an
// ordinary user, bound to the `edit` ClusterRole in namespace default, as a
// developer would be.
var benchUser = auth.User{Name: "bench-developer", Groups: []string{auth.AuthenticatedGroup}}

// startServerAs starts an apiserver with the given authorization modes
// whose requests are made as benchUser, who may edit namespace default.
func startServerAs(b *testing.B, modes []string) *server {
	b.Helper()
	opts := apiserver.DefaultOptions()
	opts.DataDir, opts.SecurePort, opts.CompactionInterval = b.TempDir(), 0, 0
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	opts.AuthorizationModes = modes
	s, err := apiserver.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Stop)
	admin := &server{Server: s}
	admin.token, _ = s.Tokens().TokenFor(auth.AdminUserName)
	admin.pool = x509.NewCertPool()
	admin.pool.AppendCertsFromPEM(s.CACertPEM())
	// The in-process apiserver runs no controller-manager, so the
	// clusterrole-aggregation controller has not filled `view` and `edit`
	// yet: do its work first (view is itself aggregated into edit).
	for _, role := range []string{"view", "edit"} {
		if err := admin.aggregateClusterRole(role); err != nil {
			b.Fatal(err)
		}
	}
	binding := []byte(fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"bench-edit"},`+
		`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},`+
		`"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":%q}]}`, benchUser.Name))
	if out, code, err := admin.do(admin.newClient(), "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", binding); err != nil || code != 201 {
		b.Fatalf("bind %s to edit: %v %d %s", benchUser.Name, err, code, out)
	}
	token, err := s.Tokens().EnsureUser(benchUser)
	if err != nil {
		b.Fatal(err)
	}
	user := &server{Server: s, token: token, pool: admin.pool}
	// The RBAC authorizer reads bindings from the watch cache: wait
	// until the user may create (a deadline, not a measurement).
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, code, err := user.do(user.newClient(), "POST", "/api/v1/namespaces/default/configmaps", configMapBody("bench-probe"))
		if err == nil && code == 201 {
			return user
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s cannot create configmaps in default: %v %d %s", benchUser.Name, err, code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clusterRole is the part of a ClusterRole aggregation reads and writes.
type clusterRole struct {
	APIVersion      string            `json:"apiVersion"`
	Kind            string            `json:"kind"`
	Metadata        map[string]any    `json:"metadata"`
	Rules           []json.RawMessage `json:"rules"`
	AggregationRule *struct {
		ClusterRoleSelectors []struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"clusterRoleSelectors"`
	} `json:"aggregationRule,omitempty"`
}

// aggregateClusterRole sets name's rules to those of the ClusterRoles its
// aggregationRule selects, as the clusterrole-aggregation controller does.
func (s *server) aggregateClusterRole(name string) error {
	c := s.newClient()
	out, code, err := s.do(c, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/"+name, nil)
	if err != nil || code != 200 {
		return fmt.Errorf("get clusterrole %s: %v %d %s", name, err, code, out)
	}
	var role clusterRole
	if err := json.Unmarshal(out, &role); err != nil {
		return fmt.Errorf("decode clusterrole %s: %w", name, err)
	}
	if role.AggregationRule == nil {
		return fmt.Errorf("clusterrole %s has no aggregationRule", name)
	}
	role.Rules = nil
	for _, selector := range role.AggregationRule.ClusterRoleSelectors {
		var terms []string
		for k, v := range selector.MatchLabels {
			terms = append(terms, k+"="+v)
		}
		out, code, err := s.do(c, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector="+url.QueryEscape(strings.Join(terms, ",")), nil)
		if err != nil || code != 200 {
			return fmt.Errorf("list clusterroles %v: %v %d %s", terms, err, code, out)
		}
		var list struct{ Items []clusterRole }
		if err := json.Unmarshal(out, &list); err != nil {
			return fmt.Errorf("decode clusterroles: %w", err)
		}
		for _, item := range list.Items {
			role.Rules = append(role.Rules, item.Rules...)
		}
	}
	body, err := json.Marshal(role)
	if err != nil {
		return err
	}
	if out, code, err := s.do(c, "PUT", "/apis/rbac.authorization.k8s.io/v1/clusterroles/"+name, body); err != nil || code != 200 {
		return fmt.Errorf("update clusterrole %s: %v %d %s", name, err, code, out)
	}
	return nil
}
