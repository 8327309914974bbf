package structural

import (
	"fmt"
	"reflect"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// allowedAtRootWithStatus are the JSONSchemaProps fields a CRD version's
// root schema may set when the version serves the status subresource, as
// upstream lists them (by Go field name). The apiserver splits the schema
// into the object's and the status's by taking properties["status"]; a root
// keyword outside this list (anyOf, say) could constrain spec and status
// together, which a /status update could then no longer check on its own.
var allowedAtRootWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum",
	"Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
	"MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// ValidateRootForStatusSubresource checks the root of a version's schema
// (at fieldPath, e.g. "spec.versions[0].schema.openAPIV3Schema") when the
// version has the status subresource: the root is an object and sets only
// the keywords upstream allows there. It returns nil or the first problem,
// as upstream does; the caller adds it to ValidateCRDSchema's errors.
func ValidateRootForStatusSubresource(fieldPath string, s *api.JSONSchemaProps) *apierrors.FieldError {
	if s == nil {
		return nil
	}
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if name == "Type" {
			if s.Type != "object" {
				return apierrors.Invalid(childPath(fieldPath, "type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)
			}
			continue
		}
		if !contains(allowedAtRootWithStatus, name) {
			return apierrors.Invalid(fieldPath, s, fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtRootWithStatus))
		}
	}
	return nil
}
