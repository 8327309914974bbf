package simshell

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/podfiles"
)

// Cluster is how the shell reads the API: the pods behind an address for
// curl, the NetworkPolicies that may drop its connections and the labels
// of their namespaces, the ConfigMaps and Secrets of the pod's volumes for
// cat and ls, and the Services whose variables are in the environment.
// The kubelet implements it with its client. A missing object is (nil, nil).
type Cluster interface {
	ListServices(ctx context.Context, namespace string) ([]*api.Service, error)
	GetService(ctx context.Context, namespace, name string) (*api.Service, error)
	GetPod(ctx context.Context, namespace, name string) (*api.Pod, error)
	// PodByIP returns the pod whose IP is ip.
	PodByIP(ctx context.Context, ip string) (*api.Pod, error)
	GetConfigMap(ctx context.Context, namespace, name string) (*api.ConfigMap, error)
	GetSecret(ctx context.Context, namespace, name string) (*api.Secret, error)
	// ListNetworkPolicies lists the NetworkPolicies of a namespace.
	ListNetworkPolicies(ctx context.Context, namespace string) ([]*api.NetworkPolicy, error)
	// GetNamespace reads a namespace, whose labels namespaceSelector
	// peers of NetworkPolicies match.
	GetNamespace(ctx context.Context, name string) (*api.Namespace, error)
}

// HTTPResponder answers an HTTP request sent to port of a container of a
// simulated pod, as that container's server would; false when nothing in
// the container listens on the port. The runtime sets it to its nginx
// answer (runtime.SimulatedHTTPResponse).
type HTTPResponder func(pod *api.Pod, container *api.Container, port int32, req *http.Request) (*http.Response, bool)

// Env is what the shell knows about the container it runs in and the
// node it runs on.
type Env struct {
	// Pod and Container are the container the shell runs in.
	Pod       *api.Pod
	Container *api.Container
	// Environ is the container's environment ("NAME=value").
	Environ []string
	// NodeIP is the node's address (a host-network pod's hosts file).
	NodeIP string
	// ClusterDNS and ClusterDomain are the kubelet's --cluster-dns and
	// --cluster-domain: what resolv.conf says.
	ClusterDNS, ClusterDomain string
	// DNSAddress is the loopback host:port where the cluster DNS really
	// answers; queries to the ClusterDNS nameserver go there. Empty: no
	// DNS runs, and look-ups fail as with an unreachable server.
	DNSAddress string
	// KubeProxyAddress is the node's kube-proxy (host:port), asked where a
	// connection to a Service address goes. Empty: no kube-proxy, so a
	// Service IP leads nowhere.
	KubeProxyAddress string
	// Cluster reads the API; nil: curl reaches no pod and volumes look empty.
	Cluster Cluster
	// HTTP answers requests that reach a pod; nil: no pod answers.
	HTTP HTTPResponder
	// Now is the time `date` prints (nil: time.Now).
	Now func() time.Time
	// After returns a channel that receives once d has passed on the
	// clock Now reads (nil: time.After). A client whose packets a
	// NetworkPolicy drops waits on it for its timeout.
	After func(d time.Duration) <-chan time.Time
	// PID is the shell's process ID: 1 when the shell is the container's
	// own process (kubectl attach), otherwise a later one.
	PID int
	// Storage is the pod's writable storage: its emptyDir volumes and the
	// quota of every file the pod writes. nil: storage of this session's
	// own, so volumes start empty.
	Storage *PodStorage
	// Layer is the container's writable layer, from Storage.NewLayer,
	// kept by the runtime as long as the container runs. nil: a layer of
	// this session's own, gone when it ends.
	Layer *Tree
}

// Streams are the shell's standard streams. With TTY the shell prompts,
// echoes what it reads and edits lines as a terminal would (see
// terminal.go), and Stderr is not used: a terminal has one output.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	TTY            bool
}

