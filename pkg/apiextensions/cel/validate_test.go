package cel

import (
	"strings"
	"testing"
)

// replicaSchema is a typical CRD: rules at the root, on spec, on a nested
// string, on list elements and on map values.
const replicaSchema = `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.startsWith('web-')"
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.replicas <= self.maxReplicas"
      message: replicas must not exceed maxReplicas
    properties:
      replicas: {type: integer}
      maxReplicas: {type: integer}
      image:
        type: string
        x-kubernetes-validations:
        - rule: "self.contains(':')"
          message: image must carry a tag
      ports:
        type: array
        maxItems: 16
        items:
          type: object
          x-kubernetes-validations:
          - rule: "self.port > 0 && self.port < 65536"
            message: port out of range
          properties:
            name: {type: string}
            port: {type: integer}
      labels:
        type: object
        maxProperties: 16
        additionalProperties:
          type: string
          maxLength: 63
          x-kubernetes-validations:
          - rule: "self.size() > 0"
            message: label values must not be empty
`

func TestValidateRulesOnEachKindOfNode(t *testing.T) {
	v := mustCompile(t, replicaSchema)
	tests := []struct {
		name   string
		object string
		want   []string
	}{
		{"valid object passes every rule", `
metadata: {name: web-1}
spec: {replicas: 2, maxReplicas: 3, image: "nginx:1.27", ports: [{name: http, port: 80}], labels: {a: x}}`, nil},
		{"a rule on the root reports <nil> and the value's type", `
metadata: {name: api-1}
spec: {replicas: 1, maxReplicas: 1}`,
			[]string{`<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('web-')`}},
		{"a rule on spec reports spec", `
metadata: {name: web-1}
spec: {replicas: 5, maxReplicas: 3}`,
			[]string{`spec: Invalid value: "object": replicas must not exceed maxReplicas`}},
		{"a rule on a nested string reports its path", `
metadata: {name: web-1}
spec: {replicas: 1, maxReplicas: 1, image: nginx}`,
			[]string{`spec.image: Invalid value: "string": image must carry a tag`}},
		{"a rule on list items runs per element with its index", `
metadata: {name: web-1}
spec: {replicas: 1, maxReplicas: 1, ports: [{port: 80}, {port: 0}, {port: 70000}]}`,
			[]string{
				`spec.ports[1]: Invalid value: "object": port out of range`,
				`spec.ports[2]: Invalid value: "object": port out of range`,
			}},
		{"a rule on map values runs per key", `
metadata: {name: web-1}
spec: {replicas: 1, maxReplicas: 1, labels: {a: "x", b: ""}}`,
			[]string{`spec.labels[b]: Invalid value: "string": label values must not be empty`}},
		{"every failing rule is reported, root first", `
metadata: {name: api}
spec: {replicas: 9, maxReplicas: 1, image: nginx}`,
			[]string{
				`<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('web-')`,
				`spec: Invalid value: "object": replicas must not exceed maxReplicas`,
				`spec.image: Invalid value: "string": image must carry a tag`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameMessages(t, v.Validate(mustObject(t, tc.object), nil), tc.want...)
		})
	}
}

