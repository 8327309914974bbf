package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/stats"
	"kplane/pkg/pki"
)

const testTimeout = 30 * time.Second

// fakeRun is a container run whose output the test writes line by line.
type fakeRun struct {
	mu      sync.Mutex
	entries []fakeEntry
	changed chan struct{}
	done    chan struct{}
	// readersClosed counts Close calls on its log readers.
	readersClosed int
}

type fakeEntry struct {
	at   time.Time
	text string // with its newline
}

func newFakeRun(lines ...string) *fakeRun {
	r := &fakeRun{changed: make(chan struct{}), done: make(chan struct{})}
	base := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, l := range lines {
		r.entries = append(r.entries, fakeEntry{at: base.Add(time.Duration(i) * time.Minute), text: l})
	}
	return r
}

func (r *fakeRun) print(at time.Time, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, fakeEntry{at: at, text: text})
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *fakeRun) exit() {
	r.mu.Lock()
	defer r.mu.Unlock()
	close(r.done)
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *fakeRun) Done() <-chan struct{}          { return r.done }
func (r *fakeRun) ExitCode() int                  { return 0 }
func (r *fakeRun) Reason() string                 { return runtime.ReasonCompleted }
func (r *fakeRun) Stop(time.Duration)             {}
func (r *fakeRun) Usage() runtime.Usage           { return runtime.Usage{} }
func (r *fakeRun) StartedAt() time.Time           { return time.Time{} }
func (r *fakeRun) Logs(follow bool) io.ReadCloser { return r.reader(follow, false) }
func (r *fakeRun) LogsWithTimestamps(follow bool) io.ReadCloser {
	return r.reader(follow, true)
}

func (r *fakeRun) reader(follow, timestamps bool) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		next := 0
		for {
			r.mu.Lock()
			entries, changed := r.entries[next:], r.changed
			next = len(r.entries)
			exited := isClosed(r.done)
			r.mu.Unlock()
			for _, e := range entries {
				text := e.text
				if timestamps {
					text = e.at.Format(time.RFC3339Nano) + " " + text
				}
				if _, err := pw.Write([]byte(text)); err != nil {
					return
				}
			}
			if !follow || exited {
				pw.Close()
				return
			}
			<-changed
		}
	}()
	return &fakeReader{PipeReader: pr, run: r}
}

type fakeReader struct {
	*io.PipeReader
	run *fakeRun
}

