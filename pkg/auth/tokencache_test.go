package auth

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// fakeTokens answers from a map of valid tokens and counts its lookups.
type fakeTokens struct {
	valid   map[string]TokenResult
	lookups int
}

func (f *fakeTokens) authenticate(_ context.Context, token string, _ []string) (TokenResult, bool, error) {
	f.lookups++
	if r, ok := f.valid[token]; ok {
		return r, true, nil
	}
	return TokenResult{}, false, ErrInvalidBearerToken
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newFakeTokens() (*fakeTokens, *fakeClock) {
	f := &fakeTokens{valid: map[string]TokenResult{
		"sa-token": {User: User{Name: "system:serviceaccount:ns:sa"}},
	}}
	return f, &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// TestTokenCacheRemembersSuccessForTheTTL: a success is answered from the
// cache until SuccessTTL has passed; a token revoked meanwhile (its
// ServiceAccount deleted) keeps working until then and is refused after.
func TestTokenCacheRemembersSuccessForTheTTL(t *testing.T) {
	f, clk := newFakeTokens()
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now})
	ctx := context.Background()

	for i := range 3 {
		r, ok, err := c.Authenticate(ctx, "sa-token", nil, f.authenticate)
		if !ok || err != nil || r.User.Name != "system:serviceaccount:ns:sa" {
			t.Fatalf("call %d: got %+v, %v, %v", i, r, ok, err)
		}
	}
	if f.lookups != 1 {
		t.Fatalf("authenticator asked %d times for 3 requests within the TTL, want 1", f.lookups)
	}

	delete(f.valid, "sa-token") // the ServiceAccount is deleted
	clk.t = clk.t.Add(9 * time.Second)
	if _, ok, _ := c.Authenticate(ctx, "sa-token", nil, f.authenticate); !ok {
		t.Fatal("a revoked token was refused before its cache entry lapsed; upstream keeps it for the TTL")
	}
	clk.t = clk.t.Add(time.Second)
	if _, ok, err := c.Authenticate(ctx, "sa-token", nil, f.authenticate); ok || err == nil {
		t.Fatalf("revoked token still accepted after the TTL: ok=%v err=%v", ok, err)
	}
	if f.lookups != 2 {
		t.Fatalf("authenticator asked %d times, want 2", f.lookups)
	}
}

// TestTokenCacheNeverOutlivesTheToken: an entry lapses at the credential's
// own expiry when that comes before the TTL.
func TestTokenCacheNeverOutlivesTheToken(t *testing.T) {
	f, clk := newFakeTokens()
	r := f.valid["sa-token"]
	r.ExpiresAt = clk.t.Add(3 * time.Second)
	f.valid["sa-token"] = r
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now})
	ctx := context.Background()

	if _, ok, _ := c.Authenticate(ctx, "sa-token", nil, f.authenticate); !ok {
		t.Fatal("valid token refused")
	}
	clk.t = clk.t.Add(3 * time.Second)
	delete(f.valid, "sa-token") // the authenticator now finds it expired
	if _, ok, _ := c.Authenticate(ctx, "sa-token", nil, f.authenticate); ok {
		t.Fatal("cache answered for a token past its expiry")
	}
	if f.lookups != 2 {
		t.Fatalf("authenticator asked %d times, want 2", f.lookups)
	}

	// A token already expired by the cache's clock is never kept.
	f.valid["old"] = TokenResult{User: User{Name: "old"}, ExpiresAt: clk.t.Add(-time.Second)}
	c = NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now})
	c.Authenticate(ctx, "old", nil, f.authenticate)
	if c.Len() != 0 {
		t.Fatalf("cache holds %d entries after an expired token, want 0", c.Len())
	}
}

