package controllertest

import (
	"testing"

	"kplane/pkg/cloudprovider/simulated"
	"kplane/test/framework/fakeapi"
)

// NewCloudFixture starts what a cloud controller's fixture test
// (sample-controller's pattern) begins with: a fake apiserver with its
// informers, a simulated cloud that hands out load-balancer addresses from
// poolCIDR, and a Recorder for the controller's Events.
func NewCloudFixture(t testing.TB, poolCIDR string) (*fakeapi.Server, *simulated.Cloud, *Recorder) {
	t.Helper()
	server := fakeapi.New(t)
	cloud, err := simulated.New(poolCIDR)
	if err != nil {
		t.Fatal(err)
	}
	return server, cloud, &Recorder{}
}
