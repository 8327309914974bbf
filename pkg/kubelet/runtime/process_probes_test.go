package runtime

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// probeServer is a container's HTTP server as the process runtime sees it:
// listening on a port of 127.0.0.1.
func probeServer(t *testing.T) (port int) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != probeUserAgent {
			http.Error(w, "wrong user agent "+r.Header.Get("User-Agent"), http.StatusBadRequest)
			return
		}
		w.Write([]byte("fine"))
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/header", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Probe") != "yes" || r.Host != "app.example" || r.URL.RawQuery != "verbose=1" {
			w.WriteHeader(http.StatusForbidden)
		}
	})
	mux.HandleFunc("/redirect-local", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/fail", http.StatusFound)
	})
	mux.HandleFunc("/redirect-away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.96.0.10:8080/fail", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

func TestProbeHTTP(t *testing.T) {
	port := probeServer(t)
	container := &api.Container{Name: "web", Ports: []api.ContainerPort{{Name: "http", ContainerPort: int32(port)}}}
	get := func(path string) *api.Probe {
		return &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: path, Port: api.FromInt(port)}}, TimeoutSeconds: 1}
	}
	tests := []struct {
		name       string
		probe      *api.Probe
		wantOK     bool
		wantOutput string
	}{
		{name: "200 passes", probe: get("/ok"), wantOK: true, wantOutput: "fine"},
		{name: "503 fails", probe: get("/fail"), wantOutput: "HTTP probe failed with statuscode: 503"},
		{name: "404 fails", probe: get("/nowhere"), wantOutput: "HTTP probe failed with statuscode: 404"},
		{name: "redirect on the same host is followed", probe: get("/redirect-local"), wantOutput: "HTTP probe failed with statuscode: 503"},
		{name: "redirect elsewhere passes without being followed", probe: get("/redirect-away"), wantOK: true},
		{name: "named port", wantOK: true, probe: &api.Probe{ProbeHandler: api.ProbeHandler{
			HTTPGet: &api.HTTPGetAction{Path: "/ok", Port: api.FromString("http")}}}},
		{name: "headers, Host and query", wantOK: true, probe: &api.Probe{ProbeHandler: api.ProbeHandler{
			HTTPGet: &api.HTTPGetAction{Path: "/header?verbose=1", Port: api.FromInt(port),
				HTTPHeaders: []api.HTTPHeader{{Name: "X-Probe", Value: "yes"}, {Name: "Host", Value: "app.example"}}}}}},
		// The host field (and the pod IP) are labels here: the probe still
		// goes to 127.0.0.1.
		{name: "host field is ignored", wantOK: true, probe: &api.Probe{ProbeHandler: api.ProbeHandler{
			HTTPGet: &api.HTTPGetAction{Path: "/ok", Port: api.FromInt(port), Host: "10.244.1.5"}}}},
		{name: "unknown named port", probe: &api.Probe{ProbeHandler: api.ProbeHandler{
			HTTPGet: &api.HTTPGetAction{Port: api.FromString("metrics")}}}, wantOutput: "couldn't find port: metrics in web"},
		{name: "timeout", probe: get("/slow"), wantOutput: "context deadline exceeded"},
	}
	p := newTestProcess(t)
	pod := testPod(*container)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok, output := p.Probe(context.Background(), pod, container, tt.probe)
			if ok != tt.wantOK {
				t.Errorf("ok = %v (output %q), want %v", ok, output, tt.wantOK)
			}
			if !strings.Contains(output, tt.wantOutput) {
				t.Errorf("output = %q, want it to contain %q", output, tt.wantOutput)
			}
		})
	}
}

