package apiserver

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/kubeletaddr"
)

func TestParsePodLogOptions(t *testing.T) {
	tests := []struct {
		query      string
		wantReason string
		wantMsg    string
		wantQuery  string // forwarded to the kubelet
	}{
		{query: "", wantQuery: ""},
		{query: "container=app&follow=true&tailLines=10&timestamps=1", wantQuery: "follow=true&tailLines=10&timestamps=true"},
		{query: "previous=false&follow=0&limitBytes=5", wantQuery: "limitBytes=5"},
		{query: "sinceSeconds=30", wantQuery: "sinceSeconds=30"},
		{query: "sinceTime=2024-05-01T10:00:00Z", wantQuery: "sinceTime=2024-05-01T10%3A00%3A00Z"},
		{query: "tailLines=ten", wantReason: apierrors.ReasonBadRequest, wantMsg: `invalid value "ten" for tailLines`},
		{query: "sinceTime=yesterday", wantReason: apierrors.ReasonBadRequest, wantMsg: "invalid value"},
		{query: "tailLines=-1", wantReason: apierrors.ReasonInvalid,
			wantMsg: `PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{query: "limitBytes=0", wantReason: apierrors.ReasonInvalid, wantMsg: "limitBytes: Invalid value: 0: must be greater than 0"},
		{query: "sinceSeconds=5&sinceTime=2024-05-01T10:00:00Z", wantReason: apierrors.ReasonInvalid, wantMsg: "at most one of `sinceTime` or `sinceSeconds` may be specified"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			opts, err := parsePodLogOptions(queryParams(q), "web")
			if tt.wantReason != "" {
				if got := apierrors.ReasonOf(err); got != tt.wantReason {
					t.Fatalf("reason = %q (err %v), want %q", got, err, tt.wantReason)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("message = %q, want it to contain %q", err.Error(), tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := opts.kubeletQuery().Encode(); got != tt.wantQuery {
				t.Errorf("kubelet query = %q, want %q", got, tt.wantQuery)
			}
		})
	}
}

func TestLogContainer(t *testing.T) {
	pod := func(containers ...string) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web"}}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: c})
		}
		return p
	}
	withInit := pod("app")
	withInit.Spec.InitContainers = []api.Container{{Name: "setup"}}
	twoWithInit := pod("a", "b")
	twoWithInit.Spec.InitContainers = []api.Container{{Name: "setup"}}
	tests := []struct {
		name      string
		pod       *api.Pod
		container string
		want      string
		wantErr   string
	}{
		{name: "only container", pod: pod("app"), want: "app"},
		{name: "only regular container beside an init container", pod: withInit, want: "app"},
		{name: "named", pod: pod("a", "b"), container: "b", want: "b"},
		{name: "named init container", pod: withInit, container: "setup", want: "setup"},
		{name: "several", pod: pod("a", "b"), wantErr: "a container name must be specified for pod web, choose one of: [a b]"},
		{name: "several with init", pod: twoWithInit, wantErr: "a container name must be specified for pod web, choose one of: [setup a b]"},
		{name: "unknown", pod: pod("a"), container: "z", wantErr: "container z is not valid for pod web"},
		{name: "none", pod: pod(), wantErr: "a container name must be specified for pod web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := logContainer(tt.pod, tt.container)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || apierrors.ReasonOf(err) != apierrors.ReasonBadRequest {
					t.Fatalf("err = %v (%s), want BadRequest %q", err, apierrors.ReasonOf(err), tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("logContainer = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCheckContainerLogStatus(t *testing.T) {
	terminated := &api.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
	tests := []struct {
		name     string
		status   *api.ContainerStatus
		previous bool
		wantErr  string
	}{
		{name: "no status yet", wantErr: `container "app" in pod "web" is waiting to start: ContainerCreating`},
		{name: "creating", status: &api.ContainerStatus{State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}},
			wantErr: `container "app" in pod "web" is waiting to start: ContainerCreating`},
		{name: "image pull", status: &api.ContainerStatus{State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ErrImagePull"}}},
			wantErr: `container "app" in pod "web" is waiting to start: image can't be pulled`},
		{name: "running", status: &api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{}}}},
		{name: "terminated", status: &api.ContainerStatus{State: api.ContainerState{Terminated: terminated}}},
		{name: "crash loop shows the last run", status: &api.ContainerStatus{
			State:                api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: api.ContainerState{Terminated: terminated}}},
		{name: "previous exists", previous: true, status: &api.ContainerStatus{
			State: api.ContainerState{Running: &api.ContainerStateRunning{}}, LastTerminationState: api.ContainerState{Terminated: terminated}}},
		{name: "no previous run", previous: true, status: &api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{}}},
			wantErr: `previous terminated container "app" in pod "web" not found`},
		{name: "empty state", status: &api.ContainerStatus{}, wantErr: `container "app" in pod "web" is waiting to start - no logs yet`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web"}}
			if tt.status != nil {
				tt.status.Name = "app"
				pod.Status.ContainerStatuses = []api.ContainerStatus{*tt.status}
			}
			err := checkContainerLogStatus(pod, "app", tt.previous)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr || apierrors.ReasonOf(err) != apierrors.ReasonBadRequest {
				t.Errorf("err = %v, want BadRequest %q", err, tt.wantErr)
			}
		})
	}
}