func TestValidateAbsentFieldIsAnEvaluationError(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.replicas <= self.maxReplicas"
    - rule: "!has(self.maxReplicas) || self.maxReplicas > 0"
    properties:
      replicas: {type: integer}
      maxReplicas: {type: integer}
`)
	sameMessages(t, v.Validate(mustObject(t, `spec: {replicas: 1}`), nil),
		`spec: Invalid value: "object": no such key: maxReplicas evaluating rule: self.replicas <= self.maxReplicas`)
}

const counterSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      generation:
        type: integer
        x-kubernetes-validations:
        - rule: "self >= oldSelf"
          message: generation may not decrease
      class:
        type: string
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: class is immutable
          reason: FieldValueForbidden
      owner:
        type: string
        x-kubernetes-validations:
        - rule: "oldSelf.hasValue() || self.startsWith('team-')"
          message: a new owner must be a team
          optionalOldSelf: true
      items:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          properties:
            name: {type: string}
            size:
              type: integer
              x-kubernetes-validations:
              - rule: "self >= oldSelf"
                message: an item may only grow
`

func TestValidateTransitionRules(t *testing.T) {
	v := mustCompile(t, counterSchema)
	tests := []struct {
		name     string
		old, obj string
		want     []string
	}{
		{"on create transition rules do not run", "",
			`spec: {generation: 1, class: gold, owner: team-a}`, nil},
		{"optionalOldSelf runs on create, with an empty oldSelf", "",
			`spec: {owner: alice}`,
			[]string{`spec.owner: Invalid value: "string": a new owner must be a team`}},
		{"optionalOldSelf sees the old value on update", `spec: {owner: alice}`,
			`spec: {owner: bob}`, nil},
		{"on update a decrease fails", `spec: {generation: 5}`,
			`spec: {generation: 4}`,
			[]string{`spec.generation: Invalid value: "integer": generation may not decrease`}},
		{"reason Forbidden gives a Forbidden error", `spec: {class: gold}`,
			`spec: {class: silver}`,
			[]string{`spec.class: Forbidden: class is immutable`}},
		{"a field that was absent has no oldSelf", `spec: {}`,
			`spec: {generation: 1, class: silver}`, nil},
		{"map-list elements correlate by key, not by position", `
spec: {items: [{name: a, size: 5}, {name: b, size: 1}]}`, `
spec: {items: [{name: b, size: 2}, {name: a, size: 4}, {name: c, size: 0}]}`,
			[]string{`spec.items[1].size: Invalid value: "integer": an item may only grow`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameMessages(t, v.Validate(mustObject(t, tc.obj), mustObject(t, tc.old)), tc.want...)
		})
	}
}

func TestValidateRatchetsUnchangedValues(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      size:
        type: integer
        x-kubernetes-validations:
        - rule: "self <= 10"
      name:
        type: string
`)
	old := mustObject(t, `spec: {size: 50, name: a}`)
	if errs := v.Validate(mustObject(t, `spec: {size: 50, name: b}`), old); len(errs) != 0 {
		t.Errorf("an unchanged invalid field must not block an update: %v", messages(errs))
	}
	sameMessages(t, v.Validate(mustObject(t, `spec: {size: 40, name: b}`), old),
		`spec.size: Invalid value: "integer": failed rule: self <= 10`)
	sameMessages(t, v.Validate(mustObject(t, `spec: {size: 50, name: b}`), nil),
		`spec.size: Invalid value: "integer": failed rule: self <= 10`)
}

func TestValidateMessageExpressionReasonAndFieldPath(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.replicas <= self.maxReplicas"
      messageExpression: "'replicas exceed maxReplicas for ' + self.owner"
      fieldPath: .replicas
    - rule: "has(self.owner)"
      message: owner is required
      reason: FieldValueRequired
      fieldPath: .owner
    - rule: "self.tags.all(t, self.tags.filter(u, u == t).size() == 1)"
      reason: FieldValueDuplicate
      fieldPath: .tags
    - rule: "!has(self.limits) || !('gpu' in self.limits)"
      message: no GPUs
      fieldPath: ".limits['gpu']"
    - rule: "self.replicas != 13"
      message: unlucky
      messageExpression: "'unlucky: ' + self.tags[99]"
    properties:
      replicas: {type: integer}
      maxReplicas: {type: integer}
      owner: {type: string, maxLength: 20}
      tags: {type: array, maxItems: 5, items: {type: string, maxLength: 10}}
      limits: {type: object, maxProperties: 5, additionalProperties: {type: integer}}
`)
	sameMessages(t, v.Validate(mustObject(t, `spec: {replicas: 13, maxReplicas: 3, tags: [a, a], owner: ""}`), nil),
		// The message is trimmed; it is used as long as something is left.
		`spec.replicas: Invalid value: "object": replicas exceed maxReplicas for`,
		`spec.tags: Duplicate value: "object"`,
		`spec: Invalid value: "object": unlucky`,
	)
	sameMessages(t, v.Validate(mustObject(t, `spec: {replicas: 13, maxReplicas: 3, tags: [a, a], owner: bob}`), nil),
		`spec.replicas: Invalid value: "object": replicas exceed maxReplicas for bob`,
		`spec.tags: Duplicate value: "object"`,
		`spec: Invalid value: "object": unlucky`,
	)
	sameMessages(t, v.Validate(mustObject(t, `spec: {replicas: 13, maxReplicas: 3, tags: [a, a], limits: {gpu: 1}}`), nil),
		// The messageExpression cannot read the absent owner: the default message is used.
		`spec.replicas: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas`,
		`spec.owner: Required value: owner is required`,
		`spec.tags: Duplicate value: "object"`,
		`spec.limits[gpu]: Invalid value: "object": no GPUs`,
		// The messageExpression fails (index out of range): the message is used.
		`spec: Invalid value: "object": unlucky`,
	)
}

