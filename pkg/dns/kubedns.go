package dns

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// The kube-dns Service, as kubeadm's CoreDNS add-on creates it
// (cmd/kubeadm/app/phases/addons/dns/manifests.go): the name every
// cluster gives its DNS, whatever runs behind it.
const (
	kubeDNSNamespace = "kube-system"
	kubeDNSName      = "kube-dns"
)

// kubeDNSService is the kube-dns Service with cluster IP serviceIP:
// ports dns 53/UDP, dns-tcp 53/TCP and metrics 9153/TCP, the add-on's
// labels and Prometheus annotations, and its selector k8s-app=kube-dns.
//
// No pod matches the selector: kplane's DNS is a process `ctl up` starts,
// not a pod, so the Service's EndpointSlice stays empty and `kubectl get
// endpoints -n kube-system kube-dns` shows <none>. That is honest: the
// cluster IP is a label that pods' resolv.conf names, and whoever
// answers for it (the simulated pod shell, a student's dig) reaches the
// DNS at its loopback address instead.
func kubeDNSService(serviceIP string) *api.Service {
	labels := map[string]string{
		"k8s-app":                       "kube-dns",
		"kubernetes.io/cluster-service": "true",
		"kubernetes.io/name":            "CoreDNS",
	}
	return &api.Service{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: api.ObjectMeta{
			Name: kubeDNSName, Namespace: kubeDNSNamespace, Labels: labels,
			Annotations: map[string]string{"prometheus.io/port": "9153", "prometheus.io/scrape": "true"},
		},
		Spec: api.ServiceSpec{
			Type:      api.ServiceTypeClusterIP,
			ClusterIP: serviceIP,
			Selector:  map[string]string{"k8s-app": "kube-dns"},
			Ports: []api.ServicePort{
				{Name: "dns", Port: 53, Protocol: api.ProtocolUDP, TargetPort: api.FromInt(53)},
				{Name: "dns-tcp", Port: 53, Protocol: api.ProtocolTCP, TargetPort: api.FromInt(53)},
				{Name: "metrics", Port: 9153, Protocol: api.ProtocolTCP, TargetPort: api.FromInt(9153)},
			},
		},
	}
}

// ensureKubeDNSService creates the kube-dns Service unless it exists.
// An existing one is left as it is (a student may have changed it), as
// kubeadm leaves a Service it finds; created says which happened. It
// looks before it creates: the apiserver allocates the requested cluster
// IP before it checks the name, so creating a Service that exists fails
// with "IP already allocated" rather than AlreadyExists.
func ensureKubeDNSService(ctx context.Context, c *client.Client, serviceIP string) (svc *api.Service, created bool, err error) {
	services := c.Services(kubeDNSNamespace)
	svc, err = services.Get(ctx, kubeDNSName, client.GetOptions{})
	if err == nil {
		return svc, false, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, false, fmt.Errorf("get Service %s/%s: %w", kubeDNSNamespace, kubeDNSName, err)
	}
	svc, err = services.Create(ctx, kubeDNSService(serviceIP), client.CreateOptions{})
	if apierrors.IsAlreadyExists(err) { // created meanwhile, by another hand
		if svc, err = services.Get(ctx, kubeDNSName, client.GetOptions{}); err == nil {
			return svc, false, nil
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("create Service %s/%s: %w", kubeDNSNamespace, kubeDNSName, err)
	}
	return svc, true, nil
}
