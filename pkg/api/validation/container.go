package validation

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// containerContext carries what checking one container needs to know about
// the rest of the pod: which volumes exist, how long termination may take,
// and which container names are taken (init and regular containers share one
// namespace of names).
type containerContext struct {
	volumes     map[string]bool
	gracePeriod int64
	names       map[string]bool
}

// validateContainers checks a pod's regular containers; a pod needs at least one.
func (c containerContext) validateContainers(containers []api.Container, fldPath string) errors.FieldErrorList {
	if len(containers) == 0 {
		return errors.FieldErrorList{errors.Required(fldPath, "")}
	}
	var allErrs errors.FieldErrorList
	for i := range containers {
		ctr := &containers[i]
		ctrPath := index(fldPath, i)
		allErrs = append(allErrs, c.validateContainer(ctr, ctrPath)...)
		if ctr.RestartPolicy != nil {
			allErrs = append(allErrs, errors.Forbidden(child(ctrPath, "restartPolicy"), "may not be set for non-init containers"))
		}
		allErrs = append(allErrs, c.validateProbesAndLifecycle(ctr, ctrPath)...)
	}
	return allErrs
}

// validateInitContainers checks init containers. Only those with
// restartPolicy Always (sidecars, which keep running beside the app) may have
// probes or lifecycle hooks; the others run to completion one by one.
func (c containerContext) validateInitContainers(containers []api.Container, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i := range containers {
		ctr := &containers[i]
		ctrPath := index(fldPath, i)
		allErrs = append(allErrs, c.validateContainer(ctr, ctrPath)...)
		sidecar := false
		if ctr.RestartPolicy != nil {
			if *ctr.RestartPolicy == api.ContainerRestartPolicyAlways {
				sidecar = true
			} else {
				allErrs = append(allErrs, errors.NotSupported(child(ctrPath, "restartPolicy"), string(*ctr.RestartPolicy), []string{string(api.ContainerRestartPolicyAlways)}))
			}
		}
		if sidecar {
			allErrs = append(allErrs, c.validateProbesAndLifecycle(ctr, ctrPath)...)
			continue
		}
		const notForInit = "may not be set for init containers without restartPolicy=Always"
		if ctr.Lifecycle != nil {
			allErrs = append(allErrs, errors.Forbidden(child(ctrPath, "lifecycle"), notForInit))
		}
		if ctr.LivenessProbe != nil {
			allErrs = append(allErrs, errors.Forbidden(child(ctrPath, "livenessProbe"), notForInit))
		}
		if ctr.ReadinessProbe != nil {
			allErrs = append(allErrs, errors.Forbidden(child(ctrPath, "readinessProbe"), notForInit))
		}
		if ctr.StartupProbe != nil {
			allErrs = append(allErrs, errors.Forbidden(child(ctrPath, "startupProbe"), notForInit))
		}
	}
	return allErrs
}

// validateContainer checks what every container must get right: a unique
// DNS-label name, an image, valid ports, environment, resources and mounts.
func (c containerContext) validateContainer(ctr *api.Container, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	namePath := child(fldPath, "name")
	if ctr.Name == "" {
		allErrs = append(allErrs, errors.Required(namePath, ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Label(ctr.Name, namePath)...)
		if c.names[ctr.Name] {
			allErrs = append(allErrs, errors.Duplicate(namePath, ctr.Name))
		}
		c.names[ctr.Name] = true
	}
	if ctr.Image == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "image"), ""))
	} else if strings.TrimSpace(ctr.Image) != ctr.Image {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "image"), ctr.Image, "must not have leading or trailing whitespace"))
	}
	allErrs = append(allErrs, validateContainerPorts(ctr.Ports, child(fldPath, "ports"))...)
	allErrs = append(allErrs, validateEnv(ctr.Env, child(fldPath, "env"))...)
	allErrs = append(allErrs, validateEnvFrom(ctr.EnvFrom, child(fldPath, "envFrom"))...)
	allErrs = append(allErrs, ValidateResourceRequirements(ctr.Resources.Requests, ctr.Resources.Limits, child(fldPath, "resources"))...)
	allErrs = append(allErrs, c.validateVolumeMounts(ctr.VolumeMounts, child(fldPath, "volumeMounts"))...)
	switch ctr.ImagePullPolicy {
	case "", api.PullAlways, api.PullIfNotPresent, api.PullNever:
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "imagePullPolicy"), string(ctr.ImagePullPolicy),
			[]string{string(api.PullAlways), string(api.PullIfNotPresent), string(api.PullNever)}))
	}
	switch ctr.TerminationMessagePolicy {
	case "", api.TerminationMessageReadFile, api.TerminationMessageFallbackToLogsOnError:
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "terminationMessagePolicy"), string(ctr.TerminationMessagePolicy),
			"must be 'File' or 'FallbackToLogsOnError'"))
	}
	return allErrs
}

