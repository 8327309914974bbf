package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/lab"
	"kplane/test/framework"
)

// The Labs panel against an in-process apiserver without controllers: the
// test plays the ReplicaSet controller's and the kubelets' part by creating
// ready pods, and the panel must answer as `ctl lab` does, from the same
// progress ConfigMap.

func newLabsTestServer(t *testing.T) (*client.Client, *httptest.Server) {
	t.Helper()
	c := framework.StartAPIServer(t).Client(t, nil)
	s := &Server{opts: Options{Client: c}, hub: NewHub(), auth: NewAuthenticator(testAdminToken)}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return c, ts
}

// labCall sends one request with the admin's token and the page's Origin and decodes the answer
// into out, checking the status code.
func labCall(t *testing.T, method, url, body string, wantCode int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = bearer(testAdminToken)
	req.Header.Set("Origin", "http://"+req.Host) // as the page's fetch sends it
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantCode {
		t.Fatalf("%s %s: %d, want %d: %s", method, url, resp.StatusCode, wantCode, data)
	}
	if out != nil {
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, data, err)
		}
	}
}

func TestLabsPanelMovesTheSameProgressAsCtlLab(t *testing.T) {
	c, ts := newLabsTestServer(t)
	ctx := context.Background()
	labs := ts.URL + "/api/debug/labs"

	// No lab yet: every lab is listed, in the browser's language.
	var view labsView
	labCall(t, "GET", labs+"?locale=zh-CN", "", http.StatusOK, &view)
	if view.Lang != lab.Chinese || len(view.Labs) != len(lab.All()) || view.Progress != nil || view.NoLab != lab.Messages.NoLab.Zh {
		t.Fatalf("view without a lab: lang %q, %d labs, progress %+v, noLab %q", view.Lang, len(view.Labs), view.Progress, view.NoLab)
	}
	labCall(t, "GET", labs+"?locale=fr-FR", "", http.StatusOK, &view)
	if view.Lang != lab.English {
		t.Errorf("locale fr-FR: lang %q, want en (ctl lab's rule: anything but zh is English)", view.Lang)
	}
	labCall(t, "GET", labs+"?lang=fr", "", http.StatusBadRequest, nil)
	labCall(t, "POST", labs+"/check", `{}`, http.StatusConflict, nil)
	labCall(t, "POST", labs+"/start", `{"lab":"no-such-lab"}`, http.StatusNotFound, nil)
	labCall(t, "POST", labs+"/dance", `{}`, http.StatusNotFound, nil)
	labCall(t, "POST", labs+"/start", `not json`, http.StatusBadRequest, nil)

	// Start in the page: the progress is where `ctl lab` reads it.
	var answer labAnswer
	labCall(t, "POST", labs+"/start", `{"lab":"replicaset","lang":"en"}`, http.StatusOK, &answer)
	p, err := lab.LoadProgress(ctx, c)
	if err != nil || p == nil || p.Lab != "replicaset" || p.Step != 0 || p.Dir != lab.DefaultDir {
		t.Fatalf("progress after start: %+v, %v", p, err)
	}
	current := answer.View.Progress.Steps[0]
	wantCommands := []commandView{{Line: "ctl apply -f kplane-lab/nginx-rs.yaml"}, {Line: "ctl get pods -l replicaset=test -o wide"}}
	if current.State != "current" || current.Heading != "Step 1/2: Create the ReplicaSet" || !reflect.DeepEqual(current.Commands, wantCommands) {
		t.Errorf("first step: %+v", current)
	}

	// The step skipped: not yet, with the first hint, as ctl lab check says.
	labCall(t, "POST", labs+"/check", `{"wait":"0s"}`, http.StatusOK, &answer)
	wantLines := []string{
		"✗ Step 1 is not done yet: 0 pods match replicaset=test in default, 0 of them ready; want 3 ready",
		"Hint: ctl apply -f kplane-lab/nginx-rs.yaml",
	}
	if answer.Outcome != "not-yet" || !reflect.DeepEqual(answer.Lines, wantLines) {
		t.Errorf("check of a skipped step: %s %q, want not-yet %q", answer.Outcome, answer.Lines, wantLines)
	}
	labCall(t, "POST", labs+"/check", `{"wait":"1h"}`, http.StatusBadRequest, nil)

	// The step done (three ready pods): passed, with the explanation and
	// its links, and the progress moves on.
	for i := range 3 {
		pod := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("ng-rs-%d", i), Namespace: "default", Labels: map[string]string{"replicaset": "test"}},
			Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}},
		}
		created, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		if _, err := c.Pods("default").UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	labCall(t, "POST", labs+"/check", `{"wait":"0s","lang":"zh"}`, http.StatusOK, &answer)
	if answer.Outcome != "passed" || answer.Lines[0] != "✓ 第 1 步通过：创建 ReplicaSet" {
		t.Fatalf("check of a done step: %s %q", answer.Outcome, answer.Lines)
	}
	if !hasSegment(answer.Explain, segment{Command: "ctl why replicaset/ng-rs", Panel: "why", Kind: "replicaset", Name: "ng-rs"}) {
		t.Errorf("explanation lacks the why link: %+v", answer.Explain)
	}
	if p, _ := lab.LoadProgress(ctx, c); p == nil || p.Step != 1 {
		t.Fatalf("progress after a passed check: %+v", p)
	}
	steps := answer.View.Progress.Steps
	if steps[0].State != "passed" || len(steps[0].Explain) == 0 || steps[1].State != "current" || answer.View.Lang != lab.Chinese {
		t.Errorf("view after a passed check: %+v", answer.View.Progress)
	}

	// A hint is counted in the progress, and shown with the current step.
	labCall(t, "POST", labs+"/hint", `{"lang":"en"}`, http.StatusOK, &answer)
	if want := "Hint: Delete the pods by their label: ctl delete pods -l replicaset=test"; answer.Lines[0] != want {
		t.Errorf("hint: %q, want %q", answer.Lines, want)
	}
	if got := answer.View.Progress.Steps[1].Hints; len(got) != 1 {
		t.Errorf("hints shown with the current step: %q", got)
	}

	// The lab's file, as `ctl lab start` would write it.
	resp := get(t, labs+"/replicaset/files/nginx-rs.yaml", bearer(testAdminToken))
	want, _ := lab.File("nginx-rs.yaml")
	if got, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("lab file: %d %q", resp.StatusCode, got)
	}
	if resp := get(t, labs+"/replicaset/files/..%2fsecret", bearer(testAdminToken)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a file the lab does not have: %d, want 404", resp.StatusCode)
	}

	// Reset forgets the progress.
	labCall(t, "POST", labs+"/reset", `{"lang":"en"}`, http.StatusOK, &answer)
	if answer.Outcome != "reset" || answer.View.Progress != nil {
		t.Errorf("reset: %s, progress %+v", answer.Outcome, answer.View.Progress)
	}
}

func hasSegment(segments []segment, want segment) bool {
	for _, s := range segments {
		if s == want {
			return true
		}
	}
	return false
}

func TestSegmentsFindThePanelsOfTeachingCommands(t *testing.T) {
	got := segments("See `ctl why replicaset/web -n shop`, `ctl queues`, `ctl why pod/<name>` and `ctl get pods`.")
	want := []segment{
		{Text: "See "},
		{Command: "ctl why replicaset/web -n shop", Panel: "why", Kind: "replicaset", Name: "web", Namespace: "shop"},
		{Text: ", "},
		{Command: "ctl queues", Panel: "queues"},
		{Text: ", "},
		{Command: "ctl why pod/<name>", Panel: "why"},
		{Text: " and "},
		{Command: "ctl get pods"},
		{Text: "."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("segments:\n got %+v\nwant %+v", got, want)
	}
}
