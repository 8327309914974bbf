package server

// This file asks the apiserver whether a caller may use the kubelet's API:
// a SubjectAccessReview, as upstream's kubelet does with
// --authorization-mode=Webhook (staging/src/k8s.io/apiserver/plugin/pkg/
// authorizer/webhook). Answers are cached as upstream's kubelet caches
// them by default: an allowed answer for 5 minutes
// (--authorization-webhook-cache-authorized-ttl), a denied one for 30
// seconds (…-unauthorized-ttl). A review that fails is not cached, and the
// call is refused.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/ttlcache"
)

const (
	// allowedReviewTTL is how long an allowed answer is reused; upstream's
	// kubelet default, 5 min.
	allowedReviewTTL = 5 * time.Minute
	// deniedReviewTTL is how long a denied answer is reused; upstream's
	// kubelet default, 30 s, so a newly granted right works soon.
	deniedReviewTTL = 30 * time.Second
	// reviewTimeout bounds one review, so a stuck apiserver makes the
	// call fail instead of hang.
	reviewTimeout = 10 * time.Second
)

// AccessReviewer answers a SubjectAccessReview: the apiserver through a
// *client.Client (asking as the node's own identity, system:node:<name>,
// which upstream's system:node role lets create SubjectAccessReviews and
// TokenReviews), or a fake in tests.
type AccessReviewer interface {
	// ReviewAccess returns review with its status filled in; err means the
	// question could not be answered.
	ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error)
}

// reviewCache remembers the apiserver's answers, keyed by the SHA-256 of
// the review's spec (who asks, and what), as upstream's webhook authorizer
// keys its cache by the whole request. An entry past its time is asked
// again; expired entries are dropped as new answers arrive.
type reviewCache struct {
	reviewer AccessReviewer
	answers  *ttlcache.Cache[[sha256.Size]byte, cachedReview]
}

type cachedReview struct {
	allowed bool
	reason  string
}

func newReviewCache(reviewer AccessReviewer, clk clock.Clock) *reviewCache {
	return &reviewCache{reviewer: reviewer, answers: ttlcache.New[[sha256.Size]byte, cachedReview](clk)}
}

// allowed reports whether spec's user may do what it asks, from the cache
// or the apiserver; err means the apiserver could not be asked.
func (c *reviewCache) allowed(ctx context.Context, spec api.SubjectAccessReviewSpec) (bool, string, error) {
	encoded, err := json.Marshal(spec)
	if err != nil {
		return false, "", fmt.Errorf("encode SubjectAccessReview spec: %w", err)
	}
	key := sha256.Sum256(encoded)
	if answer, found := c.answers.Get(key); found {
		return answer.allowed, answer.reason, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := c.reviewer.ReviewAccess(ctx, &api.SubjectAccessReview{Spec: spec})
	if err != nil {
		return false, "", err
	}
	if review.Status.EvaluationError != "" && !review.Status.Allowed {
		// An authorizer failed and nobody allowed: not an answer to keep.
		return false, "", fmt.Errorf("SubjectAccessReview: %s", review.Status.EvaluationError)
	}
	ttl := deniedReviewTTL
	if review.Status.Allowed {
		ttl = allowedReviewTTL
	}
	c.answers.Set(key, cachedReview{allowed: review.Status.Allowed, reason: review.Status.Reason}, ttl)
	return review.Status.Allowed, review.Status.Reason, nil
}
