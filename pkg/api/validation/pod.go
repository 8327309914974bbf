package validation

import (
	"fmt"
	"math"
	"net"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidatePodName checks a pod's name: a DNS subdomain.
var ValidatePodName ValidateNameFunc = NameIsDNSSubdomain

// validatePod checks a pod being created.
func validatePod(pod *api.Pod) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&pod.ObjectMeta, true, ValidatePodName, "metadata")
	allErrs = append(allErrs, ValidatePodSpec(&pod.Spec, "spec")...)
	// Ephemeral containers are added to running pods through their own
	// subresource (kubectl debug), never in the pod as created.
	if len(pod.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, errors.Forbidden("spec.ephemeralContainers", "cannot be set on create"))
	}
	return allErrs
}

// ValidatePodTemplateSpec checks the pod template of a workload (Deployment,
// Job, …): its labels and annotations and its pod spec.
func ValidatePodTemplateSpec(template *api.PodTemplateSpec, fldPath string) errors.FieldErrorList {
	return validatePodTemplateSpec(template, fldPath, nil)
}

// validatePodTemplateSpec is ValidatePodTemplateSpec with extra volume names
// that mounts may refer to (a StatefulSet's volumeClaimTemplates).
func validatePodTemplateSpec(template *api.PodTemplateSpec, fldPath string, extraVolumes []string) errors.FieldErrorList {
	metaPath := child(fldPath, "metadata")
	allErrs := ValidateLabels(template.Labels, child(metaPath, "labels"))
	allErrs = append(allErrs, ValidateAnnotations(template.Annotations, child(metaPath, "annotations"))...)
	allErrs = append(allErrs, validatePodSpec(&template.Spec, child(fldPath, "spec"), extraVolumes)...)
	if len(template.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, errors.Forbidden(child(fldPath, "spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return allErrs
}

// ValidatePodSpec checks a pod spec: its volumes, its containers (which must
// only mount volumes the pod defines) and the pod-level settings.
func ValidatePodSpec(spec *api.PodSpec, fldPath string) errors.FieldErrorList {
	return validatePodSpec(spec, fldPath, nil)
}

func validatePodSpec(spec *api.PodSpec, fldPath string, extraVolumes []string) errors.FieldErrorList {
	volumes, allErrs := validateVolumes(spec.Volumes, child(fldPath, "volumes"))
	for _, name := range extraVolumes {
		volumes[name] = true
	}
	gracePeriod := int64(api.DefaultTerminationGracePeriodSeconds)
	if spec.TerminationGracePeriodSeconds != nil {
		gracePeriod = *spec.TerminationGracePeriodSeconds
	}
	containers := containerContext{volumes: volumes, gracePeriod: gracePeriod, names: map[string]bool{}}
	allErrs = append(allErrs, containers.validateContainers(spec.Containers, child(fldPath, "containers"))...)
	allErrs = append(allErrs, containers.validateInitContainers(spec.InitContainers, child(fldPath, "initContainers"))...)
	allErrs = append(allErrs, validateHostPortConflicts(spec.Containers, child(fldPath, "containers"))...)
	if spec.HostNetwork {
		allErrs = append(allErrs, validateHostNetworkPorts(spec.Containers, child(fldPath, "containers"))...)
	}
	allErrs = append(allErrs, validateRestartPolicy(spec.RestartPolicy, child(fldPath, "restartPolicy"))...)
	allErrs = append(allErrs, validateDNSPolicy(spec.DNSPolicy, spec.DNSConfig, fldPath)...)
	allErrs = append(allErrs, ValidateLabels(spec.NodeSelector, child(fldPath, "nodeSelector"))...)
	allErrs = append(allErrs, validateDNS1123SubdomainIfSet(spec.ServiceAccountName, child(fldPath, "serviceAccountName"))...)
	allErrs = append(allErrs, validateDNS1123SubdomainIfSet(spec.NodeName, child(fldPath, "nodeName"))...)
	allErrs = append(allErrs, validateDNS1123SubdomainIfSet(spec.PriorityClassName, child(fldPath, "priorityClassName"))...)
	if spec.PreemptionPolicy != nil {
		allErrs = append(allErrs, validatePreemptionPolicy(*spec.PreemptionPolicy, child(fldPath, "preemptionPolicy"))...)
	}
	allErrs = append(allErrs, validateDNS1123LabelIfSet(spec.Hostname, child(fldPath, "hostname"))...)
	allErrs = append(allErrs, validateDNS1123LabelIfSet(spec.Subdomain, child(fldPath, "subdomain"))...)
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "activeDeadlineSeconds"), v, inclusiveRangeError(1, math.MaxInt32)))
		}
	}
	allErrs = append(allErrs, ValidateTolerations(spec.Tolerations, child(fldPath, "tolerations"))...)
	allErrs = append(allErrs, validateAffinity(spec.Affinity, child(fldPath, "affinity"))...)
	allErrs = append(allErrs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, child(fldPath, "topologySpreadConstraints"))...)
	allErrs = append(allErrs, validateImagePullSecrets(spec.ImagePullSecrets, child(fldPath, "imagePullSecrets"))...)
	allErrs = append(allErrs, validateHostAliases(spec.HostAliases, child(fldPath, "hostAliases"))...)
	allErrs = append(allErrs, validateSchedulingGates(spec.SchedulingGates, child(fldPath, "schedulingGates"))...)
	for i, gate := range spec.ReadinessGates {
		allErrs = append(allErrs, ValidateLabelName(string(gate.ConditionType), child(index(child(fldPath, "readinessGates"), i), "conditionType"))...)
	}
	if spec.OS != nil && spec.OS.Name != "linux" && spec.OS.Name != "windows" {
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "os", "name"), spec.OS.Name, []string{"linux", "windows"}))
	}
	for _, name := range sortedKeys(spec.Overhead) {
		allErrs = append(allErrs, validateNonnegativeQuantity(spec.Overhead[name], key(child(fldPath, "overhead"), name))...)
	}
	return allErrs
}