// TestTokenCacheFailures: with FailureTTL zero (upstream's default) a
// refused token is asked about every time; with one it is remembered, its
// error included.
func TestTokenCacheFailures(t *testing.T) {
	ctx := context.Background()
	f, clk := newFakeTokens()
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now})
	c.Authenticate(ctx, "bad", nil, f.authenticate)
	c.Authenticate(ctx, "bad", nil, f.authenticate)
	if f.lookups != 2 {
		t.Fatalf("failure cached with FailureTTL 0: %d lookups, want 2", f.lookups)
	}

	f, clk = newFakeTokens()
	c = NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, FailureTTL: 2 * time.Second, Now: clk.now})
	for range 2 {
		if _, ok, err := c.Authenticate(ctx, "bad", nil, f.authenticate); ok || !errors.Is(err, ErrInvalidBearerToken) {
			t.Fatalf("bad token: ok=%v err=%v", ok, err)
		}
	}
	if f.lookups != 1 {
		t.Fatalf("failure not cached: %d lookups, want 1", f.lookups)
	}
	f.valid["bad"] = TokenResult{User: User{Name: "now-good"}} // e.g. a bootstrap token just created
	clk.t = clk.t.Add(2 * time.Second)
	if _, ok, _ := c.Authenticate(ctx, "bad", nil, f.authenticate); !ok {
		t.Fatal("token still refused after the failure TTL")
	}
}

// TestTokenCacheKeysByAudiences: the same token asked about for other
// audiences is a separate lookup, since the answer depends on them.
func TestTokenCacheKeysByAudiences(t *testing.T) {
	f, clk := newFakeTokens()
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now})
	ctx := context.Background()
	c.Authenticate(ctx, "sa-token", nil, f.authenticate)
	c.Authenticate(ctx, "sa-token", []string{"vault"}, f.authenticate)
	c.Authenticate(ctx, "sa-token", []string{"va", "ult"}, f.authenticate)
	c.Authenticate(ctx, "sa-token", []string{"vault"}, f.authenticate)
	if f.lookups != 3 {
		t.Fatalf("%d lookups for 3 distinct audience sets, want 3", f.lookups)
	}
}

// TestTokenCacheIsBounded: the cache never holds more than Size entries.
func TestTokenCacheIsBounded(t *testing.T) {
	f, clk := newFakeTokens()
	for i := range 50 {
		f.valid[fmt.Sprint("t", i)] = TokenResult{User: User{Name: fmt.Sprint("u", i)}}
	}
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Size: 8, Now: clk.now})
	for i := range 50 {
		r, ok, _ := c.Authenticate(context.Background(), fmt.Sprint("t", i), nil, f.authenticate)
		if !ok || r.User.Name != fmt.Sprint("u", i) {
			t.Fatalf("token %d: got %+v ok=%v", i, r, ok)
		}
		if c.Len() > 8 {
			t.Fatalf("cache grew to %d entries, bound is 8", c.Len())
		}
	}
}

// TestTokenCacheSkipsCancelledLookups: an answer given after the request's
// context ended may be a timeout, not a verdict, and is not kept.
func TestTokenCacheSkipsCancelledLookups(t *testing.T) {
	f, clk := newFakeTokens()
	c := NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, FailureTTL: 10 * time.Second, Now: clk.now})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Authenticate(ctx, "bad", nil, f.authenticate)
	if c.Len() != 0 {
		t.Fatalf("cache kept %d answers of a cancelled lookup", c.Len())
	}
}

// TestChainUsesItsTokenCache: a Chain with a cache asks its token
// authenticators once per TTL and still adds system:authenticated.
func TestChainUsesItsTokenCache(t *testing.T) {
	f, clk := newFakeTokens()
	counting := tokenAuthenticatorFunc(f.authenticate)
	chain := Chain{
		AudienceTokens: []TokenAuthenticator{counting},
		APIAudiences:   []string{"api"},
		TokenCache:     NewTokenCache(TokenCacheOptions{SuccessTTL: 10 * time.Second, Now: clk.now}),
	}
	for range 2 {
		r, ok, err := chain.AuthenticateToken(context.Background(), "sa-token", nil)
		if !ok || err != nil || !r.User.InGroup(AuthenticatedGroup) {
			t.Fatalf("got %+v ok=%v err=%v", r, ok, err)
		}
	}
	if f.lookups != 1 {
		t.Fatalf("%d lookups through the chain, want 1", f.lookups)
	}
}

type tokenAuthenticatorFunc func(ctx context.Context, token string, audiences []string) (TokenResult, bool, error)

func (f tokenAuthenticatorFunc) AuthenticateToken(ctx context.Context, token string, audiences []string) (TokenResult, bool, error) {
	return f(ctx, token, audiences)
}
