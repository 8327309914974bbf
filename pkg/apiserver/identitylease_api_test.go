package apiserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// identityLeases lists the identity Leases in kube-system by name.
func identityLeases(t *testing.T, c *client.Client) map[string]*api.Lease {
	t.Helper()
	list, err := c.Leases("kube-system").List(context.Background(), client.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*api.Lease{}
	for i := range list.Items {
		out[list.Items[i].Name] = list.Items[i]
	}
	return out
}

// TestIdentityLease: the apiserver holds kube-system/apiserver-<id> from
// the moment it is ready, with upstream's labels, holder and duration,
// renews it, and deletes another apiserver's Lease once it has expired
// while leaving a live one alone.
func TestIdentityLease(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.IdentityLeaseDuration = 2 * time.Second
		o.IdentityLeaseRenewInterval = 100 * time.Millisecond
		o.IdentityLeaseGCPeriod = 200 * time.Millisecond
	})
	c := a.Client(t, nil)
	ctx := context.Background()

	leases := identityLeases(t, c)
	if len(leases) != 1 {
		t.Fatalf("identity leases at start: %v, want exactly one", leases)
	}
	var own *api.Lease
	for _, l := range leases {
		own = l
	}
	if !strings.HasPrefix(own.Name, "apiserver-") || own.Labels["kubernetes.io/hostname"] == "" ||
		own.Spec.HolderIdentity == nil || !strings.HasPrefix(*own.Spec.HolderIdentity, own.Name+"_") ||
		own.Spec.LeaseDurationSeconds == nil || *own.Spec.LeaseDurationSeconds != 2 || own.Spec.RenewTime == nil {
		t.Fatalf("own lease = %+v %+v", own.ObjectMeta, own.Spec)
	}
	firstRenew := own.Spec.RenewTime.Time

	// Another apiserver's Leases: one that stopped renewing long ago, one
	// renewed just now for an hour.
	stale, live := int32(1), int32(3600)
	other := func(name string, renewed time.Time, seconds *int32) *api.Lease {
		return &api.Lease{
			ObjectMeta: api.ObjectMeta{Name: name, Namespace: "kube-system",
				Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "gone"}},
			Spec: api.LeaseSpec{HolderIdentity: &name, LeaseDurationSeconds: seconds, RenewTime: &api.MicroTime{Time: renewed}},
		}
	}
	for _, l := range []*api.Lease{other("apiserver-stale", time.Now().Add(-time.Hour), &stale), other("apiserver-live", time.Now(), &live)} {
		if _, err := c.Leases("kube-system").Create(ctx, l, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := c.Leases("kube-system").Get(ctx, "apiserver-stale", client.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, fmt.Sprintf("stale lease still there (%v)", err)
		}
		leases := identityLeases(t, c)
		if leases["apiserver-live"] == nil || leases[own.Name] == nil {
			return false, fmt.Sprintf("leases = %v", leases)
		}
		if renewed := leases[own.Name].Spec.RenewTime.Time; !renewed.After(firstRenew) {
			return false, fmt.Sprintf("own lease not renewed since %v", firstRenew)
		}
		return true, ""
	})
}
