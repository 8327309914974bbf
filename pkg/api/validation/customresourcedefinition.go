package validation

import (
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// The rules of apiextensions-apiserver's CRD validation
// (pkg/apis/apiextensions/validation): a CRD is named
// "<plural>.<group>", its names are DNS-1035 labels (kinds may be mixed
// case), its versions are unique with exactly one storage version, every
// version of apiextensions.k8s.io/v1 carries a schema, and its printer
// columns and selectable fields are well formed. Whether a schema is
// structural is package structural's question; the apiserver asks it after
// these rules.

// printerColumnTypes and printerColumnFormats are the types and formats an
// additionalPrinterColumn may have, in upstream's (sorted) order.
var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// maxSelectableFields is upstream's cap on selectableFields per version.
const maxSelectableFields = 8

// ErrConversionWebhookUnsupported is the detail of the error a CRD asking
// for a conversion webhook gets: kplane converts between versions only by
// rewriting apiVersion (strategy None).
const ErrConversionWebhookUnsupported = "kplane does not support conversion webhooks yet"

// validateCustomResourceDefinition checks a new CRD.
func validateCustomResourceDefinition(crd *api.CustomResourceDefinition) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&crd.ObjectMeta, false, func(name string, prefix bool) []string {
		problems := NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			problems = append(problems, `must be spec.names.plural+"."+spec.group`)
		}
		return problems
	}, "metadata")
	allErrs = append(allErrs, validateCRDSpec(&crd.Spec)...)
	allErrs = append(allErrs, validateCRDNames(&crd.Status.AcceptedNames, "status.acceptedNames")...)
	return append(allErrs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions)...)
}

// validateCustomResourceDefinitionUpdate checks a CRD replacing old: the
// create rules, and group and plural (which make the name) never change;
// once Established, scope and kind (which the stored objects carry) do
// not either.
func validateCustomResourceDefinitionUpdate(crd, old *api.CustomResourceDefinition) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateCRDSpec(&crd.Spec)...)
	if api.IsCRDConditionTrue(old, api.Established) {
		allErrs = append(allErrs, ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, "spec.scope")...)
		allErrs = append(allErrs, ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, "spec.names.kind")...)
	}
	allErrs = append(allErrs, ValidateImmutableField(crd.Spec.Group, old.Spec.Group, "spec.group")...)
	allErrs = append(allErrs, ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, "spec.names.plural")...)
	allErrs = append(allErrs, validateCRDNames(&crd.Status.AcceptedNames, "status.acceptedNames")...)
	return append(allErrs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions)...)
}

