package debug

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// Client calls components' debug APIs with the cluster's credentials.
type Client struct {
	// HTTP is the client to use; it must trust the cluster CA for the
	// apiserver's https endpoint.
	HTTP *http.Client
	// Token is the bearer token sent with every request (the admin's).
	Token string
}

// RecordQuery selects records (see PathRecords).
type RecordQuery struct {
	After    uint64
	Follow   bool
	Types    string
	Resource string
	Key      string
}

func (q RecordQuery) encode() string {
	v := url.Values{}
	if q.After > 0 {
		v.Set("after", strconv.FormatUint(q.After, 10))
	}
	if q.Follow {
		v.Set("follow", "true")
	}
	if q.Types != "" {
		v.Set("type", q.Types)
	}
	if q.Resource != "" {
		v.Set("resource", q.Resource)
	}
	if q.Key != "" {
		v.Set("key", q.Key)
	}
	return v.Encode()
}

// Records reads ep's records matching q and calls fn with each, in order.
// With q.Follow it returns only when ctx ends, the stream breaks or fn
// returns an error.
func (c *Client) Records(ctx context.Context, ep Endpoint, q RecordQuery, fn func(Record) error) error {
	resp, err := c.do(ctx, http.MethodGet, ep, PathRecords+"?"+q.encode(), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: decode record: %w", ep.Component, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: read records: %w", ep.Component, err)
	}
	return nil
}

// Get decodes the JSON ep answers at path into v.
func (c *Client) Get(ctx context.Context, ep Endpoint, path string, v any) error {
	resp, err := c.do(ctx, http.MethodGet, ep, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s: decode %s: %w", ep.Component, path, err)
	}
	return nil
}

// Post sends body as JSON to ep's path and decodes the answer into v
// (when v is not nil).
func (c *Client) Post(ctx context.Context, ep Endpoint, path string, body, v any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	resp, err := c.do(ctx, http.MethodPost, ep, path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if v == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s: decode %s: %w", ep.Component, path, err)
	}
	return nil
}

// Delete sends a DELETE to ep's path and decodes the answer into v (when v
// is not nil).
func (c *Client) Delete(ctx context.Context, ep Endpoint, path string, v any) error {
	resp, err := c.do(ctx, http.MethodDelete, ep, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if v == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s: decode %s: %w", ep.Component, path, err)
	}
	return nil
}

// do sends one request and turns a non-2xx answer into an error carrying
// the Status message the component sent.
func (c *Client) do(ctx context.Context, method string, ep Endpoint, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, ep.URL+path, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.Component, err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s debug API: %w", ep.Component, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64*1024))
	var status struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &status) == nil && status.Message != "" {
		return nil, fmt.Errorf("%s debug API: %s (%d)", ep.Component, status.Message, resp.StatusCode)
	}
	return nil, fmt.Errorf("%s debug API: %s: %s", ep.Component, resp.Status, bytes.TrimSpace(data))
}
