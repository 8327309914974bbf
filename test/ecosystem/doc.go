// Package ecosystem holds kplane's ecosystem judges: tests that run real
// upstream clients — a controller-runtime manager written the way kubebuilder
// scaffolds one, and the Helm binary installing a chart with a crds/
// directory — unchanged against a `ctl up` cluster.
//
// It is a Go module of its own (kplane/test/ecosystem) so that
// controller-runtime, client-go and apimachinery never enter the product's
// module: kplane implements the API, and these libraries only judge how
// faithfully it does. Run the judges with `make test-ecosystem`: the manager
// on built-in kinds, the manager on a Guestbook CustomResourceDefinition, and
// Helm installing the chart (with helm on PATH or in KPLANE_HELM).
package ecosystem
