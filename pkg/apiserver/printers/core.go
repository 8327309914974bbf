package printers

import (
	"maps"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
)

// This file prints the small core/v1 kinds: Namespace, Node, ConfigMap,
// Secret, ServiceAccount and ResourceQuota.

var namespaceColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Status", "The namespace's phase: Active, or Terminating while its contents are deleted."),
	ageColumn,
}

func namespaceCells(ns *api.Namespace, now time.Time) []any {
	return []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}
}

// Node roles come from labels: node-role.kubernetes.io/<role> (any value),
// or the older kubernetes.io/role=<role>.
const (
	nodeRoleLabelPrefix = "node-role.kubernetes.io/"
	legacyNodeRoleLabel = "kubernetes.io/role"
)

var nodeColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Status", "Ready, NotReady or Unknown, plus SchedulingDisabled when cordoned."),
	text("Roles", "The node's roles, from its node-role.kubernetes.io/* labels."),
	ageColumn,
	text("Version", "The kubelet version the node reports."),
	wide(text("Internal-IP", "The node's first InternalIP address.")),
	wide(text("External-IP", "The node's first ExternalIP address.")),
	wide(text("OS-Image", "The operating system image the node reports.")),
	wide(text("Kernel-Version", "The kernel version the node reports.")),
	wide(text("Container-Runtime", "The container runtime and version the node reports.")),
}

// nodeCells is upstream's printNode. STATUS reads only the Ready condition:
// "Ready" when True, "NotReady" when False or Unknown (a node whose kubelet
// stopped posting is NotReady), "Unknown" when the condition is missing.
func nodeCells(node *api.Node, now time.Time) []any {
	status := "Unknown"
	for _, c := range node.Status.Conditions {
		if c.Type == api.NodeReady {
			status = "NotReady"
			if c.Status == api.ConditionTrue {
				status = "Ready"
			}
			break
		}
	}
	if node.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	info := node.Status.NodeInfo
	unknownIfEmpty := func(s string) string {
		if s == "" {
			return "<unknown>"
		}
		return s
	}
	return []any{
		node.Name,
		status,
		orNone(strings.Join(nodeRoles(node), ",")),
		age(node.CreationTimestamp, now),
		info.KubeletVersion,
		nodeAddress(node, api.NodeInternalIP),
		nodeAddress(node, api.NodeExternalIP),
		unknownIfEmpty(info.OSImage),
		unknownIfEmpty(info.KernelVersion),
		unknownIfEmpty(info.ContainerRuntimeVersion),
	}
}

// nodeRoles returns the node's roles, sorted and without duplicates.
func nodeRoles(node *api.Node) []string {
	var roles []string
	for key, value := range node.Labels {
		switch {
		case strings.HasPrefix(key, nodeRoleLabelPrefix):
			if role := strings.TrimPrefix(key, nodeRoleLabelPrefix); role != "" {
				roles = append(roles, role)
			}
		case key == legacyNodeRoleLabel && value != "":
			roles = append(roles, value)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// nodeAddress returns the node's first address of the given type, or "<none>".
func nodeAddress(node *api.Node, addressType api.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == addressType {
			return a.Address
		}
	}
	return none
}

var configMapColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Data", "How many keys the config map holds, text and binary."),
	ageColumn,
}

func configMapCells(cm *api.ConfigMap, now time.Time) []any {
	return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}
}

var secretColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Type", "The secret's type, e.g. Opaque or kubernetes.io/tls."),
	text("Data", "How many keys the secret holds."),
	ageColumn,
}

// secretCells counts the keys of data and stringData together: upstream
// folds stringData into data when the secret is written, so a stored secret
// shows the union either way.
func secretCells(secret *api.Secret, now time.Time) []any {
	keys := len(secret.Data)
	for key := range secret.StringData {
		if _, ok := secret.Data[key]; !ok {
			keys++
		}
	}
	return []any{secret.Name, string(secret.Type), int64(keys), age(secret.CreationTimestamp, now)}
}

var serviceAccountColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Secrets", "How many secrets the service account lists."),
	ageColumn,
}

func serviceAccountCells(sa *api.ServiceAccount, now time.Time) []any {
	return []any{sa.Name, int64(len(sa.Secrets)), age(sa.CreationTimestamp, now)}
}

// Kubernetes 1.32 puts AGE second for quotas; 1.33 moved it last.
var resourceQuotaColumns = []api.TableColumnDefinition{
	nameColumn,
	ageColumn,
	text("Request", "Used out of hard for every quota resource that is not a limit."),
	text("Limit", "Used out of hard for the limits.* quota resources."),
}

// resourceQuotaCells lists "resource: used/hard" for each resource of
// status.hard, sorted by name, with limits.* resources in the LIMIT column
// and everything else (pods, requests.cpu, services…) in REQUEST.
func resourceQuotaCells(quota *api.ResourceQuota, now time.Time) []any {
	var requests, limits []string
	for _, name := range slices.Sorted(maps.Keys(quota.Status.Hard)) {
		hard := quota.Status.Hard[name]
		used := quota.Status.Used[name]
		entry := name + ": " + used.String() + "/" + hard.String()
		if strings.HasPrefix(name, "limits.") {
			limits = append(limits, entry)
		} else {
			requests = append(requests, entry)
		}
	}
	return []any{quota.Name, age(quota.CreationTimestamp, now), strings.Join(requests, ", "), strings.Join(limits, ", ")}
}
