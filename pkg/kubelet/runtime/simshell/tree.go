package simshell

// This file is the in-memory directory tree behind every place a
// simulated container keeps files: its writable layer, its pod's emptyDir
// volumes, and (rebuilt for each session, read-only) the files of its
// ConfigMap, Secret and projected volumes. A Tree knows paths inside
// itself only; mounts.go puts trees together into the container's view.

import (
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// fsError is a file-system error, worded as the C library's strerror
// words it: busybox prints that text after the command's name and the
// path ("rm: can't remove 'x': No such file or directory").
type fsError string

// Error is strerror's text.
func (e fsError) Error() string { return string(e) }

// The errors of the simulated file system, each one an errno's text.
const (
	errNotExist fsError = "No such file or directory" // ENOENT
	errExist    fsError = "File exists"               // EEXIST
	errIsDir    fsError = "Is a directory"            // EISDIR
	errNotDir   fsError = "Not a directory"           // ENOTDIR
	errNotEmpty fsError = "Directory not empty"       // ENOTEMPTY
	errReadOnly fsError = "Read-only file system"     // EROFS
	errNoSpace  fsError = "No space left on device"   // ENOSPC
	errBusy     fsError = "Resource busy"             // EBUSY
)

// entryCost is what each file and directory costs in its pod's quota
// besides its content, about what its node takes in memory: without it a
// tar of a million empty files would cost nothing.
const entryCost = 256

// node is a file or a directory.
type node struct {
	dir bool
	// children are a directory's entries, by name.
	children map[string]*node
	// data is a file's content. It is only ever appended to or replaced,
	// never changed in place, so a slice of it handed to a reader stays
	// what it was.
	data    []byte
	modTime time.Time
	// removed is set once the node is unlinked: a writer that still holds
	// it writes nowhere (and is charged nothing).
	removed bool
}

// cost is what the node itself (not its children) costs in the quota.
func (n *node) cost() int64 { return entryCost + int64(len(n.data)) }

// fileInfo is what stat tells about a path.
type fileInfo struct {
	dir     bool
	size    int64
	modTime time.Time
}

// Tree is a directory tree in memory: a container's writable layer, a
// pod's writable volume, or a read-only volume's files. Every tree of one
// pod shares that pod's PodStorage, its lock and its byte quota. Paths are
// absolute and clean, relative to the tree's own root.
type Tree struct {
	storage *PodStorage
	root    *node
	// released is set once the tree's owner is gone (a container layer
	// after its container exited): its bytes went back to the quota and
	// it admits no new ones.
	released bool
	// seeded gives a container layer the image's files once (files.go),
	// so that a later session does not put back what a student removed.
	seeded sync.Once
}

// seedOnce runs seed the first time it is called on t.
func (t *Tree) seedOnce(seed func()) { t.seeded.Do(seed) }

// newTree returns an empty tree charged to storage.
func newTree(storage *PodStorage, now time.Time) *Tree {
	root := &node{dir: true, children: map[string]*node{}, modTime: now}
	return &Tree{storage: storage, root: root}
}

// staticTree is a read-only volume's tree for one session: files (path
// inside the volume → content), charged to a quota of its own, since it
// is not what the pod wrote.
func staticTree(files map[string]string, now time.Time) *Tree {
	t := newTree(newUnlimitedStorage(), now)
	for name, content := range files {
		t.put(path.Clean("/"+name), content, now)
	}
	return t
}

// Release gives the tree's bytes back to its pod's quota: the container
// whose writable layer it is has exited, and a container's writable layer
// goes with it. It is safe to call more than once.
func (t *Tree) Release() {
	s := t.storage
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.released {
		return
	}
	t.released = true
	s.used -= subtreeCost(t.root) - t.root.cost() // a root costs nothing
	t.root = &node{dir: true, children: map[string]*node{}}
}

// subtreeCost is what n and everything below it cost.
func subtreeCost(n *node) int64 {
	total := n.cost()
	for _, c := range n.children {
		total += subtreeCost(c)
	}
	return total
}

// charge takes n bytes from the quota (ENOSPC when they do not fit, or the
// tree is released); force takes them even past the limit (the image's own
// files, which a full volume must not keep out of a new container).
// The caller holds the storage's lock.
func (t *Tree) charge(n int64, force bool) error {
	s := t.storage
	if t.released || (!force && s.limit >= 0 && s.used+n > s.limit) {
		return errNoSpace
	}
	s.used += n
	return nil
}

// refund gives n bytes back to the quota (a released tree's bytes went
// back when it was released). The caller holds the storage's lock.
func (t *Tree) refund(n int64) {
	if !t.released {
		t.storage.used -= n
	}
}

// lookup finds the node at p. The caller holds the storage's lock.
func (t *Tree) lookup(p string) (*node, error) {
	n := t.root
	for _, name := range splitPath(p) {
		if !n.dir {
			return nil, errNotDir
		}
		child, ok := n.children[name]
		if !ok {
			return nil, errNotExist
		}
		n = child
	}
	return n, nil
}

// parent finds the directory p is in and p's last name. The caller holds
// the storage's lock.
func (t *Tree) parent(p string) (*node, string, error) {
	dir, err := t.lookup(path.Dir(p))
	if err != nil {
		return nil, "", err
	}
	if !dir.dir {
		return nil, "", errNotDir
	}
	return dir, path.Base(p), nil
}

// splitPath splits a clean absolute path into its names ("/" has none).
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// stat describes the node at p.
func (t *Tree) stat(p string) (fileInfo, error) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	n, err := t.lookup(p)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{dir: n.dir, size: int64(len(n.data)), modTime: n.modTime}, nil
}

