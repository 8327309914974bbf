// Package cel runs the CEL validation rules of a CustomResourceDefinition's
// schema: the x-kubernetes-validations a CRD author writes next to a field.
//
// # What CEL is
//
// CEL, the Common Expression Language, is a small expression language made
// at Google for exactly this job: checking a value against a rule written as
// data. A rule such as
//
//	self.replicas <= self.maxReplicas
//
// reads like a line of Go or JavaScript, but CEL has no loops, no
// assignments and no side effects, so a rule always terminates and cannot
// touch anything outside the value it is given. The library (cel.dev/cel-go,
// which the Kubernetes apiserver uses too) works in three steps, and this
// package follows them:
//
//   - Parse and type-check ("compile"), once, when the CRD is created or
//     updated. The schema tells the checker what self is: an object with the
//     schema's properties, a list, a map, a string, and so on (types.go). A
//     rule that names a field the schema does not have, compares a string
//     with an int, or does not return a bool is refused here, and the CRD
//     with it.
//   - Estimate the cost: from the schema's maxItems, maxLength and
//     maxProperties the checker computes the worst-case work a rule can do.
//     A rule that could run away (an all() over an unbounded list inside an
//     all() over another) is refused before any object exists (cost.go).
//   - Evaluate, for every create and update of a custom resource, with self
//     bound to the field's value and, for transition rules, oldSelf bound to
//     the stored value (validate.go). Evaluation is metered too: each rule
//     has a per-call limit, and one request a total budget.
//
// # Where the rules run in a request
//
// A write to a custom resource passes through the apiserver as any other:
// authentication, authorization, admission (mutating), then the resource's
// strategy. The strategy decodes the body, prunes unknown fields, applies
// defaults, validates the object against the OpenAPI schema (types, enum,
// pattern, required …) and then runs this package's Validator on the result;
// the errors of both are returned together, in one 422 Invalid Status.
// Only then does validating admission run and the object reach etcd. The
// CRD itself is checked by Compile when it is written: a rule that does not
// compile, or costs too much, makes the CRD invalid.
//
// # Transition rules
//
// A rule that mentions oldSelf compares the new value with the stored one
// ("self >= oldSelf": a counter may only grow; "self == oldSelf": immutable).
// Upstream runs such a rule only where there is an old value to compare
// with: on updates, and for list elements or map values that can be matched
// with an old one (by key for maps and map-lists, by value for sets). A rule
// with optionalOldSelf: true runs on creates too, with oldSelf an optional
// that is empty (oldSelf.hasValue() is false).
//
// # What is in the environment
//
// The standard CEL functions and macros (has, all, exists, exists_one, map,
// filter, size, matches, startsWith, contains, timestamps and durations),
// optionals (?. and .orValue), cel-go's strings extension (split, replace,
// lowerAscii, trim, join, indexOf on strings …), sets (sets.contains …),
// cel.bind, and the Kubernetes list and regex functions that students meet
// most: isSorted, sum, min, max, indexOf, lastIndexOf on lists, find and
// findAll on strings (library.go), quantities such as
// quantity(self.memory).isLessThan(quantity('1Gi')) (quantity.go), and URLs
// such as url(self.endpoint).getScheme() == 'https' (url.go).
// Kubernetes' ip, cidr, semver, format and authorizer libraries, and
// cel-go's lists extension (distinct, sort, flatten …), are not in kplane
// yet; a rule using them fails to compile with CEL's "undeclared reference"
// error.
//
// Upstream's code lives in k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel
// (compilation.go, validation.go) and k8s.io/apiserver/pkg/cel; this package
// is written from their behaviour, not their code.
package cel
