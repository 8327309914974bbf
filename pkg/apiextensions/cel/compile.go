package cel

import (
	"fmt"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// DefaultSchemaPath is where Compile says a rule is when its caller does not
// say otherwise: the path upstream reports for a CRD whose versions share
// one schema (the internal spec.validation).
const DefaultSchemaPath = "spec.validation.openAPIV3Schema"

// Validator holds the compiled rules of one schema, ready to validate
// objects. It is safe for concurrent use: compiled CEL programs are.
type Validator struct {
	root *schemaNode
}

// compiledRule is one x-kubernetes-validations entry, compiled.
type compiledRule struct {
	rule api.ValidationRule
	// program evaluates rule; messageProgram evaluates messageExpression
	// (nil when there is none).
	program, messageProgram cel.Program
	// usesOldSelf makes this a transition rule.
	usesOldSelf bool
	// optionalOldSelf: the rule runs on creates too, oldSelf an empty
	// optional.
	optionalOldSelf bool
	// fieldPath is the rule's fieldPath as steps below the node, which a
	// failing rule reports its error at.
	fieldPath []fieldPathStep
}

// Compile compiles every x-kubernetes-validations rule in s (at any depth);
// errors name the rule by its schema path below DefaultSchemaPath, as
// upstream's CRD validation does, e.g.
//
//	spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: …: compilation failed: …
//
// The Validator is nil when there are errors.
func Compile(s *api.JSONSchemaProps) (*Validator, apierrors.FieldErrorList) {
	return CompileAt(s, DefaultSchemaPath)
}

// CompileAt is Compile for a schema found at schemaPath, such as
// "spec.versions[1].schema.openAPIV3Schema" for a version's own schema.
func CompileAt(s *api.JSONSchemaProps, schemaPath string) (*Validator, apierrors.FieldErrorList) {
	if s == nil {
		return &Validator{}, nil
	}
	base, err := baseEnvironment()
	if err != nil {
		return nil, apierrors.FieldErrorList{apierrors.Invalid(schemaPath, "", fmt.Sprintf("kplane could not build its CEL environment: %v", err))}
	}
	registry, err := newTypeRegistry()
	if err != nil {
		return nil, apierrors.FieldErrorList{apierrors.Invalid(schemaPath, "", fmt.Sprintf("kplane could not build its CEL types: %v", err))}
	}
	root := registry.buildNode(s, "Object", maxRequestSizeBytes, true)
	env, err := base.Extend(cel.CustomTypeProvider(registry), cel.CustomTypeAdapter(registry))
	if err != nil {
		return nil, apierrors.FieldErrorList{apierrors.Invalid(schemaPath, "", fmt.Sprintf("kplane could not declare the schema's CEL types: %v", err))}
	}
	c := &compiler{env: env}
	c.compileNode(root, schemaPath, "", 1)
	if c.cost.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.cost.mostExpensive() {
			c.errs = append(c.errs, apierrors.Forbidden(e.path, "contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, apierrors.Forbidden(schemaPath, costErrorMessage(
			"x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema", c.cost.total, StaticEstimatedCRDCostLimit)))
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return &Validator{root: root}, nil
}

// baseEnvironment is the CEL environment every schema starts from: the
// standard library, the extensions Kubernetes enables, and library.go. It
// is built once; each schema extends it with its own types.
var baseEnvironment = sync.OnceValues(func() (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.Bindings(),
	}
	opts = append(opts, kubernetesLibrary()...)
	opts = append(opts, quantityLibrary()...)
	return cel.NewEnv(append(opts, urlLibrary()...)...)
})

// compiler walks the schema, compiling each node's rules and collecting
// the errors.
type compiler struct {
	env  *cel.Env
	errs apierrors.FieldErrorList
	cost schemaCost
}

