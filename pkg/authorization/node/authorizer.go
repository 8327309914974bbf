package node

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/authorization/rbac"
)

// Authorizer is the Node authorizer. Build it with New.
type Authorizer struct {
	source Source
	rules  []api.PolicyRule
}

// New returns a Node authorizer that reads relationships from source and
// allows what rules (bootstrappolicy.NodeRules) allow for the requests it
// does not decide object by object.
func New(source Source, rules []api.PolicyRule) *Authorizer {
	return &Authorizer{source: source, rules: rules}
}

// NodeIdentity tells whether user is a kubelet and, if so, its node, as
// upstream's nodeidentifier does: a kubelet is named system:node:<name>
// AND is a member of system:nodes. Anyone else, even a member of
// system:nodes with another name, is no node (RBAC decides for them). The
// user named just "system:node:" is a node whose name is unknown ("").
func NodeIdentity(user auth.User) (nodeName string, isNode bool) {
	name, ok := strings.CutPrefix(user.Name, auth.NodeUserNamePrefix)
	if !ok || !user.InGroup(auth.NodesGroup) {
		return "", false
	}
	return name, true
}

// Authorize decides a kubelet's request; other users get no opinion.
func (z *Authorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	nodeName, isNode := NodeIdentity(a.User)
	if !isNode {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if nodeName == "" {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", a.User.Name), nil
	}
	if a.ResourceRequest {
		switch a.APIGroup + "/" + a.Resource {
		case "/secrets":
			return z.readNamespacedObject(nodeName, kindSecret, a)
		case "/configmaps":
			return z.readNamespacedObject(nodeName, kindConfigMap, a)
		case "/persistentvolumeclaims":
			if a.Subresource == "status" {
				return z.statusUpdate(nodeName, kindPVC, a)
			}
			return z.get(nodeName, kindPVC, a)
		case "/persistentvolumes":
			return z.get(nodeName, kindPV, a)
		case "/serviceaccounts":
			return z.createToken(nodeName, a)
		case "coordination.k8s.io/leases":
			return z.lease(nodeName, a)
		case "storage.k8s.io/csinodes", "storage.k8s.io/volumeattachments",
			"resource.k8s.io/resourceclaims", "resource.k8s.io/resourceslices":
			// Upstream decides these object by object; kplane serves none of
			// them, so it allows none rather than fall to the node rules,
			// which grant them wholesale.
			return authorizer.DecisionNoOpinion, "", nil
		case "/nodes":
			return z.node(nodeName, a)
		case "/pods":
			return z.pod(nodeName, a)
		}
	}
	// Everything else is the same for every node: the system:node rules.
	if rbac.RulesAllow(a, z.rules) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// statusUpdate allows update and patch of the status of an object related
// to the node (a claim being resized).
func (z *Authorizer) statusUpdate(nodeName string, kind objectKind, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Verb {
	case "update", "patch":
	default:
		return authorizer.DecisionNoOpinion, "can only get/update/patch this type", nil
	}
	if a.Subresource != "status" {
		return authorizer.DecisionNoOpinion, "can only update status subresource", nil
	}
	return z.relatedObject(nodeName, kind, a)
}

// get allows a get of one object related to the node.
func (z *Authorizer) get(nodeName string, kind objectKind, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.Verb != "get" {
		return authorizer.DecisionNoOpinion, "can only get individual resources of this type", nil
	}
	if a.Subresource != "" {
		return authorizer.DecisionNoOpinion, "cannot get subresource", nil
	}
	return z.relatedObject(nodeName, kind, a)
}

// readNamespacedObject allows get, and list or watch by name (a field
// selector on metadata.name), of one object related to the node.
func (z *Authorizer) readNamespacedObject(nodeName string, kind objectKind, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Verb {
	case "get", "list", "watch":
	default:
		return authorizer.DecisionNoOpinion, "can only read resources of this type", nil
	}
	if a.Subresource != "" {
		return authorizer.DecisionNoOpinion, "cannot read subresource", nil
	}
	if a.Namespace == "" {
		return authorizer.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return z.relatedObject(nodeName, kind, a)
}

// relatedObject allows the request when the object it names is related
// to the node.
func (z *Authorizer) relatedObject(nodeName string, kind objectKind, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.Name == "" {
		return authorizer.DecisionNoOpinion, "No Object name found", nil
	}
	if !related(z.source, nodeName, kind, a.Namespace, a.Name) {
		return authorizer.DecisionNoOpinion, noRelationship(nodeName), nil
	}
	return authorizer.DecisionAllow, "", nil
}

// createToken allows creating a token for the ServiceAccount of one of
// the node's pods. (NodeRestriction checks the token is bound to that pod.)
func (z *Authorizer) createToken(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.Verb != "create" || a.Name == "" {
		return authorizer.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
	}
	if a.Subresource != "token" {
		return authorizer.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
	}
	if !related(z.source, nodeName, kindServiceAccount, a.Namespace, a.Name) {
		return authorizer.DecisionNoOpinion, noRelationship(nodeName), nil
	}
	return authorizer.DecisionAllow, "", nil
}

// lease allows the node's own heartbeat Lease in kube-node-lease. A
// create names no object yet; NodeRestriction checks its name.
func (z *Authorizer) lease(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if a.Namespace != api.NamespaceNodeLease {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", api.NamespaceNodeLease), nil
	}
	if a.Verb != "create" && a.Name != nodeName {
		return authorizer.DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// node allows the kubelet to read its own Node (by name, so it can look
// before registering) and to create and update Nodes and their status
// (NodeRestriction keeps it to its own).
func (z *Authorizer) node(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "create", "update", "patch":
			return authorizer.DecisionAllow, "", nil
		case "get", "list", "watch":
			switch a.Name {
			case nodeName:
				return authorizer.DecisionAllow, "", nil
			case "":
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", nodeName), nil
			default:
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", nodeName, a.Name), nil
			}
		}
	case "status":
		switch a.Verb {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// pod allows the kubelet to get its pods, list and watch them selected by
// spec.nodeName, create and delete (mirror) pods, update pod status and
// evict; NodeRestriction keeps the writes to pods bound to the node.
func (z *Authorizer) pod(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "get":
			return z.get(nodeName, kindPod, a)
		case "list", "watch":
			if selectsField(a.FieldSelector, "spec.nodeName", nodeName) {
				return authorizer.DecisionAllow, "", nil
			}
			if a.Name != "" {
				return z.relatedObject(nodeName, kindPod, a)
			}
			return authorizer.DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return authorizer.DecisionAllow, "", nil
		}
	case "status":
		switch a.Verb {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	case "eviction":
		if a.Verb == "create" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// noRelationship is upstream's reason for an object none of the node's
// pods uses.
func noRelationship(nodeName string) string {
	return fmt.Sprintf("no relationship found between node '%s' and this object", nodeName)
}

// selectsField reports whether the field selector requires field to equal
// value ("field=value" or "field==value" among its comma-separated terms).
func selectsField(selector, field, value string) bool {
	for _, term := range strings.Split(selector, ",") {
		if strings.Contains(term, "!=") {
			continue
		}
		f, v, ok := strings.Cut(term, "=")
		if !ok {
			continue
		}
		v = strings.TrimPrefix(v, "=")
		if strings.TrimSpace(f) == field && strings.TrimSpace(v) == value {
			return true
		}
	}
	return false
}

// RulesFor answers SelfSubjectRulesReview for a kubelet as upstream does:
// its rights depend on its pods, not on rules, so the list is incomplete
// (the answer says so); other users have no rules here.
func (z *Authorizer) RulesFor(_ context.Context, user auth.User, _ string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	if _, isNode := NodeIdentity(user); isNode {
		return nil, nil, true, errors.New("node authorizer does not support user rule resolution")
	}
	return nil, nil, false, nil
}
