// Command lease-candidate is a test helper: one leader-election candidate in
// its own process, so end-to-end tests can kill it (SIGKILL, no release) or
// stop it cleanly (SIGTERM, releases the Lease) the way an operator would
// kill a kube-controller-manager.
//
// It prints one line per election event on stdout, each ending with the
// wall-clock time it happened (RFC 3339, nanoseconds) so a test can order
// events from several processes:
//
//	observed <holder> <time>   a new holder was seen on the Lease
//	leading <identity> <time>  this process started leading
//	stopped <identity> <time>  this process stopped leading (before any release)
//
// Logs go to stderr. It exits 0 after a signal and 1 if leadership was lost.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/leaderelection"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig of the apiserver (required)")
	namespace := flag.String("namespace", "kube-system", "namespace of the Lease")
	name := flag.String("name", "kube-controller-manager", "name of the Lease")
	identity := flag.String("identity", "", "holderIdentity to use (default <hostname>_<uuid>)")
	leaseDuration := flag.Duration("lease-duration", leaderelection.DefaultLeaseDuration, "how long a lease lasts without renewal")
	renewDeadline := flag.Duration("renew-deadline", leaderelection.DefaultRenewDeadline, "how long the leader retries renewing before it gives up")
	retryPeriod := flag.Duration("retry-period", leaderelection.DefaultRetryPeriod, "time between acquire and renew attempts")
	flag.Parse()
	if err := run(*kubeconfig, *namespace, *name, *identity, *leaseDuration, *renewDeadline, *retryPeriod); err != nil {
		fmt.Fprintln(os.Stderr, "lease-candidate:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, namespace, name, identity string, leaseDuration, renewDeadline, retryPeriod time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	cfg, err := client.ConfigFromKubeconfig(kubeconfig, "")
	if err != nil {
		return fmt.Errorf("read kubeconfig: %w", err)
	}
	cfg.UserAgent = "lease-candidate"
	c, err := client.New(cfg)
	if err != nil {
		return fmt.Errorf("build client: %w", err)
	}
	if identity == "" {
		identity = leaderelection.NewIdentity()
	}
	say := func(event, who string) {
		fmt.Printf("%s %s %s\n", event, who, time.Now().UTC().Format(time.RFC3339Nano))
	}
	le, err := leaderelection.New(leaderelection.Config{
		Leases: c.Leases(namespace), Namespace: namespace, Name: name, Identity: identity,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		ReleaseOnCancel: true,
		Logger:          slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				say("leading", identity)
				<-ctx.Done()
				say("stopped", identity)
			},
			OnNewLeader: func(holder string) { say("observed", holder) },
		},
	})
	if err != nil {
		return err
	}
	le.Run(ctx)
	if ctx.Err() == nil {
		return fmt.Errorf("lost leadership of %s/%s", namespace, name)
	}
	return nil
}
