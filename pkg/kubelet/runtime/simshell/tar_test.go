package simshell

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// member is one entry of a tar stream: a directory when its name ends in "/".
type member struct {
	name, content string
}

// tarStream writes members as kubectl's makeTar does (names relative to
// the -C directory, file modes and times from the local file).
func tarStream(t *testing.T, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		hdr := &tar.Header{Name: m.name, Mode: 0o600, Size: int64(len(m.content)), Typeflag: tar.TypeReg, ModTime: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)}
		if strings.HasSuffix(m.name, "/") {
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, m.content); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readTar reads a tar stream's members, failing the test on a malformed one.
func readTar(t *testing.T, stream string) []member {
	t.Helper()
	var members []member
	tr := tar.NewReader(strings.NewReader(stream))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return members
		}
		if err != nil {
			t.Fatalf("tar stream: %v", err)
		}
		b, _ := io.ReadAll(tr)
		members = append(members, member{hdr.Name, string(b)})
	}
}

// session runs commands in one container (one layer) of volumeEnv's pod.
type session struct {
	t   *testing.T
	env Env
}

func newSession(t *testing.T) *session {
	storage := NewPodStorage(DefaultStorageLimit)
	env := volumeEnv(storage)
	env.Layer = storage.NewLayer()
	return &session{t: t, env: env}
}

func (s *session) run(stdin string, argv ...string) result {
	s.t.Helper()
	return run(s.t, s.env, stdin, argv...)
}

// binary is content with every byte value, to show a round trip changes none.
func binary() string {
	var b strings.Builder
	for i := range 3000 {
		b.WriteByte(byte(i * 7))
	}
	return b.String()
}

// TestKubectlCpIntoPod: what kubectl cp runs to copy a file and a
// directory into a container (test -d, then tar -xmf - -C DIR with the
// stream on stdin) leaves the same bytes there.
func TestKubectlCpIntoPod(t *testing.T) {
	s := newSession(t)
	if r := s.run("", "test", "-d", "/tmp/x"); r.code != 1 {
		t.Fatalf("test -d of a missing path: %+v", r)
	}
	if r := s.run("", "test", "-d", "/tmp"); r.code != 0 {
		t.Fatalf("test -d /tmp: %+v", r)
	}
	content := binary()
	stream := tarStream(t, member{"x", content})
	r := s.run(string(stream), "tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/tmp")
	if r.code != 0 || r.stderr != "" || r.err != nil {
		t.Fatalf("tar -xmf: %+v", r)
	}
	if r := s.run("", "cat", "/tmp/x"); r.stdout != content {
		t.Errorf("cat /tmp/x gave %d bytes, not the %d copied in", len(r.stdout), len(content))
	}

	// A directory, into an emptyDir; without --no-preserve kubectl runs plain tar -xmf.
	stream = tarStream(t, member{"site/", ""}, member{"site/index.html", "<h1>hi</h1>\n"}, member{"site/css/main.css", "body{}\n"}, member{"site/empty/", ""})
	if r := s.run(string(stream), "tar", "-xmf", "-", "-C", "/data"); r.code != 0 || r.stderr != "" {
		t.Fatalf("tar -xmf a directory: %+v", r)
	}
	r = script(t, s.env, "ls /data/site; cat /data/site/css/main.css /data/site/index.html")
	if want := "css\nempty\nindex.html\nbody{}\n<h1>hi</h1>\n"; r.stdout != want {
		t.Errorf("after extracting: stdout %q stderr %q, want %q", r.stdout, r.stderr, want)
	}

	// -m gives the time of extraction; without it the archive's time stays.
	if r := script(t, s.env, "ls -l /tmp/x"); !strings.Contains(r.stdout, "Nov 27 14:44") {
		t.Errorf("tar -m kept the archive's time: %q", r.stdout)
	}
	if r := s.run(string(tarStream(t, member{"old", "o"})), "tar", "xf", "-", "-C", "/tmp"); r.code != 0 {
		t.Fatalf("tar xf: %+v", r)
	}
	if r := script(t, s.env, "ls -l /tmp/old"); !strings.Contains(r.stdout, "Jan  2 03:04") {
		t.Errorf("tar without -m did not keep the archive's time: %q", r.stdout)
	}
}

