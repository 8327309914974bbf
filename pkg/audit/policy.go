package audit

import (
	"fmt"
	"log/slog"
	"os"
	"slices"

	"sigs.k8s.io/yaml"

	"kplane/pkg/api"
)

// Level is how much of a request an Event records. Each level records
// everything the one before it does.
type Level string

// The audit levels, from nothing to everything (audit.k8s.io/v1).
const (
	// LevelNone records nothing.
	LevelNone Level = "None"
	// LevelMetadata records who asked what, when and how it was answered:
	// user, verb, object reference, response code; no bodies.
	LevelMetadata Level = "Metadata"
	// LevelRequest adds the request's body (requestObject).
	LevelRequest Level = "Request"
	// LevelRequestResponse adds the response's body (responseObject).
	LevelRequestResponse Level = "RequestResponse"
)

// levelOrder ranks the levels for Level.AtLeast.
var levelOrder = map[Level]int{LevelNone: 0, LevelMetadata: 1, LevelRequest: 2, LevelRequestResponse: 3}

// AtLeast says whether l records at least as much as other.
func (l Level) AtLeast(other Level) bool { return levelOrder[l] >= levelOrder[other] }

// Stage is the point in serving a request at which an Event is written.
type Stage string

// The stages of a request (audit.k8s.io/v1).
const (
	// StageRequestReceived: the request arrived and was authenticated;
	// nothing has been done yet.
	StageRequestReceived Stage = "RequestReceived"
	// StageResponseStarted: the response's headers were sent, but not its
	// body; only long-running requests (watches) and failed
	// authentications have this stage.
	StageResponseStarted Stage = "ResponseStarted"
	// StageResponseComplete: the response was sent.
	StageResponseComplete Stage = "ResponseComplete"
	// StagePanic: the handler panicked.
	StagePanic Stage = "Panic"
)

// Policy is an audit.k8s.io/v1 (or v1beta1, the same shape) Policy, read
// from --audit-policy-file: rules tried in order, the first that matches a
// request choosing its level. A request no rule matches is not recorded.
type Policy struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata is allowed, as on any object; nothing reads it.
	Metadata api.ObjectMeta `json:"metadata,omitempty"`
	// Rules are tried in order; the first match wins.
	Rules []PolicyRule `json:"rules"`
	// OmitStages are stages never written, for every rule.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields drops metadata.managedFields from recorded
	// request and response bodies, unless a rule says otherwise.
	OmitManagedFields bool `json:"omitManagedFields,omitempty"`
}

// PolicyRule matches requests and gives them a level. An empty list
// matches everything; a rule with Namespaces or Resources matches only
// resource requests, one with NonResourceURLs only other paths.
type PolicyRule struct {
	// Level is what a matching request records.
	Level Level `json:"level"`
	// Users are user names (the authenticated user, not the one it
	// impersonates); UserGroups the groups, any of which matches.
	Users      []string `json:"users,omitempty"`
	UserGroups []string `json:"userGroups,omitempty"`
	// Verbs are API verbs: get, list, watch, create, update, patch,
	// delete, deletecollection (and the lower-case HTTP method of a
	// non-resource request).
	Verbs []string `json:"verbs,omitempty"`
	// Resources are groups of resources; see GroupResources.
	Resources []GroupResources `json:"resources,omitempty"`
	// Namespaces match the request's namespace; "" matches requests for
	// cluster-scoped objects.
	Namespaces []string `json:"namespaces,omitempty"`
	// NonResourceURLs are paths ("/healthz"), a trailing "*" matching
	// every path with that prefix ("/healthz*"), or "*" for all.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	// OmitStages are stages not written for requests this rule matches,
	// in addition to the policy's.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields, when set, overrides the policy's.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources names resources of one API group ("" is the core group).
// Resources may be "pods", "pods/log" (a subresource), "*" (every resource
// and subresource), "pods/*" (pods and all its subresources) or "*/scale"
// (every scale subresource); none means every resource in the group.
// ResourceNames, when set, limits the rule to objects with those names.
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// Policy API versions kplane reads; both have the shape above.
var policyAPIVersions = []string{"audit.k8s.io/v1", "audit.k8s.io/v1beta1"}

// LoadPolicy reads a Policy from a YAML or JSON file. A policy without
// rules is refused, as upstream's LoadPolicyFromFile does: it would record
// nothing, which is surely not what its author meant.
func LoadPolicy(path string, log *slog.Logger) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read audit policy: %w", err)
	}
	p, err := ParsePolicy(data, log)
	if err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	if len(p.Rules) == 0 {
		return nil, fmt.Errorf("loaded illegal policy with 0 rules from file %s", path)
	}
	return p, nil
}

// ParsePolicy decodes and validates a Policy in YAML or JSON. It decodes
// strictly first; a policy with unknown or repeated fields is then decoded
// leniently, with a warning on log naming them, as upstream's
// LoadPolicyFromBytes does (so a policy written for a newer apiserver still
// loads). log may be nil for slog's default.
func ParsePolicy(data []byte, log *slog.Logger) (*Policy, error) {
	var p Policy
	if strictErr := yaml.UnmarshalStrict(data, &p); strictErr != nil {
		p = Policy{}
		if err := yaml.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		if log == nil {
			log = slog.Default()
		}
		log.Warn("Audit policy contains errors, falling back to lenient decoding", "err", strictErr)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the kind, version, levels and stages, as upstream's
// policy validation does.
func (p *Policy) Validate() error {
	if p.Kind != "Policy" {
		return fmt.Errorf("kind must be Policy, got %q", p.Kind)
	}
	if !slices.Contains(policyAPIVersions, p.APIVersion) {
		return fmt.Errorf("apiVersion must be one of %v, got %q", policyAPIVersions, p.APIVersion)
	}
	if err := validateStages(p.OmitStages); err != nil {
		return fmt.Errorf("omitStages: %w", err)
	}
	for i, rule := range p.Rules {
		if _, ok := levelOrder[rule.Level]; !ok {
			return fmt.Errorf("rules[%d].level: %q is not one of None, Metadata, Request, RequestResponse", i, rule.Level)
		}
		if len(rule.NonResourceURLs) > 0 && (len(rule.Resources) > 0 || len(rule.Namespaces) > 0) {
			return fmt.Errorf("rules[%d]: rules cannot apply to both regular resources and non-resource URLs", i)
		}
		if err := validateStages(rule.OmitStages); err != nil {
			return fmt.Errorf("rules[%d].omitStages: %w", i, err)
		}
	}
	return nil
}

func validateStages(stages []Stage) error {
	for _, s := range stages {
		switch s {
		case StageRequestReceived, StageResponseStarted, StageResponseComplete, StagePanic:
		default:
			return fmt.Errorf("%q is not one of RequestReceived, ResponseStarted, ResponseComplete, Panic", s)
		}
	}
	return nil
}