// Shell is one shell session: its variables, working directory, last
// exit status and file system.
type Shell struct {
	env   Env
	vars  map[string]string
	names []string // variable names in the order env prints them
	cwd   string
	// status is $?: the exit status of the last command.
	status int
	// exited is set by `exit`; the session ends with status.
	exited bool
	// toldSimulated is set once the shell has said, after an unknown
	// command, that it is kplane's simulated runtime.
	toldSimulated bool
	// nextPID numbers the "processes" ps shows.
	nextPID int
	// tty is set when the session has a terminal (ls then prints in a row).
	tty bool
	// resolv and hostsFile are the pod's /etc/resolv.conf and /etc/hosts
	// as the kubelet writes them; the resolver reads them, and a new
	// container layer gets them as files.
	resolv    podfiles.ResolvConf
	hostsFile string
	fs        *fileSystem
	resolver  *resolver
}

// defaultPID is an exec'd shell's PID when Env gives none: runc's exec'd
// processes come a few numbers after the container's PID 1.
const defaultPID = 7

// New prepares a session for env. ctx bounds the API reads of the pod's
// volumes.
func New(ctx context.Context, env Env) *Shell {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.After == nil {
		env.After = time.After
	}
	if env.PID == 0 {
		env.PID = defaultPID
	}
	if env.Container == nil {
		env.Container = &api.Container{}
	}
	sh := &Shell{env: env, vars: map[string]string{}, cwd: "/", nextPID: env.PID + 1}
	for _, kv := range env.Environ {
		name, value, _ := strings.Cut(kv, "=")
		sh.setVar(name, value)
	}
	if _, ok := sh.vars["HOME"]; !ok {
		sh.setVar("HOME", "/root")
	}
	if _, ok := sh.vars["PATH"]; !ok {
		sh.setVar("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	if wd := env.Container.WorkingDir; wd != "" {
		sh.cwd = path.Clean(wd)
	}
	sh.setVar("PWD", sh.cwd)
	sh.resolv = podfiles.PodResolvConf(env.Pod, podfiles.DNSSettings{ClusterDNS: env.ClusterDNS, ClusterDomain: env.ClusterDomain})
	sh.hostsFile = podfiles.HostsFile(env.Pod, env.ClusterDomain, env.NodeIP)
	sh.fs = newFileSystem(ctx, sh)
	sh.fs.ensureDir(sh.cwd) // the runtime makes the working directory
	sh.resolver = newResolver(sh.resolv, sh.hostsFile, env.ClusterDNS, env.DNSAddress)
	sh.resolver.egress = sh.dnsEgress
	return sh
}

// setVar sets a variable, remembering the order of first definition.
func (sh *Shell) setVar(name, value string) {
	if _, ok := sh.vars[name]; !ok {
		sh.names = append(sh.names, name)
	}
	sh.vars[name] = value
}

// lookupVar expands a parameter.
func (sh *Shell) lookupVar(name string) string {
	switch name {
	case "?":
		return fmt.Sprint(sh.status)
	case "$":
		return fmt.Sprint(sh.env.PID)
	case "#":
		return "0"
	case "0":
		return "sh"
	}
	return sh.vars[name]
}

// NotFoundError is a command line naming a program the shell does not
// know, run without a shell around it (`kubectl exec pod -- top`): the
// exec fails as a missing executable does, exit code 127.
type NotFoundError struct{ Command string }

// Error reads like runc's message for a missing executable, followed by
// what the simulated shell knows.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("exec: %q: executable file not found in $PATH (kplane's simulated runtime runs no programs; "+
		"its shell knows: %s)", e.Command, strings.Join(commandNames(), " "))
}

// Run runs argv as the container's exec'd command — a shell (`sh`,
// `/bin/sh -c '…'`, `bash`) or one of the shell's commands
// (`hostname`) — and returns its exit status. err is a *NotFoundError
// when argv names no known command.
func (sh *Shell) Run(ctx context.Context, argv []string, streams Streams) (int, error) {
	if len(argv) == 0 {
		return 0, nil
	}
	sh.tty = streams.TTY
	out, errOut := streams.Stdout, streams.Stderr
	if out == nil {
		out = io.Discard
	}
	if streams.TTY {
		out = &crlfWriter{w: out}
		errOut = out
	} else if errOut == nil {
		errOut = io.Discard
	}
	std := stdio{in: streams.Stdin, out: out, err: errOut}
	if std.in == nil {
		std.in = strings.NewReader("")
	}
	if isShell(argv[0]) {
		return sh.runShell(ctx, argv[1:], std, streams), nil
	}
	if _, ok := lookupCommand(argv[0]); !ok {
		return 127, &NotFoundError{Command: argv[0]}
	}
	return sh.runCommand(ctx, argv, std), nil
}

