package audit

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// FuzzParsePolicy feeds arbitrary bytes to the policy loader and checks
// that it never panics, that a policy it accepts passes Validate, and that
// an accepted policy written back as JSON loads again unchanged (compared
// as JSON, where an empty list and a missing one are the same).
func FuzzParsePolicy(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: \"\"\n    resources: [pods, pods/log]\n- level: None\n  nonResourceURLs: [/healthz*]\n",
		"apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: RequestResponse\n  users: [admin]\n  omitManagedFields: false\n  namespaces: [\"\"]\n",
		`{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Request","verbs":["create"],"futureField":1}]}`,
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n", "kind: Policy\n", "rules: 5\n",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/x]\n  resources: [{group: apps}]\n",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Later]\n", "", "- a\n", "&a [*a]",
	} {
		f.Add([]byte(seed))
	}
	quiet := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data, quiet)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%q: accepted, yet Validate says %v", data, err)
		}
		written, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%q: accepted policy does not encode: %v", data, err)
		}
		// Compared as JSON: "users: []" and no users are the same rule.
		again, err := ParsePolicy(written, quiet)
		if err != nil {
			t.Fatalf("%q: written back as %s it does not load: %v", data, written, err)
		}
		if rewritten, _ := json.Marshal(again); string(rewritten) != string(written) {
			t.Fatalf("%q: written back as %s it loads as %s", data, written, rewritten)
		}
	})
}

// FuzzEvaluate evaluates arbitrary requests against policies built from
// fuzzed rules and checks the evaluator's promises:
//
//   - a rule with no lists matches every request;
//   - the rule written for exactly the request matches it, and so do its
//     wildcard forms: resources "*", "<resource>/*" and "*/<subresource>",
//     a group without resources, nonResourceURLs "*" and "<prefix>*";
//   - the first matching rule decides: with two rules, the level is the
//     first one's when it matches, else the second's, else None;
//   - stages the policy omits are omitted for every request.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []struct {
		user, group, verb, namespace, apiGroup, resource, subresource, name, path, ruleText string
		resourceRequest                                                                     bool
	}{
		{"alice", "devs", "get", "default", "", "pods", "log", "web", "", "Metadata|alice||get|default||pods/*||", true},
		{"bob", "", "patch", "ns", "apps", "deployments", "scale", "d", "", "Request||||ns|apps|*/scale|d|", true},
		{"", "", "get", "", "", "", "", "", "/healthz/ready", "None|||||||/healthz*", false},
		{"x", "y", "list", "", "", "secrets", "", "", "", "RequestResponse||y||||||", true},
		{"x", "y", "get", "", "", "", "", "", "/x", "Loud|||||||", false},
	} {
		f.Add(seed.user, seed.group, seed.verb, seed.namespace, seed.apiGroup, seed.resource, seed.subresource, seed.name, seed.path, seed.ruleText, seed.resourceRequest)
	}
	f.Fuzz(func(t *testing.T, user, group, verb, namespace, apiGroup, resource, subresource, name, path, ruleText string, resourceRequest bool) {
		attrs := authorizer.Attributes{User: auth.User{Name: user, Groups: []string{group}}, Verb: verb, ResourceRequest: resourceRequest,
			Namespace: namespace, APIGroup: apiGroup, Resource: resource, Subresource: subresource, Name: name, Path: path}
		fuzzed := ruleFromText(ruleText)
		levelOf := func(rules ...PolicyRule) Level {
			p := &Policy{Rules: rules, OmitStages: []Stage{StagePanic}}
			config := p.Evaluate(attrs)
			if !config.Omits(StagePanic) {
				t.Fatalf("%+v: the policy omits Panic, the request's config does not: %+v", attrs, config)
			}
			return config.Level
		}

		if got := levelOf(PolicyRule{Level: LevelRequest}); got != LevelRequest {
			t.Fatalf("%+v: a rule with no lists gives %s", attrs, got)
		}
		for _, rule := range matchingRules(attrs) {
			rule.Level = LevelMetadata
			if got := levelOf(rule); got != LevelMetadata {
				t.Fatalf("%+v: the rule %+v is written to match it, yet gives %s", attrs, rule, got)
			}
		}

		fuzzedLevel := levelOf(fuzzed)
		if fuzzedLevel != LevelNone && fuzzedLevel != fuzzed.Level {
			t.Fatalf("%+v: one rule of level %s gives %s", attrs, fuzzed.Level, fuzzedLevel)
		}
		matches := fuzzedLevel == fuzzed.Level && (fuzzed.Level != LevelNone || levelOf(withLevel(fuzzed, LevelMetadata)) == LevelMetadata)
		second := PolicyRule{Level: LevelRequestResponse}
		want := LevelRequestResponse
		if matches {
			want = fuzzed.Level
		}
		if got := levelOf(fuzzed, second); got != want {
			t.Fatalf("%+v: rules [%+v, catch-all] give %s, want %s", attrs, fuzzed, got, want)
		}
	})
}

// ruleFromText builds a rule from "|"-separated fields, lists
// ","-separated: level|users|groups|verbs|namespaces|group|resources|resourceNames|nonResourceURLs.
func ruleFromText(text string) PolicyRule {
	fields := strings.SplitN(text, "|", 9)
	for len(fields) < 9 {
		fields = append(fields, "")
	}
	list := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	rule := PolicyRule{Level: Level(fields[0]), Users: list(fields[1]), UserGroups: list(fields[2]), Verbs: list(fields[3]),
		Namespaces: list(fields[4]), NonResourceURLs: list(fields[8])}
	if fields[5] != "" || fields[6] != "" || fields[7] != "" {
		rule.Resources = []GroupResources{{Group: fields[5], Resources: list(fields[6]), ResourceNames: list(fields[7])}}
	}
	return rule
}

// matchingRules are rules written to match the request attrs describes.
func matchingRules(attrs authorizer.Attributes) []PolicyRule {
	who := PolicyRule{Users: []string{attrs.User.Name}, UserGroups: slices.Clone(attrs.User.Groups), Verbs: []string{attrs.Verb}}
	var rules []PolicyRule
	with := func(change func(*PolicyRule)) {
		rule := who
		change(&rule)
		rules = append(rules, rule)
	}
	if !attrs.ResourceRequest {
		with(func(r *PolicyRule) { r.NonResourceURLs = []string{attrs.Path} })
		with(func(r *PolicyRule) { r.NonResourceURLs = []string{"*"} })
		with(func(r *PolicyRule) { r.NonResourceURLs = []string{attrs.Path[:len(attrs.Path)/2] + "*"} })
		return rules
	}
	combined := attrs.Resource
	if attrs.Subresource != "" {
		combined += "/" + attrs.Subresource
	}
	var names []string
	if attrs.Name != "" {
		names = []string{attrs.Name}
	}
	resources := [][]string{{combined}, {"*"}, nil}
	if attrs.Subresource != "" {
		resources = append(resources, []string{attrs.Resource + "/*"}, []string{"*/" + attrs.Subresource})
	}
	for _, list := range resources {
		with(func(r *PolicyRule) {
			r.Namespaces = []string{attrs.Namespace}
			r.Resources = []GroupResources{{Group: attrs.APIGroup, Resources: list, ResourceNames: names}}
		})
	}
	with(func(r *PolicyRule) { r.Namespaces = []string{attrs.Namespace} })
	return rules
}

func withLevel(rule PolicyRule, level Level) PolicyRule {
	rule.Level = level
	return rule
}
