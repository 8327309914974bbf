package cluster

// This file adds metrics-server to the cluster, as metrics-server's
// components.yaml adds it to a real one: a process serving
// metrics.k8s.io/v1beta1 on a loopback port, the Service
// kube-system/metrics-server in front of it, and the APIService
// v1beta1.metrics.k8s.io that tells the apiserver's aggregator to send the
// group there. Differences from the manifest, each for a reason:
//
//   - The Service has no selector and no pod behind it: its port 443
//     (named https) has targetPort = the process's real loopback port, and
//     the aggregator dials 127.0.0.1:<targetPort>. Service IPs are labels in
//     kplane, never dialled.
//   - The APIService carries the cluster CA as caBundle instead of
//     insecureSkipTLSVerify: the launcher signs metrics-server's serving
//     certificate for metrics-server.kube-system.svc with that CA.
//   - metrics-server authenticates to the kubelets with a client
//     certificate for its own user, system:serviceaccount:kube-system:
//     metrics-server (upstream it runs under that ServiceAccount), and the
//     kubelets let that user read /metrics/resource: the nodes/metrics
//     permission upstream's ClusterRole system:metrics-server grants.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/pkg/pki"
)

// MetricsServerComponent is metrics-server's component name.
const MetricsServerComponent = "metrics-server"

// metricsServerBinary is its binary in BinDir.
const metricsServerBinary = "metrics-server"

// DefaultMetricResolution is metrics-server's --metric-resolution unless
// `ctl up --metric-resolution` says otherwise: upstream's 15 s.
const DefaultMetricResolution = 15 * time.Second

// The Service and APIService metrics-server's manifest creates.
const (
	metricsServerNamespace   = "kube-system"
	metricsServerServiceName = "metrics-server"
	metricsServerServicePort = 443
	metricsAPIServiceName    = "v1beta1.metrics.k8s.io"
)

// The certificates the launcher issues for metrics-server, in DATA_DIR/pki.
var (
	metricsServerServingCert = pki.AddonCertificate{
		BaseName:   "metrics-server",
		CommonName: "metrics-server",
		Hosts:      []string{metricsServerServiceName + "." + metricsServerNamespace + ".svc", "127.0.0.1"},
	}
	metricsServerKubeletClientCert = pki.AddonCertificate{
		BaseName:      "metrics-server-kubelet-client",
		CommonName:    auth.MetricsServerUserName,
		Organizations: auth.MetricsServerUser().Groups,
	}
)

// planMetricsServer is the metrics-server component, listening on a port
// picked now (the Service names it), or false when bin/metrics-server was
// not built.
func planMetricsServer(o Options, bin func(string) string) (component, bool, error) {
	if !isExecutable(bin(metricsServerBinary)) {
		return component{}, false, nil
	}
	port, err := freeLoopbackPort()
	if err != nil {
		return component{}, false, err
	}
	l := layout{o.DataDir}
	file := func(name string) string { return filepath.Join(l.pkiDir(), name) }
	resolution := o.MetricResolution
	if resolution <= 0 {
		resolution = DefaultMetricResolution
	}
	return component{
		name: MetricsServerComponent,
		role: roleController,
		user: auth.MetricsServerUser(),
		args: []string{bin(metricsServerBinary), "--kubeconfig", l.kubeconfig(MetricsServerComponent),
			"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
			"--tls-cert-file", file(metricsServerServingCert.BaseName + ".crt"),
			"--tls-private-key-file", file(metricsServerServingCert.BaseName + ".key"),
			"--client-ca-file", file(pki.CACertFileName),
			"--kubelet-client-certificate", file(metricsServerKubeletClientCert.BaseName + ".crt"),
			"--kubelet-client-key", file(metricsServerKubeletClientCert.BaseName + ".key"),
			"--metric-resolution", resolution.String()},
	}, true, nil
}

// metricsServerPort is the --secure-port of the planned metrics-server, or
// 0 when the plan has none.
func metricsServerPort(plan []component) int {
	i := slices.IndexFunc(plan, func(c component) bool { return c.name == MetricsServerComponent })
	if i < 0 {
		return 0
	}
	port, _ := strconv.Atoi(flagValue(plan[i].args, "--secure-port"))
	return port
}