func (f *fakeReader) Close() error {
	f.run.mu.Lock()
	f.run.readersClosed++
	f.run.mu.Unlock()
	return f.PipeReader.Close()
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// plainRun offers only the Container methods, like the simulated
// runtime's runs, which have no timestamps.
type plainRun struct{ runtime.Container }

// newTestServer returns a server that trusts the CA of b (a new cluster's
// when b is nil).
func newTestServer(t *testing.T, b *pki.Bundle, lookup ContainerLookup) *Server {
	t.Helper()
	if b == nil {
		b = testBundle(t)
	}
	s, err := New(Options{ClientCAPEM: b.CACertPEM, Lookup: lookup, Reviewer: &bootstrapPolicyReviewer{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testBundle is a new cluster CA with the apiserver's kubelet client
// certificate.
func testBundle(t testing.TB) *pki.Bundle {
	t.Helper()
	b, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// get sends a request straight to the handler.
func get(t *testing.T, s *Server, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func TestContainerLogs(t *testing.T) {
	current := newFakeRun("one\n", "two\n", "three\n", "four")
	current.exit()
	previous := newFakeRun("earlier run\n")
	previous.exit()
	simulated := newFakeRun("sim line\n")
	simulated.exit()

	lookup := func(namespace, pod, container string, wantPrevious bool) (runtime.Container, error) {
		switch {
		case namespace != "default":
			return nil, NotFoundf("pod %q does not exist", pod)
		case pod == "sim":
			return plainRun{simulated}, nil
		case container == "lost":
			return nil, &codedError{code: http.StatusNotFound, msg: "the logs were lost"}
		case container == "waiting":
			return nil, fmt.Errorf("container %q in pod %q is waiting to start: ContainerCreating", container, pod)
		case wantPrevious:
			return previous, nil
		}
		return current, nil
	}
	s := newTestServer(t, nil, lookup)
	tests := []struct {
		name     string
		path     string
		wantCode int
		wantBody string
	}{
		{name: "all", path: "/containerLogs/default/web/app", wantCode: 200, wantBody: "one\ntwo\nthree\nfour"},
		{name: "tailLines", path: "/containerLogs/default/web/app?tailLines=2", wantCode: 200, wantBody: "three\nfour"},
		{name: "tailLines=0", path: "/containerLogs/default/web/app?tailLines=0", wantCode: 200, wantBody: ""},
		{name: "tailLines beyond the log", path: "/containerLogs/default/web/app?tailLines=100", wantCode: 200, wantBody: "one\ntwo\nthree\nfour"},
		{name: "previous", path: "/containerLogs/default/web/app?previous=true", wantCode: 200, wantBody: "earlier run\n"},
		{name: "limitBytes", path: "/containerLogs/default/web/app?limitBytes=6", wantCode: 200, wantBody: "one\ntw"},
		{name: "timestamps", path: "/containerLogs/default/web/app?timestamps=true&tailLines=1", wantCode: 200,
			wantBody: "2024-05-01T10:03:00Z four"},
		{name: "sinceTime", path: "/containerLogs/default/web/app?sinceTime=" + url.QueryEscape("2024-05-01T10:02:00Z"), wantCode: 200,
			wantBody: "three\nfour"},
		{name: "timestamps ignored without them", path: "/containerLogs/default/sim/app?timestamps=true", wantCode: 200, wantBody: "sim line\n"},
		{name: "follow of an exited run ends", path: "/containerLogs/default/web/app?follow=true", wantCode: 200, wantBody: "one\ntwo\nthree\nfour"},
		{name: "pod not found", path: "/containerLogs/other/web/app", wantCode: 404, wantBody: "pod \"web\" does not exist\n"},
		{name: "container waiting", path: "/containerLogs/default/web/waiting", wantCode: 400,
			wantBody: "container \"waiting\" in pod \"web\" is waiting to start: ContainerCreating\n"},
		{name: "error with its own status code", path: "/containerLogs/default/web/lost", wantCode: 404, wantBody: "the logs were lost\n"},
		{name: "bad tailLines", path: "/containerLogs/default/web/app?tailLines=-1", wantCode: 400},
		{name: "bad follow", path: "/containerLogs/default/web/app?follow=maybe", wantCode: 400},
		{name: "both since parameters", path: "/containerLogs/default/web/app?sinceSeconds=5&sinceTime=2024-05-01T10:02:00Z", wantCode: 400},
		{name: "short path", path: "/containerLogs/default/web", wantCode: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, s, tt.path)
			if code != tt.wantCode {
				t.Errorf("code = %d, want %d (body %q)", code, tt.wantCode, body)
			}
			if tt.wantCode == 200 || tt.wantBody != "" {
				if body != tt.wantBody {
					t.Errorf("body = %q, want %q", body, tt.wantBody)
				}
			}
		})
	}
}

// codedError is a lookup error that carries its HTTP status, like the
// kubelet's ContainerLookupError.
type codedError struct {
	code int
	msg  string
}

func (e *codedError) Error() string   { return e.msg }
func (e *codedError) StatusCode() int { return e.code }

func TestContainerLogsWithoutLookup(t *testing.T) {
	s := newTestServer(t, nil, nil)
	if code, _ := get(t, s, "/containerLogs/default/web/app"); code != http.StatusServiceUnavailable {
		t.Errorf("code = %d, want 503 before SetLookup", code)
	}
	run := newFakeRun("hi\n")
	run.exit()
	s.SetLookup(func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	if code, body := get(t, s, "/containerLogs/default/web/app"); code != 200 || body != "hi\n" {
		t.Errorf("after SetLookup: %d %q", code, body)
	}
}

// startTLS starts the server on a free loopback port for the test.
func startTLS(t *testing.T, s *Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	port, err := s.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if port == 0 {
		t.Fatal("Start returned port 0")
	}
	return fmt.Sprintf("https://127.0.0.1:%d", port)
}

func clientWith(certs ...tls.Certificate) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: certs,
		// The kubelet's certificate is self-signed; the apiserver does not
		// verify it either.
		InsecureSkipVerify: true,
	}}}
}

func TestServerRequiresClientCertificate(t *testing.T) {
	run := newFakeRun("secret output\n")
	run.exit()
	cluster, otherCluster := testBundle(t), testBundle(t)
	s := newTestServer(t, cluster, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	base := startTLS(t, s)

	tests := []struct {
		name    string
		certs   []tls.Certificate
		wantErr bool
	}{
		{name: "apiserver's kubelet client certificate", certs: []tls.Certificate{cluster.KubeletClientCert}},
		{name: "certificate of another cluster", certs: []tls.Certificate{otherCluster.KubeletClientCert}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := clientWith(tt.certs...)
			defer client.CloseIdleConnections()
			resp, err := client.Get(base + "/containerLogs/default/web/app")
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("request succeeded, want the TLS handshake refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != "secret output\n" {
				t.Errorf("got %d %q", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type = %q, want text/plain", ct)
			}
		})
	}
}

// TestFollowStreamsUntilExit checks that each line reaches the client while
// the container still runs, and that the response ends when it exits.
func TestFollowStreamsUntilExit(t *testing.T) {
	run := newFakeRun("a\n", "b\n", "c\n")
	cluster := testBundle(t)
	s := newTestServer(t, cluster, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	base := startTLS(t, s)
	client := clientWith(cluster.KubeletClientCert)
	defer client.CloseIdleConnections()

	resp, err := client.Get(base + "/containerLogs/default/web/app?follow=true&tailLines=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	expectLine := func(want string) {
		t.Helper()
		got, err := lines.ReadString('\n')
		if err != nil || got != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	expectLine("c\n") // the tail
	run.print(time.Now(), "d\n")
	expectLine("d\n") // arrives while the container runs
	run.print(time.Now(), "e\n")
	expectLine("e\n")
	run.exit()
	rest, err := io.ReadAll(lines)
	if err != nil || len(rest) != 0 {
		t.Errorf("after exit: %q, %v; want the end of the stream", rest, err)
	}
}

// TestFollowEndsWhenClientLeaves checks that a client hanging up releases
// the log reader of a container that keeps running.
func TestFollowEndsWhenClientLeaves(t *testing.T) {
	run := newFakeRun("a\n")
	cluster := testBundle(t)
	s := newTestServer(t, cluster, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	base := startTLS(t, s)
	client := clientWith(cluster.KubeletClientCert)
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/containerLogs/default/web/app?follow=1", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || line != "a\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(testTimeout)
	for {
		run.mu.Lock()
		closed := run.readersClosed
		run.mu.Unlock()
		if closed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the log reader was not closed after the client left")
		}
		time.Sleep(10 * time.Millisecond)
	}
	run.exit()
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{in: "a\nb\nc\n", n: 2, want: []string{"b\n", "c\n"}},
		{in: "a\nb\nc", n: 1, want: []string{"c"}},
		{in: "a\n", n: 5, want: []string{"a\n"}},
		{in: "", n: 3, want: nil},
		{in: "a\nb\n", n: 0, want: nil},
	}
	for _, tt := range tests {
		got, consumed, err := lastLines(strings.NewReader(tt.in), tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("lastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if consumed != int64(len(tt.in)) {
			t.Errorf("lastLines(%q) consumed %d bytes, want %d", tt.in, consumed, len(tt.in))
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	reviewer := &bootstrapPolicyReviewer{}
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "defaults with a CA", opts: Options{BindAddress: "127.0.0.1", ClientCAPEM: []byte("x"), Reviewer: reviewer}},
		{name: "no CA", opts: Options{BindAddress: "127.0.0.1", Reviewer: reviewer}, wantErr: "cluster CA"},
		{name: "no reviewer", opts: Options{BindAddress: "127.0.0.1", ClientCAPEM: []byte("x")}, wantErr: "SubjectAccessReview"},
		{name: "bad address", opts: Options{BindAddress: "localhost", ClientCAPEM: []byte("x"), Reviewer: reviewer}, wantErr: "not an IP address"},
		{name: "bad port", opts: Options{BindAddress: "127.0.0.1", Port: 70000, ClientCAPEM: []byte("x"), Reviewer: reviewer}, wantErr: "out of range"},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	if _, err := New(Options{ClientCAPEM: []byte("not pem"), Reviewer: reviewer}); err == nil {
		t.Error("New accepted a CA that holds no certificate")
	}
}

func TestNotFoundf(t *testing.T) {
	err := fmt.Errorf("lookup: %w", NotFoundf("container %q not found in pod %q", "c", "p"))
	if !errors.Is(err, ErrNotFound) {
		t.Error("NotFoundf error is not ErrNotFound")
	}
	if errors.Is(errors.New("other"), ErrNotFound) {
		t.Error("a plain error is ErrNotFound")
	}
}

// TestProcessRuntimeLogs serves a real process-runtime container: its
// output is followed until it exits, with the times it was written.
func TestProcessRuntimeLogs(t *testing.T) {
	rt, err := runtime.NewProcess(runtime.ProcessOptions{RootDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "counter", Namespace: "default", UID: "u1"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "count", Command: []string{"sh", "-c", "for i in 1 2 3; do echo $i; done"}}}}}
	run, err := rt.Start(context.Background(), pod, &pod.Spec.Containers[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		run.Stop(0)
		<-run.Done()
	}()
	s := newTestServer(t, nil, func(string, string, string, bool) (runtime.Container, error) { return run, nil })
	code, body := get(t, s, "/containerLogs/default/counter/count?follow=true&timestamps=true")
	if code != 200 {
		t.Fatalf("code = %d: %s", code, body)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("body = %q, want three lines", body)
	}
	for i, line := range lines {
		ts, text, _ := strings.Cut(line, " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("line %d timestamp %q: %v", i, ts, err)
		}
		if want := fmt.Sprint(i + 1); text != want {
			t.Errorf("line %d = %q, want %q", i, text, want)
		}
	}
	select {
	case <-run.Done():
	default:
		t.Error("follow ended before the container exited")
	}
}

// fakeBackend serves one container run and no pods.
type fakeBackend struct{ run runtime.Container }

func (b fakeBackend) FindContainer(string, string, string, bool) (runtime.Container, error) {
	return b.run, nil
}

func (b fakeBackend) FindPod(namespace, pod string) (*api.Pod, runtime.Runtime, error) {
	return nil, nil, NotFoundf("pod %s/%s does not exist", namespace, pod)
}

func (b fakeBackend) Summary(nodeName string) (*stats.Summary, error) {
	return &stats.Summary{Node: stats.NodeStats{NodeName: nodeName}}, nil
}

func TestStartServer(t *testing.T) {
	cluster := testBundle(t)
	run := newFakeRun("hello\n")
	run.exit()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, err := StartServer(ctx, cluster.CACertPEM, &bootstrapPolicyReviewer{}, nil, fakeBackend{run},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	client := clientWith(cluster.KubeletClientCert)
	defer client.CloseIdleConnections()
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/containerLogs/default/web/app", port))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); string(body) != "hello\n" {
		t.Errorf("body = %q", body)
	}
}

// StartServerAt puts the node IP in the serving certificate: the address
// the apiserver dials is one the certificate names.
func TestStartServerAtNamesTheNodeIP(t *testing.T) {
	cluster := testBundle(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, err := StartServerAt(ctx, "127.0.0.1", "192.168.250.2", cluster.CACertPEM, &bootstrapPolicyReviewer{}, nil, fakeBackend{newFakeRun("")},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, //nolint:gosec // only the certificate is read
		Certificates: []tls.Certificate{cluster.KubeletClientCert}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	leaf := conn.ConnectionState().PeerCertificates[0]
	for _, ip := range leaf.IPAddresses {
		if ip.Equal(net.ParseIP("192.168.250.2")) {
			return
		}
	}
	t.Errorf("serving certificate names %v, not the node IP 192.168.250.2", leaf.IPAddresses)
}
