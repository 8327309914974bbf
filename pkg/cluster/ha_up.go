package cluster

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/client"
)

// startHAFront starts what stands before the first apiserver in the HA
// layout: every etcd member at once, waiting until each reports healthy
// (which needs a quorum), then the load balancer. Without the HA layout it
// does nothing.
func (c *Cluster) startHAFront(ctx context.Context, deadline time.Time) error {
	if c.opts.ha == nil {
		return nil
	}
	var members []*process
	for _, p := range c.procs {
		if p.role == roleEtcd {
			if _, err := c.startProcess(p); err != nil {
				return err
			}
			members = append(members, p)
		}
	}
	for i, p := range members {
		if err := c.waitForEtcdMember(ctx, p, c.opts.ha.EtcdMembers[i], deadline); err != nil {
			return err
		}
	}
	for _, p := range c.procs {
		if p.role == roleLoadBalancer {
			if _, err := c.startProcess(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitForEtcdMember polls the member's /health (served on its client URL,
// true once the member has a leader) until it passes.
func (c *Cluster) waitForEtcdMember(ctx context.Context, p *process, m etcdMember, deadline time.Time) error {
	hc := &http.Client{Timeout: time.Second}
	r, _ := p.latest()
	for {
		if r.exited() {
			return c.exitedDuringStartup(p, r)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.ClientURL()+"/health", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			var body [256]byte
			n, _ := resp.Body.Read(body[:])
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body[:n]), `"true"`) {
				return nil
			}
		}
		if err := sleepUntil(ctx, deadline, 20*time.Millisecond); err != nil {
			return fmt.Errorf("waiting for etcd member %s to be healthy: %w (see %s)", m.Name, err, c.layout.logFile(p.name))
		}
	}
}

// startOtherAPIServers starts the HA layout's apiservers after the first,
// one by one, each checked ready on its own address (not through the
// balancer, which would answer from the first).
func (c *Cluster) startOtherAPIServers(ctx context.Context, deadline time.Time) error {
	if c.opts.ha == nil {
		return nil
	}
	for n := 2; n <= c.opts.ha.APIServers; n++ {
		p := c.process(APIServerComponentN(n))
		if _, err := c.startProcess(p); err != nil {
			return err
		}
		url := "https://" + APIServerAddress(n) + ":" + strconv.Itoa(c.opts.ha.Port)
		if err := c.waitForReadyz(ctx, p, url, deadline); err != nil {
			return err
		}
	}
	return nil
}

// waitForReadyz polls url's /readyz with the admin's credentials until it
// answers 200.
func (c *Cluster) waitForReadyz(ctx context.Context, p *process, url string, deadline time.Time) error {
	cfg, err := client.ConfigFromKubeconfig(c.layout.adminKubeconfig(), "")
	if err != nil {
		return err
	}
	cfg.Host, cfg.UserAgent, cfg.MaxRetries, cfg.Timeout = url, "kplane-ctl", -1, 5*time.Second
	direct, err := client.New(cfg)
	if err != nil {
		return err
	}
	defer direct.Close()
	r, _ := p.latest()
	for {
		if r.exited() {
			return c.exitedDuringStartup(p, r)
		}
		if status, _, err := direct.Do(ctx, http.MethodGet, "/readyz", nil, nil); err == nil && status == http.StatusOK {
			return nil
		}
		if err := sleepUntil(ctx, deadline, 20*time.Millisecond); err != nil {
			return fmt.Errorf("waiting for %s to be ready at %s: %w (see %s)", p.name, url, err, c.layout.logFile(p.name))
		}
	}
}

// process returns the component called name; it panics on a name the plan
// does not have, which is a bug in the launcher.
func (c *Cluster) process(name string) *process {
	for _, p := range c.procs {
		if p.name == name {
			return p
		}
	}
	panic("cluster: no component " + name)
}