// validateProbesAndLifecycle checks the probes and hooks of a long-running
// container. Liveness and startup probes act on the first failure or success,
// so their successThreshold must be 1 (0 means "default", which is 1).
func (c containerContext) validateProbesAndLifecycle(ctr *api.Container, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	allErrs = append(allErrs, c.validateProbe(ctr.LivenessProbe, child(fldPath, "livenessProbe"), true)...)
	allErrs = append(allErrs, c.validateProbe(ctr.ReadinessProbe, child(fldPath, "readinessProbe"), false)...)
	allErrs = append(allErrs, c.validateProbe(ctr.StartupProbe, child(fldPath, "startupProbe"), true)...)
	if ctr.Lifecycle != nil {
		if h := ctr.Lifecycle.PostStart; h != nil {
			allErrs = append(allErrs, c.validateHandler(handlerActions{h.Exec, h.HTTPGet, h.TCPSocket, nil, h.Sleep}, child(fldPath, "lifecycle", "postStart"))...)
		}
		if h := ctr.Lifecycle.PreStop; h != nil {
			allErrs = append(allErrs, c.validateHandler(handlerActions{h.Exec, h.HTTPGet, h.TCPSocket, nil, h.Sleep}, child(fldPath, "lifecycle", "preStop"))...)
		}
	}
	return allErrs
}

func (c containerContext) validateProbe(probe *api.Probe, fldPath string, thresholdMustBeOne bool) errors.FieldErrorList {
	if probe == nil {
		return nil
	}
	h := probe.ProbeHandler
	allErrs := c.validateHandler(handlerActions{h.Exec, h.HTTPGet, h.TCPSocket, h.GRPC, nil}, fldPath)
	allErrs = append(allErrs, validateNonnegative32(probe.InitialDelaySeconds, child(fldPath, "initialDelaySeconds"))...)
	allErrs = append(allErrs, validateNonnegative32(probe.TimeoutSeconds, child(fldPath, "timeoutSeconds"))...)
	allErrs = append(allErrs, validateNonnegative32(probe.PeriodSeconds, child(fldPath, "periodSeconds"))...)
	allErrs = append(allErrs, validateNonnegative32(probe.SuccessThreshold, child(fldPath, "successThreshold"))...)
	allErrs = append(allErrs, validateNonnegative32(probe.FailureThreshold, child(fldPath, "failureThreshold"))...)
	if thresholdMustBeOne && probe.SuccessThreshold > 1 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "successThreshold"), probe.SuccessThreshold, "must be 1"))
	}
	if probe.TerminationGracePeriodSeconds != nil && *probe.TerminationGracePeriodSeconds <= 0 {
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "terminationGracePeriodSeconds"), *probe.TerminationGracePeriodSeconds, "must be greater than 0"))
	}
	return allErrs
}

// handlerActions gathers the members of a probe or lifecycle handler, of
// which exactly one must be set.
type handlerActions struct {
	exec      *api.ExecAction
	httpGet   *api.HTTPGetAction
	tcpSocket *api.TCPSocketAction
	grpc      *api.GRPCAction
	sleep     *api.SleepAction
}

func (c containerContext) validateHandler(h handlerActions, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	set := 0
	// claim reports whether this member is the first one set; later ones are
	// reported as extra handler types.
	claim := func(name string) bool {
		set++
		if set > 1 {
			allErrs = append(allErrs, errors.Forbidden(child(fldPath, name), "may not specify more than 1 handler type"))
			return false
		}
		return true
	}
	if h.exec != nil && claim("exec") && len(h.exec.Command) == 0 {
		allErrs = append(allErrs, errors.Required(child(fldPath, "exec", "command"), ""))
	}
	if h.httpGet != nil && claim("httpGet") {
		allErrs = append(allErrs, validateHTTPGetAction(h.httpGet, child(fldPath, "httpGet"))...)
	}
	if h.tcpSocket != nil && claim("tcpSocket") {
		allErrs = append(allErrs, ValidatePortNumOrName(h.tcpSocket.Port, child(fldPath, "tcpSocket", "port"))...)
	}
	if h.grpc != nil && claim("grpc") {
		allErrs = append(allErrs, validatePortNum(h.grpc.Port, child(fldPath, "grpc", "port"))...)
	}
	if h.sleep != nil && claim("sleep") {
		if h.sleep.Seconds <= 0 || h.sleep.Seconds > c.gracePeriod {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "sleep"), h.sleep.Seconds,
				fmt.Sprintf("must be greater than 0 and less than terminationGracePeriodSeconds (%d)", c.gracePeriod)))
		}
	}
	if set == 0 {
		allErrs = append(allErrs, errors.Required(fldPath, "must specify a handler type"))
	}
	return allErrs
}

