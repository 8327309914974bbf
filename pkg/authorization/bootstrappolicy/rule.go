package bootstrappolicy

import "kplane/pkg/api"

// Verb sets shared by many roles, as upstream names them.
var (
	// Read is what a viewer may do.
	Read = []string{"get", "list", "watch"}
	// Write is every mutating verb.
	Write = []string{"create", "update", "patch", "delete", "deletecollection"}
	// ReadWrite is Read and Write together.
	ReadWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	// ReadUpdate reads and changes objects but neither creates nor deletes them.
	ReadUpdate = []string{"get", "list", "watch", "update", "patch"}
)

// The API groups the policy names.
const (
	legacyGroup          = ""
	admissionGroup       = "admissionregistration.k8s.io"
	appsGroup            = "apps"
	authenticationGroup  = "authentication.k8s.io"
	authorizationGroup   = "authorization.k8s.io"
	autoscalingGroup     = "autoscaling"
	batchGroup           = "batch"
	certificatesGroup    = "certificates.k8s.io"
	coordinationGroup    = "coordination.k8s.io"
	discoveryGroup       = "discovery.k8s.io"
	eventsGroup          = "events.k8s.io"
	extensionsGroup      = "extensions"
	networkingGroup      = "networking.k8s.io"
	policyGroup          = "policy"
	resourceGroup        = "resource.k8s.io"
	rbacGroup            = api.RBACGroupName
	storageGroup         = "storage.k8s.io"
	metricsGroup         = "metrics.k8s.io"
	customMetricsGroup   = "custom.metrics.k8s.io"
	externalMetricsGroup = "external.metrics.k8s.io"
)

// ruleBuilder builds one PolicyRule in the order a reader says it: verbs,
// then groups, then resources (or URLs), then names — upstream's
// rbacv1helpers.NewRule(...).Groups(...).Resources(...).RuleOrDie().
type ruleBuilder struct{ rule api.PolicyRule }

// rule starts a rule allowing verbs.
func rule(verbs ...string) *ruleBuilder {
	return &ruleBuilder{rule: api.PolicyRule{Verbs: verbs}}
}

func (b *ruleBuilder) groups(groups ...string) *ruleBuilder {
	b.rule.APIGroups = append(b.rule.APIGroups, groups...)
	return b
}

func (b *ruleBuilder) resources(resources ...string) *ruleBuilder {
	b.rule.Resources = append(b.rule.Resources, resources...)
	return b
}

func (b *ruleBuilder) names(names ...string) *ruleBuilder {
	b.rule.ResourceNames = append(b.rule.ResourceNames, names...)
	return b
}

func (b *ruleBuilder) urls(urls ...string) *ruleBuilder {
	b.rule.NonResourceURLs = append(b.rule.NonResourceURLs, urls...)
	return b
}

// build returns the finished rule.
func (b *ruleBuilder) build() api.PolicyRule { return b.rule }

// eventsRule lets a component record Events through either API
// (core/v1 and events.k8s.io/v1), as every upstream component role does.
func eventsRule() api.PolicyRule {
	return rule("create", "update", "patch").groups(legacyGroup, eventsGroup).resources("events").build()
}
