package describe

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// envResolver gives the value of an environment variable taken from a
// pod field (the downward API); nil in a pod template, where there is no
// pod yet.
type envResolver func(e api.EnvVar) string

// describeContainers prints a "Containers:" (or "Init Containers:")
// section: for each container its image, ports, command, state (when a
// status is known), resources, probes, environment and mounts. space is
// the extra indentation of a pod template ("  ").
func describeContainers(label string, containers []api.Container, statuses []api.ContainerStatus, resolve envResolver, w prefixWriter, space string, s Settings) {
	byName := map[string]api.ContainerStatus{}
	for _, st := range statuses {
		byName[st.Name] = st
	}
	none := ""
	if len(containers) == 0 {
		none = " <none>"
	}
	w.write(level0, "%s%s:%s\n", space, label, none)
	for _, c := range containers {
		status, ok := byName[c.Name]
		describeContainerBasics(c, status, ok, space, w)
		describeContainerCommand(c, w)
		if ok {
			describeContainerState(status, w, s)
		}
		describeResources(&c.Resources, w, level2)
		describeContainerProbes(c, w)
		if len(c.EnvFrom) > 0 {
			describeContainerEnvFrom(c, w)
		}
		describeContainerEnv(c, resolve, w)
		describeContainerMounts(c, w)
	}
}

func describeContainerBasics(c api.Container, status api.ContainerStatus, ok bool, space string, w prefixWriter) {
	nameIndent := ""
	if space != "" {
		nameIndent = " "
	}
	w.write(level1, "%s%v:\n", nameIndent, c.Name)
	if ok {
		w.write(level2, "Container ID:\t%s\n", status.ContainerID)
	}
	w.write(level2, "Image:\t%s\n", c.Image)
	if ok {
		w.write(level2, "Image ID:\t%s\n", status.ImageID)
	}
	// One port prints as "Port:", several as "Ports:".
	ports := containerPorts(c.Ports, func(p api.ContainerPort) int32 { return p.ContainerPort })
	if strings.Contains(ports, ",") {
		w.write(level2, "Ports:\t%s\n", ports)
	} else {
		w.write(level2, "Port:\t%s\n", stringOrNone(ports))
	}
	hostPorts := containerPorts(c.Ports, func(p api.ContainerPort) int32 { return p.HostPort })
	if strings.Contains(hostPorts, ",") {
		w.write(level2, "Host Ports:\t%s\n", hostPorts)
	} else {
		w.write(level2, "Host Port:\t%s\n", stringOrNone(hostPorts))
	}
	if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		w.write(level2, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
		if sc.SeccompProfile.Type == "Localhost" {
			w.write(level3, "LocalhostProfile:\t%s\n", deref(sc.SeccompProfile.LocalhostProfile))
		}
	}
}

// containerPorts is "80/TCP, 443/TCP" with the port number number picks
// (the container's or the host's). kubectl 1.32 leaves the port names out.
func containerPorts(ports []api.ContainerPort, number func(api.ContainerPort) int32) string {
	out := make([]string, 0, len(ports))
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%d/%s", number(p), p.Protocol))
	}
	return strings.Join(out, ", ")
}

func describeContainerCommand(c api.Container, w prefixWriter) {
	if len(c.Command) > 0 {
		w.write(level2, "Command:\n")
		for _, arg := range c.Command {
			for _, line := range strings.Split(arg, "\n") {
				w.write(level3, "%s\n", line)
			}
		}
	}
	if len(c.Args) > 0 {
		w.write(level2, "Args:\n")
		for _, arg := range c.Args {
			for _, line := range strings.Split(arg, "\n") {
				w.write(level3, "%s\n", line)
			}
		}
	}
}

// describeResources prints Limits and Requests, each resource on its line.
func describeResources(r *api.ResourceRequirements, w prefixWriter, level int) {
	if r == nil {
		return
	}
	if len(r.Limits) > 0 {
		w.write(level, "Limits:\n")
	}
	for _, name := range sortedResourceNames(r.Limits) {
		w.write(level+1, "%s:\t%s\n", name, r.Limits[name].String())
	}
	if len(r.Requests) > 0 {
		w.write(level, "Requests:\n")
	}
	for _, name := range sortedResourceNames(r.Requests) {
		w.write(level+1, "%s:\t%s\n", name, r.Requests[name].String())
	}
}