// compileNode compiles n's rules and those below it. schemaPath is n's
// path in the CRD; uncorrelatable is the items path of the outermost list
// above n whose elements cannot be matched with old ones (a set or an
// atomic list: only map-lists correlate), or ""; cardinality is how
// many values of n one object can hold (1 at the root, times maxItems
// below a list, times maxProperties below a map).
func (c *compiler) compileNode(n *schemaNode, schemaPath, uncorrelatable string, cardinality uint64) {
	for i, rule := range n.schema.XValidations {
		cr := c.compileRule(n, rule, fmt.Sprintf("%s.x-kubernetes-validations[%d]", schemaPath, i), uncorrelatable, cardinality)
		if cr != nil {
			n.rules = append(n.rules, cr)
		}
	}
	n.hasRules = len(n.rules) > 0
	switch n.kind {
	case objectNode:
		for _, p := range n.properties {
			c.compileNode(p.node, schemaPath+".properties["+p.jsonName+"]", uncorrelatable, cardinality)
			n.hasRules = n.hasRules || p.node.hasRules
		}
	case mapNode:
		c.compileNode(n.elements, schemaPath+".additionalProperties", uncorrelatable, saturatingMul(cardinality, n.maxSize))
		n.hasRules = n.hasRules || n.elements.hasRules
	case listNode:
		below := uncorrelatable
		if below == "" && !isMapList(n.schema) {
			below = schemaPath + ".items"
		}
		c.compileNode(n.elements, schemaPath+".items", below, saturatingMul(cardinality, n.maxSize))
		n.hasRules = n.hasRules || n.elements.hasRules
	}
}

// compileRule compiles one rule at rulePath
// (…x-kubernetes-validations[i]); it returns nil when the rule is invalid.
func (c *compiler) compileRule(n *schemaNode, rule api.ValidationRule, rulePath, uncorrelatable string, cardinality uint64) *compiledRule {
	before := len(c.errs)
	cr := &compiledRule{rule: rule, optionalOldSelf: rule.OptionalOldSelf != nil && *rule.OptionalOldSelf}
	c.checkRuleFields(n, rule, rulePath, cr)

	if strings.TrimSpace(rule.Rule) == "" {
		c.errs = append(c.errs, apierrors.Required(rulePath+".rule", ""))
		return nil
	}
	env, err := c.env.Extend(ruleVariables(n, cr.optionalOldSelf)...)
	if err != nil {
		c.errs = append(c.errs, apierrors.Invalid(rulePath+".rule", rule, fmt.Sprintf("kplane could not declare self for the rule: %v", err)))
		return nil
	}
	estimator := sizeEstimator{self: n}
	ast, issues := env.Compile(rule.Rule)
	switch {
	case issues.Err() != nil:
		c.errs = append(c.errs, apierrors.Invalid(rulePath+".rule", rule, "compilation failed: "+issues.Err().Error()))
	case !ast.OutputType().IsExactType(cel.BoolType):
		c.errs = append(c.errs, apierrors.Invalid(rulePath+".rule", rule, "cel expression must evaluate to a bool"))
	default:
		cr.usesOldSelf = referencesOldSelf(ast)
		if cr.usesOldSelf && uncorrelatable != "" {
			// Upstream shows the rule's text here, not the whole rule.
			c.errs = append(c.errs, apierrors.Invalid(rulePath+".rule", rule.Rule,
				"oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelatable))
		}
		if !cr.usesOldSelf && rule.OptionalOldSelf != nil {
			c.errs = append(c.errs, apierrors.Invalid(rulePath+".optionalOldSelf", *rule.OptionalOldSelf,
				"may not be set if oldSelf is not used in rule"))
		}
		c.checkCost(env, ast, estimator, rulePath+".rule", "estimated rule cost", cardinality)
		cr.program = c.program(env, ast, rulePath+".rule", rule)
	}

	if strings.TrimSpace(rule.MessageExpression) != "" {
		msgAST, issues := env.Compile(rule.MessageExpression)
		switch {
		case issues.Err() != nil:
			c.errs = append(c.errs, apierrors.Invalid(rulePath+".messageExpression", rule, "messageExpression compilation failed: "+issues.Err().Error()))
		case !msgAST.OutputType().IsExactType(cel.StringType):
			c.errs = append(c.errs, apierrors.Invalid(rulePath+".messageExpression", rule, "must evaluate to a string"))
		default:
			c.checkCost(env, msgAST, estimator, rulePath+".messageExpression", "estimated messageExpression cost", cardinality)
			cr.messageProgram = c.program(env, msgAST, rulePath+".messageExpression", rule)
		}
	}
	if len(c.errs) > before {
		return nil
	}
	return cr
}

// checkRuleFields checks what a rule says besides its expression: message,
// reason and fieldPath.
func (c *compiler) checkRuleFields(n *schemaNode, rule api.ValidationRule, rulePath string, cr *compiledRule) {
	if rule.Message != "" && strings.TrimSpace(rule.Message) == "" {
		c.errs = append(c.errs, apierrors.Invalid(rulePath+".message", rule, "message must be non-empty if specified"))
	}
	if strings.ContainsAny(rule.Message, "\r\n") {
		c.errs = append(c.errs, apierrors.Invalid(rulePath+".message", rule, "message must not contain line breaks"))
	}
	if rule.Message != "" && rule.MessageExpression != "" && strings.TrimSpace(rule.MessageExpression) == "" {
		c.errs = append(c.errs, apierrors.Required(rulePath+".messageExpression", "messageExpression must be non-empty if specified"))
	}
	if rule.Reason != nil {
		switch apierrors.FieldErrorType(*rule.Reason) {
		case apierrors.FieldValueInvalid, apierrors.FieldValueForbidden, apierrors.FieldValueRequired, apierrors.FieldValueDuplicate:
		default:
			c.errs = append(c.errs, apierrors.NotSupported(rulePath+".reason", *rule.Reason, []string{
				string(apierrors.FieldValueDuplicate), string(apierrors.FieldValueForbidden),
				string(apierrors.FieldValueInvalid), string(apierrors.FieldValueRequired)}))
		}
	}
	if rule.FieldPath != "" {
		steps, err := resolveFieldPath(n, rule.FieldPath)
		if err != nil {
			c.errs = append(c.errs, apierrors.Invalid(rulePath+".fieldPath", rule.FieldPath, err.Error()))
		}
		cr.fieldPath = steps
	}
}

// ruleVariables declares self with the node's type, and oldSelf with the
// same type or, for optionalOldSelf, an optional of it.
func ruleVariables(n *schemaNode, optionalOldSelf bool) []cel.EnvOption {
	oldSelfType := n.celType
	if optionalOldSelf {
		oldSelfType = cel.OptionalType(n.celType)
	}
	return []cel.EnvOption{cel.Variable("self", n.celType), cel.Variable("oldSelf", oldSelfType)}
}

// referencesOldSelf reports whether a checked expression reads oldSelf,
// which makes it a transition rule.
func referencesOldSelf(ast *cel.Ast) bool {
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			return true
		}
	}
	return false
}

