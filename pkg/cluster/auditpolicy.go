package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// defaultAuditPolicy is the audit policy `ctl up` gives a new cluster:
// every request at Metadata (who did what to which object, and the
// answer's code; never a body, so no Secret ends up in the log), without
// the noise a cluster makes by merely running. It follows what
// distributions ship (kube-up's GCE policy, kubeadm's documentation
// example): health checks, Events, leader-election and node-heartbeat
// Lease renewals, and kube-proxy's watches are not recorded, and the
// RequestReceived stage is left out, since ResponseComplete says all it
// does and more.
const defaultAuditPolicy = `# The audit policy of this kplane cluster, written by 'ctl up' once; edit it
# and restart the cluster ('ctl down', 'ctl up') to change what
# logs/audit.log records. Format: audit.k8s.io/v1 Policy; the first rule a
# request matches gives its level (None, Metadata, Request, RequestResponse).
#
# Everything is recorded at Metadata (who, what, which object, the answer's
# code; never a body, so Secrets stay out of the log), except the noise a
# running cluster makes on its own, which distributions leave out too:
# health checks, Events, Lease renewals (leader election in kube-system,
# node heartbeats in kube-node-lease) and kube-proxy's watches.
apiVersion: audit.k8s.io/v1
kind: Policy
# ResponseComplete carries everything RequestReceived would, and more.
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/metrics"]
- level: None
  resources:
  - group: ""
    resources: ["events"]
  - group: events.k8s.io
    resources: ["events"]
- level: None
  verbs: ["get", "update"]
  namespaces: ["kube-system", "kube-node-lease"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
  resources:
  - group: ""
    resources: ["endpoints", "services", "services/status"]
  - group: discovery.k8s.io
    resources: ["endpointslices"]
- level: Metadata
`

func (l layout) auditPolicy() string { return filepath.Join(l.dir, "audit-policy.yaml") }
func (l layout) auditLog() string    { return filepath.Join(l.logsDir(), "audit.log") }

// ensureAuditPolicy writes the default audit policy into the data dir
// unless one is there already: a policy the user edited is kept.
func ensureAuditPolicy(l layout) error {
	_, err := os.Stat(l.auditPolicy())
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit policy: %w", err)
	}
	if err := os.WriteFile(l.auditPolicy(), []byte(defaultAuditPolicy), 0o600); err != nil {
		return fmt.Errorf("write audit policy: %w", err)
	}
	return nil
}
