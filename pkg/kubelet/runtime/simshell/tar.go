package simshell

// This file is tar, as much of it as `kubectl cp` needs and a little more.
// kubectl has no file-transfer protocol of its own: to copy a file in it
// execs `tar -xmf - -C DIR` (with --no-same-permissions --no-same-owner
// under --no-preserve) in the container and writes a tar stream to its
// stdin; to copy one out it execs `tar cf - PATH` and reads the stream from
// its stdout (k8s.io/kubectl/pkg/cmd/cp). This tar writes and reads
// POSIX ustar streams (PAX for a name too long for ustar) with Go's
// archive/tar; it also lists (t), reads and writes an archive file (-f
// FILE) and gzip (-z). The simulated files have no owners, modes or links,
// so the flags about them are accepted and change nothing, and a link in
// an archive is extracted as a copy (a hard link) or skipped (a symbolic
// one).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// tarOptions are a tar command line's flags and operands.
type tarOptions struct {
	// mode is 'c' (create), 'x' (extract) or 't' (list).
	mode byte
	// archive is -f's file, "-" (the default) for stdin or stdout.
	archive string
	// dir is -C's directory: where x extracts to and c reads names from.
	dir string
	// keepTimes is unset by -m (--touch): extracted files get the time of
	// extraction, not the archive's.
	verbose, gzip, keepTimes bool
	files                    []string
}

// tarUsage is busybox tar's usage line, shortened to what this tar reads.
const tarUsage = "Usage: tar c|x|t [-vzmo] [-f TARFILE] [-C DIR] [FILE]..."

// cmdTar is tar c|x|t [-v] [-z] [-m] [-o] [-f ARCHIVE] [-C DIR] [FILE]...
func cmdTar(_ context.Context, sh *Shell, args []string, std stdio) int {
	opts, err := parseTarArgs(args[1:])
	if err != nil {
		fmt.Fprintf(std.err, "tar: %v\n%s\n", err, tarUsage)
		return 1
	}
	base := sh.cwd
	if opts.dir != "" {
		base = sh.abs(opts.dir)
		if info, err := sh.fs.stat(base); err != nil || !info.dir {
			if err == nil {
				err = errNotDir
			}
			fmt.Fprintf(std.err, "tar: can't change directory to '%s': %v\n", opts.dir, err)
			return 1
		}
	}
	t := &tarRun{sh: sh, std: std, opts: opts, base: base, warned: map[string]bool{}}
	if opts.mode == 'c' {
		return t.create()
	}
	return t.extract()
}

// parseTarArgs reads tar's arguments: a first argument without a dash is
// a bundle of letters whose f and C take the next arguments in turn
// ("tar cf - /etc"); after a dash, f and C take the rest of their bundle
// or the next argument ("tar -xmf - -C /tmp").
func parseTarArgs(args []string) (tarOptions, error) {
	opts := tarOptions{archive: "-", keepTimes: true}
	var pending []byte // letters of a first bundle still waiting for their argument
	takeValue := func(i *int, rest string) (string, error) {
		if rest != "" {
			return rest, nil
		}
		if *i+1 >= len(args) {
			return "", errors.New("option requires an argument")
		}
		*i++
		return args[*i], nil
	}
	letter := func(c byte) (needsValue bool, err error) {
		switch c {
		case 'c', 'x', 't':
			if opts.mode != 0 && opts.mode != c {
				return false, errors.New("only one of c, x and t may be given")
			}
			opts.mode = c
		case 'v':
			opts.verbose = true
		case 'z':
			opts.gzip = true
		case 'm':
			opts.keepTimes = false
		case 'o', 'p':
		case 'f', 'C':
			return true, nil
		default:
			return false, fmt.Errorf("unrecognized option: %c", c)
		}
		return false, nil
	}
	setValue := func(c byte, v string) {
		if c == 'f' {
			opts.archive = v
		} else {
			opts.dir = v
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case i == 0 && a != "" && a[0] != '-':
			for j := 0; j < len(a); j++ {
				needs, err := letter(a[j])
				if err != nil {
					return opts, err
				}
				if needs {
					pending = append(pending, a[j])
				}
			}
		case len(pending) > 0:
			setValue(pending[0], a)
			pending = pending[1:]
		case strings.HasPrefix(a, "--"):
			if err := longTarOption(&opts, a); err != nil {
				return opts, err
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				needs, err := letter(a[j])
				if err != nil {
					return opts, err
				}
				if needs {
					v, err := takeValue(&i, a[j+1:])
					if err != nil {
						return opts, err
					}
					setValue(a[j], v)
					break
				}
			}
		default:
			opts.files = append(opts.files, a)
		}
	}
	switch {
	case len(pending) > 0:
		return opts, errors.New("option requires an argument")
	case opts.mode == 0:
		return opts, errors.New("need one of c, x and t")
	case opts.mode == 'c' && len(opts.files) == 0:
		return opts, errors.New("empty archive")
	}
	return opts, nil
}

