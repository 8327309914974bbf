package informer

import (
	"kplane/pkg/api"
	"kplane/pkg/client"
)

// ForDynamicResource returns f's dynamic informer for res, a resource
// found at run time (through discovery) whose objects kplane has no Go
// type for: they are cached as *api.CustomObject, the
// apiserver's own type for a custom resource's object (typed metadata,
// the rest a JSON map). Like every informer of the
// factory it is shared — asking twice returns the same one — and the next
// Start runs it, even if the factory started long ago.
func (f *SharedInformerFactory) ForDynamicResource(res client.Resource) TypedInformer[*api.CustomObject] {
	return ForResource[*api.CustomObject](f, res)
}
