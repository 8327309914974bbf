package cronjob

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

var base = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func i64(v int64) *int64 { return &v }
func i32(v int32) *int32 { return &v }

func mustParse(t *testing.T, schedule string, tz *string) interface{ Next(time.Time) time.Time } {
	t.Helper()
	s, err := parseSchedule(&api.CronJobSpec{Schedule: schedule, TimeZone: tz})
	if err != nil {
		t.Fatalf("parse %q: %v", schedule, err)
	}
	return s
}

func TestParseSchedule(t *testing.T) {
	paris := "Europe/Paris"
	bad := "Mars/Olympus"
	tests := []struct {
		schedule string
		tz       *string
		ok       bool
		next     time.Time // the first start after base
	}{
		{"*/1 * * * *", nil, true, base.Add(time.Minute)},
		{"*/5 * * * *", nil, true, base.Add(5 * time.Minute)},
		{"@hourly", nil, true, base.Add(time.Hour)},
		{"0 0 * * *", nil, true, time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)},
		// 12:00 in Paris is 11:00 UTC in March (CET).
		{"0 12 * * *", &paris, true, time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC)},
		{"CRON_TZ=Europe/Paris 0 12 * * *", nil, true, time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC)},
		{"0 12 * * *", &bad, false, time.Time{}},
		{"not a schedule", nil, false, time.Time{}},
		{"* * * *", nil, false, time.Time{}},
	}
	for _, tt := range tests {
		s, err := parseSchedule(&api.CronJobSpec{Schedule: tt.schedule, TimeZone: tt.tz})
		if (err == nil) != tt.ok {
			t.Errorf("%q: err %v, want ok=%v", tt.schedule, err, tt.ok)
			continue
		}
		if tt.ok && !s.Next(base).Equal(tt.next) {
			t.Errorf("%q: next after %v = %v, want %v", tt.schedule, base, s.Next(base).UTC(), tt.next)
		}
	}
}

func TestMostRecentScheduleTime(t *testing.T) {
	tests := []struct {
		name       string
		schedule   string
		earliest   time.Time
		now        time.Time
		deadline   *int64
		wantTime   time.Time // zero: none due
		wantMissed int
	}{
		{"nothing due yet", "*/1 * * * *", base, base.Add(30 * time.Second), nil, time.Time{}, 0},
		{"one due", "*/1 * * * *", base, base.Add(70 * time.Second), nil, base.Add(time.Minute), 1},
		{"exactly at the start time", "*/1 * * * *", base, base.Add(time.Minute), nil, base.Add(time.Minute), 1},
		{"three missed, the latest runs", "*/1 * * * *", base, base.Add(3*time.Minute + 10*time.Second), nil, base.Add(3 * time.Minute), 3},
		{"deadline skips the old ones", "*/1 * * * *", base, base.Add(10*time.Minute + 30*time.Second), i64(90), base.Add(10 * time.Minute), 1},
		{"deadline passed for all", "*/10 * * * *", base, base.Add(15 * time.Minute), i64(60), time.Time{}, 0},
		{"too many missed", "*/1 * * * *", base, base.Add(5 * time.Hour), nil, base.Add(5 * time.Hour), tooManyMissed + 1},
		{"too many missed, hourly", "@hourly", base, base.Add(200*time.Hour + 5*time.Minute), nil, base.Add(200 * time.Hour), tooManyMissed + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := mostRecentScheduleTime(mustParse(t, tt.schedule, nil), tt.earliest, tt.now, tt.deadline)
			if tt.wantTime.IsZero() {
				if runs.mostRecent != nil {
					t.Errorf("mostRecent = %v, want none", runs.mostRecent)
				}
			} else if runs.mostRecent == nil || !runs.mostRecent.Equal(tt.wantTime) {
				t.Errorf("mostRecent = %v, want %v", runs.mostRecent, tt.wantTime)
			}
			if runs.missed != tt.wantMissed {
				t.Errorf("missed = %d, want %d", runs.missed, tt.wantMissed)
			}
		})
	}
}

func TestNextScheduleDelayAndJobName(t *testing.T) {
	d, ok := nextScheduleDelay(mustParse(t, "*/1 * * * *", nil), base.Add(20*time.Second))
	if !ok || d != 40*time.Second+100*time.Millisecond {
		t.Errorf("delay = %v, %v; want 40.1s", d, ok)
	}
	if got, want := jobName("hello", base), "hello-29013720"; got != want {
		t.Errorf("jobName = %q, want %q", got, want)
	}
}

func job(name string, cond api.JobConditionType, start time.Time) *api.Job {
	j := &api.Job{ObjectMeta: api.ObjectMeta{Name: name}}
	if !start.IsZero() {
		s := api.NewTime(start)
		j.Status.StartTime = &s
	}
	if cond != "" {
		j.Status.Conditions = []api.JobCondition{{Type: cond, Status: api.ConditionTrue}}
	}
	return j
}

func TestJobsToDelete(t *testing.T) {
	jobs := []*api.Job{
		job("ok-3", api.JobComplete, base.Add(3*time.Minute)),
		job("ok-1", api.JobComplete, base.Add(1*time.Minute)),
		job("ok-4", api.JobComplete, base.Add(4*time.Minute)),
		job("ok-2", api.JobComplete, base.Add(2*time.Minute)),
		job("bad-1", api.JobFailed, base.Add(1*time.Minute)),
		job("bad-2", api.JobFailed, base.Add(2*time.Minute)),
		job("running", "", base),
	}
	tests := []struct {
		name               string
		successful, failed *int32
		want               []string
	}{
		{"defaults 3 and 1", i32(3), i32(1), []string{"ok-1", "bad-1"}},
		{"keep none", i32(0), i32(0), []string{"ok-1", "ok-2", "ok-3", "ok-4", "bad-1", "bad-2"}},
		{"no limits", nil, nil, nil},
		{"limits above the count", i32(10), i32(10), nil},
	}
	for _, tt := range tests {
		var got []string
		for _, j := range jobsToDelete(jobs, tt.successful, tt.failed) {
			got = append(got, j.Name)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: deleted %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: deleted %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}