func describeContainerState(status api.ContainerStatus, w prefixWriter, s Settings) {
	describeState("State", status.State, w, s)
	if status.LastTerminationState.Terminated != nil {
		describeState("Last State", status.LastTerminationState, w, s)
	}
	w.write(level2, "Ready:\t%v\n", printBool(status.Ready))
	w.write(level2, "Restart Count:\t%d\n", status.RestartCount)
}

// describeState prints a container state; a state with nothing set is
// Waiting, as the API defines it.
func describeState(name string, state api.ContainerState, w prefixWriter, s Settings) {
	switch {
	case state.Running != nil:
		w.write(level2, "%s:\tRunning\n", name)
		w.write(level3, "Started:\t%v\n", s.timestamp(state.Running.StartedAt.Time))
	case state.Waiting != nil:
		w.write(level2, "%s:\tWaiting\n", name)
		if state.Waiting.Reason != "" {
			w.write(level3, "Reason:\t%s\n", state.Waiting.Reason)
		}
	case state.Terminated != nil:
		t := state.Terminated
		w.write(level2, "%s:\tTerminated\n", name)
		if t.Reason != "" {
			w.write(level3, "Reason:\t%s\n", t.Reason)
		}
		if t.Message != "" {
			w.write(level3, "Message:\t%s\n", t.Message)
		}
		w.write(level3, "Exit Code:\t%d\n", t.ExitCode)
		if t.Signal > 0 {
			w.write(level3, "Signal:\t%d\n", t.Signal)
		}
		w.write(level3, "Started:\t%s\n", s.timestamp(t.StartedAt.Time))
		w.write(level3, "Finished:\t%s\n", s.timestamp(t.FinishedAt.Time))
	default:
		w.write(level2, "%s:\tWaiting\n", name)
	}
}

func describeContainerProbes(c api.Container, w prefixWriter) {
	if c.LivenessProbe != nil {
		w.write(level2, "Liveness:\t%s\n", describeProbe(c.LivenessProbe))
	}
	if c.ReadinessProbe != nil {
		w.write(level2, "Readiness:\t%s\n", describeProbe(c.ReadinessProbe))
	}
	if c.StartupProbe != nil {
		w.write(level2, "Startup:\t%s\n", describeProbe(c.StartupProbe))
	}
}

// describeProbe is one line: the check ("http-get http://:80/healthz")
// then its timing ("delay=0s timeout=1s period=10s #success=1 #failure=3").
func describeProbe(p *api.Probe) string {
	attrs := fmt.Sprintf("delay=%ds timeout=%ds period=%ds #success=%d #failure=%d",
		p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold)
	switch {
	case p.Exec != nil:
		return fmt.Sprintf("exec %v %s", p.Exec.Command, attrs)
	case p.HTTPGet != nil:
		u := &url.URL{Scheme: strings.ToLower(string(p.HTTPGet.Scheme)), Path: p.HTTPGet.Path}
		if port := p.HTTPGet.Port.String(); port != "" {
			u.Host = net.JoinHostPort(p.HTTPGet.Host, port)
		} else {
			u.Host = p.HTTPGet.Host
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case p.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s:%s %s", p.TCPSocket.Host, p.TCPSocket.Port.String(), attrs)
	case p.GRPC != nil:
		return fmt.Sprintf("grpc <pod>:%d %s %s", p.GRPC.Port, deref(p.GRPC.Service), attrs)
	}
	return "unknown " + attrs
}

func describeContainerEnvFrom(c api.Container, w prefixWriter) {
	w.write(level2, "Environment Variables from:\n")
	for _, e := range c.EnvFrom {
		from, name, optional := "", "", false
		switch {
		case e.ConfigMapRef != nil:
			from, name, optional = "ConfigMap", e.ConfigMapRef.Name, deref(e.ConfigMapRef.Optional)
		case e.SecretRef != nil:
			from, name, optional = "Secret", e.SecretRef.Name, deref(e.SecretRef.Optional)
		}
		if e.Prefix == "" {
			w.write(level3, "%s\t%s\tOptional: %t\n", name, from, optional)
		} else {
			w.write(level3, "%s\t%s with prefix '%s'\tOptional: %t\n", name, from, e.Prefix, optional)
		}
	}
}

func describeContainerEnv(c api.Container, resolve envResolver, w prefixWriter) {
	none := ""
	if len(c.Env) == 0 {
		none = "\t<none>"
	}
	w.write(level2, "Environment:%s\n", none)
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			for i, line := range strings.Split(e.Value, "\n") {
				if i == 0 {
					w.write(level3, "%s:\t%s\n", e.Name, line)
				} else {
					w.write(level3, "\t%s\n", line)
				}
			}
			continue
		}
		from := e.ValueFrom
		switch {
		case from.FieldRef != nil:
			value := ""
			if resolve != nil {
				value = resolve(e)
			}
			w.write(level3, "%s:\t%s (%s:%s)\n", e.Name, value, from.FieldRef.APIVersion, from.FieldRef.FieldPath)
		case from.ResourceFieldRef != nil:
			value, ok := containerResourceValue(from.ResourceFieldRef, c)
			if !ok {
				value = ""
			}
			resource := from.ResourceFieldRef.Resource
			// A limit that is not set reads as 0 here; the container then
			// gets the node's allocatable amount.
			if value == "0" && (resource == "limits.cpu" || resource == "limits.memory") {
				value = "node allocatable"
			}
			w.write(level3, "%s:\t%s (%s)\n", e.Name, value, resource)
		case from.SecretKeyRef != nil:
			w.write(level3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, from.SecretKeyRef.Key, from.SecretKeyRef.Name, deref(from.SecretKeyRef.Optional))
		case from.ConfigMapKeyRef != nil:
			w.write(level3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, from.ConfigMapKeyRef.Key, from.ConfigMapKeyRef.Name, deref(from.ConfigMapKeyRef.Optional))
		}
	}
}

