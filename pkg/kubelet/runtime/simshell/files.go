package simshell

// This file builds the simulated container's file system and holds the
// commands that read it (cat, ls, cd, pwd). The root is the container's
// writable layer (tree.go, storage.go), which holds a small Linux image's
// directories and the files the kubelet manages in every container
// (/etc/hosts, /etc/resolv.conf, /etc/hostname). Over it each volumeMount
// mounts its volume (mounts.go): a ConfigMap or Secret volume holds its
// keys as files, read from the API when the session starts, and a projected
// or downward API volume its sources' files (pkg/kubelet/projected), the
// ServiceAccount token among them when the cluster view issues tokens (the
// kubelet's token manager); those are read-only, as upstream mounts them.
// Any other volume (emptyDir; and a PVC or hostPath, which kplane backs
// with nothing longer-lived) is a writable tree of the pod's storage,
// shared by its containers and kept as long as the pod.

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/podfiles"
	"kplane/pkg/kubelet/projected"
)

// imageDirs are the directories every simulated image has.
var imageDirs = []string{"/bin", "/dev", "/etc", "/home", "/lib", "/proc", "/root", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/local", "/usr/local/bin", "/usr/sbin", "/sbin", "/var"}

// newFileSystem mounts sh's container: its layer (Env.Layer, or a fresh
// one that lasts the session) with the image's files the first time, and
// its volumes.
func newFileSystem(ctx context.Context, sh *Shell) *fileSystem {
	storage := sh.env.Storage
	if storage == nil {
		storage = NewPodStorage(DefaultStorageLimit)
	}
	layer := sh.env.Layer
	if layer == nil {
		layer = storage.NewLayer()
	}
	layer.seedOnce(func() { seedImage(layer, sh) })
	fs := &fileSystem{mounts: []mount{{at: "/", tree: layer, root: "/"}}, now: sh.env.Now}
	pod := sh.env.Pod
	for _, m := range sh.env.Container.VolumeMounts {
		tree, readOnly := mountedVolume(ctx, sh.env.Cluster, storage, pod, m.Name, sh.env.Now())
		root := "/"
		if m.SubPath != "" {
			// A subPath the volume lacks is made a directory, as
			// upstream's kubelet makes it before it mounts it.
			root = path.Clean("/" + m.SubPath)
			if _, err := tree.stat(root); err != nil {
				_ = tree.mkdirAll(root, sh.env.Now())
			}
		}
		fs.mounts = append(fs.mounts, mount{at: path.Clean("/" + m.MountPath), tree: tree, root: root, readOnly: readOnly || m.ReadOnly})
	}
	fs.sortMounts()
	for _, m := range fs.mounts {
		fs.ensureDir(path.Dir(m.at))
	}
	return fs
}

// seedImage gives a new container layer the image's directories, a file
// for each command in /bin, and /etc's files.
func seedImage(layer *Tree, sh *Shell) {
	now := sh.env.Now()
	for _, d := range imageDirs {
		layer.putDir(d, now)
	}
	for _, name := range commandNames() {
		layer.put("/bin/"+name, "", now)
	}
	pod := sh.env.Pod
	layer.put("/etc/hostname", podfiles.HostnameFile(pod, sh.env.ClusterDomain), now)
	layer.put("/etc/hosts", sh.hostsFile, now)
	layer.put("/etc/resolv.conf", sh.resolv.String(), now)
	layer.put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", now)
	layer.put("/etc/group", "root:x:0:\nnogroup:x:65534:\n", now)
}

// mountedVolume returns the tree of the pod's volume named volume and
// whether it is read-only: the files of a volume from the API, read now,
// or the pod's writable tree for any other kind.
func mountedVolume(ctx context.Context, cluster Cluster, storage *PodStorage, pod *api.Pod, volume string, now time.Time) (*Tree, bool) {
	var src *api.VolumeSource
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == volume {
			src = &pod.Spec.Volumes[i].VolumeSource
		}
	}
	switch {
	case src == nil:
		return staticTree(nil, now), true
	case src.ConfigMap != nil, src.Secret != nil, src.Projected != nil, src.DownwardAPI != nil:
		return staticTree(volumeFiles(ctx, cluster, pod, src), now), true
	}
	return storage.volume(volume, now), false
}

