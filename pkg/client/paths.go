package client

import (
	"fmt"
	"net/url"
	"strings"
)

// resourcePath builds a Kubernetes REST path:
//
//	/api/v1/namespaces/default/pods/web-0/status
//	/apis/apps/v1/deployments                 (all namespaces)
//	/api/v1/nodes/node-1                      (cluster-scoped)
//
// The core group lives under /api, every other group under /apis/<group>.
// namespace is left out when empty (a list or watch across namespaces) and
// for cluster-scoped resources.
func resourcePath(res Resource, namespace, name string, subresource ...string) string {
	var b strings.Builder
	if res.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(res.Group)
		b.WriteByte('/')
	}
	b.WriteString(res.Version)
	if res.Namespaced && namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteByte('/')
	b.WriteString(res.Resource)
	if name != "" {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(name))
		for _, sub := range subresource {
			if sub != "" {
				b.WriteByte('/')
				b.WriteString(sub)
			}
		}
	}
	return b.String()
}

// objectPath is resourcePath for one named object, refusing the two
// mistakes that would otherwise come back as a puzzling 404: no name, and
// no namespace for a namespaced kind.
func objectPath(res Resource, namespace, name string, subresource ...string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%s: a resource name is required", res)
	}
	if res.Namespaced && namespace == "" {
		return "", fmt.Errorf("%s %q: a namespace is required", res, name)
	}
	return resourcePath(res, namespace, name, subresource...), nil
}

// collectionPath is resourcePath for a collection; a create into a
// namespaced collection needs a namespace.
func collectionPath(res Resource, namespace string, needNamespace bool) (string, error) {
	if needNamespace && res.Namespaced && namespace == "" {
		return "", fmt.Errorf("%s: a namespace is required", res)
	}
	return resourcePath(res, namespace, ""), nil
}