// validateRestartPolicy checks a pod's restartPolicy; empty means the
// default, Always.
func validateRestartPolicy(policy api.RestartPolicy, fldPath string) errors.FieldErrorList {
	switch policy {
	case "", api.RestartPolicyAlways, api.RestartPolicyOnFailure, api.RestartPolicyNever:
		return nil
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(policy),
		[]string{string(api.RestartPolicyAlways), string(api.RestartPolicyOnFailure), string(api.RestartPolicyNever)})}
}

// restartPolicyOrDefault is the restart policy a pod will have once defaulted.
func restartPolicyOrDefault(policy api.RestartPolicy) api.RestartPolicy {
	if policy == "" {
		return api.RestartPolicyAlways
	}
	return policy
}

// validateDNSPolicy checks dnsPolicy (empty means ClusterFirst) and, with
// policy None, that dnsConfig names at least one nameserver.
func validateDNSPolicy(policy api.DNSPolicy, config *api.PodDNSConfig, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch policy {
	case "", api.DNSClusterFirstWithHostNet, api.DNSClusterFirst, api.DNSDefault:
	case api.DNSNone:
		switch {
		case config == nil:
			allErrs = append(allErrs, errors.Required(child(fldPath, "dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"))
		case len(config.Nameservers) == 0:
			allErrs = append(allErrs, errors.Required(child(fldPath, "dnsConfig", "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"))
		}
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "dnsPolicy"), string(policy), []string{
			string(api.DNSClusterFirstWithHostNet), string(api.DNSClusterFirst), string(api.DNSDefault), string(api.DNSNone)}))
	}
	if config != nil {
		configPath := child(fldPath, "dnsConfig")
		if len(config.Nameservers) > 3 {
			allErrs = append(allErrs, errors.Invalid(child(configPath, "nameservers"), config.Nameservers, "must not have more than 3 nameservers"))
		}
		for i, ns := range config.Nameservers {
			if net.ParseIP(ns) == nil {
				allErrs = append(allErrs, errors.Invalid(index(child(configPath, "nameservers"), i), ns, "must be valid IP address"))
			}
		}
		for i, search := range config.Searches {
			allErrs = append(allErrs, validateDNS1123Subdomain(strings.TrimSuffix(search, "."), index(child(configPath, "searches"), i))...)
		}
		for i, option := range config.Options {
			if option.Name == "" {
				allErrs = append(allErrs, errors.Required(index(child(configPath, "options"), i), "must not be empty"))
			}
		}
	}
	return allErrs
}