// volumeFiles returns the files of a volume from the API, keyed by their
// path inside the volume: a ConfigMap's or Secret's keys (or the items it
// selects), or a projected or downward API volume's files. A volume that
// could not be set up (an object that cannot be read, a selected key it
// does not hold, as upstream's kubelet refuses them) gives no files, and so
// does every volume without a cluster to read.
func volumeFiles(ctx context.Context, cluster Cluster, pod *api.Pod, src *api.VolumeSource) map[string]string {
	if cluster == nil {
		return nil
	}
	var files map[string]string
	var err error
	tokens, _ := cluster.(projected.TokenSource)
	switch {
	case src.Projected != nil:
		files, err = projected.Files(ctx, pod, src.Projected, cluster, tokens)
	case src.DownwardAPI != nil:
		source := api.VolumeProjection{DownwardAPI: &api.DownwardAPIProjection{Items: src.DownwardAPI.Items}}
		files, err = projected.Files(ctx, pod, &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{source}}, cluster, tokens)
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
		content, err := sh.fs.readFile(sh.abs(name))
		switch {
		case err == nil:
			std.out.Write(content)
		case err == errIsDir:
			fmt.Fprintf(std.err, "cat: read error: Is a directory\n")
			status = 1
		default:
			fmt.Fprintf(std.err, "cat: can't open '%s': %v\n", name, err)
			status = 1
		}
	}
	return status
}

// copyInput copies standard input to standard output.
func copyInput(std stdio) {
	buf := make([]byte, 32<<10)
	for {
		n, err := std.in.Read(buf)
		std.out.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// cmdLs lists directories (one name a line, or on one line in a
// terminal, as busybox does). -l gives busybox's long lines (every file
// is root's, with the usual modes); -a and -1 are accepted.
func cmdLs(_ context.Context, sh *Shell, args []string, std stdio) int {
	var targets []string
	long := false
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-" {
			targets = append(targets, a)
		} else if strings.Contains(a, "l") {
			long = true
		}
	}
	if len(targets) == 0 {
		targets = []string{"."}
	}
	status := 0
	for i, t := range targets {
		p := sh.abs(t)
		info, err := sh.fs.stat(p)
		if err != nil {
			fmt.Fprintf(std.err, "ls: %s: %v\n", t, err)
			status = 1
			continue
		}
		if !info.dir {
			sh.lsEntry(std, t, info, long)
			continue
		}
		if len(targets) > 1 {
			if i > 0 {
				fmt.Fprintln(std.out)
			}
			fmt.Fprintf(std.out, "%s:\n", t)
		}
		names, _ := sh.fs.list(p)
		switch {
		case len(names) == 0:
		case long:
			for _, name := range names {
				entry, _ := sh.fs.stat(path.Join(p, name))
				sh.lsEntry(std, name, entry, true)
			}
		case sh.tty:
			fmt.Fprintln(std.out, strings.Join(names, "  "))
		default:
			fmt.Fprintln(std.out, strings.Join(names, "\n"))
		}
	}
	return status
}

// lsEntry prints one name, in busybox's long format with long
// ("-rw-r--r--    1 root     root            12 Nov 27 14:44 name").
func (sh *Shell) lsEntry(std stdio, name string, info fileInfo, long bool) {
	if !long {
		fmt.Fprintln(std.out, name)
		return
	}
	mode, links := "-rw-r--r--", 1
	if info.dir {
		mode, links = "drwxr-xr-x", 2
	}
	when := info.modTime
	if when.IsZero() {
		when = sh.env.Now()
	}
	fmt.Fprintf(std.out, "%-10s %4d %-8s %-8s %9d %s %s\n", mode, links, "root", "root", info.size, when.UTC().Format("Jan _2 15:04"), name)
}

// cmdCd changes the working directory (HOME when given none).
func cmdCd(_ context.Context, sh *Shell, args []string, std stdio) int {
	target := sh.vars["HOME"]
	if len(args) > 1 {
		target = args[1]
	}
	p := sh.abs(target)
	info, err := sh.fs.stat(p)
	if err == nil && !info.dir {
		err = errNotDir
	}
	if err != nil {
		fmt.Fprintf(std.err, "sh: cd: can't cd to %s: %v\n", target, err)
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
