package debug

import (
	"context"
	"crypto/sha256"
	"net/http"
	"time"

	"kplane/pkg/auth"
	"kplane/pkg/clock"
	"kplane/pkg/ttlcache"
)

// TokenReviewer asks the apiserver who holds a bearer token (a
// TokenReview); *client.Client implements it.
type TokenReviewer interface {
	ReviewToken(ctx context.Context, token string) (username string, groups []string, authenticated bool, err error)
}

// TokenReviewCacheTTL is how long an answer is reused: a debug client
// polling every second costs the apiserver one review per 10 s, and a
// revoked token stops working within 10 s. (Upstream's kubelet caches
// authenticated answers 2 min and rejected ones 30 s; kplane's tokens
// never change while a cluster runs, so the shorter time is only for
// freshness.)
const TokenReviewCacheTTL = 10 * time.Second

// tokenReviewTimeout bounds one review, so a stuck apiserver makes debug
// requests fail instead of hang.
const tokenReviewTimeout = 5 * time.Second

// TokenReviewAuthenticator authenticates a request's bearer token by
// asking the apiserver (reviewer), the way components that do not hold the
// token file accept the cluster's tokens. Answers, authenticated or not,
// are cached for TokenReviewCacheTTL, keyed by the token's SHA-256 so the
// cache holds no credential. A review that fails (apiserver down) counts
// as not authenticated and is not cached.
func TokenReviewAuthenticator(reviewer TokenReviewer) Authenticator {
	return newTokenReviewCache(reviewer, clock.Real{}).authenticate
}

type tokenReviewCache struct {
	reviewer TokenReviewer
	answers  *ttlcache.Cache[[sha256.Size]byte, reviewAnswer]
}

type reviewAnswer struct {
	user          string
	groups        []string
	authenticated bool
}

func newTokenReviewCache(reviewer TokenReviewer, clk clock.Clock) *tokenReviewCache {
	return &tokenReviewCache{reviewer: reviewer, answers: ttlcache.New[[sha256.Size]byte, reviewAnswer](clk)}
}

func (c *tokenReviewCache) authenticate(r *http.Request) (string, []string, bool) {
	token, ok := auth.BearerToken(r)
	if !ok {
		return "", nil, false
	}
	key := sha256.Sum256([]byte(token))
	if answer, found := c.answers.Get(key); found {
		return answer.user, answer.groups, answer.authenticated
	}
	ctx, cancel := context.WithTimeout(r.Context(), tokenReviewTimeout)
	defer cancel()
	user, groups, authenticated, err := c.reviewer.ReviewToken(ctx, token)
	if err != nil {
		return "", nil, false
	}
	// Set drops expired answers as new ones arrive, so the cache stays as
	// small as the set of tokens in use.
	c.answers.Set(key, reviewAnswer{user: user, groups: groups, authenticated: authenticated}, TokenReviewCacheTTL)
	return user, groups, authenticated
}
