package validation

import "testing"

func TestParseCronSchedule(t *testing.T) {
	tests := []struct {
		spec    string
		wantErr string // "" means valid
	}{
		{"*/1 * * * *", ""},
		{"0 3 * * 1-5", ""},
		{"15,45 */2 1-15/3 jan-jun MON", ""},
		{"0 0 ? * sun", ""},
		{"5/15 * * * *", ""},
		{"@hourly", ""},
		{"@daily", ""},
		{"@every 1h30m", ""},
		{"TZ=UTC 0 * * * *", ""},
		{"", "empty spec string"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* 0-24 * * *", "end of range (24) above maximum (23): 0-24"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
		{"x * * * *", `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`},
		{"@fortnightly", "unrecognized descriptor: @fortnightly"},
		{"@every forever", `failed to parse duration @every forever: time: invalid duration "forever"`},
		{"TZ=Not/AZone * * * * *", "provided bad location Not/AZone: unknown time zone Not/AZone"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			err := parseCronSchedule(tt.spec)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("parseCronSchedule(%q) = %q, want %q", tt.spec, got, tt.wantErr)
			}
		})
	}
}
