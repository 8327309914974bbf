package cluster

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/auth"
)

func TestPlanMetricsServerWhenBuilt(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "metrics-server")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated, MetricResolution: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(plan, func(c component) bool { return c.name == MetricsServerComponent })
	if i < 0 {
		t.Fatalf("plan %+v has no metrics-server", plan)
	}
	ms := plan[i]
	if ms.user.Name != auth.MetricsServerUserName || ms.role != roleController {
		t.Errorf("metrics-server runs as %q in role %v", ms.user.Name, ms.role)
	}
	port := metricsServerPort(plan)
	if port <= 0 {
		t.Fatalf("no --secure-port in %v", ms.args)
	}
	want := "--kubeconfig /data/kubeconfigs/metrics-server.kubeconfig --bind-address 127.0.0.1 --secure-port " + strconv.Itoa(port) +
		" --tls-cert-file /data/pki/metrics-server.crt --tls-private-key-file /data/pki/metrics-server.key --client-ca-file /data/pki/ca.crt" +
		" --kubelet-client-certificate /data/pki/metrics-server-kubelet-client.crt --kubelet-client-key /data/pki/metrics-server-kubelet-client.key" +
		" --metric-resolution 5s" +
		" --debug-ring-size 0 --debug-endpoint-file /data/debug/metrics-server.json --debug-component-name metrics-server --debug-address 127.0.0.1:0"
	if got := strings.Join(ms.args[1:], " "); got != want {
		t.Errorf("metrics-server args:\n got %s\nwant %s", got, want)
	}
}

func TestNoMetricsServerWithoutItsBinary(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated})
	if err != nil {
		t.Fatal(err)
	}
	if port := metricsServerPort(plan); port != 0 {
		t.Errorf("metrics-server planned on port %d without bin/metrics-server", port)
	}
}

func TestMetricsAPIServiceIsTheManifests(t *testing.T) {
	svc := metricsServerService(24443)
	if svc.Namespace != "kube-system" || svc.Name != "metrics-server" || svc.Spec.Selector != nil || len(svc.Spec.Ports) != 1 {
		t.Fatalf("service %+v", svc)
	}
	if p := svc.Spec.Ports[0]; p.Name != "https" || p.Port != 443 || p.TargetPort.IntValue() != 24443 {
		t.Errorf("port %+v, want https 443 → 24443", p)
	}
	as := metricsAPIService([]byte("CA"))
	spec := as.Spec
	if as.Name != "v1beta1.metrics.k8s.io" || spec.Group != "metrics.k8s.io" || spec.Version != "v1beta1" ||
		spec.GroupPriorityMinimum != 100 || spec.VersionPriority != 100 || string(spec.CABundle) != "CA" || spec.InsecureSkipTLSVerify {
		t.Errorf("APIService %+v", as)
	}
	if s := spec.Service; s == nil || s.Namespace != "kube-system" || s.Name != "metrics-server" || s.Port == nil || *s.Port != 443 {
		t.Errorf("APIService service %+v", spec.Service)
	}
	if !sameAPIServiceSpec(spec, metricsAPIService([]byte("CA")).Spec) || sameAPIServiceSpec(spec, metricsAPIService([]byte("other")).Spec) {
		t.Error("sameAPIServiceSpec does not tell a changed caBundle")
	}
}