// validateCRDSpec checks group, scope, versions, names and conversion.
func validateCRDSpec(spec *api.CustomResourceDefinitionSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch problems := IsDNS1123Subdomain(spec.Group); {
	case spec.Group == "":
		allErrs = append(allErrs, errors.Required("spec.group", ""))
	case len(problems) > 0:
		allErrs = append(allErrs, errors.Invalid("spec.group", spec.Group, strings.Join(problems, ",")))
	case !strings.Contains(spec.Group, "."):
		allErrs = append(allErrs, errors.Invalid("spec.group", spec.Group, "should be a domain with at least one dot"))
	}

	switch spec.Scope {
	case "":
		allErrs = append(allErrs, errors.Required("spec.scope", ""))
	case api.ClusterScoped, api.NamespaceScoped:
	default:
		allErrs = append(allErrs, errors.NotSupported("spec.scope", string(spec.Scope), []string{string(api.ClusterScoped), string(api.NamespaceScoped)}))
	}

	storageVersions := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		if v.Storage {
			storageVersions++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		allErrs = append(allErrs, validateCRDVersion(v, fmt.Sprintf("spec.versions[%d]", i))...)
	}
	if len(spec.Versions) == 0 {
		allErrs = append(allErrs, errors.Required("spec.versions", "must have exactly one version marked as storage version"))
	} else {
		if !unique {
			allErrs = append(allErrs, errors.Invalid("spec.versions", versionNames(spec.Versions), "must contain unique version names"))
		}
		if storageVersions != 1 {
			allErrs = append(allErrs, errors.Invalid("spec.versions", versionNames(spec.Versions), "must have exactly one version marked as storage version"))
		}
	}

	for field, value := range map[string]string{"plural": spec.Names.Plural, "singular": spec.Names.Singular, "kind": spec.Names.Kind, "listKind": spec.Names.ListKind} {
		if value == "" {
			allErrs = append(allErrs, errors.Required("spec.names."+field, ""))
		}
	}
	allErrs = append(allErrs, validateCRDNames(&spec.Names, "spec.names")...)

	if c := spec.Conversion; c != nil {
		switch c.Strategy {
		case api.NoneConverter:
			if c.Webhook != nil {
				allErrs = append(allErrs, errors.Forbidden("spec.conversion.webhook", "should not be set when strategy is not set to Webhook"))
			}
		case api.WebhookConverter:
			allErrs = append(allErrs, errors.Invalid("spec.conversion.strategy", string(c.Strategy), ErrConversionWebhookUnsupported))
		default:
			allErrs = append(allErrs, errors.NotSupported("spec.conversion.strategy", string(c.Strategy), []string{string(api.NoneConverter), string(api.WebhookConverter)}))
		}
	}
	if spec.PreserveUnknownFields {
		allErrs = append(allErrs, errors.Invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return allErrs
}

// versionNames is how a versions list is shown in an error.
func versionNames(versions []api.CustomResourceDefinitionVersion) string {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = v.Name
	}
	return strings.Join(names, ",")
}

// validateCRDVersion checks one entry of spec.versions.
func validateCRDVersion(v *api.CustomResourceDefinitionVersion, path string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if problems := IsDNS1035Label(v.Name); len(problems) > 0 {
		allErrs = append(allErrs, errors.Invalid(path+".name", v.Name, strings.Join(problems, ",")))
	}
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		allErrs = append(allErrs, errors.Required(path+".schema", "schemas are required"))
	} else if root := v.Schema.OpenAPIV3Schema; v.Subresources != nil && v.Subresources.Status != nil && root.Type != "object" {
		allErrs = append(allErrs, errors.Invalid(path+".schema.openAPIV3Schema.type", root.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`))
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		allErrs = append(allErrs, validateScaleSubresource(v.Subresources.Scale, path+".subresources.scale")...)
	}
	for i := range v.AdditionalPrinterColumns {
		allErrs = append(allErrs, validatePrinterColumn(&v.AdditionalPrinterColumns[i], fmt.Sprintf("%s.additionalPrinterColumns[%d]", path, i))...)
	}
	if len(v.SelectableFields) > maxSelectableFields {
		allErrs = append(allErrs, errors.TooMany(path+".selectableFields", len(v.SelectableFields), maxSelectableFields))
	}
	seenPaths := map[string]bool{}
	for i, f := range v.SelectableFields {
		field := fmt.Sprintf("%s.selectableFields[%d].jsonPath", path, i)
		switch {
		case f.JSONPath == "":
			allErrs = append(allErrs, errors.Required(field, ""))
		case !isSimpleJSONPath(f.JSONPath):
			allErrs = append(allErrs, errors.Invalid(field, f.JSONPath, "must be a simple json path starting with ."))
		case seenPaths[f.JSONPath]:
			allErrs = append(allErrs, errors.Duplicate(field, f.JSONPath))
		}
		seenPaths[f.JSONPath] = true
	}
	return allErrs
}

// validateScaleSubresource checks the scale subresource's paths: the
// replica paths are simple JSON paths under .spec and .status.
func validateScaleSubresource(scale *api.CustomResourceSubresourceScale, path string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch {
	case scale.SpecReplicasPath == "":
		allErrs = append(allErrs, errors.Required(path+".specReplicasPath", ""))
	case !isSimpleJSONPath(scale.SpecReplicasPath):
		allErrs = append(allErrs, errors.Invalid(path+".specReplicasPath", scale.SpecReplicasPath, "should be a json path under .spec"))
	case !strings.HasPrefix(scale.SpecReplicasPath, ".spec."):
		allErrs = append(allErrs, errors.Invalid(path+".specReplicasPath", scale.SpecReplicasPath, "should be a json path under .spec"))
	}
	switch {
	case scale.StatusReplicasPath == "":
		allErrs = append(allErrs, errors.Required(path+".statusReplicasPath", ""))
	case !isSimpleJSONPath(scale.StatusReplicasPath) || !strings.HasPrefix(scale.StatusReplicasPath, ".status."):
		allErrs = append(allErrs, errors.Invalid(path+".statusReplicasPath", scale.StatusReplicasPath, "should be a json path under .status"))
	}
	if p := scale.LabelSelectorPath; p != nil && *p != "" {
		if !isSimpleJSONPath(*p) || !(strings.HasPrefix(*p, ".spec.") || strings.HasPrefix(*p, ".status.")) {
			allErrs = append(allErrs, errors.Invalid(path+".labelSelectorPath", *p, "should be a json path under either .spec or .status"))
		}
	}
	return allErrs
}

// validatePrinterColumn checks one additionalPrinterColumn.
func validatePrinterColumn(col *api.CustomResourceColumnDefinition, path string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if col.Name == "" {
		allErrs = append(allErrs, errors.Required(path+".name", ""))
	}
	typesMessage := "must be one of " + strings.Join(printerColumnTypes, ",")
	if col.Type == "" {
		allErrs = append(allErrs, errors.Required(path+".type", typesMessage))
	} else if !slices.Contains(printerColumnTypes, col.Type) {
		allErrs = append(allErrs, errors.Invalid(path+".type", col.Type, typesMessage))
	}
	if col.Format != "" && !slices.Contains(printerColumnFormats, col.Format) {
		allErrs = append(allErrs, errors.Invalid(path+".format", col.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	if col.JSONPath == "" {
		allErrs = append(allErrs, errors.Required(path+".jsonPath", ""))
	} else if !isSimpleJSONPath(col.JSONPath) {
		allErrs = append(allErrs, errors.Invalid(path+".jsonPath", col.JSONPath, "must be a simple json path starting with ."))
	}
	return allErrs
}

// isSimpleJSONPath reports a path of the form .a.b or .a[0].b or
// .a['x.y']: what kubectl's JSONPath reads without filters or ranges.
func isSimpleJSONPath(path string) bool {
	if !strings.HasPrefix(path, ".") || strings.ContainsAny(path, "*?@$ ") || strings.Contains(path, "..") {
		return false
	}
	return !strings.HasSuffix(path, ".")
}

// validateCRDNames checks the names a CRD asks for (spec.names) or was
// given (status.acceptedNames): each is a DNS-1035 label, kinds in any case.
func validateCRDNames(names *api.CustomResourceDefinitionNames, path string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	label := func(field, value, prefix string) {
		if value == "" {
			return
		}
		if problems := IsDNS1035Label(strings.ToLower(value)); len(problems) > 0 {
			allErrs = append(allErrs, errors.Invalid(path+"."+field, value, prefix+strings.Join(problems, ",")))
		}
	}
	if problems := IsDNS1035Label(names.Plural); names.Plural != "" && len(problems) > 0 {
		allErrs = append(allErrs, errors.Invalid(path+".plural", names.Plural, strings.Join(problems, ",")))
	}
	if problems := IsDNS1035Label(names.Singular); names.Singular != "" && len(problems) > 0 {
		allErrs = append(allErrs, errors.Invalid(path+".singular", names.Singular, strings.Join(problems, ",")))
	}
	label("kind", names.Kind, "may have mixed case, but should otherwise match: ")
	label("listKind", names.ListKind, "may have mixed case, but should otherwise match: ")
	for i, short := range names.ShortNames {
		if problems := IsDNS1035Label(short); len(problems) > 0 {
			allErrs = append(allErrs, errors.Invalid(fmt.Sprintf("%s.shortNames[%d]", path, i), short, strings.Join(problems, ",")))
		}
	}
	if names.Kind != "" && names.Kind == names.ListKind {
		allErrs = append(allErrs, errors.Invalid(path+".listKind", names.ListKind, "kind and listKind may not be the same"))
	}
	for i, category := range names.Categories {
		if problems := IsDNS1035Label(category); len(problems) > 0 {
			allErrs = append(allErrs, errors.Invalid(fmt.Sprintf("%s.categories[%d]", path, i), category, strings.Join(problems, ",")))
		}
	}
	return allErrs
}

// validateStoredVersions checks status.storedVersions: not empty, holding
// the storage version, and naming only versions the spec lists.
func validateStoredVersions(stored []string, versions []api.CustomResourceDefinitionVersion) errors.FieldErrorList {
	const path = "status.storedVersions"
	if len(stored) == 0 {
		return errors.FieldErrorList{errors.Invalid(path, "[]", "must have at least one stored version")}
	}
	var allErrs errors.FieldErrorList
	for _, v := range versions {
		if v.Storage && !slices.Contains(stored, v.Name) {
			allErrs = append(allErrs, errors.Invalid(path, v.Name, "must have the storage version "+v.Name))
		}
	}
	for i, name := range stored {
		if !slices.ContainsFunc(versions, func(v api.CustomResourceDefinitionVersion) bool { return v.Name == name }) {
			allErrs = append(allErrs, errors.Invalid(fmt.Sprintf("%s[%d]", path, i), name, "must appear in spec.versions"))
		}
	}
	return allErrs
}
