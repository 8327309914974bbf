package simshell

// This file is the simulated container's file system, read-only: the
// directories of a small Linux image, the files the kubelet manages in
// every container (/etc/hosts, /etc/resolv.conf, /etc/hostname), and the
// pod's volumes at their mount paths — a ConfigMap or Secret volume holds
// its keys as files, read from the API when the session starts, and a
// projected volume its sources' files (pkg/kubelet/projected), the
// ServiceAccount token among them when the cluster view issues tokens
// (the kubelet's token manager); other volumes (emptyDir, a PVC) look
// empty, since nothing simulated ever wrote to them.

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/podfiles"
	"kplane/pkg/kubelet/projected"
)

// imageDirs are the directories every simulated image has.
var imageDirs = []string{"/bin", "/dev", "/etc", "/home", "/lib", "/proc", "/root", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/local", "/usr/local/bin", "/usr/sbin", "/sbin", "/var"}

// fileSystem maps absolute paths to file contents and knows the
// directories; a directory's entries are the paths one level below it.
type fileSystem struct {
	files map[string]string
	dirs  map[string]bool
}

// newFileSystem builds the container's files for sh's pod.
func newFileSystem(ctx context.Context, sh *Shell) *fileSystem {
	fs := &fileSystem{files: map[string]string{}, dirs: map[string]bool{"/": true}}
	for _, d := range imageDirs {
		fs.addDir(d)
	}
	for name := range commands {
		fs.addFile("/bin/"+name, "")
	}
	fs.addFile("/bin/sh", "")
	pod := sh.env.Pod
	fs.addFile("/etc/hostname", podfiles.HostnameFile(pod, sh.env.ClusterDomain))
	fs.addFile("/etc/hosts", sh.hostsFile)
	fs.addFile("/etc/resolv.conf", sh.resolv.String())
	fs.addFile("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
	fs.addFile("/etc/group", "root:x:0:\nnogroup:x:65534:\n")
	for _, m := range sh.env.Container.VolumeMounts {
		mount := path.Clean("/" + m.MountPath)
		fs.addDir(mount)
		for name, content := range volumeFiles(ctx, sh.env.Cluster, pod, m.Name) {
			if m.SubPath == "" {
				fs.addFile(path.Join(mount, name), content)
			} else if name == m.SubPath {
				delete(fs.dirs, mount)
				fs.files[mount] = content
			}
		}
	}
	return fs
}

// addDir records a directory and its parents.
func (fs *fileSystem) addDir(dir string) {
	for dir != "/" && !fs.dirs[dir] {
		fs.dirs[dir] = true
		dir = path.Dir(dir)
	}
}

// addFile records a file and its directory.
func (fs *fileSystem) addFile(name, content string) {
	fs.addDir(path.Dir(name))
	fs.files[name] = content
}

// hostname is /etc/hostname's content.
func (fs *fileSystem) hostname() string { return fs.files["/etc/hostname"] }

// entries lists a directory's entries, sorted.
func (fs *fileSystem) entries(dir string) []string {
	var names []string
	add := func(p string) {
		if p != "/" && path.Dir(p) == dir {
			names = append(names, path.Base(p))
		}
	}
	for d := range fs.dirs {
		add(d)
	}
	for f := range fs.files {
		add(f)
	}
	slices.Sort(names)
	return names
}

// volumeFiles returns the files of the pod's volume named volume, keyed
// by their path inside the volume: a ConfigMap's or Secret's keys (or the
// items it selects), or a projected volume's files. Other volume kinds, and
// a volume that could not be set up (an object that cannot be read, a
// selected key it does not hold, as upstream's kubelet refuses them), give
// no files.
func volumeFiles(ctx context.Context, cluster Cluster, pod *api.Pod, volume string) map[string]string {
	if cluster == nil {
		return nil
	}
	var src *api.VolumeSource
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == volume {
			src = &pod.Spec.Volumes[i].VolumeSource
		}
	}
	var files map[string]string
	var err error
	switch {
	case src == nil:
		return nil
	case src.Projected != nil:
		tokens, _ := cluster.(projected.TokenSource)
		files, err = projected.Files(ctx, pod, src.Projected, cluster, tokens)
	case src.ConfigMap != nil:
		files, err = projected.ConfigMapFiles(ctx, cluster, pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional)
	case src.Secret != nil:
		files, err = projected.SecretFiles(ctx, cluster, pod.Namespace, src.Secret.SecretName, src.Secret.Items, src.Secret.Optional)
	}
	if err != nil {
		return nil // as a volume that could not be set up: nothing in it
	}
	return files
}

// abs makes a path absolute against the working directory.
func (sh *Shell) abs(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = path.Join(sh.cwd, p)
	}
	return path.Clean(p)
}

