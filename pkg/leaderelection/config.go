package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

// The defaults kube-controller-manager and kube-scheduler use
// (--leader-elect-lease-duration, --leader-elect-renew-deadline,
// --leader-elect-retry-period).
const (
	// DefaultLeaseDuration is how long standbys wait, after they last saw
	// the Lease change, before they treat it as abandoned. It bounds how
	// long the cluster is without a leader when the leader dies uncleanly.
	DefaultLeaseDuration = 15 * time.Second
	// DefaultRenewDeadline is how long the leader keeps trying to renew
	// before it gives up leading. It is shorter than the lease duration so
	// the old leader has stopped before any standby may take over.
	DefaultRenewDeadline = 10 * time.Second
	// DefaultRetryPeriod is how often candidates try to acquire and the
	// leader renews: several renewals fit in one renew deadline, so a
	// single failed request does not cost leadership.
	DefaultRetryPeriod = 2 * time.Second
)

// JitterFactor spreads acquire attempts over [RetryPeriod,
// (1+JitterFactor)·RetryPeriod] so standbys do not hit the apiserver in
// lockstep; upstream uses the same 1.2. RenewDeadline must exceed
// JitterFactor·RetryPeriod.
const JitterFactor = 1.2

// LeaseClient reads and writes Leases in one namespace. It is satisfied by
// *client.TypedClient[*api.Lease] (for example c.Leases("kube-system")), and
// by in-memory fakes in tests.
type LeaseClient interface {
	Get(ctx context.Context, name string, opts client.GetOptions) (*api.Lease, error)
	Create(ctx context.Context, lease *api.Lease, opts client.CreateOptions) (*api.Lease, error)
	Update(ctx context.Context, lease *api.Lease, opts client.UpdateOptions) (*api.Lease, error)
}

// The typed client for Leases is the production LeaseClient.
var _ LeaseClient = (*client.TypedClient[*api.Lease])(nil)

// Callbacks are the hooks a component plugs into the election. Each is
// optional.
type Callbacks struct {
	// OnStartedLeading runs in its own goroutine once this candidate holds
	// the Lease; it should start the guarded work and return when ctx is
	// cancelled, which happens as soon as leadership ends (lost, or Run's
	// context done). Run waits for it to return before releasing the Lease
	// and before returning, so it must not ignore ctx.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading is called by Run after leading has ended (and after
	// the Lease was released, if ReleaseOnCancel). Components usually exit
	// here. Unlike upstream, it is not called if this candidate never led.
	OnStoppedLeading func()
	// OnNewLeader is called from the election loop whenever the observed
	// holder changes to a new non-empty identity (including this
	// candidate's own). It must return quickly.
	OnNewLeader func(identity string)
}

// Config describes one candidate in one election.
type Config struct {
	// Leases reads and writes the Lease; it must be scoped to Namespace.
	Leases LeaseClient
	// Namespace and Name name the Lease, e.g. "kube-system" and
	// "kube-controller-manager". Namespace may be left empty when Leases
	// is already scoped; it is then filled in by the apiserver.
	Namespace, Name string
	// Identity is this candidate's holderIdentity; default NewIdentity().
	// Two live candidates must never share one.
	Identity string

	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s
	// and 2 s. They must satisfy LeaseDuration > RenewDeadline >
	// JitterFactor·RetryPeriod, and LeaseDuration is stored in whole seconds
	// so it must be at least 1 s.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration

	// ReleaseOnCancel clears holderIdentity when Run's context is cancelled
	// while leading, so a standby takes over at its next retry instead of
	// after LeaseDuration. Only safe because Run first waits for
	// OnStartedLeading to return, i.e. for the guarded work to stop.
	ReleaseOnCancel bool

	// Clock is the time source; default clock.Real{}.
	Clock clock.Clock
	// Callbacks are the component's hooks.
	Callbacks Callbacks
	// Logger receives the election's log lines; default slog.Default().
	Logger *slog.Logger
	// Journal, when set, gets an event record each time this candidate
	// becomes leader, stops leading or observes a new leader, so the
	// debug API shows a failover as it happens. The component registers
	// the elector itself (Journal.RegisterLeader) to show its state.
	Journal *debug.Journal
}

// NewIdentity returns "<hostname>_<uuid>", the holderIdentity format
// kube-controller-manager and kube-scheduler use: the hostname tells a human
// which machine leads, the UUID keeps two processes on one host apart.
func NewIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return host + "_" + uuid.NewString()
}

// complete fills in defaults and checks the timing rules, returning the
// config New will use.
func (cfg Config) complete() (Config, error) {
	if cfg.Leases == nil {
		return cfg, errors.New("leader election: Leases client is required")
	}
	if cfg.Name == "" {
		return cfg, errors.New("leader election: lease name is required")
	}
	if cfg.Identity == "" {
		cfg.Identity = NewIdentity()
	}
	if cfg.LeaseDuration == 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.RenewDeadline == 0 {
		cfg.RenewDeadline = DefaultRenewDeadline
	}
	if cfg.RetryPeriod == 0 {
		cfg.RetryPeriod = DefaultRetryPeriod
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := validateDurations(cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod); err != nil {
		return cfg, fmt.Errorf("leader election for lease %s: %w", cfg.Name, err)
	}
	return cfg, nil
}

// validateDurations enforces the ordering that makes the election safe:
// the leader must give up (RenewDeadline) before standbys may take over
// (LeaseDuration), and must get more than one jittered retry inside its
// renew deadline.
func validateDurations(leaseDuration, renewDeadline, retryPeriod time.Duration) error {
	switch {
	case leaseDuration < 0 || renewDeadline < 0 || retryPeriod <= 0:
		return fmt.Errorf("durations must be positive (leaseDuration %v, renewDeadline %v, retryPeriod %v)",
			leaseDuration, renewDeadline, retryPeriod)
	case leaseDuration < time.Second:
		// leaseDurationSeconds is an integer and must be > 0.
		return fmt.Errorf("leaseDuration %v must be at least 1s", leaseDuration)
	case leaseDuration <= renewDeadline:
		return fmt.Errorf("leaseDuration %v must be greater than renewDeadline %v", leaseDuration, renewDeadline)
	case renewDeadline <= time.Duration(JitterFactor*float64(retryPeriod)):
		return fmt.Errorf("renewDeadline %v must be greater than retryPeriod %v × %v", renewDeadline, retryPeriod, JitterFactor)
	}
	return nil
}