var httpHeaderNameRegexp = regexp.MustCompile("^[-A-Za-z0-9]+$")

func validateHTTPGetAction(action *api.HTTPGetAction, fldPath string) errors.FieldErrorList {
	allErrs := ValidatePortNumOrName(action.Port, child(fldPath, "port"))
	switch action.Scheme {
	case "", api.URISchemeHTTP, api.URISchemeHTTPS:
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "scheme"), string(action.Scheme),
			[]string{string(api.URISchemeHTTP), string(api.URISchemeHTTPS)}))
	}
	for _, header := range action.HTTPHeaders {
		if !httpHeaderNameRegexp.MatchString(header.Name) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "httpHeaders"), header.Name,
				regexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name")))
		}
	}
	return allErrs
}

// validateContainerPorts checks a container's ports: numbers in range,
// protocols known, and names valid IANA service names, unique in the
// container (a Service's targetPort may refer to a port by name).
func validateContainerPorts(ports []api.ContainerPort, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	names := map[string]bool{}
	for i, port := range ports {
		portPath := index(fldPath, i)
		if port.Name != "" {
			msgs := IsValidPortName(port.Name)
			for _, msg := range msgs {
				allErrs = append(allErrs, errors.Invalid(child(portPath, "name"), port.Name, msg))
			}
			if len(msgs) == 0 && names[port.Name] {
				allErrs = append(allErrs, errors.Duplicate(child(portPath, "name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			allErrs = append(allErrs, errors.Required(child(portPath, "containerPort"), ""))
		} else {
			allErrs = append(allErrs, validatePortNum(port.ContainerPort, child(portPath, "containerPort"))...)
		}
		if port.HostPort != 0 {
			allErrs = append(allErrs, validatePortNum(port.HostPort, child(portPath, "hostPort"))...)
		}
		allErrs = append(allErrs, validateProtocol(port.Protocol, child(portPath, "protocol"))...)
	}
	return allErrs
}

// validEnvFieldPaths are the pod fields the downward API can put into an
// environment variable.
var validEnvFieldPaths = []string{
	"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
}

// validResourceFieldPaths are the container resources the downward API can expose.
var validResourceFieldPaths = []string{
	"limits.cpu", "limits.ephemeral-storage", "limits.memory",
	"requests.cpu", "requests.ephemeral-storage", "requests.memory",
}

func validateEnv(vars []api.EnvVar, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, ev := range vars {
		varPath := index(fldPath, i)
		if ev.Name == "" {
			allErrs = append(allErrs, errors.Required(child(varPath, "name"), ""))
		} else {
			for _, msg := range IsEnvVarName(ev.Name) {
				allErrs = append(allErrs, errors.Invalid(child(varPath, "name"), ev.Name, msg))
			}
		}
		allErrs = append(allErrs, validateEnvVarSource(ev, child(varPath, "valueFrom"))...)
	}
	return allErrs
}

// validateEnvVarSource checks that a variable taken from elsewhere names
// exactly one source, and no literal value besides.
func validateEnvVarSource(ev api.EnvVar, fldPath string) errors.FieldErrorList {
	from := ev.ValueFrom
	if from == nil {
		return nil
	}
	var allErrs errors.FieldErrorList
	sources := 0
	if ref := from.FieldRef; ref != nil {
		sources++
		refPath := child(fldPath, "fieldRef")
		if ref.FieldPath == "" {
			allErrs = append(allErrs, errors.Required(child(refPath, "fieldPath"), ""))
		} else if !validEnvFieldPath(ref.FieldPath) {
			allErrs = append(allErrs, errors.NotSupported(child(refPath, "fieldPath"), ref.FieldPath, validEnvFieldPaths))
		}
	}
	if ref := from.ResourceFieldRef; ref != nil {
		sources++
		refPath := child(fldPath, "resourceFieldRef")
		if ref.Resource == "" {
			allErrs = append(allErrs, errors.Required(child(refPath, "resource"), ""))
		} else if !slices.Contains(validResourceFieldPaths, ref.Resource) {
			allErrs = append(allErrs, errors.NotSupported(child(refPath, "resource"), ref.Resource, validResourceFieldPaths))
		}
	}
	if ref := from.ConfigMapKeyRef; ref != nil {
		sources++
		allErrs = append(allErrs, validateKeySelector(ref.Name, ref.Key, child(fldPath, "configMapKeyRef"))...)
	}
	if ref := from.SecretKeyRef; ref != nil {
		sources++
		allErrs = append(allErrs, validateKeySelector(ref.Name, ref.Key, child(fldPath, "secretKeyRef"))...)
	}
	switch {
	case sources == 0:
		allErrs = append(allErrs, errors.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case ev.Value != "":
		allErrs = append(allErrs, errors.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case sources > 1:
		allErrs = append(allErrs, errors.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return allErrs
}

// validEnvFieldPath accepts the plain field paths and the subscripted forms
// metadata.labels['key'] and metadata.annotations['key'].
func validEnvFieldPath(fieldPath string) bool {
	for _, prefix := range []string{"metadata.labels['", "metadata.annotations['"} {
		if rest, ok := strings.CutPrefix(fieldPath, prefix); ok {
			subscript, ok := strings.CutSuffix(rest, "']")
			return ok && len(IsQualifiedName(strings.ToLower(subscript))) == 0
		}
	}
	return slices.Contains(validEnvFieldPaths, fieldPath)
}

// validateKeySelector checks a reference to one key of a ConfigMap or Secret.
func validateKeySelector(name, keyName, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if name == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "name"), ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Subdomain(name, child(fldPath, "name"))...)
	}
	if keyName == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "key"), ""))
	} else {
		for _, msg := range IsConfigMapKey(keyName) {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "key"), keyName, msg))
		}
	}
	return allErrs
}

