package apiserver

import (
	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/validation"
	"kplane/pkg/apiextensions/structural"
)

// customResourceSchema is what the apiserver asks of a CRD's OpenAPI
// schemas: whether a schema is structural (on a CRD's create and update)
// and, for a custom resource's write, validation, pruning of unknown
// fields, defaulting and the CEL rules (x-kubernetes-validations). The
// work lives in packages apiextensions/structural and apiextensions/cel;
// this seam is where they are wired in, and where tests stand in for them.
type customResourceSchema interface {
	// ValidateCRDSchema checks a version's schema when a CRD is written
	// (structural.ValidateCRDSchema); fieldPath is where it sits in the CRD.
	ValidateCRDSchema(fieldPath string, s *api.JSONSchemaProps) apierrors.FieldErrorList
	// Validate checks obj against s (structural.Validate).
	Validate(s *api.JSONSchemaProps, obj map[string]any) apierrors.FieldErrorList
	// Prune drops the fields s does not know and returns their paths
	// (structural.Prune).
	Prune(obj map[string]any, s *api.JSONSchemaProps) []string
	// Default fills in s's defaults (structural.Default).
	Default(obj map[string]any, s *api.JSONSchemaProps)
	// ValidateRules runs s's CEL rules on obj; old is nil on a create
	// (cel.Compile, then Validator.Validate).
	ValidateRules(s *api.JSONSchemaProps, obj, old map[string]any) apierrors.FieldErrorList
}

// customResourceSchemas is the implementation the apiserver uses
// (crd_schema_checks.go); tests may stand in for it.
var customResourceSchemas customResourceSchema = &schemaChecks{}

// validateCRDSchemas asks customResourceSchemas about every version's
// schema of a CRD being written.
func validateCRDSchemas(crd *api.CustomResourceDefinition) apierrors.FieldErrorList {
	var allErrs apierrors.FieldErrorList
	for i, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue // validation already said it is required
		}
		path := "spec.versions[" + itoa(int64(i)) + "].schema.openAPIV3Schema"
		allErrs = append(allErrs, customResourceSchemas.ValidateCRDSchema(path, v.Schema.OpenAPIV3Schema)...)
		if v.Subresources != nil && v.Subresources.Status != nil {
			// With /status, the root may only say what a status update
			// can check on its own (upstream's restriction).
			if err := structural.ValidateRootForStatusSubresource(path, v.Schema.OpenAPIV3Schema); err != nil {
				allErrs = append(allErrs, err)
			}
		}
	}
	return allErrs
}

// validateNew is the validation of a create: validation.ValidateCreate,
// plus what needs the apiserver's seams (a CRD's schemas).
func validateNew(res *resource, obj api.Object) apierrors.FieldErrorList {
	if co, ok := obj.(*api.CustomObject); ok {
		return validateCustomResourceWrite(res, co, nil)
	}
	errs := validation.ValidateCreate(obj)
	if crd, ok := obj.(*api.CustomResourceDefinition); ok && len(errs) == 0 {
		errs = validateCRDSchemas(crd)
	}
	return errs
}

// validateReplacement is the validation of an update of old by obj:
// validation.ValidateUpdate, plus what needs the apiserver's seams.
func validateReplacement(res *resource, obj, old api.Object) apierrors.FieldErrorList {
	if co, ok := obj.(*api.CustomObject); ok {
		return validateCustomResourceWrite(res, co, old)
	}
	errs := validation.ValidateUpdate(obj, old)
	if crd, ok := obj.(*api.CustomResourceDefinition); ok && len(errs) == 0 {
		errs = validateCRDSchemas(crd)
	}
	return errs
}
