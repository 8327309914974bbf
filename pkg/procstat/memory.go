package procstat

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident memory as /proc/<pid>/status reports it,
// in bytes. RSS = Anon + File + Shmem: Anon is what the process allocated
// itself (the Go heap, stacks, the runtime's own memory), File the pages of
// mapped files it touched (mostly its binary's code and read-only data,
// which processes of one binary share), Shmem shared memory.
type Memory struct {
	RSS, Anon, File, Shmem uint64
}

// MiB converts a byte count to mebibytes, for reports.
func MiB(bytes uint64) float64 { return float64(bytes) / (1 << 20) }

// ReadMemory reads pid's resident memory.
func ReadMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("reading the memory of pid %d: %w", pid, err)
	}
	return parseStatus(data)
}

// parseStatus reads the Rss* lines of a /proc/<pid>/status file.
func parseStatus(data []byte) (Memory, error) {
	var m Memory
	fields := map[string]*uint64{"VmRSS": &m.RSS, "RssAnon": &m.Anon, "RssFile": &m.File, "RssShmem": &m.Shmem}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		dst, wanted := fields[name]
		if !ok || !wanted {
			continue
		}
		kib, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("parsing %s in /proc status: %w", name, err)
		}
		*dst = kib << 10
		found++
	}
	if found == 0 {
		return Memory{}, fmt.Errorf("no VmRSS in /proc status (a kernel thread or an exited process?)")
	}
	return m, nil
}
