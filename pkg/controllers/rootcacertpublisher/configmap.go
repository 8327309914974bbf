package rootcacertpublisher

import (
	"maps"

	"kplane/pkg/api"
)

// DescriptionAnnotation and Description are the annotation upstream puts on
// every kube-root-ca.crt, which says what the ConfigMap is for; the
// controller puts it back if it goes missing.
const (
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// desired is the ConfigMap a namespace should have.
func desired(namespace, rootCA string) *api.ConfigMap {
	return &api.ConfigMap{
		ObjectMeta: api.ObjectMeta{
			Name:        api.RootCAConfigMapName,
			Namespace:   namespace,
			Annotations: map[string]string{DescriptionAnnotation: Description},
		},
		Data: map[string]string{api.RootCAConfigMapKey: rootCA},
	}
}

// repair returns a copy of current with the data (exactly one key, ca.crt,
// holding rootCA) and the description annotation made right, and whether
// anything had to change. Upstream compares the same two things: other
// annotations, labels and binaryData a user added are kept, any other data
// key goes.
func repair(current *api.ConfigMap, rootCA string) (*api.ConfigMap, bool) {
	want := map[string]string{api.RootCAConfigMapKey: rootCA}
	if maps.Equal(current.Data, want) && current.Annotations[DescriptionAnnotation] != "" {
		return current, false
	}
	repaired := *current
	repaired.Data = want
	repaired.Annotations = maps.Clone(current.Annotations)
	if repaired.Annotations == nil {
		repaired.Annotations = map[string]string{}
	}
	repaired.Annotations[DescriptionAnnotation] = Description
	return &repaired, true
}
