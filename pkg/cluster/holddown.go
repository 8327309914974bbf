package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kplane/pkg/fileutil"
)

// holdDownDir is the folder of the data dir where `ctl fault kill
// --down-for` asks the supervisor to keep a component down.
const holdDownDir = "hold"

func (l layout) holdDownFile(component string) string {
	return filepath.Join(l.dir, holdDownDir, component)
}

// HoldDown asks the supervisor of the cluster in dataDir not to restart
// component before until, when it next exits. `ctl fault kill --down-for`
// writes it before signalling, so a killed leader stays away and a lesson
// sees its standby take over alone.
func HoldDown(dataDir, component string, until time.Time) error {
	path := layout{dataDir}.holdDownFile(component)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("hold %s down: %w", component, err)
	}
	if err := fileutil.WriteAtomic(path, []byte(until.UTC().Format(time.RFC3339Nano)+"\n"), 0o600); err != nil {
		return fmt.Errorf("hold %s down: %w", component, err)
	}
	return nil
}

// ReleaseHoldDown removes a HoldDown for component, if there is one.
func ReleaseHoldDown(dataDir, component string) error {
	err := os.Remove(layout{dataDir}.holdDownFile(component))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("release the hold on %s: %w", component, err)
	}
	return nil
}

// heldDownUntil returns until when component is held down (zero time if
// it is not).
func (l layout) heldDownUntil(component string) time.Time {
	data, err := os.ReadFile(l.holdDownFile(component))
	if err != nil {
		return time.Time{}
	}
	until, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	if err != nil {
		return time.Time{}
	}
	return until
}
