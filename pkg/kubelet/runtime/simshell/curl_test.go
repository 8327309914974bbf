package simshell

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/proxy/route"
)

// fakeKubeProxy answers the route question like a node's kube-proxy:
// 10.96.0.20:80 (default/web) goes to web-1 and web-2 in turn, 10.96.0.40
// (default/empty) has no ready endpoint, anything else is no Service.
type fakeKubeProxy struct {
	mu      sync.Mutex
	queries []url.Values
	next    int
}

func (f *fakeKubeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, r.URL.Query())
	q := r.URL.Query()
	var answer route.Route
	status := http.StatusOK
	switch {
	case r.URL.Path != route.Path:
		status, answer = http.StatusNotFound, route.Route{Reason: "NotFound"}
	case q.Get("ip") == "10.96.0.20" && q.Get("port") == "80":
		names := []string{"web-1", "web-2"}
		ips := []string{"10.244.1.11", "10.244.2.12"}
		i := f.next % 2
		f.next++
		answer = route.Route{Service: "default/web:http", Chains: []string{"KUBE-SERVICES", "KUBE-SVC-WEB", "KUBE-SEP-" + strings.ToUpper(names[i])},
			Endpoint: &route.Endpoint{IP: ips[i], Port: 80, PodNamespace: "default", PodName: names[i], NodeName: "node1"}}
	case q.Get("ip") == "10.96.0.40":
		status, answer = http.StatusServiceUnavailable, route.Route{Service: "default/empty", Reason: route.ReasonNoEndpoints, Message: "no ready endpoints"}
	default:
		status, answer = http.StatusNotFound, route.Route{Reason: route.ReasonNoService, Message: "no Service"}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(answer)
}

func webPod(name, ip, image string) *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}
	pod.Spec.Containers = []api.Container{{Name: "c", Image: image}}
	pod.Status.PodIP = ip
	return pod
}

// curlEnv is testEnv with a DNS, a kube-proxy, three pods and the nginx
// stand-in answering.
func curlEnv(t *testing.T) (Env, *fakeKubeProxy) {
	dnsServer := startFakeDNS(t, map[string][]string{
		"web.default.svc.cluster.local.":   {"10.96.0.20"},
		"empty.default.svc.cluster.local.": {"10.96.0.40"},
	})
	proxy := &fakeKubeProxy{}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	env := testEnv()
	env.DNSAddress = dnsServer.addr
	env.KubeProxyAddress = strings.TrimPrefix(srv.URL, "http://")
	env.Cluster = &fakeCluster{pods: []*api.Pod{env.Pod, webPod("web-1", "10.244.1.11", "nginx"), webPod("web-2", "10.244.2.12", "nginx:1.27"),
		webPod("redis-0", "10.244.1.20", "redis")}}
	env.HTTP = nginxAnswer
	return env, proxy
}

func TestCurlAServiceAnswersAsTheEndpointKubeProxyChose(t *testing.T) {
	env, proxy := curlEnv(t)
	r := script(t, env, "curl -s web; curl -s http://web:80/")
	want := "Welcome to nginx! Served by pod web-1\nWelcome to nginx! Served by pod web-2\n"
	if r.stdout != want || r.code != 0 || r.stderr != "" {
		t.Fatalf("stdout %q stderr %q code %d", r.stdout, r.stderr, r.code)
	}
	q := proxy.queries[0]
	if q.Get("ip") != "10.96.0.20" || q.Get("port") != "80" || q.Get("protocol") != "TCP" || q.Get("sourceIP") != "10.244.1.5" {
		t.Errorf("route question %v, want the Service IP, port, TCP and the pod's IP as source", q)
	}
}

