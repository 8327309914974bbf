package humanize

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"}, // within the 2 s of clock skew upstream tolerates
		{0, "0s"},
		{22 * time.Second, "22s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{5*time.Minute + 25*time.Second, "5m25s"},
		{9*time.Minute + 59*time.Second, "9m59s"},
		{10*time.Minute + 30*time.Second, "10m"},
		{13 * time.Minute, "13m"},
		{179 * time.Minute, "179m"},
		{3 * time.Hour, "3h"},
		{6*time.Hour + time.Minute, "6h1m"},
		{7*time.Hour + 59*time.Minute, "7h59m"},
		{8*time.Hour + 30*time.Minute, "8h"},
		{47 * time.Hour, "47h"},
		{48 * time.Hour, "2d"},
		{6*24*time.Hour + 3*time.Hour, "6d3h"},
		{7*24*time.Hour + 23*time.Hour, "7d23h"},
		{8 * 24 * time.Hour, "8d"},
		{32 * 24 * time.Hour, "32d"},
		{729 * 24 * time.Hour, "729d"},
		{730 * 24 * time.Hour, "2y"},
		{(2*365 + 30) * 24 * time.Hour, "2y30d"},
		{(7*365 + 364) * 24 * time.Hour, "7y364d"},
		{(8*365 + 100) * 24 * time.Hour, "8y"},
	}
	for _, tt := range tests {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSince(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "<unknown>"},
		{now.Add(-325 * time.Second), "5m25s"},
		{now.Add(time.Hour), "<invalid>"},
	} {
		if got := Since(tc.t, now); got != tc.want {
			t.Errorf("Since(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
