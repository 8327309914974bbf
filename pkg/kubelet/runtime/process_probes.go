package runtime

// Probes of the process runtime, run for real. Upstream's kubelet sends
// httpGet and tcpSocket probes to the pod's IP; here a pod IP is only a
// label, and a container's server listens on the machine's own ports, so
// every probe dials 127.0.0.1, whatever the probe's host field or the pod's
// IP say. Nothing else is ever dialled: not even a redirect to another host.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
)

// probeHost is the only address probes dial.
const probeHost = "127.0.0.1"

// probeUserAgent is what upstream's kubelet sends (kube-probe/<major.minor>).
const probeUserAgent = "kube-probe/1.32"

// maxProbeOutput caps the output a probe reports, as upstream caps exec
// probe output at 10 KiB.
const maxProbeOutput = 10 * 1024

// Probe runs one probe of a container of pod once and says whether it
// passed, with the output a failure reports. It implements Prober.
//
//   - exec runs the command on this machine (no shell, the container's
//     environment and working directory, $(VAR) references expanded);
//     exit code 0 passes.
//   - httpGet sends GET http(s)://127.0.0.1:<port><path> with the probe's
//     headers; a status from 200 to 399 passes. HTTPS certificates are not
//     verified, as upstream does not verify them.
//   - tcpSocket passes if a connection to 127.0.0.1:<port> opens.
//   - grpc is not implemented by this runtime and passes (with a log line),
//     so a pod using it is not restarted for kplane's lack.
//
// Each attempt is bounded by timeoutSeconds (default 1), like upstream's.
func (p *Process) Probe(ctx context.Context, pod *api.Pod, container *api.Container, probe *api.Probe) (bool, string) {
	if probe == nil {
		return true, ""
	}
	timeout := time.Duration(probe.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case probe.Exec != nil:
		return p.probeExec(ctx, pod, container, probe.Exec.Command)
	case probe.HTTPGet != nil:
		return probeHTTP(ctx, container, probe.HTTPGet)
	case probe.TCPSocket != nil:
		return probeTCP(ctx, container, probe.TCPSocket)
	case probe.GRPC != nil:
		p.log.Warn("gRPC probes are not implemented by the process runtime; treating as success",
			"pod", pod.Namespace+"/"+pod.Name, "container", container.Name)
		return true, ""
	}
	return true, ""
}

// probeExec runs an exec probe's command as the container's process would
// run, and kills it (and anything it started) at the deadline.
func (p *Process) probeExec(ctx context.Context, pod *api.Pod, container *api.Container, command []string) (bool, string) {
	env := containerEnv(pod, container)
	argv := containerCommand(&api.Container{Command: command}, env)
	workingDir := container.WorkingDir
	if workingDir == "" {
		workingDir = p.containerDir(pod, container.Name)
		if err := os.MkdirAll(workingDir, 0o700); err != nil {
			return false, err.Error()
		}
	}
	cmd, err := buildCommand(argv, env, workingDir)
	if err != nil {
		return false, err.Error()
	}
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Output copying must not outlive the probe if something the command
	// started keeps the pipe open.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return false, err.Error()
	}
	killed, err := waitOrKill(cmd, ctx.Done(), nil)
	if killed {
		return false, fmt.Sprintf("command %q timed out", strings.Join(command, " "))
	}
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return false, err.Error()
		}
		return false, out.String()
	}
	return true, out.String()
}

// probeHTTP sends one HTTP GET to 127.0.0.1.
func probeHTTP(ctx context.Context, container *api.Container, action *api.HTTPGetAction) (bool, string) {
	port, err := resolveProbePort(action.Port, container)
	if err != nil {
		return false, err.Error()
	}
	scheme := "http"
	if action.Scheme == api.URISchemeHTTPS {
		scheme = "https"
	}
	target := &url.URL{Scheme: scheme, Host: net.JoinHostPort(probeHost, strconv.Itoa(port)), Path: "/"}
	if action.Path != "" {
		// The path may carry a query string (upstream allows "/healthz?verbose").
		ref, err := url.Parse(action.Path)
		if err != nil {
			return false, fmt.Sprintf("invalid probe path %q: %v", action.Path, err)
		}
		target.Path, target.RawQuery = ref.Path, ref.RawQuery
		if !strings.HasPrefix(target.Path, "/") {
			target.Path = "/" + target.Path
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return false, err.Error()
	}
	req.Header.Set("User-Agent", probeUserAgent)
	req.Header.Set("Accept", "*/*")
	for _, h := range action.HTTPHeaders {
		if strings.EqualFold(h.Name, "Host") {
			req.Host = h.Value
			continue
		}
		req.Header.Add(h.Name, h.Value)
	}

	transport := &http.Transport{
		// Never through a proxy from the kubelet's environment, and never
		// anywhere but 127.0.0.1.
		Proxy:             nil,
		DialContext:       dialLoopbackOnly,
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // upstream's probes do not verify either
		DisableKeepAlives: true,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport: transport,
		// Upstream follows redirects on the same host and treats a redirect
		// elsewhere as success without following it.
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			if next.URL.Hostname() != probeHost || len(via) >= 10 {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxProbeOutput))
	if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusBadRequest {
		return true, string(body)
	}
	return false, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode)
}

// probeTCP opens and closes one TCP connection to 127.0.0.1.
func probeTCP(ctx context.Context, container *api.Container, action *api.TCPSocketAction) (bool, string) {
	port, err := resolveProbePort(action.Port, container)
	if err != nil {
		return false, err.Error()
	}
	conn, err := dialLoopbackOnly(ctx, "tcp", net.JoinHostPort(probeHost, strconv.Itoa(port)))
	if err != nil {
		return false, err.Error()
	}
	conn.Close()
	return true, ""
}

// dialLoopbackOnly dials addr if its host is 127.0.0.1 and refuses anything
// else: the guarantee that probes never reach a pod or service IP does not
// depend on how the URL was built.
func dialLoopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != probeHost {
		return nil, fmt.Errorf("probe refused to dial %s: the process runtime only dials %s", addr, probeHost)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// resolveProbePort turns a probe's port (a number, or the name of one of
// the container's ports) into a number, as upstream does.
func resolveProbePort(port api.IntOrString, container *api.Container) (int, error) {
	n := int(port.IntVal)
	if port.Type == api.IntOrStringString {
		n = -1
		for _, p := range container.Ports {
			if p.Name == port.StrVal {
				n = int(p.ContainerPort)
				break
			}
		}
		if n < 0 {
			if v, err := strconv.Atoi(port.StrVal); err == nil {
				n = v
			} else {
				return 0, fmt.Errorf("couldn't find port: %s in %s", port.StrVal, container.Name)
			}
		}
	}
	if n <= 0 || n > 65535 {
		return 0, fmt.Errorf("invalid port number: %d", n)
	}
	return n, nil
}

// limitedBuffer keeps the first maxProbeOutput bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxProbeOutput - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