func TestKubeletHost(t *testing.T) {
	node := func(port int32, addrs ...api.NodeAddress) *api.Node {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}
		n.Status.Addresses = addrs
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = port
		return n
	}
	internal := func(ip string) api.NodeAddress { return api.NodeAddress{Type: api.NodeInternalIP, Address: ip} }
	hostname := api.NodeAddress{Type: api.NodeHostName, Address: "node1"}
	tests := []struct {
		name     string
		networks []string
		node     *api.Node
		want     string
		wantErr  string
	}{
		{name: "IPv4 loopback", node: node(10250, hostname, internal("127.0.0.1")), want: "127.0.0.1:10250"},
		{name: "IPv6 loopback", node: node(4242, internal("::1")), want: "[::1]:4242"},
		{name: "pod network address refused", node: node(10250, internal("10.0.0.5")), wantErr: "only dials kubelets on 127.0.0.1 or ::1"},
		{name: "other loopback refused", node: node(10250, internal("127.0.0.2")), wantErr: "only dials kubelets on 127.0.0.1 or ::1"},
		{name: "no InternalIP", node: node(10250, hostname), wantErr: "no preferred addresses found"},
		{name: "no port", node: node(0, internal("127.0.0.1")), wantErr: "reports no kubelet port"},
		{name: "inside --kubelet-networks", networks: []string{"192.168.250.0/24"}, node: node(10250, internal("192.168.250.3")), want: "192.168.250.3:10250"},
		{name: "the apiserver's own port on loopback", node: node(6443, internal("127.0.0.1")), wantErr: "never dials itself as a kubelet"},
		{name: "the apiserver's own port on IPv6 loopback", node: node(6443, internal("::1")), wantErr: "never dials itself as a kubelet"},
		{name: "another port on loopback", node: node(6444, internal("127.0.0.1")), want: "127.0.0.1:6444"},
		{name: "outside --kubelet-networks", networks: []string{"192.168.250.0/24"}, node: node(10250, internal("10.0.0.5")),
			wantErr: "only dials kubelets on 127.0.0.1 or ::1, 192.168.250.0/24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nets, err := kubeletaddr.ParseNetworks(tt.networks)
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{opts: Options{KubeletNetworks: tt.networks, BindAddress: "127.0.0.1"}, port: 6443, kubeletNets: nets}
			got, err := s.kubeletHost(tt.node)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("kubeletHost = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestKubeletError(t *testing.T) {
	tests := []struct {
		code       int
		wantCode   int32
		wantReason string
		wantMsg    string
	}{
		{code: http.StatusBadRequest, wantCode: 400, wantReason: apierrors.ReasonBadRequest, wantMsg: "kubelet says"},
		{code: http.StatusNotFound, wantCode: 404, wantReason: apierrors.ReasonNotFound, wantMsg: "the server could not find the requested resource ( pods/log web)"},
		{code: http.StatusInternalServerError, wantCode: 500, wantReason: apierrors.ReasonInternalError, wantMsg: "Internal error occurred: kubelet says"},
		{code: http.StatusServiceUnavailable, wantCode: 503, wantMsg: "the server responded with the status code 503"},
	}
	for _, tt := range tests {
		err := kubeletError(tt.code, "kubelet says", "web")
		var se *apierrors.StatusError
		if !asStatus(err, &se) {
			t.Fatalf("%d: %T is not a StatusError", tt.code, err)
		}
		if se.ErrStatus.Code != tt.wantCode || se.ErrStatus.Reason != tt.wantReason || !strings.Contains(se.ErrStatus.Message, tt.wantMsg) {
			t.Errorf("%d: got %d %q %q, want %d %q containing %q", tt.code, se.ErrStatus.Code, se.ErrStatus.Reason, se.ErrStatus.Message,
				tt.wantCode, tt.wantReason, tt.wantMsg)
		}
	}
}

func asStatus(err error, target **apierrors.StatusError) bool {
	se, ok := err.(*apierrors.StatusError)
	*target = se
	return ok
}

// A --kubelet-networks value that is not a CIDR stops the apiserver before
// it starts, naming the flag.
func TestOptionsValidateKubeletNetworks(t *testing.T) {
	opts := DefaultOptions()
	opts.KubeletNetworks = []string{"192.168.250.0/24"}
	if err := opts.Validate(); err != nil {
		t.Fatalf("a CIDR was refused: %v", err)
	}
	opts.KubeletNetworks = []string{"192.168.250.3"}
	if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), "--kubelet-networks") {
		t.Fatalf("Validate = %v, want an error naming --kubelet-networks", err)
	}
}

