package runtime

// This file reads the sim.kplane.io/* annotations that tell the simulated
// runtime how a container behaves. The scheme, with examples, is documented
// in docs/kubelet.md; in short, every key may be written
//
//	sim.kplane.io/<key>.<container>: value   (one container)
//	sim.kplane.io/<key>: value               (every container of the pod)
//
// and the per-container form wins.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime/simshell"
	"kplane/pkg/kubelet/simload"
)

// SimAnnotationPrefix starts every annotation the simulated runtime reads;
// it is the load model's prefix, so both kinds of annotation look alike.
const SimAnnotationPrefix = simload.Prefix

// The annotation keys of the simulated runtime (after the prefix, before
// the optional ".<container>" suffix).
const (
	// SimRunSeconds is how long a run lasts before the container exits by
	// itself: a Go duration ("90s", "1m30s", "500ms"), a number of seconds
	// ("30", "0.5") or "forever".
	SimRunSeconds = "run-seconds"
	// SimExitCode is the exit code of a container that exits by itself.
	SimExitCode = "exit-code"
	// SimCrashAfter makes a run crash after this long, with exit-code (1
	// when none is given).
	SimCrashAfter = "crash-after"
	// SimOOMAfter makes a run be OOM-killed after this long (exit code 137,
	// reason OOMKilled).
	SimOOMAfter = "oom-after"
	// SimCrashCount limits crash-after and oom-after to the first N runs;
	// later runs behave normally, so a lesson can show a pod recovering.
	SimCrashCount = "crash-count"
	// SimStartDelay is how long each run stays in ContainerCreating before
	// it starts (a simulated image pull).
	SimStartDelay = "start-delay"
	// SimStopSeconds is how long a container takes to exit after SIGTERM.
	// Within the grace period it exits 0; otherwise it is killed at the end
	// of the grace period with exit code 137.
	SimStopSeconds = "stop-seconds"
	// SimReadiness, SimLiveness and SimStartup decide probe results:
	// "succeed", "fail", "fail-after:<duration>" or "succeed-after:<duration>",
	// the duration counted from the start of the run.
	SimReadiness = "readiness"
	SimLiveness  = "liveness"
	SimStartup   = "startup"
	// SimLogs is text the container prints when it starts (kubectl logs).
	SimLogs = "logs"
)

// Defaults of the simulated runtime.
const (
	// DefaultSimRunDuration is how long a container that runs to completion
	// (an init container, or any container of a pod whose restartPolicy is
	// Never or OnFailure) runs when no annotation says otherwise: long
	// enough to see it Running, short enough for Jobs to finish quickly.
	DefaultSimRunDuration = time.Second
)

// simAnnotation returns the value of key for container, preferring the
// per-container form.
func simAnnotation(pod *api.Pod, key, container string) (string, bool) {
	v, _, ok := simload.Annotation(pod.Annotations, SimAnnotationPrefix+key, container)
	return strings.TrimSpace(v), ok
}

// parseSimDuration reads a Go duration or a plain number of seconds.
func parseSimDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 {
			return 0, fmt.Errorf("negative duration %q", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a duration nor a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}

// simPlan is what the annotations say about one run of one container,
// fixed when the run starts.
type simPlan struct {
	// forever is a run that only ends when stopped; otherwise it exits by
	// itself after runFor with exitCode and reason.
	forever  bool
	runFor   time.Duration
	exitCode int
	reason   string
	// startDelay is spent in ContainerCreating before the run starts.
	startDelay time.Duration
	// stopAfter is how long the run takes to exit once asked to stop.
	stopAfter time.Duration
	// logs is printed when the run starts.
	logs string
	// runsCommand says the run is the container's command, run by the
	// simulated shell (simulated_command.go): it prints to the log and
	// exits with the command's status when the command ends.
	runsCommand bool
}

// simPlanFor reads the plan of run number attempt of container. Annotations
// that do not parse are ignored (the default applies) and reported in
// problems, so the kubelet can log them once.
func simPlanFor(pod *api.Pod, container *api.Container, attempt int) (plan simPlan, problems []string) {
	name := container.Name
	duration := func(key string) (time.Duration, bool) {
		v, ok := simAnnotation(pod, key, name)
		if !ok {
			return 0, false
		}
		d, err := parseSimDuration(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s%s: %v", SimAnnotationPrefix, key, err))
			return 0, false
		}
		return d, true
	}
	integer := func(key string) (int, bool) {
		v, ok := simAnnotation(pod, key, name)
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s%s: %q is not an integer", SimAnnotationPrefix, key, v))
			return 0, false
		}
		return n, true
	}

	plan.startDelay, _ = duration(SimStartDelay)
	plan.stopAfter, _ = duration(SimStopSeconds)
	plan.logs, _ = simAnnotation(pod, SimLogs, name)

	crashAfter, crashes := duration(SimCrashAfter)
	oomAfter, ooms := duration(SimOOMAfter)
	if limit, ok := integer(SimCrashCount); ok && attempt >= limit {
		crashes, ooms = false, false
	}
	exitCode, hasExitCode := integer(SimExitCode)

	switch {
	case ooms && (!crashes || oomAfter <= crashAfter):
		plan.runFor, plan.exitCode, plan.reason = oomAfter, 137, ReasonOOMKilled
		return plan, problems
	case crashes:
		if !hasExitCode || exitCode == 0 {
			exitCode = 1
		}
		plan.runFor, plan.exitCode, plan.reason = crashAfter, exitCode, ExitReason(exitCode)
		return plan, problems
	}

	plan.exitCode, plan.reason = exitCode, ExitReason(exitCode)
	if v, ok := simAnnotation(pod, SimRunSeconds, name); ok && (v == "forever" || v == "inf") {
		plan.forever = true
	} else if d, ok := duration(SimRunSeconds); ok {
		plan.runFor = d
	} else if d, forever, ok := simshell.SleepRun(simshell.CommandLine(container)); ok {
		// `sleep 3600` lasts an hour, whatever the restartPolicy.
		plan.runFor, plan.forever = d, forever
	} else if !hasExitCode && simshell.RunsAsMainProcess(simshell.CommandLine(container)) {
		// `echo hello`, `nslookup kubernetes.default`: the shell runs it.
		plan.runsCommand = true
	} else if runsToCompletion(pod, container) && !isInteractiveShell(container) {
		plan.runFor = DefaultSimRunDuration
	} else {
		plan.forever = true
	}
	return plan, problems
}

// runsToCompletion reports whether a container is expected to exit by
// itself: an ordinary init container, or a container of a pod whose
// restartPolicy is not Always. Everything else (a web server, a sidecar)
// runs until it is stopped.
func runsToCompletion(pod *api.Pod, container *api.Container) bool {
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.Name == container.Name {
			return c.RestartPolicy == nil || *c.RestartPolicy != api.ContainerRestartPolicyAlways
		}
	}
	return pod.Spec.RestartPolicy == api.RestartPolicyNever || pod.Spec.RestartPolicy == api.RestartPolicyOnFailure
}

// simProbeResult decides a probe from its annotation value and the age of
// the run. Without an annotation (or with one that does not parse) the
// probe passes.
func simProbeResult(value string, age time.Duration) bool {
	verb, arg, _ := strings.Cut(value, ":")
	switch strings.TrimSpace(verb) {
	case "fail":
		return false
	case "fail-after":
		d, err := parseSimDuration(strings.TrimSpace(arg))
		return err != nil || age < d
	case "succeed-after":
		d, err := parseSimDuration(strings.TrimSpace(arg))
		return err != nil || age >= d
	default:
		return true
	}
}
