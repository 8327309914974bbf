package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
)

// startSim starts container name of pod on a simulated runtime built by
// the registered factory, as the kubelet builds it.
func startSim(t *testing.T, pod *api.Pod, name string) *simContainer {
	t.Helper()
	rt, err := New(SimulatedName, Config{NodeName: "node1", NodeIP: "127.0.0.1", ClusterDNS: "10.96.0.10", ClusterDomain: "cluster.local"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := rt.Start(ctx, pod, findContainerSpec(pod, name), 0)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*simContainer)
}

func shellPod(container api.Container) *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "t", Namespace: "default"},
		Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever, DNSPolicy: api.DNSClusterFirst, Containers: []api.Container{container}}}
	pod.Status.PodIP = "10.244.1.9"
	return pod
}

func TestSimulatedExecRunsTheShell(t *testing.T) {
	pod := shellPod(api.Container{Name: "web", Image: "nginx", Env: []api.EnvVar{{Name: "MODE", Value: "test"}}})
	pod.Spec.RestartPolicy = api.RestartPolicyAlways
	c := startSim(t, pod, "web")
	var execer Execer = c
	var out, errOut bytes.Buffer
	code, err := execer.Exec(t.Context(), []string{"sh", "-c", "hostname; cat /etc/resolv.conf; echo $MODE; exit 3"},
		Streams{Stdout: &out, Stderr: &errOut})
	want := "t\nsearch default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\ntest\n"
	if err != nil || code != 3 || out.String() != want {
		t.Errorf("exec: code %d err %v stdout %q stderr %q", code, err, out.String(), errOut.String())
	}
	code, err = execer.Exec(t.Context(), []string{"top"}, Streams{Stdout: &out})
	if code != 127 || !errors.Is(err, ErrCommandNotFound) {
		t.Errorf("exec top: code %d err %v, want 127 and ErrCommandNotFound", code, err)
	}
}

func TestSimulatedExecIntoAnExitedContainerFails(t *testing.T) {
	pod := shellPod(api.Container{Name: "web", Image: "nginx"})
	c := startSim(t, pod, "web")
	c.Stop(0)
	<-c.Done()
	if _, err := c.Exec(t.Context(), []string{"hostname"}, Streams{}); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("exec into an exited container: %v, want a not-running error", err)
	}
}

func TestSimulatedInteractiveShellContainerExitsWithItsShell(t *testing.T) {
	pod := shellPod(api.Container{Name: "t", Image: "busybox", Args: []string{"sh"}, Stdin: true, StdinOnce: true, TTY: true})
	c := startSim(t, pod, "t")
	if !c.plan.forever {
		t.Fatalf("an interactive shell container with restartPolicy Never should wait for its input, plan %+v", c.plan)
	}
	var attacher Attacher = c
	var out bytes.Buffer
	err := attacher.Attach(t.Context(), Streams{Stdin: strings.NewReader("hostname\rexit 3\r"), Stdout: &out, TTY: true})
	if err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	if c.ExitCode() != 3 || c.Reason() != ReasonError {
		t.Errorf("container exited %d (%s), want 3 (Error)", c.ExitCode(), c.Reason())
	}
	if want := "/ # hostname\r\nt\r\n/ # exit 3\r\n"; out.String() != want {
		t.Errorf("terminal shows %q, want %q", out.String(), want)
	}
}

