package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
	"kplane/test/framework"
)

// TestPortForwardProcessRuntime forwards a local port to a process-runtime
// pod's HTTP server (python3 -m http.server on a loopback port) with the
// real kubectls portForwardKubectls picks: up to 1.30 they speak SPDY, from
// 1.31 they tunnel SPDY through a WebSocket. Each fetches the pod's file
// through the forwarded port, several connections at once; a port nothing
// listens on gets the kubelet's error.
func TestPortForwardProcessRuntime(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("SKIP: python3 is not installed; the test pod serves files with python3 -m http.server")
	}
	kubectls := portForwardKubectls(t)
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startKubelet(t, a, c, runtime.ProcessName)

	dir := t.TempDir()
	const content = "hello from the pod's working directory\n"
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file much larger than a SPDY frame or a WebSocket message.
	large := strings.Repeat("0123456789abcdef", 256*1024) // 4 MiB
	if err := os.WriteFile(filepath.Join(dir, "large.txt"), []byte(large), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freeLoopbackPort(t)
	createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "files"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "http", Image: "python:3", WorkingDir: dir,
			Command: []string{python, "-m", "http.server", strconv.Itoa(port), "--bind", "127.0.0.1"},
			Ports:   []api.ContainerPort{{ContainerPort: int32(port)}}}}}})
	waitForPhase(t, c, "files", api.PodRunning, 30*time.Second)
	// The test's precondition, not the feature: python is listening.
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return false, err.Error()
		}
		conn.Close()
		return true, ""
	})

	for _, k := range kubectls {
		t.Run(fmt.Sprintf("kubectl 1.%d", k.Minor), func(t *testing.T) {
			pf := startKubectlPortForward(t, k.Path, a, "pod/files", strconv.Itoa(port))
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, body, _, err := httpGet("http://" + pf.local + "/hello.txt")
					if err != nil || status != http.StatusOK || body != content {
						t.Errorf("GET %d through the forwarded port: %v, %d %q", i, err, status, body)
					}
				}()
			}
			wg.Wait()
			if status, body, _, err := httpGet("http://" + pf.local + "/large.txt"); err != nil || status != http.StatusOK || body != large {
				t.Errorf("GET large.txt: %v, %d, %d bytes (want %d)", err, status, len(body), len(large))
			}
			if k.Minor >= 31 {
				// kubectl ≥ 1.31 says at -v=4 which dialer it used; it
				// falls back to plain SPDY when the tunnel is refused.
				if log := pf.stderr.String(); !strings.Contains(log, "negotiated protocol: portforward.k8s.io") || strings.Contains(log, "fallback to secondary dialer") {
					t.Errorf("kubectl 1.%d did not use the WebSocket tunnel:\n%s", k.Minor, log)
				}
			}
		})
	}

	t.Run("a port nothing listens on", func(t *testing.T) {
		closed := freeLoopbackPort(t)
		pf := startKubectlPortForward(t, kubectls[0].Path, a, "pod/files", strconv.Itoa(closed))
		if _, _, _, err := httpGet("http://" + pf.local + "/"); err == nil {
			t.Errorf("GET through a forward to closed port %d succeeded", closed)
		}
		want := fmt.Sprintf("error forwarding port %d to pod default/files, uid ", closed)
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			log := pf.stderr.String()
			return strings.Contains(log, want) && strings.Contains(log, "connect: connection refused"), log
		})

	})
}

