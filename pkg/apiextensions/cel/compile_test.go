package cel

import (
	"strings"
	"testing"

	apierrors "kplane/pkg/api/errors"
)

// specWithRule is a schema whose spec carries one rule, given as YAML
// lines (indented to sit under x-kubernetes-validations).
func specWithRule(rule string) string {
	return `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
` + rule + `
    properties:
      replicas: {type: integer}
      name: {type: string, maxLength: 20}
      tags: {type: array, items: {type: string}}
      bounded: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}
`
}

const specRulePath = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		rule string
		// field, type and the start of the detail of the one error.
		field, detailPrefix string
		errType             apierrors.FieldErrorType
	}{
		{"syntax error", `    - rule: "self.replicas >"`,
			specRulePath + ".rule", "compilation failed: ERROR: <input>:1:16: Syntax error:", apierrors.FieldValueInvalid},
		{"a field the schema does not have", `    - rule: "self.replica > 1"`,
			specRulePath + ".rule", "compilation failed: ERROR: <input>:1:5: undefined field 'replica'", apierrors.FieldValueInvalid},
		{"comparing an int with a string", `    - rule: "self.replicas > 'a'"`,
			specRulePath + ".rule", "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'", apierrors.FieldValueInvalid},
		{"a rule that is not a bool", `    - rule: "self.replicas"`,
			specRulePath + ".rule", "cel expression must evaluate to a bool", apierrors.FieldValueInvalid},
		{"an empty rule", `    - rule: ""`,
			specRulePath + ".rule", "", apierrors.FieldValueRequired},
		{"a messageExpression that is not a string", "    - rule: \"true\"\n      messageExpression: \"self.replicas\"",
			specRulePath + ".messageExpression", "must evaluate to a string", apierrors.FieldValueInvalid},
		{"a messageExpression that does not compile", "    - rule: \"true\"\n      messageExpression: \"self.nope\"",
			specRulePath + ".messageExpression", "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'", apierrors.FieldValueInvalid},
		{"an unknown reason", "    - rule: \"true\"\n      reason: FieldValueTooLong",
			specRulePath + ".reason", `supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`, apierrors.FieldValueNotSupported},
		{"a fieldPath to no field", "    - rule: \"true\"\n      fieldPath: .replica",
			specRulePath + ".fieldPath", "fieldPath must be a valid path: does not refer to a valid field in the schema: replica", apierrors.FieldValueInvalid},
		{"a message with a line break", "    - rule: \"true\"\n      message: \"a\\nb\"",
			specRulePath + ".message", "message must not contain line breaks", apierrors.FieldValueInvalid},
		{"optionalOldSelf without oldSelf", "    - rule: \"true\"\n      optionalOldSelf: true",
			specRulePath + ".optionalOldSelf", "may not be set if oldSelf is not used in rule", apierrors.FieldValueInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, errs := Compile(mustSchema(t, specWithRule(tc.rule)))
			if v != nil {
				t.Errorf("Compile returned a Validator with errors")
			}
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d: %q", len(errs), messages(errs))
			}
			e := errs[0]
			if e.Field != tc.field || e.Type != tc.errType || !strings.HasPrefix(e.Detail, tc.detailPrefix) {
				t.Errorf("got  %s (%s)\nwant %s: %s… (%s)", e.Error(), e.Type, tc.field, tc.detailPrefix, tc.errType)
			}
		})
	}
}

func TestCompileErrorShowsTheRuleAsTheValue(t *testing.T) {
	_, errs := Compile(mustSchema(t, specWithRule(`    - rule: "self.replicas"`)))
	want := specRulePath + `.rule: Invalid value: {"rule":"self.replicas"}: cel expression must evaluate to a bool`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %q\nwant %q", messages(errs), want)
	}
}

func TestCompileAcceptsBoundedRulesAndWellFormedFields(t *testing.T) {
	for _, rule := range []string{
		`    - rule: "self.bounded.all(a, self.bounded.all(b, a == b))"`,
		"    - rule: \"self.replicas >= oldSelf.replicas\"\n      optionalOldSelf: false",
		"    - rule: \"self.replicas > 0\"\n      fieldPath: \".replicas\"\n      reason: FieldValueForbidden",
		"    - rule: \"self.replicas > 0\"\n      fieldPath: \"['name']\"",
		"    - rule: \"self.replicas > 0\"\n      messageExpression: \"self.name + ' needs replicas'\"",
		`    - rule: "self.?name.orValue('') != 'x'"`,
		`    - rule: "cel.bind(n, self.replicas, n * n < 100)"`,
		// Immutability of a whole object: a transition rule comparing objects.
		"    - rule: \"self == oldSelf\"\n      message: spec is immutable",
	} {
		if _, errs := Compile(mustSchema(t, specWithRule(rule))); len(errs) != 0 {
			t.Errorf("rule\n%s\nrefused: %q", rule, messages(errs))
		}
	}
}