func TestValidateTypesFromTheSchema(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      port:
        x-kubernetes-int-or-string: true
        x-kubernetes-validations:
        - rule: "type(self) == string ? self.startsWith('http') : self > 0"
      timeout:
        type: string
        format: duration
        x-kubernetes-validations:
        - rule: "self <= duration('1h')"
      notBefore:
        type: string
        format: date-time
        x-kubernetes-validations:
        - rule: "self > timestamp('2020-01-01T00:00:00Z')"
      extra:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        x-kubernetes-validations:
        - rule: "!has(self.debug) || self.debug == false"
      dash-name:
        type: string
      ratio:
        type: number
        x-kubernetes-validations:
        - rule: "self < 1.0"
    x-kubernetes-validations:
    - rule: "!has(self.dash__dash__name) || self.dash__dash__name != 'x'"
`)
	valid := `spec: {port: http, timeout: 30m, notBefore: "2024-05-01T00:00:00Z", extra: {debug: false, any: [1]}, dash-name: y, ratio: 0.5}`
	if errs := v.Validate(mustObject(t, valid), nil); len(errs) != 0 {
		t.Fatalf("valid object refused: %v", messages(errs))
	}
	sameMessages(t, v.Validate(mustObject(t, `spec: {port: 0, timeout: 2h, notBefore: "2019-05-01T00:00:00Z", extra: {debug: true}, dash-name: x, ratio: 2}`), nil),
		`spec: Invalid value: "object": failed rule: !has(self.dash__dash__name) || self.dash__dash__name != 'x'`,
		`spec.extra: Invalid value: "object": failed rule: !has(self.debug) || self.debug == false`,
		`spec.notBefore: Invalid value: "string": failed rule: self > timestamp('2020-01-01T00:00:00Z')`,
		`spec.port: Invalid value: "": failed rule: type(self) == string ? self.startsWith('http') : self > 0`,
		`spec.ratio: Invalid value: "number": failed rule: self < 1.0`,
		`spec.timeout: Invalid value: "string": failed rule: self <= duration('1h')`,
	)
}

func TestValidateKubernetesLibrary(t *testing.T) {
	rules := []string{
		"self.versions.isSorted()",
		"self.sizes.sum() == 6",
		"self.sizes.min() == 1 && self.sizes.max() == 3",
		"self.versions.indexOf('v2') == 1 && self.versions.lastIndexOf('v9') == -1",
		"self.image.find('[0-9]+') == '1' && self.image.findAll('[0-9]+') == ['1', '27']",
		"self.image.findAll('[0-9]+', 1) == ['1']",
		"self.image.split(':')[0] == 'nginx' && self.image.lowerAscii() == self.image",
		"sets.contains(self.versions, ['v1'])",
		// Constant, so true for both objects below.
		"[1, 2].sum() == 3 && [].isSorted() && [3, 1].isSorted() == false",
	}
	schema := `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
`
	for _, r := range rules {
		schema += "    - rule: \"" + r + "\"\n"
	}
	schema += `    properties:
      versions: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}
      sizes: {type: array, maxItems: 10, items: {type: integer}}
      image: {type: string, maxLength: 100}
