package api

import (
	"encoding/json"
	"testing"
)

func TestIntOrStringJSON(t *testing.T) {
	tests := []struct {
		json string
		want IntOrString
	}{
		{`80`, FromInt(80)},
		{`"http"`, FromString("http")},
		{`"25%"`, FromString("25%")},
		{`"80"`, FromString("80")}, // a quoted number stays a string, as upstream
		{`0`, FromInt(0)},
		{`-1`, FromInt(-1)},
	}
	for _, tt := range tests {
		var got IntOrString
		if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.json, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Unmarshal(%s) = %#v, want %#v", tt.json, got, tt.want)
		}
		out, err := json.Marshal(got)
		if err != nil || string(out) != tt.json {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", got, out, err, tt.json)
		}
	}
	for _, bad := range []string{`1.5`, `true`, `{}`, `[]`, `4294967296`, `"unterminated`} {
		var v IntOrString
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("Unmarshal(%s) = %#v, want an error", bad, v)
		}
	}
}

func TestIntOrStringString(t *testing.T) {
	if got := FromInt(8080).String(); got != "8080" {
		t.Errorf("FromInt(8080).String() = %q", got)
	}
	if got := FromString("web").String(); got != "web" {
		t.Errorf("FromString(web).String() = %q", got)
	}
	if got := FromString("42").IntValue(); got != 42 {
		t.Errorf(`FromString("42").IntValue() = %d`, got)
	}
}

func TestScaledValueFromIntOrPercent(t *testing.T) {
	tests := []struct {
		v       IntOrString
		total   int
		roundUp bool
		want    int
		wantErr bool
	}{
		{FromInt(3), 10, false, 3, false},
		{FromString("25%"), 4, true, 1, false},
		{FromString("25%"), 4, false, 1, false},
		{FromString("25%"), 10, true, 3, false},  // 2.5 → 3: maxSurge rounds up
		{FromString("25%"), 10, false, 2, false}, // 2.5 → 2: maxUnavailable rounds down
		{FromString("25%"), 1, false, 0, false},
		{FromString("25%"), 1, true, 1, false},
		{FromString("100%"), 7, false, 7, false},
		{FromString("0%"), 7, true, 0, false},
		{FromString("33%"), 3, true, 1, false},
		{FromString("25"), 4, true, 0, true},
		{FromString("abc%"), 4, true, 0, true},
		{FromString(""), 4, true, 0, true},
	}
	for _, tt := range tests {
		v := tt.v
		got, err := ScaledValueFromIntOrPercent(&v, tt.total, tt.roundUp)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ScaledValueFromIntOrPercent(%v, %d, %v) = %d, %v; want %d, error %v",
				tt.v, tt.total, tt.roundUp, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := ScaledValueFromIntOrPercent(nil, 1, true); err == nil {
		t.Error("nil value: want an error")
	}
}