// validateHostPortConflicts rejects two containers claiming the same port on
// the node: only one process can listen on it.
func validateHostPortConflicts(containers []api.Container, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	seen := map[string]bool{}
	for ci, ctr := range containers {
		for pi, port := range ctr.Ports {
			if port.HostPort == 0 {
				continue
			}
			hostPort := fmt.Sprintf("%s/%s/%d", protocolOrDefault(port.Protocol), port.HostIP, port.HostPort)
			if seen[hostPort] {
				allErrs = append(allErrs, errors.Duplicate(child(index(child(index(fldPath, ci), "ports"), pi), "hostPort"), hostPort))
			}
			seen[hostPort] = true
		}
	}
	return allErrs
}

// validateHostNetworkPorts checks that a pod on the host's network does not
// map ports: its containers listen on the node's ports directly.
func validateHostNetworkPorts(containers []api.Container, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for ci, ctr := range containers {
		for pi, port := range ctr.Ports {
			// A zero hostPort is defaulted to the containerPort.
			if port.HostPort != 0 && port.HostPort != port.ContainerPort {
				allErrs = append(allErrs, errors.Invalid(child(index(child(index(fldPath, ci), "ports"), pi), "containerPort"),
					port.ContainerPort, "must match `hostPort` when `hostNetwork` is true"))
			}
		}
	}
	return allErrs
}

func validateImagePullSecrets(secrets []api.LocalObjectReference, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, secret := range secrets {
		if secret.Name == "" {
			allErrs = append(allErrs, errors.Required(child(index(fldPath, i), "name"), ""))
		}
	}
	return allErrs
}

func validateHostAliases(aliases []api.HostAlias, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, alias := range aliases {
		aliasPath := index(fldPath, i)
		if net.ParseIP(alias.IP) == nil {
			allErrs = append(allErrs, errors.Invalid(child(aliasPath, "ip"), alias.IP, "must be valid IP address"))
		}
		for j, hostname := range alias.Hostnames {
			allErrs = append(allErrs, validateDNS1123Subdomain(hostname, index(child(aliasPath, "hostnames"), j))...)
		}
	}
	return allErrs
}

func validateSchedulingGates(gates []api.PodSchedulingGate, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	seen := map[string]bool{}
	for i, gate := range gates {
		namePath := child(index(fldPath, i), "name")
		allErrs = append(allErrs, ValidateLabelName(gate.Name, namePath)...)
		if seen[gate.Name] {
			allErrs = append(allErrs, errors.Duplicate(namePath, gate.Name))
		}
		seen[gate.Name] = true
	}
	return allErrs
}

// validateDNS1123Subdomain reports value unless it is a DNS subdomain.
func validateDNS1123Subdomain(value, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsDNS1123Subdomain(value) {
		allErrs = append(allErrs, errors.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// validateDNS1123Label reports value unless it is a DNS label.
func validateDNS1123Label(value, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsDNS1123Label(value) {
		allErrs = append(allErrs, errors.Invalid(fldPath, value, msg))
	}
	return allErrs
}

func validateDNS1123SubdomainIfSet(value, fldPath string) errors.FieldErrorList {
	if value == "" {
		return nil
	}
	return validateDNS1123Subdomain(value, fldPath)
}

func validateDNS1123LabelIfSet(value, fldPath string) errors.FieldErrorList {
	if value == "" {
		return nil
	}
	return validateDNS1123Label(value, fldPath)
}
