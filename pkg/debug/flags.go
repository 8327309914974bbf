package debug

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"kplane/pkg/clock"
)

// Flags are the debug API's command-line flags, the same on every
// component: how many records the journal keeps, where to announce the
// API, and the component's name in the cluster.
type Flags struct {
	// RingSize is --debug-ring-size: records kept; 0 turns the journal
	// off (the default for a binary run by hand; `ctl up` turns it on).
	RingSize int
	// EndpointFile is --debug-endpoint-file: where the component writes
	// its Endpoint once it listens ("" writes none).
	EndpointFile string
	// Component is --debug-component-name: the name records and the
	// endpoint carry ("scheduler", "controller-manager-2").
	Component string
}

// AddFlags binds f to fs; component is the name's default.
func (f *Flags) AddFlags(fs *pflag.FlagSet, component string) {
	f.Component = component
	fs.IntVar(&f.RingSize, "debug-ring-size", 0,
		fmt.Sprintf("records the debug journal keeps (ctl up uses %d); 0 turns the journal off", DefaultRingSize))
	fs.StringVar(&f.EndpointFile, "debug-endpoint-file", "",
		"file to write this component's debug API address to once it listens (ctl finds it there)")
	fs.StringVar(&f.Component, "debug-component-name", component,
		"this component's name in debug records and its endpoint file")
}

// NewJournal returns the journal the flags ask for, timed by clk, or nil
// (recording nothing) when --debug-ring-size is 0.
func (f *Flags) NewJournal(clk clock.Clock) *Journal {
	if f.RingSize <= 0 {
		return nil
	}
	return NewJournal(f.Component, f.RingSize, clk)
}

// Setup is what every component's main does with these flags before Run:
// the clock to run on — a new clock.Virtual with virtualClock (the
// component's --virtual-clock), nil otherwise, for the component to pick
// the wall clock — and the journal the flags ask for, timed by that same
// clock so that records carry the component's time.
func (f *Flags) Setup(virtualClock bool) (clock.Clock, *Journal) {
	var clk clock.Clock
	if virtualClock {
		clk = clock.NewVirtual(0)
	}
	return clk, f.NewJournal(clk)
}

// Announce writes the Endpoint of the calling process — component, the
// API's base url and its leader-election identity (may be empty) — to
// path; an empty path announces nothing. A restarted component overwrites
// its previous file.
func Announce(path, component, url, identity string) error {
	if path == "" {
		return nil
	}
	if component == "" {
		return fmt.Errorf("announce debug endpoint in %s: no component name", path)
	}
	return WriteEndpoint(path, Endpoint{Component: component, URL: url, PID: os.Getpid(), Identity: identity})
}
