package apiserver

import (
	"regexp"
	"testing"
	"time"

	"kplane/pkg/api"
)

// TestAPIServerID: "apiserver-" and 26 lowercase base32 characters, the
// same for the same host, different for another.
func TestAPIServerID(t *testing.T) {
	id := apiserverID("node-a")
	if !regexp.MustCompile(`^apiserver-[a-z2-7]{26}$`).MatchString(id) {
		t.Errorf("id = %q", id)
	}
	if apiserverID("node-a") != id || apiserverID("node-b") == id {
		t.Errorf("ids are not one per host: %q %q %q", id, apiserverID("node-a"), apiserverID("node-b"))
	}
}

func TestIdentityLeaseExpired(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	hour := int32(3600)
	at := func(d time.Duration) *api.MicroTime { return &api.MicroTime{Time: now.Add(d)} }
	tests := []struct {
		name  string
		spec  api.LeaseSpec
		stale bool
	}{
		{"renewed a moment ago", api.LeaseSpec{RenewTime: at(-10 * time.Second), LeaseDurationSeconds: &hour}, false},
		{"renewed just within the duration", api.LeaseSpec{RenewTime: at(-time.Hour), LeaseDurationSeconds: &hour}, false},
		{"renewed longer ago than the duration", api.LeaseSpec{RenewTime: at(-time.Hour - time.Second), LeaseDurationSeconds: &hour}, true},
		{"never renewed", api.LeaseSpec{LeaseDurationSeconds: &hour}, true},
		{"no duration", api.LeaseSpec{RenewTime: at(0)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := identityLeaseExpired(&api.Lease{Spec: tt.spec}, now); got != tt.stale {
				t.Errorf("expired = %v, want %v", got, tt.stale)
			}
		})
	}
}