// longTarOption applies one of the long options kubectl and students use.
func longTarOption(opts *tarOptions, a string) error {
	name, value, hasValue := strings.Cut(a, "=")
	switch {
	case name == "--no-same-permissions", name == "--no-same-owner", name == "--same-owner",
		name == "--same-permissions", name == "--preserve-permissions", name == "--overwrite":
	case name == "--touch":
		opts.keepTimes = false
	case name == "--verbose":
		opts.verbose = true
	case name == "--gzip":
		opts.gzip = true
	case name == "--create":
		opts.mode = 'c'
	case name == "--extract":
		opts.mode = 'x'
	case name == "--list":
		opts.mode = 't'
	case name == "--file" && hasValue:
		opts.archive = value
	case name == "--directory" && hasValue:
		opts.dir = value
	default:
		return fmt.Errorf("unrecognized option '%s'", a)
	}
	return nil
}

// tarRun is one tar command at work.
type tarRun struct {
	sh   *Shell
	std  stdio
	opts tarOptions
	// base is the directory names are relative to (-C, or the working
	// directory).
	base string
	// warned holds the prefixes tar has said it strips from member names,
	// each said once.
	warned map[string]bool
	status int
}

// stripWarning says once per prefix that tar removes it from member
// names, in busybox's words.
func (t *tarRun) stripWarning(prefix string) {
	if prefix != "" && !t.warned[prefix] {
		t.warned[prefix] = true
		fmt.Fprintf(t.std.err, "tar: removing leading '%s' from member names\n", prefix)
	}
}

// verboseOut is where -v lists names: standard error when the archive
// itself goes to standard output, as GNU and busybox tar do.
func (t *tarRun) verboseOut() io.Writer {
	if t.opts.mode == 'c' && t.opts.archive == "-" {
		return t.std.err
	}
	return t.std.out
}

// create writes an archive of the named files and directories.
func (t *tarRun) create() int {
	var out io.Writer = t.std.out
	var file *fileWriter
	if t.opts.archive != "-" {
		f, err := t.sh.fs.create(t.sh.abs(t.opts.archive), true)
		if err != nil {
			fmt.Fprintf(t.std.err, "tar: can't open '%s': %v\n", t.opts.archive, err)
			return 1
		}
		out, file = f, f
	}
	var gz *gzip.Writer
	if t.opts.gzip {
		gz = gzip.NewWriter(out)
		out = gz
	}
	tw := tar.NewWriter(out)
	for _, name := range t.opts.files {
		p := path.Join(t.base, name)
		if strings.HasPrefix(name, "/") {
			p = path.Clean(name)
		}
		member := strings.TrimLeft(path.Clean(name), "/")
		if member != path.Clean(name) {
			t.stripWarning("/")
		}
		if err := t.add(tw, p, name, member); err != nil {
			return t.writeFailed(err)
		}
	}
	if err := tw.Close(); err != nil {
		return t.writeFailed(err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return t.writeFailed(err)
		}
	}
	if file != nil && file.err != nil {
		return t.writeFailed(file.err)
	}
	return t.status
}

// writeFailed reports an archive that could not be written.
func (t *tarRun) writeFailed(err error) int {
	fmt.Fprintf(t.std.err, "tar: write error: %v\n", err)
	return 1
}

// add writes p, named name on the command line, as member (and what is
// under a directory after it). An error is one writing the archive; a
// file that cannot be read is reported and skipped.
func (t *tarRun) add(tw *tar.Writer, p, name, member string) error {
	info, err := t.sh.fs.stat(p)
	if err != nil {
		fmt.Fprintf(t.std.err, "tar: %s: %v\n", name, err)
		t.status = 1
		return nil
	}
	hdr := &tar.Header{Name: member, ModTime: info.modTime, Uname: "root", Gname: "root", Mode: 0o644, Typeflag: tar.TypeReg}
	if hdr.ModTime.IsZero() {
		hdr.ModTime = t.sh.env.Now()
	}
	var content []byte
	if info.dir {
		hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		hdr.Name = member + "/"
	} else if content, err = t.sh.fs.readFile(p); err != nil {
		fmt.Fprintf(t.std.err, "tar: %s: %v\n", name, err)
		t.status = 1
		return nil
	}
	hdr.Size = int64(len(content))
	if member != "" && member != "." { // the root itself has no entry, only what is in it
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(content); err != nil {
			return err
		}
		if t.opts.verbose {
			fmt.Fprintln(t.verboseOut(), hdr.Name)
		}
	}
	if !info.dir {
		return nil
	}
	names, _ := t.sh.fs.list(p)
	for _, child := range names {
		childMember := child
		if member != "" && member != "." {
			childMember = member + "/" + child
		}
		if err := t.add(tw, path.Join(p, child), path.Join(name, child), childMember); err != nil {
			return err
		}
	}
	return nil
}

