package robustness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// apiClient makes the run's HTTPS requests with the admin token. It is
// deliberately plain net/http: the run must see every status code and
// every broken connection as they happened, with no retries in between.
type apiClient struct {
	// http has a timeout for ordinary requests; stream has none, for
	// watches.
	http, stream *http.Client
	url          string
	token        string
}

// do sends one request and reads the whole answer. err is set only when no
// answer arrived (the outcome is then unknown).
func (a *apiClient) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.url+path, reader)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return resp.StatusCode, data, nil
}

// wireObject is what the run reads of a ConfigMap, a list, a Status or a
// bookmark.
type wireObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
		// Continue is a list page's token for the next page.
		Continue string `json:"continue"`
	} `json:"metadata"`
	Data  map[string]string `json:"data"`
	Items []wireObject      `json:"items"`
	// Code and Message are a Status's.
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// resourceVersion is the object's resourceVersion as a number (0 if none).
func (o wireObject) resourceVersion() int64 {
	rv, _ := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
	return rv
}

// items returns a list's ConfigMaps keyed by etcd key.
func (o wireObject) items() map[string]ObjectState {
	items := make(map[string]ObjectState, len(o.Items))
	for _, it := range o.Items {
		items[ConfigMapKey(it.Metadata.Namespace, it.Metadata.Name)] = ObjectState{ResourceVersion: it.resourceVersion(), Value: it.Data["v"]}
	}
	return items
}

func decodeObject(data []byte) (wireObject, error) {
	var o wireObject
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("decode %.80q: %w", data, err)
	}
	return o, nil
}
