package cloudcontrollermanager

import (
	"strings"
	"testing"
)

func TestDefaultOptionsAreUpstreamsAndValid(t *testing.T) {
	o := DefaultOptions()
	if o.LeaderElectResourceNamespace+"/"+o.LeaderElectResourceName != "kube-system/cloud-controller-manager" ||
		o.BindAddress != "127.0.0.1:10258" || o.CloudProvider != "kplane" || o.LoadBalancerIPRange != "198.51.100.0/24" || !o.ConfigureCloudRoutes {
		t.Fatalf("defaults = %+v", o)
	}
	if err := o.validateCloud(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range Controllers(nil, o) {
		names = append(names, d.Name)
		if o.ConcurrentSyncs[d.Name] != 1 {
			t.Errorf("%s workers = %d, want upstream's 1", d.Name, o.ConcurrentSyncs[d.Name])
		}
	}
	if strings.Join(names, ",") != "cloud-node,cloud-node-lifecycle,service-lb,node-route" {
		t.Fatalf("controllers = %v", names)
	}
}

func TestValidateCloudReportsEveryProblem(t *testing.T) {
	o := DefaultOptions()
	o.CloudProvider, o.LoadBalancerIPRange, o.ClusterCIDR = "aws", "198.51.100.0", "10.244.0.0/16,nonsense"
	err := o.validateCloud()
	for _, want := range []string{`--cloud-provider "aws"`, `--load-balancer-ip-range "198.51.100.0"`, `--cluster-cidr "10.244.0.0/16,nonsense"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to mention %s", err, want)
		}
	}
}

// --configure-cloud-routes=false keeps node-route out of "*".
func TestConfigureCloudRoutesFalseLeavesTheRouteControllerOut(t *testing.T) {
	o := DefaultOptions()
	o.ConfigureCloudRoutes = false
	for _, d := range Controllers(nil, o) {
		if d.DisabledByDefault != (d.Name == "node-route") {
			t.Errorf("%s DisabledByDefault = %v", d.Name, d.DisabledByDefault)
		}
	}
	cidrs, err := (&Options{ClusterCIDR: "10.244.0.0/16, fd00:10:244::/56"}).clusterCIDRs()
	if err != nil || len(cidrs) != 2 || cidrs[1].String() != "fd00:10:244::/56" {
		t.Fatalf("dual-stack --cluster-cidr = %v, %v", cidrs, err)
	}
}
