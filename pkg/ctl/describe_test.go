package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// The describe and events verbs, run in-process against an in-process
// apiserver. test/e2e/ctl_describe_test.go compares them with kubectl on a
// full cluster.

// runDescribeVerb runs ctl against a and returns the exit code and both
// streams.
func runDescribeVerb(t *testing.T, a *framework.APIServer, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--kubeconfig", a.KubeconfigPath()}, args...)
	code := Main(context.Background(), args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestDescribeVerb(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	for _, name := range []string{"app-config", "app-flags", "db-config"} {
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"k": "v"}}
		if _, err := c.ConfigMaps("default").Create(ctx, cm, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	appConfig, err := c.ConfigMaps("default").Get(ctx, "app-config", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two events about app-config (one repeated) and one about another
	// object of the same name and kind but another UID, which must not show.
	now := api.Now()
	// Ages of ten minutes or more print in whole minutes, so the
	// expected text holds however long the test takes.
	ago := func(minutes int) api.Time { return api.NewTime(now.Add(-time.Duration(minutes) * time.Minute)) }
	for i, e := range []api.Event{
		{Reason: "Updated", Message: "reloaded", Type: "Normal", Count: 3, FirstTimestamp: ago(30), LastTimestamp: ago(20),
			InvolvedObject: api.ObjectReference{UID: appConfig.UID}},
		{Reason: "Invalid", Message: "bad key", Type: "Warning", Count: 1, FirstTimestamp: ago(15), LastTimestamp: ago(15),
			InvolvedObject: api.ObjectReference{UID: appConfig.UID}},
		{Reason: "Stale", Message: "old object", Type: "Normal", Count: 1, FirstTimestamp: ago(12), LastTimestamp: ago(12),
			InvolvedObject: api.ObjectReference{UID: "another-uid"}},
	} {
		e.ObjectMeta = api.ObjectMeta{Name: "ev" + string(rune('a'+i)), Namespace: "default"}
		e.InvolvedObject.Kind, e.InvolvedObject.Name, e.InvolvedObject.Namespace, e.InvolvedObject.APIVersion = "ConfigMap", "app-config", "default", "v1"
		e.Source.Component = "config-watcher"
		if _, err := c.Events("default").Create(ctx, &e, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("one object with its events", func(t *testing.T) {
		code, out, errOut := runDescribeVerb(t, a, "describe", "cm", "app-config")
		want := "Name:         app-config\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\n" +
			"Data\n====\nk:\n----\nv\n\n\nBinaryData\n====\n\n" +
			"Events:\n" +
			"  Type     Reason   Age                From            Message\n" +
			"  ----     ------   ----               ----            -------\n" +
			"  Normal   Updated  20m (x3 over 30m)  config-watcher  reloaded\n" +
			"  Warning  Invalid  15m                config-watcher  bad key\n"
		if code != 0 || out != want || errOut != "" {
			t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
		}
	})

	t.Run("a type describes every object, two blank lines apart", func(t *testing.T) {
		code, out, _ := runDescribeVerb(t, a, "describe", "configmaps", "--show-events=false")
		if code != 0 || strings.Count(out, "Name:  ") != 3 || strings.Count(out, "\n\n\nName:") != 2 || strings.Contains(out, "Events") {
			t.Errorf("exit %d, stdout:\n%s", code, out)
		}
	})

	t.Run("a name that is no object's is a prefix", func(t *testing.T) {
		code, out, errOut := runDescribeVerb(t, a, "describe", "cm", "app-", "--show-events=false")
		names := regexp.MustCompile(`(?m)^Name:\s+(\S+)`).FindAllStringSubmatch(out, -1)
		if code != 0 || errOut != "" || len(names) != 2 || names[0][1] != "app-config" || names[1][1] != "app-flags" || !strings.HasSuffix(out, "\n\n") {
			t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
		}
	})

	t.Run("objects from a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "cm.yaml")
		if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db-config\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, _ := runDescribeVerb(t, a, "describe", "-f", file)
		if code != 0 || !strings.HasPrefix(out, "Name:         db-config\n") || !strings.HasSuffix(out, "Events:  <none>\n") {
			t.Errorf("exit %d, stdout:\n%s", code, out)
		}
	})

	t.Run("a missing name among found ones", func(t *testing.T) {
		code, out, errOut := runDescribeVerb(t, a, "describe", "cm", "db-config", "nope")
		if code != 1 || !strings.HasPrefix(out, "Name:         db-config\n") || errOut != "Error from server (NotFound): configmaps \"nope\" not found\n" {
			t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
		}
	})

	errorCases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"describe", "cm", "nope"}, 1, "Error from server (NotFound): configmaps \"nope\" not found\n"},
		{[]string{"describe"}, 1, "error: You must specify the type of resource to describe. Use \"ctl api-resources\" for a complete list of supported resources.\n"},
		{[]string{"describe", "frobs"}, 1, "error: the server doesn't have a resource type \"frobs\"\n"},
		{[]string{"describe", "pods"}, 0, "No resources found in default namespace.\n"},
		{[]string{"describe", "pods", "-A"}, 0, "No resources found\n"},
	}
	for _, tt := range errorCases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runDescribeVerb(t, a, tt.args...)
			if code != tt.code || out != "" || errOut != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, \"\", %q", code, out, errOut, tt.code, tt.stderr)
			}
		})
	}

	t.Run("events", func(t *testing.T) {
		code, out, errOut := runDescribeVerb(t, a, "events")
		want := "LAST SEEN           TYPE      REASON    OBJECT                 MESSAGE\n" +
			"20m (x3 over 30m)   Normal    Updated   ConfigMap/app-config   reloaded\n" +
			"15m                 Warning   Invalid   ConfigMap/app-config   bad key\n" +
			"12m                 Normal    Stale     ConfigMap/app-config   old object\n"
		if code != 0 || errOut != "" || out != want {
			t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
		}
	})

	eventCases := []struct {
		args   []string
		code   int
		rows   int
		stderr string
	}{
		{[]string{"events", "--types", "warning"}, 0, 1, ""},
		{[]string{"events", "--for", "cm/app-config", "--types", "Normal,Warning"}, 0, 3, ""},
		{[]string{"events", "--for", "cm/db-config"}, 0, 0, "No events found in default namespace.\n"},
		{[]string{"events", "-A", "--no-headers"}, 0, 3, ""},
		{[]string{"events", "-n", "kube-system"}, 0, 0, "No events found in kube-system namespace.\n"},
		{[]string{"events", "--types", "Error"}, 1, 0, "error: valid --types are Normal or Warning\n"},
		{[]string{"events", "--for", "app-config"}, 1, 0, "error: --for must be in resource/name form\n"},
	}
	for _, tt := range eventCases {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runDescribeVerb(t, a, tt.args...)
			rows := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.Contains(line, "ConfigMap/") {
					rows++
				}
			}
			if code != tt.code || rows != tt.rows || errOut != tt.stderr {
				t.Errorf("exit %d, %d rows, stderr %q; want %d, %d rows, %q\nstdout:\n%s", code, rows, errOut, tt.code, tt.rows, tt.stderr, out)
			}
		})
	}

	t.Run("events -o yaml is an EventList", func(t *testing.T) {
		code, out, _ := runDescribeVerb(t, a, "events", "--types", "Warning", "-o", "yaml")
		if code != 0 || !strings.HasPrefix(out, "apiVersion: v1\nitems:\n- apiVersion: v1\n") || !strings.Contains(out, "  reason: Invalid\n") || !strings.HasSuffix(out, "kind: EventList\nmetadata: {}\n") {
			t.Errorf("exit %d, stdout:\n%s", code, out)
		}
	})
}