// TestKubectlCpOutOfPod: tar cf - PATH, what kubectl cp runs to copy out,
// writes a stream whose members are the files' bytes under their path
// without the leading slash, and says (on stderr, as busybox does) that
// it removed it.
func TestKubectlCpOutOfPod(t *testing.T) {
	s := newSession(t)
	content := binary()
	if r := s.run(string(tarStream(t, member{"blob", content})), "tar", "-xmf", "-", "-C", "/data"); r.code != 0 {
		t.Fatalf("copy in: %+v", r)
	}
	script(t, s.env, "mkdir -p /data/d/sub; echo a > /data/d/a; echo b > /data/d/sub/b")

	r := s.run("", "tar", "cf", "-", "/etc/hostname")
	if r.code != 0 || r.stderr != "tar: removing leading '/' from member names\n" {
		t.Fatalf("tar cf - /etc/hostname: code %d stderr %q", r.code, r.stderr)
	}
	if got := readTar(t, r.stdout); len(got) != 1 || got[0] != (member{"etc/hostname", "nginx-ss-0\n"}) {
		t.Errorf("members %q", got)
	}

	r = s.run("", "tar", "cf", "-", "/data/blob")
	if got := readTar(t, r.stdout); len(got) != 1 || got[0].name != "data/blob" || got[0].content != content {
		t.Errorf("the copied-in file did not come back byte for byte: %d members", len(got))
	}

	r = s.run("", "tar", "cf", "-", "/data/d")
	want := []member{{"data/d/", ""}, {"data/d/a", "a\n"}, {"data/d/sub/", ""}, {"data/d/sub/b", "b\n"}}
	if got := readTar(t, r.stdout); !equalMembers(got, want) {
		t.Errorf("tar of a directory: %q, want %q", got, want)
	}

	// A relative name keeps its form, relative to -C.
	r = s.run("", "tar", "-c", "-f", "-", "-C", "/data", "d/a")
	if got := readTar(t, r.stdout); !equalMembers(got, []member{{"d/a", "a\n"}}) || r.stderr != "" {
		t.Errorf("tar -C /data d/a: %q, stderr %q", got, r.stderr)
	}

	r = s.run("", "tar", "cf", "-", "/nope", "/data/d/a")
	if r.code != 1 || !strings.Contains(r.stderr, "tar: /nope: No such file or directory\n") {
		t.Errorf("a missing file: code %d stderr %q", r.code, r.stderr)
	}
	if got := readTar(t, r.stdout); !equalMembers(got, []member{{"data/d/a", "a\n"}}) {
		t.Errorf("the files that exist should still be archived: %q", got)
	}
}

