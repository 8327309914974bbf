package simshell

import "path"

// RunsAsMainProcess reports whether the simulated runtime can run argv, a
// container's command line, as the container's own process with this
// shell: one of its commands (`echo hello`, `nslookup kubernetes.default`,
// `date`), or `sh -c SCRIPT` whose every command is one of them. Such a
// container prints what the command prints, to its log, and exits with
// the command's status right after, as a real one would; so `kubectl run
// -i --rm t --image=busybox --restart=Never -- echo hello` prints hello
// and `kubectl logs` shows it.
//
// It is false for an interactive shell (`sh` without -c), for anything the
// shell does not know (`nginx`, `perl …`: those stay timers), and for a
// command line that sleeps, whose length the runtime plays out on the
// cluster's clock instead (SleepRun).
func RunsAsMainProcess(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if !isShell(argv[0]) {
		_, known := lookupCommand(argv[0])
		return known && knownNonSleeping(path.Base(argv[0]))
	}
	if len(argv) != 3 || argv[1] != "-c" {
		return false
	}
	chains, err := parse(argv[2])
	if err != nil || len(chains) == 0 {
		return false
	}
	for _, chain := range chains {
		for _, p := range chain.pipelines {
			for _, cmd := range p {
				if !literalKnownCommand(cmd) {
					return false
				}
			}
		}
	}
	return true
}

// literalKnownCommand reports whether cmd's name is written out (no $VAR
// or $(…) to expand) and names a known command that does not sleep.
func literalKnownCommand(cmd simpleCommand) bool {
	if len(cmd.words) == 0 {
		return false
	}
	name := ""
	for _, seg := range cmd.words[0] {
		if seg.param || seg.command {
			return false
		}
		name += seg.text
	}
	if _, ok := lookupCommand(name); !ok {
		return false
	}
	return knownNonSleeping(path.Base(name))
}

// knownNonSleeping reports whether name is a shell command other than
// sleep (and other than sh itself).
func knownNonSleeping(name string) bool {
	if name == "sleep" {
		return false
	}
	_, ok := commands[name]
	return ok
}
