package api

import (
	"encoding/json"
	"reflect"
)

// This file holds apiextensions.k8s.io/v1: the CustomResourceDefinition, with
// which a user adds a kind of their own to the API, and JSONSchemaProps, the
// OpenAPI v3 schema that validates, prunes and defaults its objects.

// CustomResourceDefinition adds a resource to the API. Once its names are
// accepted and it is Established, the apiserver serves
// /apis/<group>/<version>/<plural> like a built-in kind.
type CustomResourceDefinition struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       CustomResourceDefinitionSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionSpec says what the resource is called, where it
// lives, and what its objects look like in each version.
type CustomResourceDefinitionSpec struct {
	// Group is the API group, e.g. "example.com"; the CRD's name must be
	// <plural>.<group>.
	Group string                        `json:"group" protobuf:"bytes,1,opt,name=group"`
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	Scope ResourceScope                 `json:"scope" protobuf:"bytes,4,opt,name=scope,casttype=ResourceScope"`
	// Versions lists every version served; exactly one has storage true.
	Versions   []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	Conversion *CustomResourceConversion         `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields must be false in v1 (pruning is always on).
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// ResourceScope is Namespaced or Cluster.
type ResourceScope string

// The two scopes of a custom resource.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// CustomResourceDefinitionNames are the names a resource is known by: in
// URLs (plural), in kubectl (singular, short names, categories) and in
// objects (kind, listKind).
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	Singular   string   `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,opt,name=shortNames"`
	Kind       string   `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	ListKind   string   `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceDefinitionVersion is one version of the resource: whether it
// is served and stored, its schema, subresources and printer columns.
type CustomResourceDefinitionVersion struct {
	Name                     string                           `json:"name" protobuf:"bytes,1,opt,name=name"`
	Served                   bool                             `json:"served" protobuf:"varint,2,opt,name=served"`
	Storage                  bool                             `json:"storage" protobuf:"varint,3,opt,name=storage"`
	Deprecated               bool                             `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	DeprecationWarning       *string                          `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	Schema                   *CustomResourceValidation        `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// SelectableField names a field (a JSONPath such as .spec.color) that field
// selectors may use on the resource.
type SelectableField struct {
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// CustomResourceColumnDefinition is one column `kubectl get` shows for the
// resource, read from each object by a JSONPath.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Type        string `json:"type" protobuf:"bytes,2,opt,name=type"`
	Format      string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Priority    int32  `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	JSONPath    string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath"`
}

// CustomResourceConversion says how objects convert between versions.
// kplane supports strategy None only (the versions' objects differ only in
// apiVersion); a Webhook converter is refused.
type CustomResourceConversion struct {
	Strategy ConversionStrategyType `json:"strategy" protobuf:"bytes,1,name=strategy"`
	Webhook  *WebhookConversion     `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// ConversionStrategyType is None or Webhook.
type ConversionStrategyType string

// The conversion strategies.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// WebhookConversion is kept so a CRD naming one decodes; kplane refuses it
// on validation.
type WebhookConversion struct {
	ClientConfig             json.RawMessage `json:"clientConfig,omitempty" protobuf:"bytes,2,name=clientConfig"`
	ConversionReviewVersions []string        `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// CustomResourceSubresources says which subresources the resource serves.
type CustomResourceSubresources struct {
	// Status, when set (to {}), serves /status: updates of the object
	// keep its status, updates of /status keep everything else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Scale, when set, serves /scale from the paths it names.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus is empty: its presence turns /status on.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps the autoscaling/v1 Scale onto the
// object: where the desired and the observed replica counts live, and the
// label selector (as a string) of the pods it scales.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath" protobuf:"bytes,1,name=specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}

// CustomResourceDefinitionStatus is what the apiserver reports about a CRD.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions,omitempty" protobuf:"bytes,1,opt,name=conditions"`
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	StoredVersions []string                            `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
}

// CustomResourceDefinitionConditionType names a CRD condition.
type CustomResourceDefinitionConditionType string

// The CRD conditions upstream reports.
const (
	// Established: the resource is served.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted: no other resource of the group uses these names.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema: the schema is not structural (v1 refuses such
	// CRDs on create, so it is seen only on ones stored earlier).
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating: the CRD is being deleted, and its objects with it.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant: a *.k8s.io group carries
	// the approval annotation.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// CustomResourceDefinitionCondition is one condition of a CRD.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=CustomResourceDefinitionConditionType"`
	Status             ConditionStatus                       `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime Time                                  `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                                `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                                `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// CustomResourceCleanupFinalizer is the finalizer the apiserver puts on
// every CRD: deleting the CRD first deletes all of its objects.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// JSONSchemaProps is one node of an OpenAPI v3 schema, with the Kubernetes
// extensions (x-kubernetes-*). A structural schema gives every node a type
// (or an extension that stands for one), and describes each field once.
type JSONSchemaProps struct {
	ID          string  `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	Schema      string  `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	Ref         *string `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	Description string  `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Type        string  `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	// Format refines a type: int32, int64, float, double, byte, date,
	// date-time, uuid, ipv4, ipv6, cidr, duration, email, hostname, uri …
	Format string `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	Title  string `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	// Default is applied where the field is absent, on read and on write.
	Default          json.RawMessage `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	Maximum          *float64        `json:"maximum,omitempty" protobuf:"bytes,9,opt,name=maximum"`
	ExclusiveMaximum bool            `json:"exclusiveMaximum,omitempty" protobuf:"bytes,10,opt,name=exclusiveMaximum"`
	Minimum          *float64        `json:"minimum,omitempty" protobuf:"bytes,11,opt,name=minimum"`
	ExclusiveMinimum bool            `json:"exclusiveMinimum,omitempty" protobuf:"bytes,12,opt,name=exclusiveMinimum"`
	MaxLength        *int64          `json:"maxLength,omitempty" protobuf:"bytes,13,opt,name=maxLength"`
	MinLength        *int64          `json:"minLength,omitempty" protobuf:"bytes,14,opt,name=minLength"`
	Pattern          string          `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	MaxItems         *int64          `json:"maxItems,omitempty" protobuf:"bytes,16,opt,name=maxItems"`
	MinItems         *int64          `json:"minItems,omitempty" protobuf:"bytes,17,opt,name=minItems"`
	UniqueItems      bool            `json:"uniqueItems,omitempty" protobuf:"bytes,18,opt,name=uniqueItems"`
	MultipleOf       *float64        `json:"multipleOf,omitempty" protobuf:"bytes,19,opt,name=multipleOf"`
	// Enum lists the allowed values, each as raw JSON.
	Enum          []json.RawMessage `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	MaxProperties *int64            `json:"maxProperties,omitempty" protobuf:"bytes,21,opt,name=maxProperties"`
	MinProperties *int64            `json:"minProperties,omitempty" protobuf:"bytes,22,opt,name=minProperties"`
	Required      []string          `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	// Items is the schema of an array's elements.
	Items *JSONSchemaPropsOrArray `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	AllOf []JSONSchemaProps       `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	OneOf []JSONSchemaProps       `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	AnyOf []JSONSchemaProps       `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	Not   *JSONSchemaProps        `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	// Properties are an object's known fields.
	Properties map[string]JSONSchemaProps `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	// AdditionalProperties is the schema of a map's values (or false).
	AdditionalProperties *JSONSchemaPropsOrBool                  `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	PatternProperties    map[string]JSONSchemaProps              `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	Dependencies         map[string]JSONSchemaPropsOrStringArray `json:"dependencies,omitempty" protobuf:"bytes,32,opt,name=dependencies"`
	AdditionalItems      *JSONSchemaPropsOrBool                  `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	Definitions          map[string]JSONSchemaProps              `json:"definitions,omitempty" protobuf:"bytes,34,opt,name=definitions"`
	ExternalDocs         *ExternalDocumentation                  `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	Example              json.RawMessage                         `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	Nullable             bool                                    `json:"nullable,omitempty" protobuf:"bytes,37,opt,name=nullable"`

	// XPreserveUnknownFields stops pruning below this node.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"bytes,38,opt,name=xKubernetesPreserveUnknownFields"`
	// XEmbeddedResource says the node is a whole object (apiVersion,
	// kind, metadata), validated as one.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"bytes,39,opt,name=xKubernetesEmbeddedResource"`
	// XIntOrString accepts an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty" protobuf:"bytes,40,opt,name=xKubernetesIntOrString"`
	// XListMapKeys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	// XListType is atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	// XMapType is granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	// XValidations are CEL rules the node's value must pass.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// ValidationRule is one CEL rule (x-kubernetes-validations). Rule sees the
// node's value as self and, on updates when it is a transition rule, the
// old value as oldSelf.
type ValidationRule struct {
	Rule              string  `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	Message           string  `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	MessageExpression string  `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	Reason            *string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	FieldPath         string  `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty" protobuf:"varint,6,opt,name=optionalOldSelf"`
}

// ExternalDocumentation links to more about a schema node.
type ExternalDocumentation struct {
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	URL         string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// JSONSchemaPropsOrArray is "items": one schema for every element, or (in
// JSON Schema, not allowed in a structural schema) one per position.
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps  `protobuf:"bytes,1,opt,name=schema"`
	JSONSchemas []JSONSchemaProps `protobuf:"bytes,2,rep,name=jSONSchemas"`
}

// MarshalJSON writes the one schema, or the array.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema object or an array of them.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrArray{}
	switch firstByte(data) {
	case '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case '[':
		return json.Unmarshal(data, &s.JSONSchemas)
	case 'n':
		return nil
	}
	return &json.UnmarshalTypeError{Value: string(data), Type: jsonSchemaPropsType}
}

// JSONSchemaPropsOrBool is "additionalProperties" or "additionalItems": a
// boolean, or a schema (which means true with that schema).
type JSONSchemaPropsOrBool struct {
	Allows bool             `protobuf:"varint,1,opt,name=allows"`
	Schema *JSONSchemaProps `protobuf:"bytes,2,opt,name=schema"`
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads a boolean or a schema object.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrBool{}
	switch firstByte(data) {
	case '{':
		s.Allows, s.Schema = true, &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case 't', 'f':
		return json.Unmarshal(data, &s.Allows)
	case 'n':
		return nil
	}
	return &json.UnmarshalTypeError{Value: string(data), Type: jsonSchemaPropsType}
}

// JSONSchemaPropsOrStringArray is a "dependencies" entry: a schema, or the
// names of properties that must be present too.
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps `protobuf:"bytes,1,opt,name=schema"`
	Property []string         `protobuf:"bytes,2,rep,name=property"`
}

// MarshalJSON writes the property names, or the schema.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema object or an array of property names.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrStringArray{}
	switch firstByte(data) {
	case '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case '[':
		return json.Unmarshal(data, &s.Property)
	case 'n':
		return nil
	}
	return &json.UnmarshalTypeError{Value: string(data), Type: jsonSchemaPropsType}
}

// jsonSchemaPropsType names the schema type in decoding errors.
var jsonSchemaPropsType = reflect.TypeOf(JSONSchemaProps{})

// firstByte is the first non-space byte of a JSON value, or 0.
func firstByte(data []byte) byte {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b
	}
	return 0
}
