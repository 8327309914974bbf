package fieldmanager

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"kplane/pkg/api"
)

// testShape is a small schema: spec.ports keyed by name and protocol,
// spec.tags a set, spec.args atomic (the default), spec.selector an atomic
// map.
type testShape struct {
	fields   map[string]Shape
	items    Shape
	listType string
	keys     []string
	atomic   bool
}

func (s testShape) Field(name string) Shape {
	if f, ok := s.fields[name]; ok {
		return f
	}
	return nil
}
func (s testShape) Items() Shape          { return s.items }
func (s testShape) ListType() string      { return s.listType }
func (s testShape) ListMapKeys() []string { return s.keys }
func (s testShape) Atomic() bool          { return s.atomic }

var shape = ObjectShape(testShape{listType: ListAtomic, fields: map[string]Shape{
	"spec": testShape{listType: ListAtomic, fields: map[string]Shape{
		"ports":    testShape{listType: ListMap, keys: []string{"name", "protocol"}, items: testShape{listType: ListAtomic}},
		"tags":     testShape{listType: ListSet},
		"selector": testShape{listType: ListAtomic, atomic: true},
	}},
}})

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFieldSetFieldsV1(t *testing.T) {
	obj := decode(t, `{"apiVersion":"v1","metadata":{"name":"x","labels":{"app":"web"}},
		"spec":{"replicas":1,"args":["a"],"selector":{"k":"v"},"tags":["b","a"],"empty":{},
		"ports":[{"name":"http","protocol":"TCP","port":80}]}}`)
	got := encode(t, Request{}.ownable(FieldSet(obj, shape)).FieldsV1())
	want := `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:args":{},"f:empty":{},` +
		`"f:ports":{"k:{\"name\":\"http\",\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}},` +
		`"f:replicas":{},"f:selector":{},"f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}}`
	if got != want {
		t.Errorf("fieldsV1 =\n%s\nwant\n%s", got, want)
	}
	back, err := SetFromFieldsV1(json.RawMessage(got))
	if err != nil {
		t.Fatal(err)
	}
	if again := encode(t, back.FieldsV1()); again != want {
		t.Errorf("fieldsV1 round trip = %s", again)
	}
}

