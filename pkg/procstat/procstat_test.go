package procstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	m, err := parseStatus([]byte("Name:\tkubelet\nVmRSS:\t   21836 kB\nRssAnon:\t    6216 kB\nRssFile:\t   15620 kB\nRssShmem:\t       0 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS != 21836<<10 || m.Anon != 6216<<10 || m.File != 15620<<10 || m.Shmem != 0 {
		t.Fatalf("got %+v", m)
	}
	if _, err := parseStatus([]byte("Name:\tkthreadd\n")); err == nil {
		t.Fatal("a status without VmRSS parsed")
	}
}

func TestParseStat(t *testing.T) {
	// utime 250 and stime 50 ticks, with a command name holding ") (".
	line := "42 (a) (b) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 1 1 1"
	d, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if d != 3*time.Second {
		t.Fatalf("got %v, want 3s", d)
	}
}

func TestReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS == 0 || m.RSS < m.Anon {
		t.Fatalf("implausible memory %+v", m)
	}
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMemory(-1); err == nil {
		t.Fatal("pid -1 read")
	}
}
