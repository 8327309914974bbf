package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"kplane/pkg/fileutil"
)

// StateFileName is the file in the data dir that records a running
// cluster's processes. It exists while a launcher runs the cluster and is
// removed when the cluster is stopped.
const StateFileName = "cluster.json"

// State is the content of cluster.json: enough for another process (`ctl
// down`, `ctl status`) to find, check and stop what the launcher started.
type State struct {
	// DataDir is the cluster's data dir, absolute.
	DataDir string `json:"dataDir"`
	// Server is the apiserver's URL once it is known.
	Server string `json:"server,omitempty"`
	// Supervisor is the launcher process: `ctl up` in the foreground, or
	// the background `ctl up --supervise` of a detached cluster. Stopping
	// it stops the cluster in order.
	Supervisor ProcessRecord `json:"supervisor"`
	// Components maps a component name (apiserver, scheduler,
	// kubelet-node1 …) to its current process.
	Components map[string]ProcessRecord `json:"components"`
	// ReadyAt is set once every node has been Ready.
	ReadyAt *time.Time `json:"readyAt,omitempty"`
}

// ProcessRecord identifies one process the launcher started.
type ProcessRecord struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	// Args is the full command line, binary first. A PID is trusted only
	// while /proc/<pid>/cmdline still shows exactly these arguments: PIDs
	// are reused, and signalling a stranger that inherited one would be
	// the worst thing `ctl down` could do.
	Args []string `json:"args"`
	// Restarts counts how often the supervisor has started it again.
	Restarts int `json:"restarts,omitempty"`
}

// Running reports whether the recorded process is still alive and still
// the one that was started (its command line matches).
func (r ProcessRecord) Running() bool {
	return r.PID > 0 && commandLineMatches(r.PID, r.Args)
}

// ErrNotRunning says that no cluster runs in a data dir.
var ErrNotRunning = errors.New("no cluster is running")

// ReadState reads DATA_DIR/cluster.json. Without one it returns an error
// that wraps ErrNotRunning.
func ReadState(dataDir string) (*State, error) {
	path := filepath.Join(dataDir, StateFileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNotRunning, dataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if s.Components == nil {
		s.Components = map[string]ProcessRecord{}
	}
	return &s, nil
}

// write replaces path with s atomically, so a concurrent ReadState never
// sees half a file.
func (s *State) write(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := fileutil.WriteAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// running returns the names of the recorded components still running.
func (s *State) running() []string {
	var names []string
	for name, rec := range s.Components {
		if rec.Running() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// commandLineMatches reports whether pid's command line is args. Linux
// shows a process's argv, NUL-separated, in /proc/<pid>/cmdline; a process
// that has exited (even a zombie not yet reaped) shows an empty one, so it
// never matches.
func commandLineMatches(pid int, args []string) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(data) == 0 || len(args) == 0 {
		return false
	}
	got := bytes.Split(bytes.TrimSuffix(data, []byte{0}), []byte{0})
	if len(got) != len(args) {
		return false
	}
	for i := range args {
		if string(got[i]) != args[i] {
			return false
		}
	}
	return true
}