func TestPathString(t *testing.T) {
	for _, tc := range []struct {
		path Path
		want string
	}{
		{Path{"f:spec", "f:replicas"}, ".spec.replicas"},
		{Path{"f:spec", "f:ports", `k:{"protocol":"TCP","name":"http"}`, "f:port"}, `.spec.ports[name="http",protocol="TCP"].port`},
		{Path{"f:spec", "f:tags", `v:"a"`}, `.spec.tags[="a"]`},
		{Path{"f:items", "i:3"}, ".items[3]"},
	} {
		if got := tc.path.String(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct{ name, live, config, want string }{
		{"fields merge", `{"spec":{"a":1,"b":2}}`, `{"spec":{"b":3,"c":4}}`, `{"spec":{"a":1,"b":3,"c":4}}`},
		{"atomic list replaced", `{"spec":{"args":["a","b"]}}`, `{"spec":{"args":["c"]}}`, `{"spec":{"args":["c"]}}`},
		{"set union, live order first", `{"spec":{"tags":["b","a"]}}`, `{"spec":{"tags":["c","a"]}}`, `{"spec":{"tags":["b","a","c"]}}`},
		{"map list by keys", `{"spec":{"ports":[{"name":"http","protocol":"TCP","port":80},{"name":"http","protocol":"UDP","port":81}]}}`,
			`{"spec":{"ports":[{"name":"dns","protocol":"UDP","port":53},{"name":"http","protocol":"UDP","port":8081}]}}`,
			`{"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"http","port":8081,"protocol":"UDP"},{"name":"dns","port":53,"protocol":"UDP"}]}}`},
		{"atomic map replaced", `{"spec":{"selector":{"a":"1","b":"2"}}}`, `{"spec":{"selector":{"c":"3"}}}`, `{"spec":{"selector":{"c":"3"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := encode(t, Merge(decode(t, tc.live), decode(t, tc.config), shape))
			if got != tc.want {
				t.Errorf("Merge = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	changed, removed := Compare(decode(t, `{"spec":{"a":1,"b":2,"tags":["x","y"]}}`), decode(t, `{"spec":{"a":1,"b":3,"c":4,"tags":["y","z"]}}`), shape)
	if got, want := encode(t, changed.FieldsV1()), `{"f:spec":{"f:b":{},"f:c":{},"f:tags":{"v:\"z\"":{}}}}`; got != want {
		t.Errorf("changed = %s, want %s", got, want)
	}
	if got, want := encode(t, removed.FieldsV1()), `{"f:spec":{"f:tags":{"v:\"x\"":{}}}}`; got != want {
		t.Errorf("removed = %s, want %s", got, want)
	}
}

var now = api.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

func request(manager string, force bool) Request {
	return Request{Manager: manager, APIVersion: "example.com/v1", Force: force, Now: now, Shape: shape}
}

func fieldsOf(t *testing.T, m Managers, manager, operation string) string {
	t.Helper()
	for _, e := range m {
		if e.Manager == manager && e.Operation == operation {
			return encode(t, e.Fields.FieldsV1())
		}
	}
	return ""
}

// TestApplyLifecycle follows upstream's rules through a sequence of
// applies and an update.
func TestApplyLifecycle(t *testing.T) {
	obj, managers, err := Apply(nil, decode(t, `{"metadata":{"name":"x"},"spec":{"replicas":1,"tags":["a"]}}`), nil, request("alice", false))
	if err != nil {
		t.Fatal(err)
	}
	if got := fieldsOf(t, managers, "alice", OperationApply); got != `{"f:spec":{"f:replicas":{},"f:tags":{"v:\"a\"":{}}}}` {
		t.Errorf("alice owns %s", got)
	}

	// bob changes alice's replicas: a conflict, nothing changed.
	_, _, err = Apply(obj, decode(t, `{"spec":{"replicas":2}}`), managers, request("bob", false))
	var conflicts *Conflicts
	if !errors.As(err, &conflicts) || err.Error() != `Apply failed with 1 conflict: conflict with "alice": .spec.replicas` {
		t.Fatalf("bob's apply: %v", err)
	}
	status := conflicts.StatusError().ErrStatus
	if status.Code != 409 || status.Reason != "Conflict" || status.Details.Causes[0].Field != ".spec.replicas" {
		t.Errorf("status = %+v", status)
	}

	// The same value is shared ownership, not a conflict.
	obj, managers, err = Apply(obj, decode(t, `{"spec":{"replicas":1,"tags":["b"]}}`), managers, request("bob", false))
	if err != nil {
		t.Fatalf("bob's agreeing apply: %v", err)
	}
	if got := encode(t, obj["spec"]); got != `{"replicas":1,"tags":["a","b"]}` {
		t.Errorf("spec = %s", got)
	}

	// Forced, replicas moves from alice to bob.
	obj, managers, err = Apply(obj, decode(t, `{"spec":{"replicas":3,"tags":["b"]}}`), managers, request("bob", true))
	if err != nil {
		t.Fatal(err)
	}
	if got := fieldsOf(t, managers, "alice", OperationApply); got != `{"f:spec":{"f:tags":{"v:\"a\"":{}}}}` {
		t.Errorf("after force alice owns %s", got)
	}

	// alice stops applying her tag: it goes; bob's stays.
	obj, managers, err = Apply(obj, decode(t, `{"spec":{}}`), managers, request("alice", false))
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, obj["spec"]); got != `{"replicas":3,"tags":["b"]}` {
		t.Errorf("after alice dropped her tag: %s", got)
	}

	// An update takes what it changes from everyone.
	updated := decode(t, encode(t, obj))
	updated["spec"].(map[string]any)["replicas"] = 5.0
	managers = Update(obj, updated, managers, request("kubectl-edit", false))
	if got := fieldsOf(t, managers, "bob", OperationApply); got != `{"f:spec":{"f:tags":{"v:\"b\"":{}}}}` {
		t.Errorf("after the edit bob owns %s", got)
	}
	_, _, err = Apply(updated, decode(t, `{"spec":{"replicas":3,"tags":["b"]}}`), managers, request("bob", false))
	if err == nil || err.Error() != `Apply failed with 1 conflict: conflict with "kubectl-edit" using example.com/v1 at 2026-01-02T03:04:05Z: .spec.replicas` {
		t.Errorf("apply over the edit: %v", err)
	}

	// Encode orders Apply before Update and drops empty entries.
	encoded := managers.Encode()
	var order []string
	for _, e := range encoded {
		order = append(order, e.Manager+"/"+e.Operation)
	}
	// alice still owns spec itself: her last configuration set it to {}.
	if !reflect.DeepEqual(order, []string{"alice/Apply", "bob/Apply", "kubectl-edit/Update"}) {
		t.Errorf("managedFields order = %v", order)
	}
}

func TestBeforeFirstApply(t *testing.T) {
	live := decode(t, `{"metadata":{"name":"x"},"spec":{"replicas":1}}`)
	_, _, err := Apply(live, decode(t, `{"spec":{"replicas":2}}`), nil, request("alice", false))
	if err == nil || err.Error() != `Apply failed with 1 conflict: conflict with "before-first-apply" using example.com/v1 at 2026-01-02T03:04:05Z: .spec.replicas` {
		t.Errorf("first apply over unmanaged fields: %v", err)
	}
}

func TestTwoConflictsMessage(t *testing.T) {
	c := Conflicts{
		{Manager: Entry{Manager: "b", Operation: OperationApply}, Path: Path{"f:spec", "f:x"}},
		{Manager: Entry{Manager: "a", Operation: OperationApply, Subresource: "status"}, Path: Path{"f:status", "f:y"}},
		{Manager: Entry{Manager: "b", Operation: OperationApply}, Path: Path{"f:spec", "f:z"}},
	}
	want := "Apply failed with 3 conflicts: conflicts with \"a\" with subresource \"status\":\n- .status.y\nconflicts with \"b\":\n- .spec.x\n- .spec.z"
	if got := c.Error(); got != want {
		t.Errorf("message =\n%s\nwant\n%s", got, want)
	}
}

// TestUpdateThroughStatus: a status update that sends no spec changes the
// ownership of status only.
func TestUpdateThroughStatus(t *testing.T) {
	old := decode(t, `{"spec":{"replicas":1},"status":{"ready":0}}`)
	managers := Update(nil, old, nil, request("creator", false))
	r := request("controller", false)
	r.Subresource = "status"
	r.Owns = func(p Path) bool { return len(p) > 0 && p[0] == "f:status" }
	managers = Update(old, decode(t, `{"status":{"ready":1}}`), managers, r)
	if got := fieldsOf(t, managers, "creator", OperationUpdate); got != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("creator owns %s, want spec.replicas still", got)
	}
	if got := fieldsOf(t, managers, "controller", OperationUpdate); got != `{"f:status":{"f:ready":{}}}` {
		t.Errorf("controller owns %s", got)
	}
}

// TestApplyRemovalLeavesLiveAlone: a manager that stops applying a whole
// subtree gets its fields removed, and the comparison sees the removal
// (the live object passed in is not changed).
func TestApplyRemovalLeavesLiveAlone(t *testing.T) {
	obj, managers, err := Apply(nil, decode(t, `{"spec":{"tags":["a"]},"data":{"k":"v"}}`), nil, request("alice", false))
	if err != nil {
		t.Fatal(err)
	}
	before := encode(t, obj)
	later := request("alice", false)
	later.Now = api.NewTime(now.Add(time.Hour))
	next, managers, err := Apply(obj, decode(t, `{"data":{"k":"v"}}`), managers, later)
	if err != nil {
		t.Fatal(err)
	}
	if encode(t, obj) != before {
		t.Errorf("Apply changed the live object: %s", encode(t, obj))
	}
	if got := encode(t, next); got != `{"data":{"k":"v"},"spec":{}}` {
		t.Errorf("after dropping spec.tags: %s", got)
	}
	if managers[0].Time.Time != later.Now.Time {
		t.Errorf("an apply that removed a field kept its old time %v", managers[0].Time)
	}
}
