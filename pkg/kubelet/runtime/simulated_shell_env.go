package runtime

// This file computes a simulated container's environment as the shell's
// `env` shows it, including the service-link variables the kubelet gives
// every container (upstream: pkg/kubelet/envvars/envvars.go, FromServices,
// and kubelet_pods.go, getServiceEnvVarMap): for each Service with a
// cluster IP in the pod's namespace, and for the `kubernetes` Service of
// the default namespace, WEB_SERVICE_HOST, WEB_SERVICE_PORT, WEB_PORT and
// the Docker-link style WEB_PORT_80_TCP… In the simulated runtime a
// Service IP leads somewhere (the shell's curl asks the node's
// kube-proxy), so `curl $WEB_SERVICE_HOST` works as in a real pod.

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// simContainerEnv is a simulated container's environment: what an image
// based on busybox or debian sets (PATH), the runtime's HOSTNAME,
// spec.env as the process runtime computes it (applySpecEnv; a $(VAR)
// may name a service variable too), then the service variables the spec
// does not set, and HOME (which a shell sets when the image does not).
func simContainerEnv(ctx context.Context, cluster simshellServices, pod *api.Pod, spec *api.Container) []string {
	env := newEnvironment()
	env.set("PATH", defaultPath)
	services := serviceEnv(ctx, cluster, pod)
	lookup := func(name string) (string, bool) {
		if v, ok := env.lookup(name); ok {
			return v, true
		}
		for _, kv := range services {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	applySpecEnv(env, pod, spec, lookup)
	for _, kv := range services {
		if k, v, _ := strings.Cut(kv, "="); !hasVar(env, k) {
			env.set(k, v)
		}
	}
	if !hasVar(env, "HOME") {
		env.set("HOME", "/root")
	}
	return env.list()
}

// hasVar reports whether env defines name.
func hasVar(env *environment, name string) bool {
	_, ok := env.lookup(name)
	return ok
}

// simshellServices reads Services for the service variables; the
// kubelet's simshell.Cluster implements it. A missing Service is
// (nil, nil).
type simshellServices interface {
	ListServices(ctx context.Context, namespace string) ([]*api.Service, error)
	GetService(ctx context.Context, namespace, name string) (*api.Service, error)
}

// serviceEnv returns the service variables of pod, sorted by name: the
// Services of its namespace when spec.enableServiceLinks is not false,
// and always the kubernetes Service of the default namespace. A Service
// the API cannot list or read contributes nothing.
func serviceEnv(ctx context.Context, cluster simshellServices, pod *api.Pod) []string {
	if cluster == nil {
		return nil
	}
	byName := map[string]*api.Service{}
	if pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks {
		services, _ := cluster.ListServices(ctx, pod.Namespace)
		for _, svc := range services {
			byName[svc.Name] = svc
		}
	}
	// The apiserver's own Service is in every pod's variables, service
	// links or not (upstream: kubelet_pods.go, getServiceEnvVarMap). One
	// Get reads it, unless the list above was of the default namespace.
	if _, listed := byName["kubernetes"]; !listed || pod.Namespace != "default" {
		if svc, err := cluster.GetService(ctx, "default", "kubernetes"); err == nil && svc != nil {
			byName[svc.Name] = svc
		}
	}
	var vars []string
	for _, svc := range byName {
		vars = append(vars, serviceVars(svc)...)
	}
	slices.Sort(vars)
	return vars
}

// serviceVars are one Service's variables, as upstream's FromServices
// writes them; none for a headless Service or one without ports.
func serviceVars(svc *api.Service) []string {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == "None" || len(svc.Spec.Ports) == 0 {
		return nil
	}
	prefix := strings.ToUpper(strings.ReplaceAll(svc.Name, "-", "_"))
	vars := []string{
		prefix + "_SERVICE_HOST=" + ip,
		prefix + "_SERVICE_PORT=" + strconv.Itoa(int(svc.Spec.Ports[0].Port)),
	}
	for i, p := range svc.Spec.Ports {
		port := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			vars = append(vars, prefix+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))+"="+port)
		}
		protocol := string(p.Protocol)
		if protocol == "" {
			protocol = "TCP"
		}
		url := fmt.Sprintf("%s://%s", strings.ToLower(protocol), net.JoinHostPort(ip, port))
		if i == 0 {
			vars = append(vars, prefix+"_PORT="+url)
		}
		portPrefix := fmt.Sprintf("%s_PORT_%s_%s", prefix, port, strings.ToUpper(protocol))
		vars = append(vars, portPrefix+"="+url, portPrefix+"_PROTO="+strings.ToLower(protocol),
			portPrefix+"_PORT="+port, portPrefix+"_ADDR="+ip)
	}
	return vars
}
