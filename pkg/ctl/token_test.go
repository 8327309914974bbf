package ctl

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/bootstraptoken"
)

// `ctl token list` prints kubeadm token list's columns and skips Secrets
// that are not well-formed tokens.
func TestPrintTokens(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	live := bootstraptoken.NewSecret(bootstraptoken.Token{ID: "abcdef", Secret: "0123456789abcdef"},
		bootstraptoken.Options{TTL: 23 * time.Hour, Usages: []string{"signing", "authentication"},
			Groups: []string{bootstraptoken.DefaultNodeGroup}, Description: "for worker-1"}, now)
	forever := bootstraptoken.NewSecret(bootstraptoken.Token{ID: "zzzzzz", Secret: "0123456789abcdef"}, bootstraptoken.Options{}, now)
	broken := &api.Secret{ObjectMeta: api.ObjectMeta{Name: "bootstrap-token-nope"}, Type: api.SecretTypeBootstrapToken}
	var out bytes.Buffer
	printTokens(&out, []*api.Secret{live, forever, broken}, now)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, want := range [][]string{
		{"TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"},
		{"abcdef.0123456789abcdef", "23h", "2026-01-01T23:00:00Z", "authentication,signing", "for worker-1", bootstraptoken.DefaultNodeGroup},
		{"zzzzzz.0123456789abcdef", "<forever>", "<never>", "<none>", "<none>", "<none>"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}

func TestJoinServerURL(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.1:6443": "https://10.0.0.1:6443", "https://h:1/": "https://h:1"} {
		if got, err := joinServerURL(in); err != nil || got != want {
			t.Errorf("joinServerURL(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"http://h:1", "", "https://h:1/path"} {
		if _, err := joinServerURL(bad); err == nil {
			t.Errorf("joinServerURL(%q) accepted", bad)
		}
	}
}

// `ctl token delete` takes an id or a whole token and, refusing a
// malformed one, does not print the secret back.
func TestTokenIDOf(t *testing.T) {
	for in, want := range map[string]string{"abcdef": "abcdef", "abcdef.0123456789abcdef": "abcdef"} {
		if got, err := tokenIDOf(in); err != nil || got != want {
			t.Errorf("tokenIDOf(%q) = %q, %v", in, got, err)
		}
	}
	const leaked = "abcdef.0123456789ABCDEF"
	if _, err := tokenIDOf(leaked); err == nil || strings.Contains(err.Error(), "0123456789") {
		t.Errorf("tokenIDOf(%q) = %v", leaked, err)
	}
}

// `ctl token create --groups` takes only upstream's bootstrap group names.
func TestTokenCreateGroups(t *testing.T) {
	for _, g := range []string{"system:masters", "system:bootstrappers:Upper", "system:bootstrappers:"} {
		err := runTokenCreate(context.Background(), nil, tokenCreateOptions{groups: []string{g}}, nil)
		if err == nil || !strings.Contains(err.Error(), "--groups") {
			t.Errorf("--groups %q: %v", g, err)
		}
	}
}
