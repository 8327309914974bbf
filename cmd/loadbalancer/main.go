// Command loadbalancer is kplane's built-in TCP load balancer in front of
// several apiservers, used by `ctl up --apiservers 2` when Debian's haproxy
// is not installed. See pkg/loadbalancer.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/loadbalancer"
)

func main() {
	opts := loadbalancer.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "loadbalancer",
		Short: "Balance TCP connections over healthy apiservers, round-robin",
		Long: `loadbalancer listens on --listen and proxies every TCP connection to the next
healthy --backend, round-robin. Backends are checked with an HTTPS GET of
--health-path (TCP connects when it is empty); a backend that fails --fall
checks in a row, or refuses a dial, is taken out and its connections are
closed so clients reconnect to another.

  loadbalancer --listen 127.0.0.1:6443 --backend 127.0.0.2:6443 --backend 127.0.0.3:6443`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "loadbalancer")
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			b, err := loadbalancer.Listen(opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "loadbalancer listening on %s for %v\n", b.Addr(), opts.Backends)
			return b.Serve(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "", "address clients connect to, host:port")
	f.StringArrayVar(&opts.Backends, "backend", nil, "a backend's host:port (repeatable), in round-robin order")
	f.StringVar(&opts.HealthPath, "health-path", opts.HealthPath, "HTTPS path every backend must answer 200 on; empty checks TCP connects only")
	f.DurationVar(&opts.Interval, "health-interval", opts.Interval, "time between two health checks of a backend")
	f.DurationVar(&opts.Timeout, "health-timeout", opts.Timeout, "how long one health check may take")
	f.IntVar(&opts.Rise, "rise", opts.Rise, "good checks in a row that bring a down backend back")
	f.IntVar(&opts.Fall, "fall", opts.Fall, "failed checks in a row that take a backend out")
	f.DurationVar(&opts.DialTimeout, "dial-timeout", opts.DialTimeout, "how long dialling a backend for a client may take")
	_ = cmd.MarkFlagRequired("listen")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
