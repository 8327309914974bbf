package deployment

import (
	"testing"

	"kplane/pkg/api"
)

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                   string
		surge, unavailable     string // "" is unset (nil)
		desired                int32
		wantSurge, wantUnavail int32
		wantErr                bool
	}{
		{name: "defaults 25%/25% of 10: surge rounds up, unavailable down", surge: "25%", unavailable: "25%", desired: 10, wantSurge: 3, wantUnavail: 2},
		{name: "25%/25% of 4", surge: "25%", unavailable: "25%", desired: 4, wantSurge: 1, wantUnavail: 1},
		{name: "25%/25% of 1: unavailable rounds to 0", surge: "25%", unavailable: "25%", desired: 1, wantSurge: 1, wantUnavail: 0},
		{name: "plain numbers", surge: "1", unavailable: "1", desired: 5, wantSurge: 1, wantUnavail: 1},
		{name: "numbers above desired are kept", surge: "7", unavailable: "2", desired: 3, wantSurge: 7, wantUnavail: 2},
		{name: "both zero after rounding: unavailable becomes 1", surge: "0%", unavailable: "1%", desired: 10, wantSurge: 0, wantUnavail: 1},
		{name: "both literally zero", surge: "0", unavailable: "0", desired: 3, wantSurge: 0, wantUnavail: 1},
		{name: "nil counts as zero", surge: "", unavailable: "", desired: 3, wantSurge: 0, wantUnavail: 1},
		{name: "surge only", surge: "1", unavailable: "0", desired: 3, wantSurge: 1, wantUnavail: 0},
		{name: "100% unavailable", surge: "0", unavailable: "100%", desired: 4, wantSurge: 0, wantUnavail: 4},
		{name: "zero desired", surge: "25%", unavailable: "25%", desired: 0, wantSurge: 0, wantUnavail: 1},
		{name: "not a percentage", surge: "lots", unavailable: "1", desired: 3, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, u *api.IntOrString
			if tt.surge != "" {
				s = intOrStr(tt.surge)
			}
			if tt.unavailable != "" {
				u = intOrStr(tt.unavailable)
			}
			gotS, gotU, err := resolveFenceposts(s, u, tt.desired)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if gotS != tt.wantSurge || gotU != tt.wantUnavail {
				t.Fatalf("resolveFenceposts(%q, %q, %d) = %d, %d; want %d, %d", tt.surge, tt.unavailable, tt.desired, gotS, gotU, tt.wantSurge, tt.wantUnavail)
			}
		})
	}
}

func TestMaxSurgeAndMaxUnavailable(t *testing.T) {
	tests := []struct {
		name               string
		d                  *api.Deployment
		wantSurge, wantMax int32
	}{
		{"rolling 10 at 25%/25%", newDeployment(10, "25%", "25%", "a"), 3, 2},
		{"maxUnavailable capped at replicas", newDeployment(2, "0", "5", "a"), 0, 2},
		{"scaled to zero: nothing may be unavailable", newDeployment(0, "25%", "25%", "a"), 0, 0},
		{"recreate has neither", recreate(newDeployment(10, "25%", "25%", "a")), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxSurge(tt.d); got != tt.wantSurge {
				t.Errorf("maxSurge = %d, want %d", got, tt.wantSurge)
			}
			if got := maxUnavailable(tt.d); got != tt.wantMax {
				t.Errorf("maxUnavailable = %d, want %d", got, tt.wantMax)
			}
		})
	}
}