func validateEnvFrom(sources []api.EnvFromSource, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, source := range sources {
		sourcePath := index(fldPath, i)
		if source.Prefix != "" {
			for _, msg := range IsEnvVarName(source.Prefix) {
				allErrs = append(allErrs, errors.Invalid(child(sourcePath, "prefix"), source.Prefix, msg))
			}
		}
		count := 0
		if source.ConfigMapRef != nil {
			count++
			allErrs = append(allErrs, validateRequiredSubdomain(source.ConfigMapRef.Name, child(sourcePath, "configMapRef", "name"))...)
		}
		if source.SecretRef != nil {
			count++
			allErrs = append(allErrs, validateRequiredSubdomain(source.SecretRef.Name, child(sourcePath, "secretRef", "name"))...)
		}
		switch {
		case count == 0:
			allErrs = append(allErrs, errors.Invalid(sourcePath, "", "must specify one of: `configMapRef` or `secretRef`"))
		case count > 1:
			allErrs = append(allErrs, errors.Invalid(sourcePath, "", "may not have more than one field specified at a time"))
		}
	}
	return allErrs
}

// validateRequiredSubdomain reports an empty name as required and a
// malformed one as invalid.
func validateRequiredSubdomain(name, fldPath string) errors.FieldErrorList {
	if name == "" {
		return errors.FieldErrorList{errors.Required(fldPath, "")}
	}
	return validateDNS1123Subdomain(name, fldPath)
}

// validateVolumeMounts checks that each mount names a volume of the pod, at a
// path no other mount of the container uses.
func (c containerContext) validateVolumeMounts(mounts []api.VolumeMount, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	mountPaths := map[string]bool{}
	for i, mount := range mounts {
		mountPath := index(fldPath, i)
		switch {
		case mount.Name == "":
			allErrs = append(allErrs, errors.Required(child(mountPath, "name"), ""))
		case !c.volumes[mount.Name]:
			allErrs = append(allErrs, &errors.FieldError{Type: errors.FieldValueNotFound, Field: child(mountPath, "name"), BadValue: mount.Name})
		}
		if mount.MountPath == "" {
			allErrs = append(allErrs, errors.Required(child(mountPath, "mountPath"), ""))
		} else if mountPaths[mount.MountPath] {
			allErrs = append(allErrs, errors.Invalid(child(mountPath, "mountPath"), mount.MountPath, "must be unique"))
		}
		mountPaths[mount.MountPath] = true
		if mount.SubPath != "" {
			allErrs = append(allErrs, validateLocalDescendingPath(mount.SubPath, child(mountPath, "subPath"))...)
		}
		if p := mount.MountPropagation; p != nil {
			switch *p {
			case api.MountPropagationNone, api.MountPropagationHostToContainer, api.MountPropagationBidirectional:
			default:
				allErrs = append(allErrs, errors.NotSupported(child(mountPath, "mountPropagation"), string(*p), []string{
					string(api.MountPropagationBidirectional), string(api.MountPropagationHostToContainer), string(api.MountPropagationNone)}))
			}
		}
	}
	return allErrs
}

// validateLocalDescendingPath accepts only relative paths that stay inside
// their directory: a subPath or a projected file must not escape the volume.
func validateLocalDescendingPath(target, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if path.IsAbs(target) {
		allErrs = append(allErrs, errors.Invalid(fldPath, target, "must be a relative path"))
	}
	for _, part := range strings.Split(strings.ReplaceAll(target, `\`, "/"), "/") {
		if part == ".." {
			allErrs = append(allErrs, errors.Invalid(fldPath, target, "must not contain '..'"))
			break
		}
	}
	return allErrs
}
