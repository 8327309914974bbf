package apiserver

// This file is the apiserver's identity Lease, after upstream's
// kube-apiserver: every apiserver says "I am alive" by renewing a Lease
// kube-system/apiserver-<id> (a heartbeat, as a kubelet renews its node's
// Lease), and every apiserver deletes the identity Leases of other
// apiservers that stopped renewing theirs long ago (upstream's
// apiserverleasegc). Other components count the live apiservers this way;
// `kubectl -n kube-system get lease` shows it next to the controller-manager's
// and scheduler's leader-election Leases.

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"os"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"

	"github.com/google/uuid"
)

const (
	// IdentityLeaseComponentLabel marks a Lease as an apiserver's identity;
	// its value names the kind of apiserver ("kube-apiserver").
	IdentityLeaseComponentLabel = "apiserver.kubernetes.io/identity"
	// identityLeaseComponent is the label's value for this apiserver.
	identityLeaseComponent = "kube-apiserver"
	// hostnameLabel carries the host the apiserver runs on.
	hostnameLabel = "kubernetes.io/hostname"
	// identityLeaseNamespace holds every identity Lease.
	identityLeaseNamespace = "kube-system"

	// DefaultIdentityLeaseDuration is how long an identity Lease counts as
	// renewed (upstream: 3600 s). It is long because the Lease says "this
	// apiserver exists", not "it leads": nothing fails over on expiry.
	DefaultIdentityLeaseDuration = time.Hour
	// DefaultIdentityLeaseRenewInterval is how often the apiserver renews
	// its Lease (upstream: 10 s).
	DefaultIdentityLeaseRenewInterval = 10 * time.Second
	// DefaultIdentityLeaseGCPeriod is how often the apiserver looks for
	// expired identity Leases of other apiservers (upstream: 3600 s, the
	// lease duration).
	DefaultIdentityLeaseGCPeriod = time.Hour
)

// apiserverID is the apiserver's identity and the name of its Lease, as
// upstream derives it: "apiserver-" and the first 16 bytes of the SHA-256
// of the hostname in lowercase base32 (26 characters). A restarted
// apiserver on the same host keeps its name, so restarts renew one Lease
// rather than leave stale ones behind.
func apiserverID(hostname string) string {
	sum := sha256.Sum256([]byte(hostname))
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// identityLeaseExpired reports whether an identity Lease was last renewed
// more than its leaseDurationSeconds before now. A Lease without a renew
// time or duration counts as expired, as upstream's garbage collector
// treats it.
func identityLeaseExpired(lease *api.Lease, now time.Time) bool {
	if lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(lease.Spec.RenewTime.Add(time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second))
}

// identityLease keeps this apiserver's Lease and collects the stale ones of
// others.
type identityLease struct {
	s *Server
	// name is the Lease's name (apiserverID); holder is its
	// holderIdentity, the name and a UUID of this run, as upstream.
	name, holder, hostname            string
	duration, renewInterval, gcPeriod time.Duration
}

// newIdentityLease prepares the Lease for this host, with the server's
// timings (zero ones take upstream's defaults).
func (s *Server) newIdentityLease() (*identityLease, error) {
	hostname, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("identity lease: hostname: %w", err)
	}
	hostname = strings.ToLower(hostname)
	// Upstream assumes one apiserver a host; kplane's HA layout runs
	// several on one (127.0.0.2, 127.0.0.3…), which would share one Lease.
	// An apiserver that advertises anything but the default loopback
	// address hashes that address in too, so each keeps a Lease of its
	// own, still the same one across restarts.
	seed := hostname
	if address := s.advertiseAddress(); address != "127.0.0.1" {
		seed += "/" + address
	}
	id := apiserverID(seed)
	l := &identityLease{s: s, name: id, holder: id + "_" + uuid.NewString(), hostname: hostname,
		duration: s.opts.IdentityLeaseDuration, renewInterval: s.opts.IdentityLeaseRenewInterval, gcPeriod: s.opts.IdentityLeaseGCPeriod}
	if l.duration <= 0 {
		l.duration = DefaultIdentityLeaseDuration
	}
	if l.renewInterval <= 0 {
		l.renewInterval = DefaultIdentityLeaseRenewInterval
	}
	if l.gcPeriod <= 0 {
		l.gcPeriod = DefaultIdentityLeaseGCPeriod
	}
	return l, nil
}

