package client

import "context"

// TokenSource gives the bearer token of each request. A client with one
// asks it before every request instead of sending a fixed Config.Token, so
// a token that is replaced before it expires (a ServiceAccount token from
// the TokenRequest API) is picked up without building a new client — the
// job client-go's transport.TokenSource does.
type TokenSource interface {
	// Token returns the token to send now. An error fails the request.
	Token(ctx context.Context) (string, error)
}

// WithTokenSource returns a client that sends source's token instead of
// c's credentials, with userAgent (empty keeps c's). It shares c's
// connections, rate limiter and settings: many such clients (one per
// controller) cost no more connections than c alone.
func (c *Client) WithTokenSource(source TokenSource, userAgent string) *Client {
	clone := *c
	clone.token, clone.tokenSource = "", source
	if userAgent != "" {
		clone.userAgent = userAgent
		clone.log = c.baseLog.With("component", "client", "userAgent", userAgent)
	}
	return &clone
}
