package leaderelection

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewValidatesConfig(t *testing.T) {
	leases := &fakeLeaseClient{store: newFakeLeaseStore()}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // "" means New must succeed
	}{
		{"defaults", Config{Leases: leases, Name: "kube-scheduler"}, ""},
		{"short test durations", Config{Leases: leases, Name: "l", LeaseDuration: 2 * time.Second,
			RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 300 * time.Millisecond}, ""},
		{"no client", Config{Name: "l"}, "Leases client is required"},
		{"no name", Config{Leases: leases}, "lease name is required"},
		{"lease duration not above renew deadline", Config{Leases: leases, Name: "l",
			LeaseDuration: 10 * time.Second, RenewDeadline: 10 * time.Second}, "leaseDuration 10s must be greater than renewDeadline 10s"},
		{"renew deadline within jittered retry", Config{Leases: leases, Name: "l",
			RenewDeadline: 2400 * time.Millisecond, RetryPeriod: 2 * time.Second}, "renewDeadline 2.4s must be greater than retryPeriod 2s × 1.2"},
		{"renew deadline just above jittered retry", Config{Leases: leases, Name: "l",
			RenewDeadline: 2401 * time.Millisecond, RetryPeriod: 2 * time.Second}, ""},
		{"sub-second lease", Config{Leases: leases, Name: "l", LeaseDuration: 900 * time.Millisecond,
			RenewDeadline: 600 * time.Millisecond, RetryPeriod: 100 * time.Millisecond}, "must be at least 1s"},
		{"negative retry", Config{Leases: leases, Name: "l", RetryPeriod: -time.Second}, "durations must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			le, err := New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if le.Identity() == "" {
					t.Error("identity was not defaulted")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewFillsUpstreamDefaults(t *testing.T) {
	le, err := New(Config{Leases: &fakeLeaseClient{store: newFakeLeaseStore()}, Name: "kube-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	got := [3]time.Duration{le.config.LeaseDuration, le.config.RenewDeadline, le.config.RetryPeriod}
	if want := [3]time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second}; got != want {
		t.Errorf("durations = %v, want %v", got, want)
	}
}

func TestNewIdentityIsHostnameUnderscoreUUID(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no hostname: %v", err)
	}
	pattern := regexp.MustCompile("^" + regexp.QuoteMeta(host) + `_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	a, b := NewIdentity(), NewIdentity()
	if !pattern.MatchString(a) {
		t.Errorf("NewIdentity() = %q, want <hostname>_<uuid>", a)
	}
	if a == b {
		t.Errorf("two identities on one host are equal: %q", a)
	}
}