// servesOn knows every address the apiserver answers on: its port on the
// bind address (any address when bound to all), the advertise address and
// loopback; another port, or another address it is not bound to, is not it.
func TestServesOn(t *testing.T) {
	tests := []struct {
		bind, advertise string
		addr            string
		want            bool
	}{
		{"127.0.0.1", "", "127.0.0.1:6443", true},
		{"127.0.0.1", "", "127.0.0.1:10250", false},
		{"127.0.0.1", "", "[::ffff:127.0.0.1]:6443", true},
		{"127.0.0.1", "", "192.168.250.3:6443", false},
		{"192.168.250.1", "", "192.168.250.1:6443", true},
		{"192.168.250.1", "", "192.168.250.2:6443", false},
		{"0.0.0.0", "", "192.168.250.7:6443", true},
		{"::", "", "[fd00::1]:6443", true},
		{"0.0.0.0", "", "192.168.250.7:10250", false},
		{"127.0.0.1", "192.168.250.1", "192.168.250.1:6443", true},
		{"127.0.0.1", "", "apiserver.example:6443", true},
	}
	for _, tt := range tests {
		s := &Server{opts: Options{BindAddress: tt.bind, AdvertiseAddress: tt.advertise}, port: 6443}
		if got := s.servesOn(tt.addr); got != tt.want {
			t.Errorf("bind %s advertise %q: servesOn(%s) = %v, want %v", tt.bind, tt.advertise, tt.addr, got, tt.want)
		}
	}
}

// The transport's dialer refuses the apiserver itself even when the
// address did not come from kubeletHost (a kubelet's redirect).
func TestKubeletDialRefusesTheApiserver(t *testing.T) {
	s := &Server{opts: Options{BindAddress: "127.0.0.1"}, port: 6443}
	_, err := s.kubeletDialContext()(context.Background(), "tcp", "127.0.0.1:6443")
	if err == nil || !strings.Contains(err.Error(), "this apiserver serves there") {
		t.Fatalf("dial the apiserver's own address: err = %v, want a refusal", err)
	}
}