// cmdCat prints files, or its input when given none (or "-").
func cmdCat(_ context.Context, sh *Shell, args []string, std stdio) int {
	if len(args) == 1 {
		args = append(args, "-")
	}
	status := 0
	for _, name := range args[1:] {
		if name == "-" {
			copyInput(std)
			continue
		}
		p := sh.abs(name)
		content, ok := sh.fs.files[p]
		switch {
		case ok:
			fmt.Fprint(std.out, content)
		case sh.fs.dirs[p]:
			fmt.Fprintf(std.err, "cat: read error: Is a directory\n")
			status = 1
		default:
			fmt.Fprintf(std.err, "cat: can't open '%s': No such file or directory\n", name)
			status = 1
		}
	}
	return status
}

// copyInput copies standard input to standard output.
func copyInput(std stdio) {
	buf := make([]byte, 4096)
	for {
		n, err := std.in.Read(buf)
		std.out.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// cmdLs lists directories (one name a line, or on one line in a
// terminal, as busybox does). -l, -a and -1 are accepted; -l prints
// names only, since the simulated files have no owners or times.
func cmdLs(_ context.Context, sh *Shell, args []string, std stdio) int {
	var targets []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-" {
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		targets = []string{"."}
	}
	status := 0
	for i, t := range targets {
		p := sh.abs(t)
		if _, ok := sh.fs.files[p]; ok {
			fmt.Fprintln(std.out, t)
			continue
		}
		if !sh.fs.dirs[p] {
			fmt.Fprintf(std.err, "ls: %s: No such file or directory\n", t)
			status = 1
			continue
		}
		if len(targets) > 1 {
			if i > 0 {
				fmt.Fprintln(std.out)
			}
			fmt.Fprintf(std.out, "%s:\n", t)
		}
		names := sh.fs.entries(p)
		switch {
		case len(names) == 0:
		case sh.tty:
			fmt.Fprintln(std.out, strings.Join(names, "  "))
		default:
			fmt.Fprintln(std.out, strings.Join(names, "\n"))
		}
	}
	return status
}

// cmdCd changes the working directory (HOME when given none).
func cmdCd(_ context.Context, sh *Shell, args []string, std stdio) int {
	target := sh.vars["HOME"]
	if len(args) > 1 {
		target = args[1]
	}
	p := sh.abs(target)
	if !sh.fs.dirs[p] {
		reason := "No such file or directory"
		if _, ok := sh.fs.files[p]; ok {
			reason = "Not a directory"
		}
		fmt.Fprintf(std.err, "sh: cd: can't cd to %s: %s\n", target, reason)
		return 2
	}
	sh.cwd = p
	sh.setVar("PWD", p)
	return 0
}

// cmdPwd prints the working directory.
func cmdPwd(_ context.Context, sh *Shell, _ []string, std stdio) int {
	fmt.Fprintln(std.out, sh.cwd)
	return 0
}

// podIPs are the pod's IPs.
func (sh *Shell) podIPs() []string { return podfiles.PodIPs(sh.env.Pod) }
