package rootcacertpublisher

// This file records, for the debug journal (what `ctl why cm/kube-root-ca.crt
// -n x` shows), each time the controller creates a namespace's
// kube-root-ca.crt or puts back what someone changed. A namespace whose
// ConfigMap is right records nothing.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncNamespace this mirrors.
const decisionSource = "pkg/controller/certificates/rootcacertpublisher/publisher.go"

// recordCreate records that namespace lacks the ConfigMap.
func (c *Controller) recordCreate(namespace string) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&api.ObjectMeta{Namespace: namespace, Name: api.RootCAConfigMapName}, debug.Decision{
		Message: fmt.Sprintf("namespace %s has no %s → create it with the cluster CA under %s",
			namespace, api.RootCAConfigMapName, api.RootCAConfigMapKey),
		Source: decisionSource,
	})
}

// recordRepair records what differs in current from what it should be.
func (c *Controller) recordRepair(current *api.ConfigMap) {
	if !c.decisions.Enabled() {
		return
	}
	var wrong []string
	if current.Data[api.RootCAConfigMapKey] != c.rootCA {
		wrong = append(wrong, api.RootCAConfigMapKey+" is not the cluster CA")
	}
	if extra := slices.DeleteFunc(slices.Sorted(maps.Keys(current.Data)), func(k string) bool { return k == api.RootCAConfigMapKey }); len(extra) > 0 {
		wrong = append(wrong, "extra data keys "+strings.Join(extra, ", "))
	}
	if current.Annotations[DescriptionAnnotation] == "" {
		wrong = append(wrong, "the "+DescriptionAnnotation+" annotation is missing")
	}
	c.decisions.Record(&current.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s/%s: %s → put the CA and the annotation back (labels and other annotations kept)",
			current.Namespace, current.Name, strings.Join(wrong, "; ")),
		Source: decisionSource,
	})
}