func TestCompileNamesNestedRulesByTheirSchemaPath(t *testing.T) {
	_, errs := CompileAt(mustSchema(t, `
type: object
properties:
  spec:
    type: object
    properties:
      ports:
        type: array
        items:
          type: object
          x-kubernetes-validations:
          - rule: "self.port"
          properties:
            port: {type: integer}
      labels:
        type: object
        additionalProperties:
          type: string
          x-kubernetes-validations:
          - rule: "1"
`), "spec.versions[0].schema.openAPIV3Schema")
	want := []string{
		"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[labels].additionalProperties.x-kubernetes-validations[0].rule",
		"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[ports].items.x-kubernetes-validations[0].rule",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %q", messages(errs))
	}
	for i := range want {
		if errs[i].Field != want[i] {
			t.Errorf("error %d at %s, want %s", i, errs[i].Field, want[i])
		}
	}
}

func TestCompileRefusesOldSelfWhereElementsCannotBeMatched(t *testing.T) {
	_, errs := Compile(mustSchema(t, `
type: object
properties:
  list:
    type: array
    maxItems: 10
    items:
      type: string
      maxLength: 10
      x-kubernetes-validations:
      - rule: "self == oldSelf"
`))
	want := `spec.validation.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[list].items`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got  %q\nwant %q", messages(errs), want)
	}
}

func TestCompileWithoutRules(t *testing.T) {
	v, errs := Compile(mustSchema(t, `{type: object, properties: {a: {type: string}}}`))
	if len(errs) != 0 || v == nil {
		t.Fatalf("a schema without rules compiles: %q", messages(errs))
	}
	if errs := v.Validate(map[string]any{"a": "x"}, nil); len(errs) != 0 {
		t.Errorf("no rules, no errors: %q", messages(errs))
	}
	var none *Validator
	if errs := none.Validate(map[string]any{"a": "x"}, nil); len(errs) != 0 {
		t.Errorf("a nil Validator validates nothing: %q", messages(errs))
	}
}

func TestEscapePropertyName(t *testing.T) {
	for name, want := range map[string]string{
		"replicas": "replicas", "dash-name": "dash__dash__name", "a.b": "a__dot__b",
		"x/y": "x__slash__y", "a__b": "a__underscores__b", "namespace": "__namespace__",
		"if": "__if__", "1st": "",
	} {
		got, ok := escapePropertyName(name)
		if got != want || ok != (want != "") {
			t.Errorf("escapePropertyName(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestRootAndEmbeddedResourcesShowNameAndGenerateNameOnly(t *testing.T) {
	schema := `
type: object
x-kubernetes-validations:
- rule: %s
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	for _, rule := range []string{
		`"self.metadata.name.startsWith('web-') && self.kind == 'Website' && self.apiVersion != ''"`,
		`"!has(self.metadata.generateName) && self.template.metadata.name != '' && self.template.kind == 'Pod'"`,
	} {
		if _, errs := Compile(mustSchema(t, strings.Replace(schema, "%s", rule, 1))); len(errs) != 0 {
			t.Errorf("%s refused: %q", rule, messages(errs))
		}
	}
	_, errs := Compile(mustSchema(t, strings.Replace(schema, "%s", `"self.metadata.labels.size() > 0"`, 1)))
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "undefined field 'labels'") {
		t.Errorf("labels must be hidden from rules, got %q", messages(errs))
	}
}

func TestCompileRefusesRulesThatCostTooMuch(t *testing.T) {
	const hint = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	t.Run("one quadratic rule over an unbounded list", func(t *testing.T) {
		_, errs := Compile(mustSchema(t, specWithRule(`    - rule: "self.tags.all(a, self.tags.all(b, a == b))"`)))
		sameMessages(t, errs,
			specRulePath+".rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"+hint,
			specRulePath+".rule: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema",
			"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x"+hint,
		)
	})
	t.Run("a rule on the items of an unbounded list counts once per element", func(t *testing.T) {
		_, errs := Compile(mustSchema(t, `
type: object
properties:
  names:
    type: array
    items:
      type: string
      x-kubernetes-validations:
      - rule: "self.contains('a')"
`))
		sameMessages(t, errs,
			"spec.validation.openAPIV3Schema.properties[names].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema",
			"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x"+hint,
		)
	})
	t.Run("bounds make both rules acceptable", func(t *testing.T) {
		mustCompile(t, `
type: object
properties:
  names:
    type: array
    maxItems: 100
    items:
      type: string
      maxLength: 64
      x-kubernetes-validations:
      - rule: "self.contains('a')"
    x-kubernetes-validations:
    - rule: "self.all(a, self.all(b, a == b))"
`)
	})
}

func TestPropertiesWithDotsDoNotShareTypesWithNestedOnes(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  a.b: {type: object, properties: {text: {type: string}}}
  a:
    type: object
    properties:
      b: {type: object, properties: {count: {type: integer}}}
x-kubernetes-validations:
- rule: "self.a__dot__b.text == 's' && self.a.b.count == 1"
`)
	if errs := v.Validate(map[string]any{"a.b": map[string]any{"text": "s"}, "a": map[string]any{"b": map[string]any{"count": float64(1)}}}, nil); len(errs) != 0 {
		t.Errorf("got %q", messages(errs))
	}
}
