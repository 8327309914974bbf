package auth

import (
	"slices"
	"testing"
)

func TestSplitServiceAccountUsername(t *testing.T) {
	tests := []struct {
		username       string
		wantNS, wantSA string
		wantOK         bool
	}{
		{"system:serviceaccount:kube-system:coredns", "kube-system", "coredns", true},
		{"system:serviceaccount:ci:builder.v2", "ci", "builder.v2", true},
		{"system:serviceaccount:ci", "", "", false},
		{"system:serviceaccount::builder", "", "", false},
		{"system:serviceaccount:ci:", "", "", false},
		{"system:serviceaccount:ci:a:b", "", "", false},
		{"system:serviceaccount:Ci:builder", "", "", false},    // namespace not a DNS label
		{"system:serviceaccount:my.ns:builder", "", "", false}, // a subdomain, not a label
		{"system:serviceaccount:ci:Builder", "", "", false},    // name not a DNS subdomain
		{"system:serviceaccount:ci:builder_1", "", "", false},  // nor this
		{"system:node:node-1", "", "", false},
	}
	for _, tt := range tests {
		ns, name, ok := SplitServiceAccountUsername(tt.username)
		if ns != tt.wantNS || name != tt.wantSA || ok != tt.wantOK {
			t.Errorf("SplitServiceAccountUsername(%q) = %q, %q, %v; want %q, %q, %v",
				tt.username, ns, name, ok, tt.wantNS, tt.wantSA, tt.wantOK)
		}
	}
}

// TestServiceAccountIdentities: the add-ons that run as ServiceAccounts
// have the user name their constant spells and the ServiceAccount groups.
func TestServiceAccountIdentities(t *testing.T) {
	for want, user := range map[string]User{
		DNSUserName:                    DNSUser(),
		CloudControllerManagerUserName: CloudControllerManagerUser(),
		MetricsServerUserName:          MetricsServerUser(),
	} {
		if user.Name != want || !slices.Equal(user.Groups, []string{AllServiceAccountsGroup, "system:serviceaccounts:kube-system"}) {
			t.Errorf("user = %+v, want %s in the kube-system ServiceAccount groups", user, want)
		}
		if ns, _, ok := SplitServiceAccountUsername(user.Name); !ok || ns != "kube-system" {
			t.Errorf("%s does not split into a kube-system ServiceAccount", user.Name)
		}
	}
}
