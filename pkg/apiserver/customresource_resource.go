package apiserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store/cache"
	"kplane/pkg/store/keys"
)

// customResourceInfo is what a resource added by a CRD carries beyond the
// generic resource fields: the CRD it came from and the version's schema,
// columns and paths.
type customResourceInfo struct {
	// crdName names the CRD ("crontabs.stable.example.com").
	crdName string
	// crd is the CRD state the resource was built from; its OpenAPI
	// schemas (openapi_customresources.go) are published from it.
	crd *api.CustomResourceDefinition
	// storageAPIVersion is the apiVersion objects are written to etcd in,
	// whichever version they were sent to: conversion None only rewrites
	// apiVersion.
	storageAPIVersion string
	// schema is the version's openAPIV3Schema.
	schema *api.JSONSchemaProps
	// columns are the version's additionalPrinterColumns.
	columns []api.CustomResourceColumnDefinition
	// terminating says the CRD is being deleted: its objects are being
	// removed and no new ones may be created.
	terminating bool
}

// customResourcesOf builds the resources an Established CRD serves: one
// per served version, all stored under /registry/<group>/<plural>/.
func customResourcesOf(crd *api.CustomResourceDefinition) []*resource {
	names := crd.Status.AcceptedNames
	storage := crd.Spec.Group + "/" + api.CRDStorageVersion(crd)
	terminating := api.IsCRDConditionTrue(crd, api.Terminating) || crd.DeletionTimestamp != nil
	var resources []*resource
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if !v.Served {
			continue
		}
		info := &customResourceInfo{crdName: crd.Name, crd: crd, storageAPIVersion: storage, columns: v.AdditionalPrinterColumns, terminating: terminating}
		if v.Schema != nil {
			info.schema = v.Schema.OpenAPIV3Schema
		}
		res := &resource{
			group: crd.Spec.Group, version: v.Name, kind: names.Kind, plural: names.Plural, singular: names.Singular,
			shortNames: names.ShortNames, categories: names.Categories, namespaced: crd.Spec.Scope == api.NamespaceScoped,
			etcdResource: keys.CustomResource(crd.Spec.Group, names.Plural),
			newObject:    func() api.Object { return &api.CustomObject{} },
			// Upstream tracks generation for every custom resource.
			tracksGeneration: true,
			custom:           info,
		}
		if v.Subresources != nil {
			res.hasStatus = v.Subresources.Status != nil
			if sc := v.Subresources.Scale; sc != nil {
				res.scale = customScale(sc)
			}
		}
		for _, f := range v.SelectableFields {
			res.selectableFields = append(res.selectableFields, strings.TrimPrefix(f.JSONPath, "."))
		}
		if len(res.selectableFields) > 0 {
			paths := res.selectableFields
			res.fieldsOf = func(obj api.Object) map[string]string { return selectableFieldValues(obj, paths) }
		}
		resources = append(resources, res)
	}
	return resources
}

// crdFingerprint identifies what a CRD serves: a change of it (a new
// version, a column, terminating) builds its resources anew.
func crdFingerprint(crd *api.CustomResourceDefinition) string {
	b, _ := json.Marshal(struct {
		UID         string
		Spec        api.CustomResourceDefinitionSpec
		Names       api.CustomResourceDefinitionNames
		Terminating bool
	}{crd.UID, crd.Spec, crd.Status.AcceptedNames, crd.DeletionTimestamp != nil || api.IsCRDConditionTrue(crd, api.Terminating)})
	return string(b)
}

// selectableFieldValues reads the selectable fields of a custom object as
// strings, as upstream's field selectors compare them: a missing field is
// "".
func selectableFieldValues(obj api.Object, paths []string) map[string]string {
	co := obj.(*api.CustomObject)
	out := make(map[string]string, len(paths))
	for _, path := range paths {
		value, _ := contentField(co.Content, path)
		switch v := value.(type) {
		case string:
			out[path] = v
		case bool:
			out[path] = strconv.FormatBool(v)
		case int64:
			out[path] = strconv.FormatInt(v, 10)
		case nil:
			out[path] = ""
		default:
			out[path] = fmt.Sprint(v)
		}
	}
	return out
}

// contentField reads a dotted path ("spec.replicas", no leading dot) from
// a custom object's content.
func contentField(content map[string]any, path string) (any, bool) {
	var current any = content
	for _, part := range strings.Split(path, ".") {
		m, ok := current.(map[string]any)
		if !ok {
			return nil, false
		}
		if current, ok = m[part]; !ok {
			return nil, false
		}
	}
	return current, true
}

// setContentField sets a dotted path in content, making the maps on the
// way; it fails when one of them is something else.
func setContentField(content map[string]any, path string, value any) error {
	parts := strings.Split(path, ".")
	m := content
	for _, part := range parts[:len(parts)-1] {
		next, ok := m[part]
		if !ok || next == nil {
			created := map[string]any{}
			m[part] = created
			m = created
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("%s is not an object", part)
		}
	}
	m[parts[len(parts)-1]] = value
	return nil
}

// customScale serves the scale subresource from the CRD's paths: spec
// replicas read and written at specReplicasPath, status replicas read at
// statusReplicasPath, and the selector string at labelSelectorPath.
func customScale(sc *api.CustomResourceSubresourceScale) *scaleAccess {
	specPath := strings.TrimPrefix(sc.SpecReplicasPath, ".")
	statusPath := strings.TrimPrefix(sc.StatusReplicasPath, ".")
	selectorPath := ""
	if sc.LabelSelectorPath != nil {
		selectorPath = strings.TrimPrefix(*sc.LabelSelectorPath, ".")
	}
	replicas := func(content map[string]any, path string) int32 {
		v, _ := contentField(content, path)
		switch n := v.(type) {
		case int64:
			return int32(n)
		case float64:
			return int32(n)
		}
		return 0
	}
	return &scaleAccess{
		get: func(o api.Object) (int32, int32, *api.LabelSelector) {
			co := o.(*api.CustomObject)
			return replicas(co.Content, specPath), replicas(co.Content, statusPath), nil
		},
		set: func(o api.Object, n int32) {
			co := o.(*api.CustomObject)
			if co.Content == nil {
				co.Content = map[string]any{}
			}
			_ = setContentField(co.Content, specPath, int64(n))
		},
		selectorText: func(o api.Object) string {
			if selectorPath == "" {
				return ""
			}
			v, _ := contentField(o.(*api.CustomObject).Content, selectorPath)
			s, _ := v.(string)
			return s
		},
	}
}

// cacheOf returns the watch cache of res, or upstream's 404 when res has
// just stopped being served (its CRD was removed or changed while the
// request was on its way).
func (s *Server) cacheOf(res *resource) (*cache.Cache, error) {
	if c := s.cacheFor(res); c != nil {
		return c, nil
	}
	return nil, apierrors.NewNotFound(res.qualified(), "")
}