func TestCurlMessagesAndExitCodes(t *testing.T) {
	env, _ := curlEnv(t)
	cases := []struct {
		line, stdout, stderr string
		code                 int
	}{
		{"curl -s nope", "", "", 6},
		{"curl -sS nope", "", "curl: (6) Could not resolve host: nope\n", 6},
		{"curl -s empty", "", "", 7},
		{"curl -sS empty", "", "curl: (7) Failed to connect to empty port 80 after 0 ms: Couldn't connect to server\n", 7},
		{"curl -sS web:8080", "", "curl: (7) Failed to connect to web port 8080 after 0 ms: Couldn't connect to server\n", 7},
		{"curl -sS 10.244.1.20", "", "curl: (7) Failed to connect to 10.244.1.20 port 80 after 0 ms: Couldn't connect to server\n", 7},
		{"curl -sS 10.1.2.3", "", "curl: (7) Failed to connect to 10.1.2.3 port 80 after 0 ms: Couldn't connect to server\n", 7},
		{"curl -s 10.244.2.12", "Welcome to nginx! Served by pod web-2\n", "", 0},
		{"curl -s localhost", "Welcome to nginx! Served by pod nginx-ss-0\n", "", 0},
		{"curl -sI web", "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 39\r\n\r\n", "", 0},
		{"curl -sf web/missing", "", "", 22},
		{"curl -s -o /dev/null web && echo ok", "ok\n", "", 0},
		{"curl --bogus web", "", "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", 2},
		{"wget -qO- web", "Welcome to nginx! Served by pod web-1\n", "", 0},
		{"wget -O- web", "Welcome to nginx! Served by pod web-1\n", "Connecting to web (10.96.0.20:80)\nwriting to stdout\nwritten to stdout\n", 0},
		{"curl -s -o /tmp/page web && cat /tmp/page", "Welcome to nginx! Served by pod web-1\n", "", 0},
		{"curl -s -o /etc/hosts/x web", "", "", 23},
		{"curl -sS -o /nope/page web", "", "Warning: Failed to open the file /nope/page: No such file or directory\ncurl: (23) Failure writing output to destination\n", 23},
		{"cd /tmp && wget -q web && cat index.html", "Welcome to nginx! Served by pod web-1\n", "", 0},
		{"cd /tmp && wget -q web && wget -q web", "", "wget: can't open 'index.html': File exists\n", 1},
		{"wget -O /tmp/p web && wc -c /tmp/p", "38 /tmp/p\n", "Connecting to web (10.96.0.20:80)\nsaving to '/tmp/p'\np                    100% |********************************|    38  0:00:00 ETA\n'/tmp/p' saved\n", 0},
		{"wget -qO- nope", "", "wget: bad address 'nope'\n", 1},
		{"wget -qO- empty", "", "wget: can't connect to remote host (10.96.0.40): Connection refused\n", 1},
		{"wget -qO- web/missing", "", "wget: server returned error: HTTP/1.1 404 Not Found\n", 1},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			env, _ := curlEnv(t)
			r := script(t, env, tc.line)
			if r.stdout != tc.stdout || r.stderr != tc.stderr || r.code != tc.code {
				t.Errorf("stdout %q\nstderr %q\ncode %d\nwant %q %q %d", r.stdout, r.stderr, r.code, tc.stdout, tc.stderr, tc.code)
			}
		})
	}
	_ = env
}

func TestCurlVerboseShowsTheKubeProxyChoice(t *testing.T) {
	env, _ := curlEnv(t)
	r := script(t, env, "curl -sv web")
	for _, want := range []string{"*   Trying 10.96.0.20:80...", "* kplane: kube-proxy rules for default/web:http: KUBE-SERVICES -> KUBE-SVC-WEB -> KUBE-SEP-WEB-1",
		"* kplane: DNAT to endpoint 10.244.1.11:80 (pod default/web-1 on node1)", "* Connected to web (10.96.0.20) port 80", "> GET / HTTP/1.1\r\n> Host: web\r\n",
		"< HTTP/1.1 200 OK\r\n< Server: nginx\r\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("curl -v's stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestCurlWithoutKubeProxyReachesNoService(t *testing.T) {
	env, _ := curlEnv(t)
	env.KubeProxyAddress = ""
	if r := script(t, env, "curl -sS web"); r.code != 7 {
		t.Errorf("a Service IP without a kube-proxy: %+v", r)
	}
	if r := script(t, env, "curl -s 10.244.1.11"); r.code != 0 || !strings.Contains(r.stdout, "web-1") {
		t.Errorf("a pod IP without a kube-proxy: %+v", r)
	}
}
