// Package node is the Node authorizer: what a kubelet may read and write.
//
// A kubelet authenticates as system:node:<name> in the group system:nodes.
// It needs the secrets, configmaps, volumes and ServiceAccount tokens of
// the pods bound to its node, and nothing of the other nodes' pods. So
// the authorizer decides object by object from relationships: a kubelet
// may get a secret only when a pod with spec.nodeName = its node
// references that secret (in a volume, a projected volume, an
// environment variable or an image pull secret). The same goes for
// configmaps, PersistentVolumeClaims (and the PersistentVolumes bound to
// them), ServiceAccounts (token requests) and its own pods. Its own Node
// object and its Lease in kube-node-lease are matched by name. (Upstream
// also decides CSINodes, VolumeAttachments, ResourceClaims and
// ResourceSlices; kplane serves none of them and allows a kubelet none.) Every other request is checked against the fixed
// rules of the system:node role (bootstrappolicy.NodeRules).
//
// The authorizer never denies: a request it does not allow gets "no
// opinion" with a reason, and RBAC is asked next. Writes it lets through
// for any node (creating a mirror pod, updating a pod's status, updating
// a Node) are narrowed to the kubelet's own objects by the NodeRestriction
// admission plugin.
//
// Upstream (plugin/pkg/auth/authorizer/node) keeps a graph of pods,
// secrets, volumes and nodes fed by informers, and walks it from the
// requested object to the node. kplane computes the same relationships on
// demand from the apiserver's watch caches, through the small Source
// interface: the pods bound to the node, and the claims and volumes they
// use. The decisions and reason strings follow upstream's
// node_authorizer.go with the AuthorizeNodeWithSelectors feature on (a
// kubelet reads only its own Node and lists only its own pods).
package node