// prepareMetricsServer issues metrics-server's certificates from the
// cluster CA (which the apiserver has made by now) and registers it with
// the apiserver: the Service and the APIService. It returns a note for
// the console when the apiserver does not serve APIServices, so
// metrics-server runs but the apiserver does not route to it.
func prepareMetricsServer(ctx context.Context, admin *client.Client, l layout, port int, caPEM []byte) (note string, err error) {
	for _, cert := range []pki.AddonCertificate{metricsServerServingCert, metricsServerKubeletClientCert} {
		if _, err := pki.EnsureAddonCertificate(l.pkiDir(), cert); err != nil {
			return "", fmt.Errorf("metrics-server: %w", err)
		}
	}
	if err := ensureMetricsServerService(ctx, admin, port); err != nil {
		return "", err
	}
	served, err := ensureMetricsAPIService(ctx, admin, caPEM)
	if err != nil {
		return "", err
	}
	if !served {
		return fmt.Sprintf("the apiserver does not serve apiregistration.k8s.io yet: metrics-server answers at https://127.0.0.1:%d only", port), nil
	}
	return "", nil
}

// metricsServerService is the Service of metrics-server's manifest,
// without a selector, pointing at port.
func metricsServerService(port int) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: metricsServerNamespace, Name: metricsServerServiceName,
			Labels: map[string]string{"k8s-app": "metrics-server"}},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{
			Name: "https", Protocol: api.ProtocolTCP, Port: metricsServerServicePort, TargetPort: api.FromInt(port),
		}}},
	}
}

// ensureMetricsServerService creates the Service, or points an existing one
// at this run's port.
func ensureMetricsServerService(ctx context.Context, admin *client.Client, port int) error {
	services := admin.Services(metricsServerNamespace)
	want := metricsServerService(port)
	current, err := services.Get(ctx, want.Name, client.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := services.Create(ctx, want, client.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create Service %s/%s: %w", want.Namespace, want.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("get Service %s/%s: %w", want.Namespace, want.Name, err)
	}
	if slices.Equal(current.Spec.Ports, want.Spec.Ports) && current.Spec.Selector == nil {
		return nil
	}
	current.Spec.Ports, current.Spec.Selector = want.Spec.Ports, nil
	if _, err := services.Update(ctx, current, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update Service %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// metricsAPIService is the APIService of metrics-server's manifest, with
// the cluster CA as caBundle.
func metricsAPIService(caPEM []byte) *api.APIService {
	port := int32(metricsServerServicePort)
	return &api.APIService{
		ObjectMeta: api.ObjectMeta{Name: metricsAPIServiceName, Labels: map[string]string{"k8s-app": "metrics-server"}},
		Spec: api.APIServiceSpec{
			Service:              &api.ServiceReference{Namespace: metricsServerNamespace, Name: metricsServerServiceName, Port: &port},
			Group:                "metrics.k8s.io",
			Version:              "v1beta1",
			CABundle:             caPEM,
			GroupPriorityMinimum: 100,
			VersionPriority:      100,
		},
	}
}

// ensureMetricsAPIService creates or corrects the APIService. It reports
// false, without error, when the apiserver does not serve APIServices.
func ensureMetricsAPIService(ctx context.Context, admin *client.Client, caPEM []byte) (served bool, err error) {
	apiServices := client.For[*api.APIService](admin, client.APIServicesResource)
	want := metricsAPIService(caPEM)
	_, err = apiServices.Create(ctx, want, client.CreateOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil // a 404 for the resource itself: not served
	case !apierrors.IsAlreadyExists(err):
		return false, fmt.Errorf("create APIService %s: %w", want.Name, err)
	}
	current, err := apiServices.Get(ctx, want.Name, client.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("get APIService %s: %w", want.Name, err)
	}
	if sameAPIServiceSpec(current.Spec, want.Spec) {
		return true, nil
	}
	current.Spec = want.Spec
	if _, err := apiServices.Update(ctx, current, client.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("update APIService %s: %w", want.Name, err)
	}
	return true, nil
}

// sameAPIServiceSpec compares two specs field by field.
func sameAPIServiceSpec(a, b api.APIServiceSpec) bool {
	sameService := (a.Service == nil) == (b.Service == nil)
	if sameService && a.Service != nil {
		sameService = a.Service.Namespace == b.Service.Namespace && a.Service.Name == b.Service.Name &&
			(a.Service.Port == nil) == (b.Service.Port == nil) && (a.Service.Port == nil || *a.Service.Port == *b.Service.Port)
	}
	return sameService && a.Group == b.Group && a.Version == b.Version && a.InsecureSkipTLSVerify == b.InsecureSkipTLSVerify &&
		string(a.CABundle) == string(b.CABundle) && a.GroupPriorityMinimum == b.GroupPriorityMinimum && a.VersionPriority == b.VersionPriority
}