// readFile returns a file's content (EISDIR for a directory). The slice
// is the file's own and must not be changed.
func (t *Tree) readFile(p string) ([]byte, error) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	n, err := t.lookup(p)
	switch {
	case err != nil:
		return nil, err
	case n.dir:
		return nil, errIsDir
	}
	return n.data[:len(n.data):len(n.data)], nil
}

// list returns a directory's names, sorted.
func (t *Tree) list(p string) ([]string, error) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	n, err := t.lookup(p)
	switch {
	case err != nil:
		return nil, err
	case !n.dir:
		return nil, errNotDir
	}
	names := make([]string, 0, len(n.children))
	for name := range n.children {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// mkdir makes the directory p, whose parent must exist (EEXIST when p
// does).
func (t *Tree) mkdir(p string, now time.Time) error {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	dir, name, err := t.parent(p)
	if err != nil {
		return err
	}
	if _, ok := dir.children[name]; ok || p == "/" {
		return errExist
	}
	if err := t.charge(entryCost, false); err != nil {
		return err
	}
	dir.children[name] = &node{dir: true, children: map[string]*node{}, modTime: now}
	dir.modTime = now
	return nil
}

// open returns the file at p for writing, creating it when missing; with
// truncate an existing file is emptied first (">" rather than ">>").
func (t *Tree) open(p string, truncate bool, now time.Time) (*node, error) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	dir, name, err := t.parent(p)
	if err != nil {
		return nil, err
	}
	if n, ok := dir.children[name]; ok {
		if n.dir {
			return nil, errIsDir
		}
		if truncate && len(n.data) > 0 {
			t.refund(int64(len(n.data)))
			n.data = nil // a new array: readers keep the old content
			n.modTime = now
		}
		return n, nil
	}
	if p == "/" {
		return nil, errIsDir
	}
	if err := t.charge(entryCost, false); err != nil {
		return nil, err
	}
	n := &node{modTime: now}
	dir.children[name] = n
	dir.modTime = now
	return n, nil
}

// write appends b to a file open returned, within the quota: on ENOSPC
// nothing of b is written. A file removed meanwhile takes the bytes
// nowhere.
func (t *Tree) write(n *node, b []byte, now time.Time) error {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	if n.removed || len(b) == 0 {
		return nil
	}
	if err := t.charge(int64(len(b)), false); err != nil {
		return err
	}
	n.data = append(n.data, b...)
	n.modTime = now
	return nil
}

// touch creates p as an empty file when missing, or sets its time.
func (t *Tree) touch(p string, now time.Time) error {
	n, err := t.open(p, false, now)
	if err == errIsDir {
		t.setModTime(p, now)
		return nil
	}
	if err != nil {
		return err
	}
	t.storage.mu.Lock()
	n.modTime = now
	t.storage.mu.Unlock()
	return nil
}

// setModTime sets the time of the node at p, if there is one.
func (t *Tree) setModTime(p string, when time.Time) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	if n, err := t.lookup(p); err == nil {
		n.modTime = when
	}
}

// remove unlinks a file or an empty directory (ENOTEMPTY for another; the
// tree's root is EBUSY, as a mount point is).
func (t *Tree) remove(p string, now time.Time) error {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	if p == "/" {
		return errBusy
	}
	dir, name, err := t.parent(p)
	if err != nil {
		return err
	}
	n, ok := dir.children[name]
	switch {
	case !ok:
		return errNotExist
	case n.dir && len(n.children) > 0:
		return errNotEmpty
	}
	delete(dir.children, name)
	dir.modTime = now
	n.removed = true
	t.refund(n.cost())
	return nil
}

// mkdirAll makes p and its missing parents (a file in the way is
// ENOTDIR).
func (t *Tree) mkdirAll(p string, now time.Time) error {
	dir := "/"
	for _, name := range splitPath(p) {
		dir = path.Join(dir, name)
		err := t.mkdir(dir, now)
		if err == errExist {
			info, statErr := t.stat(dir)
			if statErr != nil {
				return statErr
			}
			if !info.dir {
				return errNotDir
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// put writes a whole file, making its directories, past the quota if need
// be: the image's own files and a read-only volume's, which the pod did
// not write.
func (t *Tree) put(p, content string, now time.Time) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	dir := t.putDirs(path.Dir(p), now)
	if dir == nil {
		return
	}
	name := path.Base(p)
	if old, ok := dir.children[name]; ok {
		if old.dir {
			return
		}
		old.removed = true
		t.refund(old.cost())
	}
	n := &node{data: []byte(content), modTime: now}
	dir.children[name] = n
	_ = t.charge(n.cost(), true)
}

// putDir makes a directory and its parents as put does.
func (t *Tree) putDir(p string, now time.Time) {
	t.storage.mu.Lock()
	defer t.storage.mu.Unlock()
	t.putDirs(p, now)
}

// putDirs makes the directory p and its parents past the quota and
// returns it; nil when a file is in the way. The caller holds the
// storage's lock.
func (t *Tree) putDirs(p string, now time.Time) *node {
	dir := t.root
	for _, name := range splitPath(p) {
		child, ok := dir.children[name]
		if !ok {
			child = &node{dir: true, children: map[string]*node{}, modTime: now}
			dir.children[name] = child
			_ = t.charge(entryCost, true)
		}
		if !child.dir {
			return nil
		}
		dir = child
	}
	return dir
}
