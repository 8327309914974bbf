package apiserver

import (
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiextensions/cel"
	"kplane/pkg/apiextensions/structural"
)

// schemaChecks is the customResourceSchema the apiserver uses: structural
// schemas from package apiextensions/structural, CEL rules from package
// apiextensions/cel. A schema's rules are compiled once, on the first write
// that needs them, and kept while the schema is in use.
type schemaChecks struct {
	mu    sync.Mutex
	rules map[*api.JSONSchemaProps]*cel.Validator
}

// maxCompiledSchemas bounds the compiled-rules cache: each CRD update
// brings new schema pointers, and the old ones are dropped wholesale when
// the cache grows past this.
const maxCompiledSchemas = 1024

// ValidateCRDSchema is structural.ValidateCRDSchema, then, for a
// structural schema, the compilation of its CEL rules.
func (*schemaChecks) ValidateCRDSchema(fieldPath string, s *api.JSONSchemaProps) apierrors.FieldErrorList {
	errs := structural.ValidateCRDSchema(fieldPath, s)
	if len(errs) > 0 {
		return errs
	}
	_, errs = cel.CompileAt(s, fieldPath)
	return errs
}

// Validate is structural.Validate.
func (*schemaChecks) Validate(s *api.JSONSchemaProps, obj map[string]any) apierrors.FieldErrorList {
	return structural.Validate(s, obj)
}

// Prune is structural.Prune.
func (*schemaChecks) Prune(obj map[string]any, s *api.JSONSchemaProps) []string {
	return structural.Prune(obj, s)
}

// Default is structural.Default.
func (*schemaChecks) Default(obj map[string]any, s *api.JSONSchemaProps) {
	structural.Default(obj, s)
}

// ValidateRules runs s's CEL rules, compiled once per schema.
func (c *schemaChecks) ValidateRules(s *api.JSONSchemaProps, obj, old map[string]any) apierrors.FieldErrorList {
	v, errs := c.validator(s)
	if len(errs) > 0 {
		// The CRD's validation compiled these rules when it was
		// written; a schema that no longer compiles (a stored CRD from
		// before a rule was refused) fails the write with why.
		return errs
	}
	return v.Validate(obj, old)
}

// validator returns the compiled rules of s.
func (c *schemaChecks) validator(s *api.JSONSchemaProps) (*cel.Validator, apierrors.FieldErrorList) {
	c.mu.Lock()
	v, ok := c.rules[s]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, errs := cel.Compile(s)
	if len(errs) > 0 {
		return nil, errs
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rules == nil || len(c.rules) >= maxCompiledSchemas {
		c.rules = map[*api.JSONSchemaProps]*cel.Validator{}
	}
	c.rules[s] = v
	return v, nil
}
