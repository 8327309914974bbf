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
	"net/http"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
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

// subjectAccessReviewsPath is where SubjectAccessReviews are created.
const subjectAccessReviewsPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

// AccessReviewer answers a SubjectAccessReview: the apiserver, or a fake
// in tests.
type AccessReviewer interface {
	// ReviewAccess returns review with its status filled in; err means the
	// question could not be answered.
	ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error)
}

// APIServerReviewer asks the apiserver through a client, as the node's
// own identity (system:node:<name>), which upstream's system:node role
// lets create SubjectAccessReviews and TokenReviews.
type APIServerReviewer struct {
	Client *client.Client
}

// ReviewAccess posts review to the apiserver and returns its answer.
func (a APIServerReviewer) ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fmt.Errorf("encode SubjectAccessReview: %w", err)
	}
	_, resp, err := a.Client.Do(ctx, http.MethodPost, subjectAccessReviewsPath, body, nil)
	if err != nil {
		return nil, fmt.Errorf("create SubjectAccessReview: %w", err)
	}
	var answer api.SubjectAccessReview
	if err := json.Unmarshal(resp, &answer); err != nil {
		return nil, fmt.Errorf("decode SubjectAccessReview: %w", err)
	}
	return &answer, nil
}

// reviewCache remembers the apiserver's answers, keyed by the SHA-256 of
// the review's spec (who asks, and what), as upstream's webhook authorizer
// keys its cache by the whole request.
type reviewCache struct {
	reviewer AccessReviewer
	clock    clock.Clock

	mu sync.Mutex
	// answers holds, per question, the answer and when it stops being
	// reused; an entry past its time is asked again.
	answers map[[sha256.Size]byte]cachedReview
}

type cachedReview struct {
	allowed bool
	reason  string
	expires time.Time
}

func newReviewCache(reviewer AccessReviewer, clk clock.Clock) *reviewCache {
	if clk == nil {
		clk = clock.Real{}
	}
	return &reviewCache{reviewer: reviewer, clock: clk, answers: map[[sha256.Size]byte]cachedReview{}}
}

// allowed reports whether spec's user may do what it asks, from the cache
// or the apiserver; err means the apiserver could not be asked.
func (c *reviewCache) allowed(ctx context.Context, spec api.SubjectAccessReviewSpec) (bool, string, error) {
	encoded, err := json.Marshal(spec)
	if err != nil {
		return false, "", fmt.Errorf("encode SubjectAccessReview spec: %w", err)
	}
	key := sha256.Sum256(encoded)
	now := c.clock.Now()
	c.mu.Lock()
	answer, found := c.answers[key]
	c.mu.Unlock()
	if found && now.Before(answer.expires) {
		return answer.allowed, answer.reason, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := c.reviewer.ReviewAccess(ctx, &api.SubjectAccessReview{
		TypeMeta: api.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"},
		Spec:     spec,
	})
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
	c.mu.Lock()
	c.answers[key] = cachedReview{allowed: review.Status.Allowed, reason: review.Status.Reason, expires: now.Add(ttl)}
	c.mu.Unlock()
	return review.Status.Allowed, review.Status.Reason, nil
}

// AccessReviewerFunc adapts a function to AccessReviewer, for tests and
// for kubelets that decide without asking.
type AccessReviewerFunc func(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error)

// ReviewAccess calls f.
func (f AccessReviewerFunc) ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
	return f(ctx, review)
}
