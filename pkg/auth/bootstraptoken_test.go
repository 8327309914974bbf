package auth

import (
	"context"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/bootstraptoken"
)

func TestBootstrapTokenAuthenticator(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tok := bootstraptoken.Token{ID: "abcdef", Secret: "0123456789abcdef"}
	live := bootstraptoken.NewSecret(tok, bootstraptoken.Options{TTL: time.Hour, Usages: []string{"authentication"},
		Groups: []string{bootstraptoken.DefaultNodeGroup}}, now)
	signingOnly := bootstraptoken.NewSecret(tok, bootstraptoken.Options{Usages: []string{"signing"}}, now)
	deleting := api.DeepCopy(live)
	ts := api.NewTime(now)
	deleting.DeletionTimestamp = &ts
	for _, tt := range []struct {
		name   string
		secret *api.Secret
		token  string
		at     time.Time
		ok     bool
	}{
		{"live", live, tok.String(), now, true},
		{"wrong secret", live, "abcdef.xxxxxxxxxxxxxxxx", now, false},
		{"no secret", nil, tok.String(), now, false},
		{"expired", live, tok.String(), now.Add(2 * time.Hour), false},
		{"signing only", signingOnly, tok.String(), now, false},
		{"being deleted", deleting, tok.String(), now, false},
		{"not a bootstrap token", live, "some-static-token", now, false},
	} {
		a := &BootstrapTokenAuthenticator{
			Secrets: func(_ context.Context, ns, name string) (*api.Secret, error) {
				if tt.secret == nil || ns != "kube-system" || name != tt.secret.Name {
					return nil, nil
				}
				return tt.secret, nil
			},
			Now: func() time.Time { return tt.at },
		}
		res, ok, err := a.AuthenticateToken(context.Background(), tt.token, nil)
		if err != nil || ok != tt.ok {
			t.Errorf("%s: ok %v err %v, want ok %v", tt.name, ok, err, tt.ok)
			continue
		}
		if ok && (res.User.Name != "system:bootstrap:abcdef" ||
			!slices.Equal(res.User.Groups, []string{"system:bootstrappers", bootstraptoken.DefaultNodeGroup})) {
			t.Errorf("%s: user %+v", tt.name, res.User)
		}
	}
}
