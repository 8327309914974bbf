package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/etcd/server/v3/embed"
)

// MemberConfig describes one member of a multi-member etcd cluster: the
// same etcd server package the embedded etcd runs, but one member of a real
// raft cluster whose peers run in other processes (cmd/etcd). Its flags are
// named after etcd's own.
type MemberConfig struct {
	// Name is the member's name in the cluster ("etcd-1"); it must match
	// its entry in InitialCluster and never change for a data dir.
	Name string
	// DataDir holds the member's data (DataDir/etcd) and log (DataDir/etcd.log).
	DataDir string
	// ClientURL is where clients reach the member, such as
	// "http://127.0.0.1:23791". Unlike the embedded etcd's it is fixed
	// beforehand, because the apiservers are told every member's address.
	ClientURL string
	// PeerURL is where the other members reach this one.
	PeerURL string
	// InitialCluster names every member of the first start and its peer
	// URL: "etcd-1=http://127.0.0.1:23801,etcd-2=…". A restart on an
	// existing data dir ignores it: the member already knows its cluster.
	InitialCluster string
	// ClusterToken keeps members of different clusters from joining each
	// other by mistake (etcd's --initial-cluster-token).
	ClusterToken string
}

// memberTickMs and memberElectionMs are the raft heartbeat and election
// timeout of a member. etcd's defaults (100 ms, 1 s) suit members on
// different machines; on one machine's loopback a fifth of them still
// leaves a wide margin, and a killed leader is replaced in well under a
// second instead of one to two.
const (
	memberTickMs     = 50
	memberElectionMs = 500
)

// StartMember starts one member of a multi-member etcd cluster and returns
// once it serves requests, which needs a quorum: start the members side by
// side, not one after the other.
func StartMember(ctx context.Context, mc MemberConfig) (*Embedded, error) {
	cfg, err := memberConfig(mc)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(mc.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("start etcd member %s: %w", mc.Name, err)
	}
	return startEtcd(ctx, cfg)
}

// memberConfig turns mc into etcd's configuration.
func memberConfig(mc MemberConfig) (*embed.Config, error) {
	if mc.Name == "" || mc.DataDir == "" {
		return nil, fmt.Errorf("etcd member: a name and a data dir are required")
	}
	clientURL, err := url.Parse(mc.ClientURL)
	if err != nil || clientURL.Host == "" {
		return nil, fmt.Errorf("etcd member %s: client URL %q is not a URL", mc.Name, mc.ClientURL)
	}
	peerURL, err := url.Parse(mc.PeerURL)
	if err != nil || peerURL.Host == "" {
		return nil, fmt.Errorf("etcd member %s: peer URL %q is not a URL", mc.Name, mc.PeerURL)
	}
	if !strings.Contains(mc.InitialCluster, mc.Name+"=") {
		return nil, fmt.Errorf("etcd member %s: --initial-cluster %q does not name this member", mc.Name, mc.InitialCluster)
	}
	cfg := embed.NewConfig()
	cfg.Name = mc.Name
	cfg.Dir = filepath.Join(mc.DataDir, "etcd")
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = mc.InitialCluster
	cfg.InitialClusterToken = mc.ClusterToken
	cfg.ClusterState = embed.ClusterStateFlagNew
	cfg.EnableGRPCGateway = false
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{filepath.Join(mc.DataDir, "etcd.log")}
	cfg.MaxRequestBytes = uint(MaxRequestBytes)
	cfg.AutoCompactionRetention = "0" // the apiservers compact
	cfg.TickMs = memberTickMs
	cfg.ElectionMs = memberElectionMs
	return cfg, nil
}
