package ctl

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/ui"
	"kplane/test/framework"
)

func TestUIRefusesANonLoopbackAddress(t *testing.T) {
	opts := ui.DefaultOptions()
	opts.Address = "0.0.0.0"
	err := runUI(context.Background(), &client.Config{Host: "https://127.0.0.1:1", Token: "t"}, opts, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "loopback only") {
		t.Fatalf("runUI on 0.0.0.0: %v, want a loopback-only error", err)
	}
}

// TestUIPrintsALoginLinkThatWorksOnce runs the server against a cluster
// that is not there (its informers retry quietly): what `ctl ui` prints,
// and the link, do not depend on the cluster.
func TestUIPrintsALoginLinkThatWorksOnce(t *testing.T) {
	opts := ui.DefaultOptions()
	opts.Port = 0
	out := &framework.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runUI(ctx, &client.Config{Host: "https://127.0.0.1:1", Token: "t"}, opts, out) }()

	link := regexp.MustCompile(`Open this one-time login link: (http://127\.0\.0\.1:[0-9]+/login\?token=[0-9a-f]{64})\n`)
	var url string
	framework.Eventually(t, time.Minute, func() (bool, string) {
		m := link.FindStringSubmatch(out.String())
		if m == nil {
			return false, "ctl ui printed: " + out.String()
		}
		url = m[1]
		return true, ""
	})
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for i, want := range []int{http.StatusSeeOther, http.StatusUnauthorized} {
		resp, err := noRedirects.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("use %d of the login link: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runUI after cancel: %v", err)
	}
}