// TestPortForwardSimulatedNginx forwards to a simulated nginx pod with
// kubectl, by pod, by Service and by Deployment (kubectl picks the pod, and
// for a Service the target port, itself), and with the Python client's
// WebSocket channels: the
// simulated runtime answers with nginx's welcome page naming the pod.
func TestPortForwardSimulatedNginx(t *testing.T) {
	t.Parallel()
	// The newest installed kubectl: its WebSocket tunnel is what a student's
	// kubectl uses today.
	kubectls := portForwardKubectls(t)
	kubectls = kubectls[len(kubectls)-1:]
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startKubelet(t, a, c, runtime.SimulatedName)
	createAndBind(t, c, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}}}}}})
	waitForPhase(t, c, "web-0", api.PodRunning, 30*time.Second)
	a.MustKubectl(t, "create", "service", "clusterip", "web", "--tcp", "8080:80")
	// No controller runs here: the Deployment only gives kubectl a
	// selector (app=web) to find web-0 by.
	a.MustKubectl(t, "create", "deployment", "web", "--image", "nginx:1.27")

	for _, target := range []string{"pod/web-0", "svc/web", "deploy/web"} {
		t.Run(target, func(t *testing.T) {
			remote := "80"
			if target == "svc/web" {
				remote = "8080" // the Service's port; kubectl maps it to targetPort 80
			}
			pf := startKubectlPortForward(t, kubectls[0].Path, a, target, remote)
			status, body, server, err := httpGet("http://" + pf.local + "/")
			if err != nil || status != http.StatusOK || server != "nginx" {
				t.Fatalf("GET /: %v, status %d, Server %q", err, status, server)
			}
			for _, want := range []string{"<title>Welcome to nginx!</title>", "<b>web-0</b> in namespace <b>default</b>"} {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %q:\n%s", want, body)
				}
			}
			// A browser keeps its connection alive: three requests on one
			// forwarded connection.
			transport := &http.Transport{MaxConnsPerHost: 1}
			defer transport.CloseIdleConnections()
			keepAlive := &http.Client{Timeout: 20 * time.Second, Transport: transport}
			for i := range 3 {
				resp, err := keepAlive.Get("http://" + pf.local + "/")
				if err != nil {
					t.Fatalf("kept-alive GET %d: %v", i, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			// kubectl prints a line per connection it accepts.
			framework.Eventually(t, 10*time.Second, func() (bool, string) {
				out := pf.stdout.String()
				return strings.Count(out, "Handling connection for") == 2, "want two connections (one plain GET, one kept alive for three):\n" + out
			})
		})
	}

	t.Run("the Python client's WebSocket channels", func(t *testing.T) {
		python := requirePythonClient(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		script := filepath.Join(framework.RepoRoot(t), "test", "e2e", "testdata", "python_portforward.py")
		cmd := exec.CommandContext(ctx, python, script, a.KubeconfigPath(), "default", "web-0", "80", "6379")
		cmd.Env = append(os.Environ(), "HOME="+a.Home, "KUBECONFIG=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python3 python_portforward.py: %v\n%s", err, out)
		}
		want := "open port: HTTP/1.1 200 OK server=nginx welcome=True pod=True error=None\n" +
			"closed port: answer='' error=error forwarding port 6379 to pod default/web-0 refused=True\n"
		if string(out) != want {
			t.Errorf("the Python client saw:\n%s\nwant:\n%s", out, want)
		}
	})

	t.Run("a port nothing listens on", func(t *testing.T) {
		pf := startKubectlPortForward(t, kubectls[0].Path, a, "pod/web-0", "6379")
		if _, _, _, err := httpGet("http://" + pf.local + "/"); err == nil {
			t.Error("GET through a forward to port 6379 of a simulated nginx succeeded")
		}
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			log := pf.stderr.String()
			return strings.Contains(log, "error forwarding port 6379 to pod default/web-0") &&
				strings.Contains(log, "nothing listens in a simulated pod"), log
		})
	})
}

// portForwardKubectls returns, oldest first, the installed kubectls whose
// port-forward differs: the newest before 1.31 (plain SPDY), 1.31 if
// installed (the first to tunnel SPDY through a WebSocket) and the newest.
// Like TestExecWithRealKubectl it takes whichever minors are installed
// (.ci/run builds 1.28 beside the kubectl on PATH where they are missing)
// and fails only without a kubectl of each generation.
func portForwardKubectls(t *testing.T) []framework.KubectlMinor {
	t.Helper()
	installed := framework.InstalledKubectlMinors(t) // oldest first
	var spdy, tunnel []framework.KubectlMinor
	for _, k := range installed {
		if k.Minor < 31 {
			spdy = append(spdy, k)
		} else if k.Minor == 31 || k == installed[len(installed)-1] {
			tunnel = append(tunnel, k)
		}
	}
	if len(spdy) == 0 || len(tunnel) == 0 {
		t.Fatalf("this test needs a kubectl.1.NN before 1.31 (SPDY) and one from 1.31 on (a WebSocket tunnel) beside kubectl; found %v (.ci/run builds them where missing)", installed)
	}
	return append(spdy[len(spdy)-1:], tunnel...)
}

// kubectlPortForward is a running `kubectl port-forward`.
type kubectlPortForward struct {
	local  string // 127.0.0.1:<port> kubectl listens on
	stdout *framework.SyncBuffer
	stderr *framework.SyncBuffer
}

// forwardingLine is what kubectl prints once it listens.
var forwardingLine = regexp.MustCompile(`^Forwarding from (127\.0\.0\.1:\d+) -> \d+`)

// startKubectlPortForward runs `kubectl port-forward target :remote` on a
// local port kubectl picks, waits until it listens, and stops it (by its
// PID) when the test ends.
func startKubectlPortForward(t *testing.T, kubectl string, a *framework.APIServer, target, remote string) *kubectlPortForward {
	t.Helper()
	cmd := exec.Command(kubectl, "--kubeconfig", a.KubeconfigPath(), "--cache-dir", filepath.Join(a.Home, "cache"), "-v=4",
		"port-forward", "--address", "127.0.0.1", target, ":"+remote)
	cmd.Env = append(os.Environ(), "HOME="+a.Home, "KUBECONFIG=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	pf := &kubectlPortForward{stdout: &framework.SyncBuffer{}, stderr: &framework.SyncBuffer{}}
	cmd.Stderr = pf.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("kubectl port-forward %s stderr:\n%s", target, pf.stderr.String())
		}
	})
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			pf.stdout.Write([]byte(lines.Text() + "\n"))
			if m := forwardingLine.FindStringSubmatch(lines.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case local, ok := <-found:
		if !ok {
			t.Fatalf("kubectl port-forward %s exited before listening:\n%s", target, pf.stderr.String())
		}
		pf.local = local
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl port-forward %s did not listen within 30s:\n%s", target, pf.stderr.String())
	}
	return pf
}

// httpGet fetches url on a connection of its own.
func httpGet(url string) (status int, body, server string, err error) {
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Server"), err
}

// freeLoopbackPort returns a port of 127.0.0.1 that was free a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