// containerResourceValue is the value the downward API gives for a
// resourceFieldRef: the request or limit divided by the divisor, rounded
// up (kubectl's ExtractContainerResourceValue).
func containerResourceValue(fs *api.ResourceFieldSelector, c api.Container) (string, bool) {
	divisor := fs.Divisor
	kind, name, _ := strings.Cut(fs.Resource, ".")
	var list api.ResourceList
	switch kind {
	case "limits":
		list = c.Resources.Limits
	case "requests":
		list = c.Resources.Requests
	default:
		return "", false
	}
	q := list[name]
	switch name {
	case api.ResourceCPU:
		if divisor.IsZero() {
			divisor = api.MustParseQuantity("1")
		}
		return fmt.Sprint(ceilDiv(q.MilliValue(), divisor.MilliValue())), true
	case api.ResourceMemory, api.ResourceEphemeralStorage:
		if divisor.IsZero() {
			divisor = api.MustParseQuantity("1")
		}
		return fmt.Sprint(ceilDiv(q.Value(), divisor.Value())), true
	}
	return "", false
}

func ceilDiv(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	if a%b == 0 {
		return a / b
	}
	return a/b + 1
}

func describeContainerMounts(c api.Container, w prefixWriter) {
	none := ""
	if len(c.VolumeMounts) == 0 {
		none = "\t<none>"
	}
	w.write(level2, "Mounts:%s\n", none)
	mounts := slices.Clone(c.VolumeMounts)
	slices.SortStableFunc(mounts, func(a, b api.VolumeMount) int { return strings.Compare(a.MountPath, b.MountPath) })
	for _, m := range mounts {
		flags := []string{"rw"}
		if m.ReadOnly {
			flags = []string{"ro"}
		}
		if m.SubPath != "" {
			flags = append(flags, fmt.Sprintf("path=%q", m.SubPath))
		}
		w.write(level3, "%s from %s (%s)\n", m.MountPath, m.Name, strings.Join(flags, ","))
	}
	if len(c.VolumeDevices) > 0 {
		w.write(level2, "Devices:%s\n", none)
		devices := slices.Clone(c.VolumeDevices)
		slices.SortStableFunc(devices, func(a, b api.VolumeDevice) int { return strings.Compare(a.DevicePath, b.DevicePath) })
		for _, d := range devices {
			w.write(level3, "%s from %s\n", d.DevicePath, d.Name)
		}
	}
}
