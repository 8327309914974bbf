package openapi

import (
	"reflect"
	"strings"

	"kplane/pkg/api"
)

// Component names are upstream's: the Go package of the type in Kubernetes'
// source tree, dots for slashes, then the type name —
// io.k8s.api.apps.v1.Deployment, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.
// kplane keeps every type in one package, pkg/api, with one file per API
// group, so the file that declares a type (recorded by go generate in
// sourceFiles) says which upstream package it belongs to. kubectl explain
// shows the last dot-separated part as the field's type (<PodSpec>), and
// nothing reads the rest, but matching upstream keeps the documents
// recognisable next to a real cluster's.

// Upstream packages of the types kplane shares with apimachinery.
const (
	metaPackage     = "io.k8s.apimachinery.pkg.apis.meta.v1"
	resourcePackage = "io.k8s.apimachinery.pkg.api.resource"
	intstrPackage   = "io.k8s.apimachinery.pkg.util.intstr"
	runtimePackage  = "io.k8s.apimachinery.pkg.runtime"
	corePackage     = "io.k8s.api.core.v1"
)

// packageOfFile maps a file of pkg/api to the upstream package of the types
// it declares. Files named core_*.go are core/v1; a file not listed here
// is taken to be the group it is named after, at v1
// (storage.go → io.k8s.api.storage.v1).
var packageOfFile = map[string]string{
	"apiextensions.go":  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
	"apps.go":           "io.k8s.api.apps.v1",
	"autoscaling.go":    "io.k8s.api.autoscaling.v2",
	"autoscaling_v1.go": "io.k8s.api.autoscaling.v1",
	"batch.go":          "io.k8s.api.batch.v1",
	"coordination.go":   "io.k8s.api.coordination.v1",
	"discovery.go":      "io.k8s.api.discovery.v1",
	"rbac.go":           "io.k8s.api.rbac.v1",
	"resource.go":       corePackage, // ResourceName, ResourceList
	"meta.go":           metaPackage,
	"list.go":           metaPackage,
	"options.go":        metaPackage,
	"table.go":          metaPackage,
	"quantity.go":       resourcePackage,
	"intstr.go":         intstrPackage,
}

// packageOfType overrides the file's package for the few types that sit
// beside a group they do not belong to: Scale is autoscaling/v1 although
// autoscaling.go holds autoscaling/v2, and Eviction is policy/v1 although
// it sits with the meta/v1 options.
var packageOfType = map[string]string{
	"Scale":       "io.k8s.api.autoscaling.v1",
	"ScaleSpec":   "io.k8s.api.autoscaling.v1",
	"ScaleStatus": "io.k8s.api.autoscaling.v1",
	"Eviction":    "io.k8s.api.policy.v1",
}

// upstreamTypeName holds the types kplane had to rename because all its
// types share one Go package: discovery/v1's EndpointPort would clash with
// core/v1's, so kplane calls it EndpointSlicePort, and its schema takes the
// upstream name back (explain shows <[]EndpointPort>, as on a real cluster).
// events.k8s.io/v1's Event is EventsV1Event beside core/v1's Event, and
// autoscaling/v1's HorizontalPodAutoscaler is HorizontalPodAutoscalerV1.
var upstreamTypeName = map[string]string{
	"EndpointSlicePort": "EndpointPort",
	"EventsV1Event":     "Event",

	"HorizontalPodAutoscalerV1":       "HorizontalPodAutoscaler",
	"HorizontalPodAutoscalerV1Spec":   "HorizontalPodAutoscalerSpec",
	"HorizontalPodAutoscalerV1Status": "HorizontalPodAutoscalerStatus",
}

// apiPackagePath is the import path of kplane's API types.
var apiPackagePath = reflect.TypeFor[api.Pod]().PkgPath()

// SchemaName returns the component name of the schema of Go type t
// (pointers are looked through): io.k8s.api.core.v1.PodSpec for
// api.PodSpec. A named type outside pkg/api is named after its import path
// (kplane.pkg.foo.Bar).
func SchemaName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != apiPackagePath {
		return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
	}
	name := t.Name()
	if upstream, ok := upstreamTypeName[name]; ok {
		name = upstream
	}
	return upstreamPackage(t.Name()) + "." + name
}

// upstreamPackage is the upstream package of pkg/api's type name.
func upstreamPackage(name string) string {
	if pkg, ok := packageOfType[name]; ok {
		return pkg
	}
	file, ok := sourceFiles[name]
	if !ok {
		// Not seen by go generate: docs_generated.go is stale (a test
		// says so). Name the type after kplane's package meanwhile.
		return strings.ReplaceAll(apiPackagePath, "/", ".")
	}
	if strings.HasPrefix(file, "core_") {
		return corePackage
	}
	if pkg, ok := packageOfFile[file]; ok {
		return pkg
	}
	return "io.k8s.api." + strings.TrimSuffix(file, ".go") + ".v1"
}