// checkCost refuses an expression whose estimated worst-case cost is over
// StaticEstimatedCostLimit, with upstream's Forbidden error, and adds it to
// the schema's total.
func (c *compiler) checkCost(env *cel.Env, ast *cel.Ast, estimator sizeEstimator, path, costName string, cardinality uint64) {
	estimate, err := env.EstimateCost(ast, estimator)
	if err != nil {
		c.errs = append(c.errs, apierrors.Forbidden(path, fmt.Sprintf("could not estimate the cost: %v", err)))
		return
	}
	c.cost.add(path, estimate.Max, cardinality)
	if estimate.Max > StaticEstimatedCostLimit {
		c.errs = append(c.errs, apierrors.Forbidden(path, costErrorMessage(costName, estimate.Max, StaticEstimatedCostLimit)))
	}
}

// program plans an evaluator for a checked expression, metered with
// PerCallLimit.
func (c *compiler) program(env *cel.Env, ast *cel.Ast, path string, rule api.ValidationRule) cel.Program {
	prog, err := env.Program(ast,
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(runtimeCost{}),
		cel.InterruptCheckFrequency(100),
		// Compile a constant pattern of matches() once, not per call.
		cel.OptimizeRegex(interpreter.MatchesRegexOptimization),
	)
	if err != nil {
		c.errs = append(c.errs, apierrors.Invalid(path, rule, fmt.Sprintf("program instantiation failed: %v", err)))
		return nil
	}
	return prog
}

// isMapList is true for a list of x-kubernetes-list-type map, whose
// elements are matched with the old list's by their keys.
func isMapList(s *api.JSONSchemaProps) bool {
	return s.XListType != nil && *s.XListType == "map" && len(s.XListMapKeys) > 0
}