func TestSimulatedShellContainerOutlivesADetachedClient(t *testing.T) {
	pod := shellPod(api.Container{Name: "t", Image: "busybox", Command: []string{"/bin/sh"}, Stdin: true})
	c := startSim(t, pod, "t")
	ctx, cancel := context.WithCancel(t.Context())
	stdin, typing := io.Pipe()
	done := make(chan error)
	var out bytes.Buffer
	go func() { done <- c.Attach(ctx, Streams{Stdin: stdin, Stdout: &out}) }()
	io.WriteString(typing, "hostname\n") // returns once the shell has read it
	cancel()                             // the client detaches without closing stdin
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	typing.Close()
	select {
	case <-c.Done():
		t.Fatalf("the container exited (%d) when its client detached; without stdinOnce it keeps running", c.ExitCode())
	default:
	}
	// A second client gets a session of its own, whose exit ends the container.
	if err := c.Attach(t.Context(), Streams{Stdin: strings.NewReader("exit 0\n"), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	if c.ExitCode() != 0 || c.Reason() != ReasonCompleted {
		t.Errorf("exit %d (%s), want 0 (Completed)", c.ExitCode(), c.Reason())
	}
}

func TestSimulatedAttachToANonShellContainerFollowsItsOutput(t *testing.T) {
	pod := shellPod(api.Container{Name: "web", Image: "nginx"})
	pod.Spec.RestartPolicy = api.RestartPolicyAlways
	c := startSim(t, pod, "web")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	out := &notifyingBuffer{written: make(chan struct{}, 1)}
	go func() { done <- c.Attach(ctx, Streams{Stdout: out}) }()
	// The container prints a line until the attached client has seen
	// one: a line printed before Attach joined is not for this client.
	for !strings.Contains(out.String(), "GET / 200") {
		c.logs.write([]byte("GET / 200\n"))
		select {
		case err := <-done:
			t.Fatalf("attach returned early: %v", err)
		case <-out.written:
		default:
			goruntime.Gosched()
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("attach: %v", err)
	}
	select {
	case <-c.Done():
		t.Error("detaching stopped the container")
	default:
	}
}

// notifyingBuffer is a buffer safe for concurrent use that signals each
// write on written.
type notifyingBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{}
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() {
		select {
		case b.written <- struct{}{}:
		default:
		}
	}()
	return b.buf.Write(p)
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// servicesOnly is a simshellServices over fixed Services.
type servicesOnly []*api.Service

func (s servicesOnly) ListServices(_ context.Context, namespace string) ([]*api.Service, error) {
	var out []*api.Service
	for _, svc := range s {
		if svc.Namespace == namespace {
			out = append(out, svc)
		}
	}
	return out, nil
}

func (s servicesOnly) GetService(_ context.Context, namespace, name string) (*api.Service, error) {
	for _, svc := range s {
		if svc.Namespace == namespace && svc.Name == name {
			return svc, nil
		}
	}
	return nil, nil
}

func TestSimContainerEnvHasServiceLinks(t *testing.T) {
	svc := func(ns, name, ip string, ports ...api.ServicePort) *api.Service {
		return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Spec: api.ServiceSpec{ClusterIP: ip, Ports: ports}}
	}
	services := servicesOnly{
		svc("default", "kubernetes", "10.96.0.1", api.ServicePort{Name: "https", Port: 443, Protocol: api.ProtocolTCP}),
		svc("shop", "web-front", "10.96.0.20", api.ServicePort{Port: 80}, api.ServicePort{Name: "dns-udp", Port: 53, Protocol: "UDP"}),
		svc("shop", "headless", "None", api.ServicePort{Port: 80}),
		svc("other", "elsewhere", "10.96.0.30", api.ServicePort{Port: 80}),
	}
	pod := shellPod(api.Container{Name: "c", Env: []api.EnvVar{{Name: "WEB", Value: "$(WEB_FRONT_SERVICE_HOST):$(WEB_FRONT_SERVICE_PORT)"}}})
	pod.Namespace, pod.Spec.Hostname = "shop", "host"
	got := simContainerEnv(t.Context(), services, pod, &pod.Spec.Containers[0])
	want := []string{"PATH=" + defaultPath, "HOSTNAME=host", "WEB=10.96.0.20:80",
		"KUBERNETES_PORT=tcp://10.96.0.1:443", "KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443", "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1",
		"KUBERNETES_PORT_443_TCP_PORT=443", "KUBERNETES_PORT_443_TCP_PROTO=tcp", "KUBERNETES_SERVICE_HOST=10.96.0.1",
		"KUBERNETES_SERVICE_PORT=443", "KUBERNETES_SERVICE_PORT_HTTPS=443",
		"WEB_FRONT_PORT=tcp://10.96.0.20:80", "WEB_FRONT_PORT_53_UDP=udp://10.96.0.20:53", "WEB_FRONT_PORT_53_UDP_ADDR=10.96.0.20",
		"WEB_FRONT_PORT_53_UDP_PORT=53", "WEB_FRONT_PORT_53_UDP_PROTO=udp", "WEB_FRONT_PORT_80_TCP=tcp://10.96.0.20:80",
		"WEB_FRONT_PORT_80_TCP_ADDR=10.96.0.20", "WEB_FRONT_PORT_80_TCP_PORT=80", "WEB_FRONT_PORT_80_TCP_PROTO=tcp",
		"WEB_FRONT_SERVICE_HOST=10.96.0.20", "WEB_FRONT_SERVICE_PORT=80", "WEB_FRONT_SERVICE_PORT_DNS_UDP=53", "HOME=/root"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("env:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	no := false
	pod.Spec.EnableServiceLinks = &no
	got = simContainerEnv(t.Context(), services, pod, &pod.Spec.Containers[0])
	if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "WEB_FRONT_") }) ||
		!slices.Contains(got, "KUBERNETES_SERVICE_HOST=10.96.0.1") {
		t.Errorf("enableServiceLinks: false keeps only the kubernetes Service's variables, got %v", got)
	}
}