// extract reads an archive and, in mode x, writes its members under
// base; in mode t it lists them. busybox stops at the first member it
// cannot write, and so does this tar.
func (t *tarRun) extract() int {
	in := t.std.in
	if t.opts.archive != "-" {
		data, err := t.sh.fs.readFile(t.sh.abs(t.opts.archive))
		if err != nil {
			fmt.Fprintf(t.std.err, "tar: can't open '%s': %v\n", t.opts.archive, err)
			return 1
		}
		in = bytes.NewReader(data)
	}
	if t.opts.gzip {
		gz, err := gzip.NewReader(in)
		if err != nil {
			fmt.Fprintln(t.std.err, "tar: invalid gzip magic")
			return 1
		}
		in = gz
	}
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return t.status
		}
		if err != nil {
			fmt.Fprintln(t.std.err, "tar: short read")
			return 1
		}
		name, prefix := memberPath(hdr.Name)
		t.stripWarning(prefix)
		if name == "" || !t.selected(name) {
			continue
		}
		if t.opts.mode == 't' {
			t.list(hdr)
			continue
		}
		if t.opts.verbose {
			fmt.Fprintln(t.std.out, hdr.Name)
		}
		if !t.extractMember(tr, hdr, name) {
			return 1
		}
	}
}

// memberPath is where a member goes, relative to the directory tar
// extracts to, and the prefix stripped to keep it there: leading slashes,
// and everything up to the last "..", as busybox strips them.
func memberPath(name string) (rel, stripped string) {
	rest := strings.TrimLeft(name, "/")
	parts := strings.Split(rest, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".." {
			rest = strings.Join(parts[i+1:], "/")
			break
		}
	}
	stripped = name[:len(name)-len(rest)]
	rel = path.Clean(rest)
	if rel == "." {
		rel = ""
	}
	return rel, stripped
}

// selected reports whether a member is one the command line names (or
// is under one), or no member is named.
func (t *tarRun) selected(name string) bool {
	if len(t.opts.files) == 0 {
		return true
	}
	for _, f := range t.opts.files {
		f = strings.Trim(path.Clean(f), "/")
		if name == f || strings.HasPrefix(name, f+"/") {
			return true
		}
	}
	return false
}

// list prints one member: its name, or with -v busybox's long line.
func (t *tarRun) list(hdr *tar.Header) {
	if !t.opts.verbose {
		fmt.Fprintln(t.std.out, hdr.Name)
		return
	}
	mode := "-rw-r--r--"
	if hdr.Typeflag == tar.TypeDir {
		mode = "drwxr-xr-x"
	}
	fmt.Fprintf(t.std.out, "%s %s/%s %9d %s %s\n", mode, hdr.Uname, hdr.Gname, hdr.Size, hdr.ModTime.UTC().Format("2006-01-02 15:04:05"), hdr.Name)
}

// extractMember writes one member under base and reports whether tar may
// go on.
func (t *tarRun) extractMember(tr *tar.Reader, hdr *tar.Header, name string) bool {
	target := path.Join(t.base, name)
	fail := func(format string, err error) bool {
		fmt.Fprintf(t.std.err, "tar: "+format+"\n", name, err)
		return false
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := t.sh.fs.mkdirAll(target); err != nil {
			return fail("can't create directory '%s': %v", err)
		}
	case tar.TypeReg, tar.TypeLink:
		if err := t.sh.fs.mkdirAll(path.Dir(target)); err != nil {
			return fail("can't create directory for '%s': %v", err)
		}
		var content io.Reader = tr
		if hdr.Typeflag == tar.TypeLink {
			linked, _ := memberPath(hdr.Linkname)
			data, err := t.sh.fs.readFile(path.Join(t.base, linked))
			if err != nil {
				return fail("can't create hard link '%s': %v", err)
			}
			content = bytes.NewReader(data)
		}
		w, err := t.sh.fs.create(target, true)
		if err != nil {
			return fail("can't open '%s': %v", err)
		}
		if _, err := io.Copy(w, content); err != nil {
			if w.err != nil {
				return fail("write error on '%s': %v", w.err)
			}
			fmt.Fprintln(t.std.err, "tar: short read")
			return false
		}
	case tar.TypeSymlink:
		fmt.Fprintf(t.std.err, "tar: %s: skipping symbolic link to '%s' (kplane's simulated file system has no links)\n", name, hdr.Linkname)
		return true
	default:
		fmt.Fprintf(t.std.err, "tar: %s: skipping a file of type '%c' (kplane's simulated file system has files and directories only)\n", name, hdr.Typeflag)
		return true
	}
	when := t.sh.env.Now()
	if t.opts.keepTimes {
		when = hdr.ModTime
	}
	t.sh.fs.setModTime(target, when)
	return true
}