`
	v := mustCompile(t, schema)
	if errs := v.Validate(mustObject(t, `spec: {versions: [v1, v2, v3], sizes: [3, 1, 2], image: "nginx:1.27"}`), nil); len(errs) != 0 {
		t.Fatalf("library rules failed: %v", messages(errs))
	}
	errs := v.Validate(mustObject(t, `spec: {versions: [v9, v3], sizes: [], image: "NGINX"}`), nil)
	if len(errs) != len(rules)-1 {
		t.Errorf("want every rule but the constant one to fail on the bad object, got %d: %v", len(errs), strings.Join(messages(errs), "\n"))
	}
	var sawEmptyMin bool
	for _, e := range errs {
		if strings.Contains(e.Detail, "min called on empty list evaluating rule") {
			sawEmptyMin = true
		}
	}
	if !sawEmptyMin {
		t.Errorf("min of an empty list must be an evaluation error: %v", messages(errs))
	}
}

func TestValidateRuntimeCostLimits(t *testing.T) {
	// maxItems 1000 keeps the estimate under the 10M static limit, but a
	// full list makes the all-pairs rule cost more than the per-call limit.
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      numbers:
        type: array
        maxItems: 1000
        items: {type: integer}
        x-kubernetes-validations:
        - rule: "self.all(a, self.all(b, a != b || a == b))"
          message: pairwise check
`)
	numbers := make([]any, 1000)
	for i := range numbers {
		numbers[i] = float64(i)
	}
	obj := map[string]any{"spec": map[string]any{"numbers": numbers}}
	sameMessages(t, v.Validate(obj, nil),
		`spec.numbers: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: pairwise check`)
	obj["spec"].(map[string]any)["numbers"] = numbers[:10]
	if errs := v.Validate(obj, nil); len(errs) != 0 {
		t.Errorf("a short list is within the limit: %v", messages(errs))
	}
}

func TestValidateRuntimeBudgetIsShared(t *testing.T) {
	// Each element's rule searches a 1 MB string for a 20-character needle:
	// cost 100,000 × 2 (a tenth of each length), a little over 200,000 with
	// the rule's other steps, well under the per-call limit. Forty-nine of
	// them leave less than 200,000 of the request's 10,000,000, so the 50th
	// (index 49) stops the validation.
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      blobs:
        type: array
        maxItems: 120
        items:
          type: string
          x-kubernetes-validations:
          - rule: "!self.contains('needle-in-a-haystack')"
`)
	blob := strings.Repeat("x", 1_000_000)
	blobs := make([]any, 120)
	for i := range blobs {
		blobs[i] = blob
	}
	errs := v.Validate(map[string]any{"spec": map[string]any{"blobs": blobs}}, nil)
	if len(errs) != 1 {
		t.Fatalf("want exactly the budget error, got %v", messages(errs))
	}
	want := `Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run`
	if !strings.HasSuffix(errs[0].Error(), want) || errs[0].Field != "spec.blobs[49]" {
		t.Errorf("got %q, want the 50th element to report %q", errs[0].Error(), want)
	}
}

func TestValidateMapValuesCorrelateByKey(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  quotas:
    type: object
    maxProperties: 10
    additionalProperties:
      type: integer
      x-kubernetes-validations:
      - rule: "self >= oldSelf"
        message: a quota may only grow
`)
	sameMessages(t, v.Validate(mustObject(t, `quotas: {cpu: 4, memory: 1, disk: 1}`), mustObject(t, `quotas: {cpu: 2, memory: 8}`)),
		`quotas[memory]: Invalid value: "integer": a quota may only grow`)
}

func TestValidateDynValuesAndNulls(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  port:
    x-kubernetes-int-or-string: true
    x-kubernetes-validations:
    - rule: "self > 0"
  note:
    type: string
    nullable: true
    x-kubernetes-validations:
    - rule: "self != ''"
x-kubernetes-validations:
- rule: "!has(self.note)"
  message: a null note is absent
`)
	// int-or-string is dyn: the checker accepts self > 0, and a string
	// only fails when the rule runs.
	sameMessages(t, v.Validate(map[string]any{"port": "http", "note": nil}, nil),
		`port: Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 0`)
	sameMessages(t, v.Validate(map[string]any{"port": float64(8080), "note": "x"}, nil),
		`<nil>: Invalid value: "object": a null note is absent`)
}

func TestValidateImmutableObject(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self == oldSelf"
      message: spec is immutable
    properties:
      size: {type: integer}
      zones: {type: array, items: {type: string}}
`)
	old := mustObject(t, `spec: {size: 1, zones: [a, b]}`)
	if errs := v.Validate(mustObject(t, `spec: {size: 1, zones: [a, b]}`), old); len(errs) != 0 {
		t.Errorf("an unchanged spec passes: %q", messages(errs))
	}
	sameMessages(t, v.Validate(mustObject(t, `spec: {size: 1, zones: [b, a]}`), old),
		`spec: Invalid value: "object": spec is immutable`)
}