// run renews the Lease every renewInterval and collects stale Leases every
// gcPeriod until ctx ends. A failed write is logged and tried again at the
// next tick: the Lease is informational, never a reason to stop serving.
func (l *identityLease) run(ctx context.Context) {
	renew := l.s.clock.NewTicker(l.renewInterval)
	defer renew.Stop()
	gc := l.s.clock.NewTicker(l.gcPeriod)
	defer gc.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C():
			if err := l.renew(ctx); err != nil && ctx.Err() == nil {
				l.s.log.Warn("renew apiserver identity lease", "lease", l.name, "err", err)
			}
		case <-gc.C():
			if err := l.collectStale(ctx, l.s.clock.Now()); err != nil && ctx.Err() == nil {
				l.s.log.Warn("collect stale apiserver identity leases", "err", err)
			}
		}
	}
}

// renew sets the Lease's renewTime to now, creating the Lease (holder,
// duration, labels) if it is missing. An existing Lease keeps its holder,
// as upstream's lease controller keeps it; its labels are put back if
// someone removed them.
func (l *identityLease) renew(ctx context.Context) error {
	res := l.s.reg.byPluralAny["leases"]
	now := &api.MicroTime{Time: l.s.clock.Now()}
	_, err := l.s.guaranteedUpdate(ctx, res, identityLeaseNamespace, l.name, updateMain, false,
		func(current *storedObject) (api.Object, error) {
			obj, err := copyOf(res, current)
			if err != nil {
				return nil, err
			}
			lease := obj.(*api.Lease)
			lease.ResourceVersion = ""
			l.setLabels(lease)
			lease.Spec.RenewTime = now
			return lease, nil
		})
	if !apierrors.IsNotFound(err) {
		return err
	}
	seconds := int32(l.duration / time.Second)
	lease := &api.Lease{
		ObjectMeta: api.ObjectMeta{Name: l.name, Namespace: identityLeaseNamespace},
		Spec:       api.LeaseSpec{HolderIdentity: &l.holder, LeaseDurationSeconds: &seconds, RenewTime: now},
	}
	l.setLabels(lease)
	_, err = l.s.create(ctx, res, lease, false)
	return err
}

// setLabels gives lease the two labels upstream's identity Leases carry.
func (l *identityLease) setLabels(lease *api.Lease) {
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	lease.Labels[IdentityLeaseComponentLabel] = identityLeaseComponent
	lease.Labels[hostnameLabel] = l.hostname
}

// collectStale deletes the identity Leases in kube-system that expired
// before now: apiservers that stopped (or whose host was renamed) and will
// not renew them again. Each delete is conditional on the resourceVersion
// it judged, so a Lease renewed meanwhile survives (upstream re-reads the
// Lease before deleting for the same reason). This apiserver's own Lease is
// never expired while it runs.
func (l *identityLease) collectStale(ctx context.Context, now time.Time) error {
	res := l.s.reg.byPluralAny["leases"]
	entries, _, err := l.s.caches[res].List(ctx, res.keyPrefix(identityLeaseNamespace), 0)
	if err != nil {
		return fmt.Errorf("list identity leases: %w", err)
	}
	for _, e := range entries {
		lease := e.Object.(*storedObject).obj.(*api.Lease)
		if lease.Name == l.name || lease.Labels[IdentityLeaseComponentLabel] != identityLeaseComponent || !identityLeaseExpired(lease, now) {
			continue
		}
		rv := lease.ResourceVersion
		_, _, err := l.s.delete(ctx, res, lease.Namespace, lease.Name, api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: &rv}})
		switch {
		case err == nil:
			l.s.log.Info("deleted stale apiserver identity lease", "lease", lease.Name)
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			// Gone already, or renewed since it was listed.
		default:
			return fmt.Errorf("delete identity lease %s: %w", lease.Name, err)
		}
	}
	return nil
}
