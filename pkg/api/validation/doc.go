// Package validation checks API objects before the apiserver stores them,
// the way Kubernetes' per-kind validation (pkg/apis/*/validation) and
// apimachinery's validation helpers do.
//
// The entry points are ValidateCreate and ValidateUpdate: they take any
// kplane object and return a FieldErrorList, one entry per broken field,
// each naming the field by its full JSON path
// ("spec.template.spec.containers[0].image") and worded as Kubernetes words
// it, so that what kubectl prints against kplane is what it prints against a
// real cluster:
//
//	metadata.name: Invalid value: "Foo_bar": a lowercase RFC 1123 subdomain must consist of …
//	spec.selector: Required value
//
// Validation runs after defaulting, as upstream's does. Fields that
// defaulting always fills (a pod's restartPolicy and dnsPolicy, a port's
// protocol, a Service's type, …) are therefore accepted when empty: an
// undefaulted object is judged as if the defaults were in place, instead of
// failing with "Required value" for something the user never had to write.
//
// The files split the work by concern: validate.go dispatches on the kind;
// names.go and namefuncs.go hold the string formats (DNS labels and
// subdomains, qualified names, label values, port names); objectmeta.go the
// rules every object's metadata follows; selector.go label selectors;
// pod.go, container.go, volumes.go and scheduling.go the pod spec that every
// workload embeds; and one file per kind (or family of kinds) the rest.
//
// Where kplane's wording differs from upstream's it is on purpose and says
// more: field paths are always full JSON paths (upstream sometimes drops a
// list index), and an error about a whole immutable spec names the fields
// that changed instead of printing a Go diff.
package validation
