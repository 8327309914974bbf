// Package structural validates, prunes and defaults custom objects with the
// OpenAPI v3 schema of their CustomResourceDefinition, as upstream's
// apiextensions-apiserver does.
//
// # What "structural" means
//
// OpenAPI lets a schema say the same thing many ways: a field's type may sit
// in an allOf, a property may exist only inside one branch of a oneOf, a
// node may have no type at all. Such a schema can still check a value
// ("valid or not"), but it cannot answer the questions the apiserver must
// answer for every field of every object: what is this field, is it known,
// what is its default, how does server-side apply merge it?
//
// A structural schema answers them by construction:
//
//   - every node outside allOf/anyOf/oneOf/not has a type (or
//     x-kubernetes-int-or-string, or x-kubernetes-preserve-unknown-fields);
//   - allOf/anyOf/oneOf/not only add value checks (pattern, minimum, …) to
//     fields the outer schema already specifies; they never give a type, a
//     default, a description or an x-kubernetes-* extension;
//   - an object is a struct (properties) or a map (additionalProperties),
//     never both;
//   - the root's metadata may only restrict name and generateName, because
//     the rest of ObjectMeta belongs to the apiserver.
//
// So the schema, read without its junctors, is a tree of types: the
// "skeleton" of the object. apiextensions.k8s.io/v1 refuses a CRD whose
// schema is not structural; ValidateCRDSchema gives upstream's reasons.
//
// # Why pruning exists
//
// A built-in kind is a Go struct: decoding JSON into it silently drops any
// field the struct does not have, so a typo ("replcas: 3") or a field from a
// newer version never reaches etcd. Early CRDs had no such step: whatever a
// client sent was stored, and later became a field the schema could never
// describe or default — a time bomb for the next schema change. Pruning
// gives custom objects the same behaviour as built-ins: on every write (and
// on every read from storage), Prune drops each field the skeleton does not
// specify, and reports its path (kubectl shows them as "unknown field"
// warnings). x-kubernetes-preserve-unknown-fields opts a subtree out, for
// fields that are free-form on purpose (a Helm values blob, say);
// x-kubernetes-embedded-resource marks a whole object inside the object (a
// pod template), whose apiVersion, kind and metadata are kept like the
// root's.
//
// Defaulting needs the skeleton too: a default applies to the one place the
// skeleton gives the field, and runs after pruning, with defaults that are
// themselves pruned, so a default can never bring back an unknown field.
//
// # The order the apiserver uses
//
// On create and update: decode, Prune, Default, Validate (value checks,
// embedded resources, list-type set/map uniqueness). On read from storage:
// Prune and Default again, so a schema change shows up on old objects.
//
// Upstream's code lives in k8s.io/apiextensions-apiserver
// (pkg/apiserver/schema for the structural rules, pruning and defaulting;
// pkg/apiserver/validation for value validation through kube-openapi). This
// package follows its rules and messages but walks kplane's
// api.JSONSchemaProps directly instead of converting to a separate
// structural type.
package structural
