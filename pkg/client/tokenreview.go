package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"kplane/pkg/api"
)

// tokenReviewsPath is where TokenReviews are created (never stored).
const tokenReviewsPath = "/apis/authentication.k8s.io/v1/tokenreviews"

// subjectAccessReviewsPath is where SubjectAccessReviews are created
// (never stored either).
const subjectAccessReviewsPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

// ReviewToken asks the apiserver who holds token (a TokenReview): the
// user's name and groups, and authenticated false for a token the
// apiserver does not know. err is set only when the review itself failed.
func (c *Client) ReviewToken(ctx context.Context, token string) (username string, groups []string, authenticated bool, err error) {
	body, err := json.Marshal(&api.TokenReview{
		TypeMeta: api.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"},
		Spec:     api.TokenReviewSpec{Token: token},
	})
	if err != nil {
		return "", nil, false, fmt.Errorf("encode TokenReview: %w", err)
	}
	_, resp, err := c.Do(ctx, http.MethodPost, tokenReviewsPath, body, nil)
	if err != nil {
		return "", nil, false, fmt.Errorf("create TokenReview: %w", err)
	}
	var review api.TokenReview
	if err := json.Unmarshal(resp, &review); err != nil {
		return "", nil, false, fmt.Errorf("decode TokenReview: %w", err)
	}
	// An unknown token is answered with authenticated false and
	// status.error saying why ("invalid bearer token"): an answer, not a
	// failed review.
	return review.Status.User.Username, review.Status.User.Groups, review.Status.Authenticated, nil
}

// ReviewAccess asks the apiserver whether review.Spec's user may do what
// it describes (a SubjectAccessReview) and returns the review with its
// status filled in. err is set only when the review itself failed; a
// denial is an answer (status.allowed false).
func (c *Client) ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
	if review == nil {
		return nil, errors.New("create SubjectAccessReview: review is nil")
	}
	body := *review
	body.TypeMeta = api.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	r, err := newRequest(http.MethodPost, subjectAccessReviewsPath, nil, &body)
	if err != nil {
		return nil, err
	}
	out := &api.SubjectAccessReview{}
	if err := c.into(ctx, r, out); err != nil {
		return nil, fmt.Errorf("create SubjectAccessReview: %w", err)
	}
	return out, nil
}
