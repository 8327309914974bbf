package token

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// APIServerRequester asks the apiserver's TokenRequest subresource
// through a client.
type APIServerRequester struct {
	Client *client.Client
}

// RequestToken posts req to /api/v1/namespaces/<ns>/serviceaccounts/<name>/token.
func (a APIServerRequester) RequestToken(ctx context.Context, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode TokenRequest: %w", err)
	}
	path := "/api/v1/namespaces/" + url.PathEscape(namespace) + "/serviceaccounts/" + url.PathEscape(name) + "/token"
	_, resp, err := a.Client.Do(ctx, http.MethodPost, path, body, nil)
	if err != nil {
		return nil, fmt.Errorf("create TokenRequest: %w", err)
	}
	var answer api.TokenRequest
	if err := json.Unmarshal(resp, &answer); err != nil {
		return nil, fmt.Errorf("decode TokenRequest: %w", err)
	}
	return &answer, nil
}