// isShell reports whether name is a shell the simulated container has.
func isShell(name string) bool {
	switch path.Base(name) {
	case "sh", "bash", "ash":
		return true
	}
	return false
}

// IsShellCommand reports whether a container's command line starts a
// shell (what `kubectl run -it … -- sh` gives): with stdin: true, such a
// container's main process is an interactive session.
func IsShellCommand(argv []string) bool {
	return len(argv) > 0 && isShell(argv[0]) && !hasFlag(argv[1:], "-c")
}

// hasFlag reports whether args hold flag before the first operand.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return false
}

// runShell runs `sh [-c script | file]`: a script given with -c, or an
// interactive session reading stdin.
func (sh *Shell) runShell(ctx context.Context, args []string, std stdio, streams Streams) int {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		flag := args[0]
		args = args[1:]
		switch flag {
		case "-c":
			if len(args) == 0 {
				fmt.Fprintln(std.err, "sh: -c requires an argument")
				return 2
			}
			sh.runLine(ctx, args[0], std)
			return sh.status
		case "-i", "-l", "-s", "--login", "-e", "-x":
		default:
			fmt.Fprintf(std.err, "sh: %s: invalid option\n", flag)
			return 2
		}
	}
	if len(args) > 0 {
		script, err := sh.fs.readFile(sh.abs(args[0]))
		if err != nil {
			fmt.Fprintf(std.err, "sh: can't open '%s': %v\n", args[0], err)
			return 2
		}
		sh.runLine(ctx, string(script), std)
		return sh.status
	}
	return sh.interact(ctx, std, streams)
}

// interact is an interactive session: prompt (with a TTY), read a line,
// run it, until `exit` or the end of input.
func (sh *Shell) interact(ctx context.Context, std stdio, streams Streams) int {
	lines := newLineReader(ctx, streams.Stdin, streams.TTY, std.out)
	for !sh.exited {
		if streams.TTY {
			fmt.Fprint(std.out, sh.prompt())
		}
		line, ok := lines.next(ctx)
		if !ok {
			if streams.TTY && ctx.Err() == nil {
				fmt.Fprintln(std.out, "exit")
			}
			return sh.status
		}
		sh.runLine(ctx, line, std)
	}
	return sh.status
}

// prompt is busybox's "/ # " (the working directory, "#" for root) for
// images whose shell is busybox ash, and "# " for the others (dash, as in
// the debian-based nginx image, prints no directory).
func (sh *Shell) prompt() string {
	if usesBusybox(sh.env.Container.Image) {
		dir := sh.cwd
		if home := sh.vars["HOME"]; home != "/" && dir == home {
			dir = "~"
		}
		return dir + " # "
	}
	return "# "
}

// usesBusybox reports whether an image's /bin/sh is busybox ash: busybox
// itself and the Alpine-based images.
func usesBusybox(image string) bool {
	switch imageName(image) {
	case "busybox", "alpine", "curl", "netshoot":
		return true
	}
	_, tag, _ := strings.Cut(path.Base(image), ":")
	return strings.Contains(tag, "alpine")
}

// runLine parses and runs one command line, setting $?.
func (sh *Shell) runLine(ctx context.Context, line string, std stdio) {
	lists, err := parse(line)
	if err != nil {
		fmt.Fprintf(std.err, "sh: %v\n", err)
		sh.status = 2
		return
	}
	for _, list := range lists {
		if sh.exited || ctx.Err() != nil {
			return
		}
		sh.status = sh.runPipeline(ctx, list.pipelines[0], std)
		for i, op := range list.ops {
			if sh.exited {
				return
			}
			if (op == "&&") != (sh.status == 0) {
				continue
			}
			sh.status = sh.runPipeline(ctx, list.pipelines[i+1], std)
		}
	}
}
