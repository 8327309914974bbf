package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"
)

// request is one API call before it is sent. It can be sent several times
// (retries), so the body is kept as bytes.
type request struct {
	method string
	path   string
	query  url.Values
	body   []byte
	// contentType of body; "" means application/json.
	contentType string
	// headers are extra headers (Accept for a Table, …).
	headers map[string]string
}

// response is an answer that has been read to its end.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// newRequest returns a request with its body encoded as JSON (nil: none).
func newRequest(method, path string, query url.Values, body any) (*request, error) {
	r := &request{method: method, path: path, query: query}
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
		r.body = data
	}
	return r, nil
}

// do sends r and reads the whole answer. A non-2xx answer is returned with
// a *errors.StatusError.
func (c *Client) do(ctx context.Context, r *request) (*response, error) {
	if c.onWrite == nil {
		resp, _, err := c.execute(ctx, r, false)
		return resp, err
	}
	start := time.Now()
	resp, _, err := c.execute(ctx, r, false)
	if err == nil {
		c.reportWrite(ctx, r, resp, time.Since(start))
	}
	return resp, err
}

// into sends r and decodes a 2xx answer's JSON into out.
func (c *Client) into(ctx context.Context, r *request, out any) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", r.method, r.path, err)
	}
	return nil
}

// stream sends r and returns the live response once a 2xx status line has
// arrived, leaving the body (a watch stream) for the caller to read and
// close. It is retried like do until then, and never timed out by
// Config.Timeout.
func (c *Client) stream(ctx context.Context, r *request) (*http.Response, error) {
	_, live, err := c.execute(ctx, r, true)
	return live, err
}

// execute is the retry loop around attempt: throttle, send, and on a
// retryable failure wait (Retry-After or back-off) and go again, at most
// maxRetries times and never past ctx's end.
func (c *Client) execute(ctx context.Context, r *request, streaming bool) (*response, *http.Response, error) {
	for retry := 0; ; retry++ {
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return nil, nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
			}
		}
		resp, live, verdict, err := c.attempt(ctx, r, streaming)
		if err == nil {
			return resp, live, nil
		}
		if !verdict.retry || retry >= c.maxRetries {
			return resp, nil, err
		}
		wait := verdict.after
		if wait == 0 {
			wait = c.backoff.delay(retry)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			// Waiting would outlive the caller; report the failure now.
			return resp, nil, err
		}
		c.log.Info("retrying request", "method", r.method, "path", r.path, "reason", verdict.reason,
			"retry", retry+1, "maxRetries", c.maxRetries, "wait", wait, "err", err)
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, nil, fmt.Errorf("%s %s: %w (while waiting to retry after: %v)", r.method, r.path, serr, err)
		}
	}
}

// attempt sends r once. For a streaming request with a 2xx answer it
// returns the live response; otherwise the body has been read and closed.
func (c *Client) attempt(ctx context.Context, r *request, streaming bool) (*response, *http.Response, retryVerdict, error) {
	attemptCtx, cancel := ctx, context.CancelFunc(func() {})
	if !streaming && c.timeout > 0 {
		attemptCtx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer cancel()
	// written records whether the request left the client: after that, the
	// server may have acted on it even if no answer comes back.
	var written atomic.Bool
	attemptCtx = httptrace.WithClientTrace(attemptCtx, &httptrace.ClientTrace{
		WroteHeaders: func() { written.Store(true) },
	})

	req, err := c.httpRequest(attemptCtx, r)
	if err != nil {
		return nil, nil, retryVerdict{}, err
	}
	start := time.Now()
	httpResp, err := c.http.Do(req)
	if err != nil {
		err = c.timeoutError(ctx, attemptCtx, r, err)
		return nil, nil, transportVerdict(r.method, err, written.Load()), err
	}
	c.reportWarnings(httpResp.Header)
	if streaming && httpResp.StatusCode/100 == 2 {
		c.log.Debug("stream opened", "method", r.method, "path", r.path, "query", r.query.Encode(), "code", httpResp.StatusCode)
		return nil, httpResp, retryVerdict{}, nil
	}

	body, err := io.ReadAll(httpResp.Body)
	httpResp.Body.Close()
	if err != nil {
		err = c.timeoutError(ctx, attemptCtx, r, fmt.Errorf("%s %s: read response: %w", r.method, r.path, err))
		return nil, nil, transportVerdict(r.method, err, true), err
	}
	resp := &response{code: httpResp.StatusCode, header: httpResp.Header, body: body}
	c.log.Debug("request", "method", r.method, "path", r.path, "query", r.query.Encode(),
		"code", resp.code, "duration", time.Since(start).Round(time.Microsecond))
	if resp.code/100 == 2 {
		return resp, nil, retryVerdict{}, nil
	}
	serr := statusError(resp.code, body, r.method, r.path)
	return resp, nil, statusVerdict(r.method, resp.code, resp.header, serr), serr
}

// httpRequest builds the HTTP request for r: URL, body, and the headers
// every call carries (JSON both ways, the bearer token, the user agent).
func (c *Client) httpRequest(ctx context.Context, r *request) (*http.Request, error) {
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	req.Header.Set("Accept", "application/json")
	if r.body != nil {
		contentType := r.contentType
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", c.userAgent)
	token := c.token
	if c.tokenSource != nil {
		if token, err = c.tokenSource.Token(ctx); err != nil {
			return nil, fmt.Errorf("%s %s: bearer token: %w", r.method, r.path, err)
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// timeoutError words an attempt that ran out of Config.Timeout (while the
// caller's ctx is still live) as such, instead of a bare "context deadline
// exceeded" the caller did not set.
func (c *Client) timeoutError(ctx, attemptCtx context.Context, r *request, err error) error {
	if ctx.Err() == nil && errors.Is(attemptCtx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: no answer within the client timeout of %v: %w", r.method, r.path, c.timeout, err)
	}
	return err
}

// reportWarnings passes the server's Warning headers to the handler.
func (c *Client) reportWarnings(h http.Header) {
	for _, text := range warningTexts(h) {
		c.warn(text)
	}
}