func equalMembers(a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTarRoundTrips: an archive tar writes, to stdout or a file, plain or
// gzipped, extracts to the same files, and tar t lists it.
func TestTarRoundTrips(t *testing.T) {
	s := newSession(t)
	script(t, s.env, "mkdir -p /tmp/src/deep/er; echo 1 > /tmp/src/one; echo 2 > /tmp/src/deep/er/two; touch /tmp/src/deep/empty")
	for _, flags := range []string{"cf", "czf"} {
		r := s.run("", "tar", flags, "-", "-C", "/tmp", "src")
		x := s.run(r.stdout, "tar", strings.Replace(flags, "c", "x", 1), "-", "-C", "/data")
		if r.code != 0 || x.code != 0 {
			t.Fatalf("tar %s: %+v then %+v", flags, r, x)
		}
	}
	r := script(t, s.env, "cat /data/src/one /data/src/deep/er/two; ls /data/src/deep; tar cf /tmp/a.tar /tmp/src && mkdir /data/f && tar xf /tmp/a.tar -C /data/f && cat /data/f/tmp/src/one && tar tf /tmp/a.tar")
	want := "1\n2\nempty\ner\n1\ntmp/src/\ntmp/src/deep/\ntmp/src/deep/empty\ntmp/src/deep/er/\ntmp/src/deep/er/two\ntmp/src/one\n"
	if r.stdout != want {
		t.Errorf("stdout %q stderr %q, want %q", r.stdout, r.stderr, want)
	}

	// Named members only.
	r = s.run("", "tar", "cf", "-", "-C", "/tmp", "src")
	if x := s.run(r.stdout, "tar", "-xvf", "-", "-C", "/root", "src/deep"); x.stdout != "src/deep/\nsrc/deep/empty\nsrc/deep/er/\nsrc/deep/er/two\n" {
		t.Errorf("tar x of one directory: %+v", x)
	}
}

// TestTarRefusals: names that would leave the directory are cut back as
// busybox cuts them; a read-only volume, a full pod and links are
// refused in tar's words.
func TestTarRefusals(t *testing.T) {
	s := newSession(t)
	r := s.run(string(tarStream(t, member{"../../etc/evil", "e"}, member{"/abs", "a"})), "tar", "xf", "-", "-C", "/tmp")
	if r.code != 0 || r.stderr != "tar: removing leading '../../' from member names\ntar: removing leading '/' from member names\n" {
		t.Errorf("unsafe names: %+v", r)
	}
	if r := script(t, s.env, "cat /tmp/etc/evil /tmp/abs"); r.stdout != "ea" {
		t.Errorf("the members should land under -C: %+v", r)
	}

	if r := s.run(string(tarStream(t, member{"x", "x"})), "tar", "xf", "-", "-C", "/etc/config"); r.code != 1 || r.stderr != "tar: can't open 'x': Read-only file system\n" {
		t.Errorf("into a ConfigMap volume: %+v", r)
	}
	if r := s.run("", "tar", "xf", "-", "-C", "/nope"); r.code != 1 || r.stderr != "tar: can't change directory to '/nope': No such file or directory\n" {
		t.Errorf("-C a missing directory: %+v", r)
	}
	if r := s.run("not a tar stream, long enough to be read as a header block "+strings.Repeat(".", 600), "tar", "xf", "-"); r.code != 1 {
		t.Errorf("garbage: %+v", r)
	}
	if r := s.run("", "tar", "cf", "-"); r.code != 1 || !strings.HasPrefix(r.stderr, "tar: empty archive\n") {
		t.Errorf("nothing to archive: %+v", r)
	}

	// A symbolic link is skipped with a word; the rest is extracted.
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "x"})
	tw.WriteHeader(&tar.Header{Name: "after", Typeflag: tar.TypeReg, Size: 1})
	tw.Write([]byte("!"))
	tw.Close()
	r = s.run(buf.String(), "tar", "xf", "-", "-C", "/tmp")
	if r.code != 0 || !strings.Contains(r.stderr, "link: skipping symbolic link") {
		t.Errorf("a symlink: %+v", r)
	}

	// Past the pod's quota.
	storage := NewPodStorage(64 << 10)
	env := volumeEnv(storage)
	env.Layer = NewPodStorage(-1).NewLayer()
	r = run(t, env, string(tarStream(t, member{"big", strings.Repeat("b", 100<<10)})), "tar", "xf", "-", "-C", "/data")
	if r.code != 1 || r.stderr != "tar: write error on 'big': No space left on device\n" {
		t.Errorf("past the quota: %+v", r)
	}
	if storage.Used() > 64<<10 {
		t.Errorf("the pod holds %d bytes, over its quota", storage.Used())
	}
}

// TestTarOverStreamingStdin: tar reads its stream as it comes, as it does
// when kubectl pipes a file in (the stream here arrives in small pieces).
func TestTarOverStreamingStdin(t *testing.T) {
	s := newSession(t)
	stream := tarStream(t, member{"slow", binary()})
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < len(stream); i += 100 {
			pw.Write(stream[i:min(i+100, len(stream))])
		}
		pw.Close()
	}()
	var out, errOut bytes.Buffer
	sh := New(context.Background(), s.env)
	code, err := sh.Run(context.Background(), []string{"tar", "-xmf", "-", "-C", "/tmp"}, Streams{Stdin: pr, Stdout: &out, Stderr: &errOut})
	if code != 0 || err != nil || errOut.Len() > 0 {
		t.Fatalf("code %d err %v stderr %q", code, err, errOut.String())
	}
	if r := s.run("", "cat", "/tmp/slow"); r.stdout != binary() {
		t.Error("the piped file did not arrive whole")
	}
}
