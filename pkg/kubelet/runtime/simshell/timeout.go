package simshell

// This file is how long a client waits when its packets get no answer
// (a NetworkPolicy dropped them, policy.go): the kernel's and the
// resolver's own timeouts, unless the command's flag (-T, -m,
// --connect-timeout) is shorter.

import (
	"context"
	"time"
)

// Timeouts of clients whose packets are dropped.
const (
	// synTimeout is how long Linux tries to open a TCP connection whose
	// SYNs go unanswered: the first SYN and net.ipv4.tcp_syn_retries = 6
	// retransmissions, 1, 2, 4 … 32 s apart, then 64 s for the last
	// answer, 127 s in all; curl reports 129–134 s.
	synTimeout = 130 * time.Second
	// resolverTimeout is how long glibc's resolver waits for a nameserver
	// that never answers, with resolv.conf's defaults timeout:5 and
	// attempts:2 (the kubelet's resolv.conf sets only ndots:5). It gives
	// up on the first name of the search list that times out.
	resolverTimeout = 10 * time.Second
	// nslookupTimeout is busybox nslookup's wait for its server: 5 s,
	// resending the question within it.
	nslookupTimeout = 5 * time.Second
)

// waitDropped waits d on the shell's clock, as a client whose packets
// get no answer. It returns how long it waited (by Env.Now, at least d)
// and false when the session ended first.
func (sh *Shell) waitDropped(ctx context.Context, d time.Duration) (time.Duration, bool) {
	start := sh.env.Now()
	select {
	case <-sh.env.After(d):
	case <-ctx.Done():
		return sh.env.Now().Sub(start), false
	}
	return max(sh.env.Now().Sub(start), d), true
}

// clientTimeout is the shorter of a client's own limit (0: none) and the
// system's, and whether the client's limit is the one that ends the wait.
func clientTimeout(limit, system time.Duration) (time.Duration, bool) {
	if limit > 0 && limit < system {
		return limit, true
	}
	return system, false
}

// waitOutDropped waits d when err is a DNS query a NetworkPolicy dropped,
// as the resolver waits for an answer that never comes. It returns false
// only when the session ended during the wait.
func (sh *Shell) waitOutDropped(ctx context.Context, err error, d time.Duration) bool {
	if _, dropped := asDropped(err); !dropped {
		return true
	}
	_, ok := sh.waitDropped(ctx, d)
	return ok
}
