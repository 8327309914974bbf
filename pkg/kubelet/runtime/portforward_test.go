package runtime

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// podWithImage is pod shop/web-1 with one container, "web", of image,
// declaring ports.
func podWithImage(image string, ports ...int32) *api.Pod {
	c := api.Container{Name: "web", Image: image}
	for _, p := range ports {
		c.Ports = append(c.Ports, api.ContainerPort{ContainerPort: p})
	}
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "uid-1"},
		Spec: api.PodSpec{Containers: []api.Container{c}}}
}

func TestSimulatedHTTPResponse(t *testing.T) {
	for _, tt := range []struct {
		name       string
		image      string
		ports      []int32
		port       int32
		method     string
		path       string
		wantAnswer bool
		wantStatus int
	}{
		{name: "nginx on 80", image: "nginx", port: 80, method: "GET", path: "/", wantAnswer: true, wantStatus: 200},
		{name: "tagged image, index.html", image: "nginx:1.27-alpine", port: 80, method: "GET", path: "/index.html", wantAnswer: true, wantStatus: 200},
		{name: "registry path and digest", image: "docker.io/library/nginx@sha256:abc", port: 80, method: "HEAD", path: "/", wantAnswer: true, wantStatus: 200},
		{name: "declared port", image: "nginx", ports: []int32{8080}, port: 8080, method: "GET", path: "/", wantAnswer: true, wantStatus: 200},
		{name: "undeclared port", image: "nginx", port: 8080, method: "GET", path: "/"},
		{name: "other image", image: "busybox", ports: []int32{80}, port: 80, method: "GET", path: "/"},
		{name: "nginx-like name", image: "my/nginx-exporter", port: 80, method: "GET", path: "/"},
		{name: "unknown path", image: "nginx", port: 80, method: "GET", path: "/missing", wantAnswer: true, wantStatus: 404},
		{name: "POST", image: "nginx", port: 80, method: "POST", path: "/", wantAnswer: true, wantStatus: 405},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := podWithImage(tt.image, tt.ports...)
			req, _ := http.NewRequest(tt.method, "http://localhost"+tt.path, nil)
			resp, ok := SimulatedHTTPResponse(pod, &pod.Spec.Containers[0], tt.port, req)
			if ok != tt.wantAnswer {
				t.Fatalf("answers = %v, want %v", ok, tt.wantAnswer)
			}
			if !ok {
				return
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || resp.Header.Get("Server") != "nginx" {
				t.Errorf("status %d, Server %q; want %d, nginx", resp.StatusCode, resp.Header.Get("Server"), tt.wantStatus)
			}
			if tt.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered a body of %d bytes", len(body))
			}
			if tt.wantStatus == 200 && tt.method == "GET" {
				for _, want := range []string{"<title>Welcome to nginx!</title>", "<b>web-1</b> in namespace <b>shop</b>"} {
					if !strings.Contains(string(body), want) {
						t.Errorf("welcome page lacks %q:\n%s", want, body)
					}
				}
				if resp.ContentLength != int64(len(body)) {
					t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, len(body))
				}
			}
		})
	}
}

// pipeConn is one end of an in-memory connection, as a forwarded
// connection's stream.
func pipeConn(t *testing.T) (kubectlSide, podSide net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func TestSimulatedPortForwardAnswersAsNginx(t *testing.T) {
	pod := podWithImage("nginx:1.27")
	client, server := pipeConn(t)
	done := make(chan error, 1)
	go func() { done <- NewSimulated(nil, nil).PortForward(context.Background(), pod, 80, server) }()

	in := bufio.NewReader(client)
	// Two requests on one kept-alive connection, as a browser sends them.
	for _, path := range []string{"/", "/favicon.ico"} {
		req, _ := http.NewRequest(http.MethodGet, "http://localhost:8080"+path, nil)
		if err := req.Write(client); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(in, req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if path == "/" && (resp.StatusCode != 200 || !strings.Contains(string(body), "web-1")) {
			t.Errorf("GET /: %d %s", resp.StatusCode, body)
		}
		if path != "/" && resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	client.Close()
	if err := <-done; err != nil {
		t.Errorf("PortForward: %v", err)
	}
}

func TestSimulatedPortForwardRefusesWhereNothingListens(t *testing.T) {
	_, server := pipeConn(t)
	err := NewSimulated(nil, nil).PortForward(context.Background(), podWithImage("redis"), 6379, server)
	want := `failed to connect to localhost:6379 inside pod "shop/web-1", IPv4: dial tcp4 127.0.0.1:6379: connect: connection refused`
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "simulated") {
		t.Errorf("err = %v, want it to start %q and say the pod is simulated", err, want)
	}
}

func TestSimulatedPortForwardRefusesAnExitedNginx(t *testing.T) {
	pod := podWithImage("nginx")
	pod.Status.ContainerStatuses = []api.ContainerStatus{{Name: "web",
		State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1}}}}
	_, server := pipeConn(t)
	if err := NewSimulated(nil, nil).PortForward(context.Background(), pod, 80, server); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v, want connection refused from an exited nginx", err)
	}
}

func TestProcessPortForward(t *testing.T) {
	rt, err := NewProcess(ProcessOptions{RootDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The container's process: an upper-casing server on a loopback port
	// that answers once the client has sent everything (it needs the half
	// close to get there).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		got, _ := io.ReadAll(conn)
		conn.Write([]byte(strings.ToUpper(string(got))))
	}()
	port := int32(ln.Addr().(*net.TCPAddr).Port)

	// What kubectl sends, then its half close (a SPDY data stream's FIN).
	stream := &sentThenHalfClosed{Reader: strings.NewReader("hello pod")}
	if err := rt.PortForward(context.Background(), podWithImage("python"), port, stream); err != nil {
		t.Fatal(err)
	}
	if got := stream.answer.String(); got != "HELLO POD" || !stream.closed {
		t.Errorf("answer %q, closed %v; want HELLO POD and the stream closed", got, stream.closed)
	}
}

// sentThenHalfClosed is a forwarded connection whose client has sent
// everything: reads drain Reader, then EOF; writes collect the answer.
type sentThenHalfClosed struct {
	io.Reader
	answer bytes.Buffer
	closed bool
}

func (s *sentThenHalfClosed) Write(p []byte) (int, error) { return s.answer.Write(p) }
func (s *sentThenHalfClosed) Close() error                { s.closed = true; return nil }

func TestProcessPortForwardRefused(t *testing.T) {
	rt, err := NewProcess(ProcessOptions{RootDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	_, server := pipeConn(t)
	err = rt.PortForward(context.Background(), podWithImage("python"), int32(port), server)
	want := `failed to connect to localhost:` + strconv.Itoa(port) + ` inside pod "shop/web-1", IPv4: dial tcp4 127.0.0.1:` + strconv.Itoa(port) + `: connect: connection refused`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
