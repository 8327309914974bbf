// Command etcd runs one member of a multi-member etcd cluster: the same etcd
// server package the apiserver embeds, in its own process, so that
// `ctl up --etcd-members 3` runs a real raft cluster whose members can be
// killed and restarted one at a time. Its flags are named after etcd's own.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/store"
)

func main() {
	var mc store.MemberConfig
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Run one member of a multi-member etcd cluster",
		Long: `etcd runs one member of an etcd cluster on loopback. Start every member named in
--initial-cluster side by side: a member serves once a quorum has formed.

  etcd --name etcd-1 --data-dir d1 --listen-client-urls http://127.0.0.1:23791 \
       --listen-peer-urls http://127.0.0.1:23801 \
       --initial-cluster etcd-1=http://127.0.0.1:23801,etcd-2=http://127.0.0.1:23802,etcd-3=http://127.0.0.1:23803`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			member, err := store.StartMember(ctx, mc)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "etcd member %s serving clients on %s\n", mc.Name, member.ClientURL())
			select {
			case <-ctx.Done():
			case err := <-member.Err():
				_ = member.Close()
				return fmt.Errorf("etcd member %s stopped: %w", mc.Name, err)
			}
			return member.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&mc.Name, "name", "", "this member's name, as --initial-cluster lists it")
	f.StringVar(&mc.DataDir, "data-dir", "", "directory for the member's data and its log (etcd.log)")
	f.StringVar(&mc.ClientURL, "listen-client-urls", "", "URL clients reach this member on (loopback), such as http://127.0.0.1:23791")
	f.StringVar(&mc.PeerURL, "listen-peer-urls", "", "URL the other members reach this one on (loopback)")
	f.StringVar(&mc.InitialCluster, "initial-cluster", "", "every member's name=peer URL, comma-separated")
	f.StringVar(&mc.ClusterToken, "initial-cluster-token", "kplane-etcd", "a name only this cluster's members share")
	for _, name := range []string{"name", "data-dir", "listen-client-urls", "listen-peer-urls", "initial-cluster"} {
		_ = cmd.MarkFlagRequired(name)
	}
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
