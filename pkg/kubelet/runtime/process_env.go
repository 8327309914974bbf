package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/fieldpath"
)

// defaultPath is the PATH a container gets when the kubelet has none;
// containerd gives the same one to images that do not set PATH.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// containerEnv builds the environment of a container's process, as
// "NAME=value" strings without duplicates (a later definition wins, as in
// a container).
//
// A real container's environment comes from its image (PATH, HOME, …), the
// kubelet (HOSTNAME, the service variables) and the pod spec. Here:
//   - PATH and HOME are the kubelet's, since the process runs on the
//     kubelet's machine as its user; nothing else of the kubelet's
//     environment leaks in (it may hold credentials);
//   - HOSTNAME is the pod's hostname (spec.hostname, else its name);
//   - spec.env is applied in order, each value expanded with $(VAR)
//     references to the variables before it; valueFrom.fieldRef resolves
//     metadata.name, metadata.namespace, metadata.uid,
//     metadata.labels['k'], metadata.annotations['k'], spec.nodeName,
//     spec.serviceAccountName, status.hostIP(s) and status.podIP(s).
//
// Limitations: envFrom and valueFrom.configMapKeyRef, secretKeyRef and
// resourceFieldRef are skipped (the runtime does not read ConfigMaps or
// Secrets from the API), and there are no service-link variables
// (KUBERNETES_SERVICE_HOST, …): a service IP is never a destination here.
func containerEnv(pod *api.Pod, container *api.Container) []string {
	env := newEnvironment()
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	env.set("PATH", path)
	if home := os.Getenv("HOME"); home != "" {
		env.set("HOME", home)
	}
	applySpecEnv(env, pod, container, env.lookup)
	return env.list()
}

// applySpecEnv sets HOSTNAME to the pod's hostname (spec.hostname, else
// its name), then applies spec.env in order: a value's $(VAR) references
// are expanded with lookup, and valueFrom.fieldRef is resolved from the
// pod. Other valueFrom sources are skipped. Both runtimes build their
// environment with it; they differ only in what comes before (PATH,
// HOME) and in what lookup sees besides env (the simulated shell's
// service variables).
func applySpecEnv(env *environment, pod *api.Pod, container *api.Container, lookup func(string) (string, bool)) {
	hostname := pod.Spec.Hostname
	if hostname == "" {
		hostname = pod.Name
	}
	env.set("HOSTNAME", hostname)
	for _, v := range container.Env {
		switch {
		case v.ValueFrom == nil:
			env.set(v.Name, expandVars(v.Value, lookup))
		case v.ValueFrom.FieldRef != nil:
			if value, err := fieldpath.PodFieldValue(pod, v.ValueFrom.FieldRef.FieldPath); err == nil {
				env.set(v.Name, value)
			}
		}
	}
}

// containerCommand is spec.command followed by spec.args, each expanded with
// $(VAR) references to the container's environment. Without a command
// there is nothing to run (no image entrypoint), so the result is empty.
//
// The one exception: images known to have no ENTRYPOINT (busybox, alpine
// and the distributions' base images) run their args alone, as a runtime
// does for them, so that `kubectl run t --image=busybox -- sh`, which sets
// args ["sh"] and no command, runs sh.
func containerCommand(container *api.Container, env []string) []string {
	if len(container.Command) == 0 && (len(container.Args) == 0 || !imagesWithoutEntrypoint[imageName(container.Image)]) {
		return nil
	}
	lookup := func(name string) (string, bool) {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	argv := make([]string, 0, len(container.Command)+len(container.Args))
	for _, a := range append(append([]string(nil), container.Command...), container.Args...) {
		argv = append(argv, expandVars(a, lookup))
	}
	return argv
}

// imagesWithoutEntrypoint are well-known images whose ENTRYPOINT is empty:
// their CMD is only a default for args.
var imagesWithoutEntrypoint = map[string]bool{
	"busybox": true, "alpine": true, "debian": true, "ubuntu": true, "fedora": true,
}

// imageName is an image reference's repository name without registry,
// path, tag or digest: docker.io/library/busybox:1.36 → busybox.
func imageName(image string) string {
	if i := strings.LastIndexByte(image, '/'); i >= 0 {
		image = image[i+1:]
	}
	image, _, _ = strings.Cut(image, "@")
	image, _, _ = strings.Cut(image, ":")
	return image
}

// expandVars replaces $(NAME) by the variable's value, as the kubelet does
// in command, args and env values: an undefined $(NAME) is left as it is,
// $$ is a literal $, and a $ not followed by ( or $ is kept.
func expandVars(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if value, ok := lookup(name); ok {
				b.WriteString(value)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// environment is an ordered set of variables.
type environment struct {
	values map[string]string
	order  map[string]int
}

func newEnvironment() *environment {
	return &environment{values: map[string]string{}, order: map[string]int{}}
}

func (e *environment) set(name, value string) {
	if _, ok := e.order[name]; !ok {
		e.order[name] = len(e.order)
	}
	e.values[name] = value
}

func (e *environment) lookup(name string) (string, bool) {
	v, ok := e.values[name]
	return v, ok
}

func (e *environment) list() []string {
	names := make([]string, 0, len(e.values))
	for name := range e.values {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return e.order[names[i]] < e.order[names[j]] })
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, name+"="+e.values[name])
	}
	return out
}

// envValue returns NAME's value in a "NAME=value" list.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// lookPath finds the executable a container's command names, the way runc
// does inside a container: a name with a slash is a path (relative to the
// working directory), any other name is searched in the container's PATH.
// The errors read like runc's.
func lookPath(name, path, workingDir string) (string, error) {
	if strings.Contains(name, "/") {
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(workingDir, file)
		}
		if err := checkExecutable(file); err != nil {
			return "", fmt.Errorf("exec: %q: %w", name, err)
		}
		return file, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // like exec.LookPath, never run something from "."
		}
		file := filepath.Join(dir, name)
		if checkExecutable(file) == nil {
			return file, nil
		}
	}
	return "", fmt.Errorf("exec: %q: %w in $PATH", name, ErrCommandNotFound)
}

// checkExecutable says why file cannot be executed, if it cannot.
func checkExecutable(file string) error {
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return &fs.PathError{Op: "exec", Path: file, Err: errors.New("permission denied")}
	}
	return nil
}