func TestValidateQuantityLibrary(t *testing.T) {
	rules := []string{
		"quantity(self.request).isLessThan(quantity(self.limit)) || quantity(self.request) == quantity(self.limit)",
		"quantity('1') == quantity('1000m') && quantity('1Gi').compareTo(quantity('1G')) == 1",
		"quantity('1.5').isInteger() == false && quantity('2k').asInteger() == 2000 && quantity('-1').sign() == -1",
		"quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi') && quantity('3').sub(1) == quantity('2')",
		"isQuantity(self.limit) && !isQuantity('1 Gi') && quantity('500m').asApproximateFloat() == 0.5",
	}
	schema := "type: object\nx-kubernetes-validations:\n"
	for _, r := range rules {
		schema += "- rule: \"" + r + "\"\n"
	}
	schema += "properties:\n  request: {type: string, maxLength: 20}\n  limit: {type: string, maxLength: 20}\n"
	v := mustCompile(t, schema)
	if errs := v.Validate(map[string]any{"request": "500Mi", "limit": "1Gi"}, nil); len(errs) != 0 {
		t.Fatalf("quantity rules failed: %q", messages(errs))
	}
	sameMessages(t, v.Validate(map[string]any{"request": "2Gi", "limit": "1Gi"}, nil),
		`<nil>: Invalid value: "object": failed rule: `+rules[0])
	errs := v.Validate(map[string]any{"request": "lots", "limit": "1Gi"}, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, `quantity "lots": quantities must match the regular expression`) {
		t.Errorf("an unparsable quantity is an evaluation error: %q", messages(errs))
	}
}

func TestValidateURLLibrary(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  endpoint:
    type: string
    maxLength: 200
    x-kubernetes-validations:
    - rule: "isURL(self) && url(self).getScheme() == 'https'"
      message: endpoint must be an https URL
    - rule: "!isURL(self) || url(self).getPort() == '' || url(self).getPort() == '8443'"
      message: only port 8443
x-kubernetes-validations:
- rule: "url('https://a.example.com:8443/x%20y?k=1&k=2').getHostname() == 'a.example.com' && url('https://a.example.com:8443/x%20y?k=1&k=2').getEscapedPath() == '/x%20y' && url('https://a.example.com:8443/x?k=1&k=2').getQuery()['k'] == ['1', '2'] && url('/just/a/path').getHost() == ''"
`)
	for obj, want := range map[string][]string{
		"https://api.example.com:8443/v1": nil,
		"http://api.example.com":          {`endpoint: Invalid value: "string": endpoint must be an https URL`},
		"api.example.com":                 {`endpoint: Invalid value: "string": endpoint must be an https URL`},
		"https://api.example.com:9000":    {`endpoint: Invalid value: "string": only port 8443`},
	} {
		sameMessages(t, v.Validate(map[string]any{"endpoint": obj}, nil), want...)
	}
}

func TestValidateListEqualityFollowsListType(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.atomic == oldSelf.atomic"
      message: atomic changed
    - rule: "self.set == oldSelf.set"
      message: set changed
    - rule: "self.ports == oldSelf.ports"
      message: ports changed
    properties:
      atomic: {type: array, maxItems: 5, items: {type: string, maxLength: 5}}
      set: {type: array, maxItems: 5, x-kubernetes-list-type: set, items: {type: string, maxLength: 5}}
      ports:
        type: array
        maxItems: 5
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          properties:
            name: {type: string, maxLength: 5}
            port: {type: integer}
`)
	old := mustObject(t, `spec: {atomic: [a, b], set: [a, b], ports: [{name: a, port: 1}, {name: b, port: 2}]}`)
	sameMessages(t, v.Validate(mustObject(t, `spec: {atomic: [b, a], set: [b, a], ports: [{name: b, port: 2}, {name: a, port: 1}]}`), old),
		`spec: Invalid value: "object": atomic changed`)
	sameMessages(t, v.Validate(mustObject(t, `spec: {atomic: [a, b], set: [a, c], ports: [{name: a, port: 1}, {name: b, port: 3}]}`), old),
		`spec: Invalid value: "object": set changed`,
		`spec: Invalid value: "object": ports changed`)
}
