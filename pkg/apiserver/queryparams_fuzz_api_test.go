package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/authorization/authorizer"
	"kplane/test/framework"
)

// FuzzListWatchQuery sends arbitrary query strings to a real apiserver's
// ConfigMap list and watch and checks that bad input is answered the
// Kubernetes way: 200 (a ConfigMapList, or a watch stream), a 4xx with a
// Status whose code is the response's, or — for a resourceVersion or
// continue token ahead of etcd — upstream's 504 Timeout with the cause
// ResourceVersionTooLarge that client-go's reflector looks for. Never any
// other 5xx, and never a request that hangs without an answer.
//
// (A plain resourceVersion ahead of etcd waits 3 s for the watch cache
// before its 504, so the seeds reach the 504 through the paths that ask
// etcd at once: resourceVersionMatch=Exact and continue.)
// tooLargeMessage is upstream's 504 message for a resourceVersion ahead of
// the store (storage.NewTooLargeResourceVersionError).
var tooLargeMessage = regexp.MustCompile(`^Timeout: Too large resource version: \d+, current: \d+$`)

func FuzzListWatchQuery(f *testing.F) {
	for _, seed := range []string{
		"", "limit=1", "limit=1&continue=eyJydiI6MSwic3RhcnQiOiIifQ", "continue=eyJydiI6OTk5OTk5OTk5LCJzdGFydCI6IiJ9",
		"continue=e30", "limit=-1", "resourceVersion=999999999&resourceVersionMatch=Exact",
		"resourceVersion=1&resourceVersionMatch=Exact", "resourceVersionMatch=NotOlderThan",
		"watch=1&resourceVersion=1", "watch=1&timeoutSeconds=-1",
		"watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "labelSelector=a+in+(", "fieldSelector=spec.x%3D1",
		"fieldSelector=metadata.name%3Dseed", "watch=1&allowWatchBookmarks=true&labelSelector=app%3Dx",
	} {
		f.Add(seed)
	}
	a := framework.StartAPIServer(f)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"seed","labels":{"app":"x"}}}`
	if r := a.Do(f, "POST", "/api/v1/namespaces/default/configmaps", []byte(body)); r.Code != http.StatusCreated {
		f.Fatalf("create: %d %s", r.Code, r.Body)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		values, _ := url.ParseQuery(rawQuery)
		query := values.Encode()
		// A guard against a hang, not a timing: every answer here starts at once.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		resp := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?"+query)
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK && authorizer.WatchRequested(values) {
			return // a watch stream started; leaving cancels it
		}
		data, err := io.ReadAll(resp.Body)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("?%s: no complete answer within 20 s (%d, %q)", query, resp.StatusCode, data)
		}
		if err != nil {
			t.Fatalf("?%s: read: %v", query, err)
		}
		switch {
		case resp.StatusCode == http.StatusOK:
			var list struct{ Kind string }
			if err := json.Unmarshal(data, &list); err != nil || list.Kind != "ConfigMapList" {
				t.Fatalf("?%s: 200 %q (%v), want a ConfigMapList", query, data, err)
			}
		case resp.StatusCode >= 400 && resp.StatusCode < 500:
			var status api.Status
			if err := json.Unmarshal(data, &status); err != nil || status.Kind != "Status" || int(status.Code) != resp.StatusCode {
				t.Fatalf("?%s: %d %q (%v), want a Status with that code", query, resp.StatusCode, data, err)
			}
		case resp.StatusCode == http.StatusGatewayTimeout:
			var status api.Status
			if err := json.Unmarshal(data, &status); err != nil || status.Reason != "Timeout" || status.Details == nil ||
				len(status.Details.Causes) != 1 || status.Details.Causes[0].Type != api.CauseTypeResourceVersionTooLarge {
				t.Fatalf("?%s: 504 %q (%v), want upstream's Too large resource version", query, data, err)
			}
			if !tooLargeMessage.MatchString(status.Message) {
				t.Fatalf("?%s: 504 message %q, want only upstream's \"Too large resource version: <requested>, current: <current>\"", query, status.Message)
			}
		default:
			t.Fatalf("?%s: %d %q, want 200 or a 4xx Status", query, resp.StatusCode, data)
		}
	})
}
