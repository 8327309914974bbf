package ctl

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitResourcesAndPairs(t *testing.T) {
	tests := []struct {
		args       []string
		resources  []string
		pairs      []string
		wantErrMsg string
	}{
		{args: []string{"pods", "web", "app=web", "tier-"}, resources: []string{"pods", "web"}, pairs: []string{"app=web", "tier-"}},
		{args: []string{"deploy/web", "a=b=c"}, resources: []string{"deploy/web"}, pairs: []string{"a=b=c"}},
		// "=x" and "-" are not changes: they are (odd) resource names.
		{args: []string{"pod", "=x", "-"}, resources: []string{"pod", "=x", "-"}},
		{args: []string{"pod", "a", "x=1", "pod/b"}, wantErrMsg: "all resources must be specified before label changes: pod/b"},
	}
	for _, tt := range tests {
		resources, pairs, err := splitResourcesAndPairs(tt.args, "label")
		if tt.wantErrMsg != "" {
			if err == nil || err.Error() != tt.wantErrMsg {
				t.Errorf("%v: err = %v, want %q", tt.args, err, tt.wantErrMsg)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(resources, tt.resources) || !reflect.DeepEqual(pairs, tt.pairs) {
			t.Errorf("%v = %q %q %v, want %q %q", tt.args, resources, pairs, err, tt.resources, tt.pairs)
		}
	}
}

func TestParseLabelChanges(t *testing.T) {
	tests := []struct {
		specs   []string
		set     map[string]string
		remove  []string
		wantErr string
	}{
		{specs: []string{"app=web", "tier-", "empty="}, set: map[string]string{"app": "web", "empty": ""}, remove: []string{"tier"}},
		{specs: []string{"a=b=c"}, wantErr: "invalid label spec: a=b=c"},
		{specs: []string{"a=b c"}, wantErr: `invalid label value: "a=b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{specs: []string{"app"}, wantErr: "unknown label spec: app"},
		{specs: []string{"a=1", "a-"}, wantErr: "can not both modify and remove a label in the same command"},
	}
	for _, tt := range tests {
		set, remove, err := parseLabelChanges(tt.specs)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%v: err = %v, want %q", tt.specs, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(set, tt.set) || !reflect.DeepEqual(remove, tt.remove) {
			t.Errorf("%v = %v %v %v, want %v %v", tt.specs, set, remove, err, tt.set, tt.remove)
		}
	}
}

func TestParseAnnotationChanges(t *testing.T) {
	set, remove, err := parseAnnotationChanges([]string{"url=http://x/?a=b", "old-", "empty="})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"url": "http://x/?a=b", "empty": ""}; !reflect.DeepEqual(set, want) {
		t.Errorf("set = %v, want %v", set, want)
	}
	if want := []string{"old"}; !reflect.DeepEqual(remove, want) {
		t.Errorf("remove = %v, want %v", remove, want)
	}
	for specs, want := range map[string]string{
		"a b":      "invalid annotation format: a, b",
		"a=1 a-":   "can not both modify and remove the following annotation(s) in the same command: a",
		"=x y=1 -": "invalid annotation format: =x, -",
	} {
		_, _, err := parseAnnotationChanges(strings.Fields(specs))
		if err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %q", specs, err, want)
		}
	}
}

func TestApplyLabelChanges(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front"}
	err := applyLabelChanges(labels, map[string]string{"app": "db", "tier": "back", "new": "1"}, nil, false)
	want := "'app' already has a value (web), and --overwrite is false\n'tier' already has a value (front), and --overwrite is false"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if labels["app"] != "web" || labels["new"] != "" {
		t.Errorf("a refused change changed the labels: %v", labels)
	}
	if err := applyLabelChanges(labels, map[string]string{"app": "db"}, []string{"tier", "absent"}, true); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"app": "db"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
}

func TestApplyAnnotationChanges(t *testing.T) {
	annotations := map[string]string{"a": "1", "b": "2", changeCauseAnnotation: "old"}
	err := applyAnnotationChanges(annotations, map[string]string{"a": "x", "b": "y"}, nil, false)
	want := "--overwrite is false but found the following declared annotation(s): 'a' already has a value (1); 'b' already has a value (2)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// The change-cause may always be overwritten.
	if err := applyAnnotationChanges(annotations, map[string]string{changeCauseAnnotation: "new"}, []string{"a"}, false); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"b": "2", changeCauseAnnotation: "new"}; !reflect.DeepEqual(annotations, want) {
		t.Errorf("annotations = %v, want %v", annotations, want)
	}
}

func TestLabelChangeMessage(t *testing.T) {
	tests := []struct {
		before, after string
		overwrite     bool
		want          string
	}{
		{`{"a":1}`, `{"a":1}`, false, "not labeled"},
		{`{"a":1}`, `{"a":1,"b":2}`, false, "labeled"},
		{`{"a":1,"b":2}`, `{"a":1}`, false, "unlabeled"},
		// kubectl's quirk: with --overwrite, a removal says "labeled".
		{`{"a":1,"b":2}`, `{"a":1}`, true, "labeled"},
	}
	for _, tt := range tests {
		if got := labelChangeMessage([]byte(tt.before), []byte(tt.after), tt.overwrite); got != tt.want {
			t.Errorf("%s → %s (overwrite %v) = %q, want %q", tt.before, tt.after, tt.overwrite, got, tt.want)
		}
	}
}
