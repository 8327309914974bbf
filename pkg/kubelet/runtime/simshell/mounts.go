package simshell

// This file is the container's file system as its commands see it: the
// container's writable layer at "/", and each volumeMount's tree over it
// at its mount path, the way a real runtime stacks the pod's volumes over
// the image. A path belongs to the mount with the longest mount path that
// holds it. What a mount refuses, and in which order, follows the Linux
// system calls busybox makes: a missing directory is ENOENT even on a
// read-only mount, an existing path there is EROFS, a mount point cannot
// be removed (EBUSY).

import (
	"path"
	"slices"
	"strings"
	"time"
)

// mount is one tree mounted in the container.
type mount struct {
	// at is the mount path, "/" for the container's layer.
	at   string
	tree *Tree
	// root is what of tree is mounted at at: "/" or a volumeMount's
	// subPath, which may be a file.
	root string
	// readOnly is set for volumes from the API (ConfigMap, Secret,
	// projected, downward API), which upstream's kubelet mounts read-only,
	// and for a volumeMount with readOnly: true.
	readOnly bool
}

// fileSystem is the container's view of its mounts. Paths given to its
// methods are absolute and clean (Shell.abs makes them so).
type fileSystem struct {
	// mounts are sorted by the length of their mount path, longest first,
	// so the first that holds a path is the one it belongs to; the last is
	// the layer at "/".
	mounts []mount
	now    func() time.Time
}

// resolve finds the mount p belongs to and p's path inside its tree.
func (fs *fileSystem) resolve(p string) (mount, string) {
	for _, m := range fs.mounts {
		if m.at == "/" || p == m.at || strings.HasPrefix(p, m.at+"/") {
			return m, path.Join(m.root, strings.TrimPrefix(p, m.at))
		}
	}
	panic("simshell: no mount at / for " + p) // newFileSystem always mounts the layer
}

// sortMounts puts the mounts in resolve's order.
func (fs *fileSystem) sortMounts() {
	slices.SortStableFunc(fs.mounts, func(a, b mount) int { return len(b.at) - len(a.at) })
}

// isMountPoint reports whether p is where a volume is mounted.
func (fs *fileSystem) isMountPoint(p string) bool {
	return p != "/" && slices.ContainsFunc(fs.mounts, func(m mount) bool { return m.at == p })
}

// ensureDir makes directory p and its parents in whatever trees they fall
// in, read-only or not, as the runtime does for mount points and the
// working directory before the container starts. Errors (a file in the
// way) are left for the commands to meet.
func (fs *fileSystem) ensureDir(p string) {
	dir := "/"
	for _, name := range splitPath(p) {
		dir = path.Join(dir, name)
		if _, err := fs.stat(dir); err == errNotExist {
			m, tp := fs.resolve(dir)
			_ = m.tree.mkdirAll(tp, fs.now())
		}
	}
}

// stat describes the file or directory at p.
func (fs *fileSystem) stat(p string) (fileInfo, error) {
	m, tp := fs.resolve(p)
	return m.tree.stat(tp)
}

// readFile returns a file's content; the slice must not be changed.
func (fs *fileSystem) readFile(p string) ([]byte, error) {
	m, tp := fs.resolve(p)
	return m.tree.readFile(tp)
}

// list returns a directory's names, the mount points in it among them,
// sorted.
func (fs *fileSystem) list(p string) ([]string, error) {
	m, tp := fs.resolve(p)
	names, err := m.tree.list(tp)
	if err != nil {
		return nil, err
	}
	for _, mp := range fs.mounts {
		if mp.at != "/" && path.Dir(mp.at) == p && !slices.Contains(names, path.Base(mp.at)) {
			names = append(names, path.Base(mp.at))
		}
	}
	slices.Sort(names)
	return names, nil
}

// readOnlyError is what writing p on a read-only mount meets: ENOENT (or
// ENOTDIR) when p's directory is missing, EROFS otherwise.
func readOnlyError(m mount, tp string) error {
	if tp == m.root {
		return errReadOnly
	}
	info, err := m.tree.stat(path.Dir(tp))
	switch {
	case err != nil:
		return err
	case !info.dir:
		return errNotDir
	}
	return errReadOnly
}

// create opens the file p for writing, creating it if missing; truncate
// empties an existing one (">" rather than ">>").
func (fs *fileSystem) create(p string, truncate bool) (*fileWriter, error) {
	m, tp := fs.resolve(p)
	if m.readOnly {
		if info, err := m.tree.stat(tp); err == nil && info.dir {
			return nil, errIsDir
		}
		return nil, readOnlyError(m, tp)
	}
	n, err := m.tree.open(tp, truncate, fs.now())
	if err != nil {
		return nil, err
	}
	return &fileWriter{tree: m.tree, node: n, now: fs.now}, nil
}

// writeFile replaces the file p's content with data.
func (fs *fileSystem) writeFile(p string, data []byte) error {
	w, err := fs.create(p, true)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// touch creates p as an empty file when missing, or sets its time to now.
func (fs *fileSystem) touch(p string) error {
	m, tp := fs.resolve(p)
	if m.readOnly {
		return readOnlyError(m, tp)
	}
	return m.tree.touch(tp, fs.now())
}

// setModTime sets p's time, as tar does for what it extracts.
func (fs *fileSystem) setModTime(p string, when time.Time) {
	m, tp := fs.resolve(p)
	if !m.readOnly {
		m.tree.setModTime(tp, when)
	}
}

// mkdir makes the directory p; its parent must exist.
func (fs *fileSystem) mkdir(p string) error {
	if _, err := fs.stat(p); err == nil {
		return errExist
	}
	m, tp := fs.resolve(p)
	if m.readOnly {
		return readOnlyError(m, tp)
	}
	return m.tree.mkdir(tp, fs.now())
}

// mkdirAll makes the directory p and its missing parents (mkdir -p).
func (fs *fileSystem) mkdirAll(p string) error {
	dir := "/"
	for _, name := range splitPath(p) {
		dir = path.Join(dir, name)
		info, err := fs.stat(dir)
		switch {
		case err == nil && info.dir:
			continue
		case err == nil:
			return errNotDir
		case err != errNotExist:
			return err
		}
		if err := fs.mkdir(dir); err != nil {
			return err
		}
	}
	return nil
}

// remove unlinks the file or empty directory p. A directory that holds a
// mount point is not empty, and a mount point itself is busy.
func (fs *fileSystem) remove(p string) error {
	info, err := fs.stat(p)
	switch {
	case err != nil:
		return err
	case fs.isMountPoint(p) || p == "/":
		return errBusy
	}
	if info.dir {
		if names, _ := fs.list(p); len(names) > 0 {
			return errNotEmpty
		}
	}
	m, tp := fs.resolve(p)
	if m.readOnly {
		return errReadOnly
	}
	return m.tree.remove(tp, fs.now())
}

// fileWriter appends to a file of a tree: what a redirection's target, an
// extracted file or a download is written through. It keeps the first
// error (ENOSPC), and writes nothing after it.
type fileWriter struct {
	tree *Tree
	node *node
	now  func() time.Time
	err  error
}

// Write appends b, or nothing when it does not fit in the pod's quota.
func (w *fileWriter) Write(b []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if err := w.tree.write(w.node, b, w.now()); err != nil {
		w.err = err
		return 0, err
	}
	return len(b), nil
}