func TestProbeTCP(t *testing.T) {
	open, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	go func() {
		for {
			conn, err := open.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()

	openPort := open.Addr().(*net.TCPAddr).Port
	p := newTestProcess(t)
	container := &api.Container{Name: "db"}
	pod := testPod(*container)
	tests := []struct {
		name       string
		port       int
		host       string
		wantOK     bool
		wantOutput string
	}{
		{name: "listening port", port: openPort, wantOK: true},
		{name: "listening port, host field ignored", port: openPort, host: "10.244.1.5", wantOK: true},
		{name: "closed port", port: closedPort, wantOutput: "connection refused"},
		{name: "invalid port", port: 70000, wantOutput: "invalid port number: 70000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probe := &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(tt.port), Host: tt.host}}}
			ok, output := p.Probe(context.Background(), pod, container, probe)
			if ok != tt.wantOK || !strings.Contains(output, tt.wantOutput) {
				t.Errorf("Probe = %v, %q; want %v and output containing %q", ok, output, tt.wantOK, tt.wantOutput)
			}
		})
	}
}

func TestProbeExec(t *testing.T) {
	p := newTestProcess(t)
	container := &api.Container{Name: "app", Env: []api.EnvVar{{Name: "READY_FILE", Value: "/nonexistent/ready"}}}
	pod := testPod(*container)
	tests := []struct {
		name       string
		command    []string
		wantOK     bool
		wantOutput string
	}{
		{name: "exit 0 passes", command: []string{"true"}, wantOK: true},
		{name: "output of a failure is reported", command: []string{"sh", "-c", "echo not ready; exit 1"}, wantOutput: "not ready\n"},
		{name: "container environment", command: []string{"sh", "-c", `test "$READY_FILE" = /nonexistent/ready`}, wantOK: true},
		{name: "$(VAR) expansion", command: []string{"test", "$(READY_FILE)", "=", "/nonexistent/ready"}, wantOK: true},
		{name: "missing command", command: []string{"kplane-no-such-probe"}, wantOutput: "executable file not found in $PATH"},
		{name: "timeout", command: []string{"sleep", "30"}, wantOutput: `command "sleep 30" timed out`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			probe := &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: tt.command}}, TimeoutSeconds: 1}
			ok, output := p.Probe(context.Background(), pod, container, probe)
			if ok != tt.wantOK {
				t.Errorf("ok = %v (output %q), want %v", ok, output, tt.wantOK)
			}
			if !strings.Contains(output, tt.wantOutput) {
				t.Errorf("output = %q, want it to contain %q", output, tt.wantOutput)
			}
		})
	}
}

func TestDialLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"10.244.1.5:80", "[::1]:80", "localhost:80", "0.0.0.0:80"} {
		conn, err := dialLoopbackOnly(context.Background(), "tcp", addr)
		if err == nil {
			conn.Close()
			t.Errorf("dial %s succeeded, want it refused", addr)
		} else if !strings.Contains(err.Error(), "only dials 127.0.0.1") {
			t.Errorf("dial %s: %v, want the refusal", addr, err)
		}
	}
}

func TestResolveProbePort(t *testing.T) {
	container := &api.Container{Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}
	tests := []struct {
		port    api.IntOrString
		want    int
		wantErr bool
	}{
		{port: api.FromInt(80), want: 80},
		{port: api.FromString("http"), want: 8080},
		{port: api.FromString("9090"), want: 9090},
		{port: api.FromString("grpc"), wantErr: true},
		{port: api.FromInt(0), wantErr: true},
		{port: api.FromInt(65536), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.port.String(), func(t *testing.T) {
			got, err := resolveProbePort(tt.port, container)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("resolveProbePort(%s) = %d, %v; want %d (error %v)", tt.port.String(), got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestProbeWithoutHandlerPasses(t *testing.T) {
	p := newTestProcess(t)
	container := &api.Container{Name: "app"}
	if ok, _ := p.Probe(context.Background(), testPod(*container), container, &api.Probe{}); !ok {
		t.Error("a probe with no handler failed")
	}
	if ok, _ := p.Probe(context.Background(), testPod(*container), container, nil); !ok {
		t.Error("a nil probe failed")
	}
}
