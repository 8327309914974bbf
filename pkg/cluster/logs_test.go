package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConsolePrefix(t *testing.T) {
	c := newConsole(nil, false, []string{"apiserver", "kubelet-node1"})
	if got, want := c.prefix("apiserver", 0), "[apiserver]     "; got != want {
		t.Errorf("prefix = %q, want %q (padded to the widest name)", got, want)
	}
	c.color = true
	if got, want := c.prefix("kubelet-node1", 1), "\x1b[33m[kubelet-node1]\x1b[0m "; got != want {
		t.Errorf("colour prefix = %q, want %q", got, want)
	}
}

func TestCopyLines(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name       string
		input      string
		wantStream string
	}{
		{"lines", "one\ntwo\n", "[c] one\n[c] two\n"},
		{"last line without newline", "one\ntwo", "[c] one\n[c] two\n"},
		{"carriage returns dropped on the console", "one\r\n", "[c] one\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.log")
			file, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			copyLines(strings.NewReader(tt.input), file, newConsole(&out, false, nil), "[c] ")
			file.Close()
			if out.String() != tt.wantStream {
				t.Errorf("console = %q, want %q", out.String(), tt.wantStream)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.input {
				t.Errorf("log file = %q, want the output unchanged %q", got, tt.input)
			}
		})
	}
	t.Run("a line longer than the buffer is kept whole in the file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.log")
		file, _ := os.Create(path)
		var out strings.Builder
		copyLines(strings.NewReader(long+"\nend\n"), file, newConsole(&out, false, nil), "")
		file.Close()
		if got, _ := os.ReadFile(path); string(got) != long+"\nend\n" {
			t.Errorf("log file has %d bytes, want %d", len(got), len(long)+5)
		}
		if strings.Count(out.String(), "x") != len(long) || !strings.HasSuffix(out.String(), "\nend\n") {
			t.Error("console lost part of a long line")
		}
	})
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o600)
	if got := tail(path, 2); got != "c\nd" {
		t.Errorf("tail = %q, want %q", got, "c\nd")
	}
	if got := tail(path+".missing", 2); got != "" {
		t.Errorf("tail of a missing file = %q", got)
	}
}
