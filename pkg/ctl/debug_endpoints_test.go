package ctl

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/debug"
)

// Without a cluster, `ctl debug endpoints` says where it looked and what
// to do; with endpoint files it prints them as a table, sorted by
// component, leaving out the files of processes that have exited.
func TestDebugEndpoints(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"debug", "endpoints", "--data-dir", dir}, IOStreams{Out: &out, ErrOut: &errOut})
	if code == 0 || !strings.Contains(errOut.String(), "no debug API found in "+dir+"/debug — is a cluster running there (`ctl up`)?") {
		t.Errorf("no cluster: exit %d, stderr %q", code, errOut.String())
	}

	self := os.Getpid()
	for _, e := range []debug.Endpoint{
		{Component: "scheduler", URL: "http://127.0.0.1:4321", PID: self, Identity: "host_abc"},
		{Component: "apiserver", URL: "https://127.0.0.1:6443", PID: self},
		{Component: "kubelet-gone", URL: "http://127.0.0.1:1", PID: 1 << 30},
	} {
		if err := debug.WriteEndpoint(debug.EndpointFile(dir, e.Component), e); err != nil {
			t.Fatal(err)
		}
	}
	endpoints, err := debug.ReadEndpoints(dir)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	printEndpoints(&out, endpoints)
	pid := strconv.Itoa(self)
	want := [][]string{
		{"COMPONENT", "URL", "PID", "IDENTITY"},
		{"apiserver", "https://127.0.0.1:6443", pid, "<none>"},
		{"scheduler", "http://127.0.0.1:4321", pid, "host_abc"},
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s\nwant %d lines", out.String(), len(want))
	}
	for i, line := range lines {
		if got := strings.Fields(line); strings.Join(got, " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d = %q, want the columns %q", i, line, want[i])
		}
	}
	// The columns line up, as kubectl's tables do.
	if strings.Index(lines[0], "URL") != strings.Index(lines[1], "https") {
		t.Errorf("columns not aligned:\n%s", out.String())
	}
}
