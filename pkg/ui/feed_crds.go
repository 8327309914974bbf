package ui

import (
	"context"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/store/keys"
)

// customResourceDefinitions is the resource the custom-resource discovery
// watches.
var customResourceDefinitions = client.Resource{
	Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition",
}

// customResources remembers which custom resources already have an
// informer, so a CRD's updates do not register a second one.
type customResources struct {
	mu      sync.Mutex
	watched map[client.Resource]bool
}

// watchCustomResources watches CustomResourceDefinitions and starts a
// dynamic informer for each one's storage version as it appears, so custom
// resources take their place in the ownership graph (they carry
// ownerReferences like any object). A deleted CRD's informer is removed.
func (f *objectFeed) watchCustomResources(ctx context.Context) error {
	known := &customResources{watched: map[client.Resource]bool{}}
	inf := f.factory.ForDynamicResource(customResourceDefinitions)
	add := func(obj api.Object) {
		res, ok := resourceOfCRD(obj)
		if !ok {
			return
		}
		known.mu.Lock()
		defer known.mu.Unlock()
		if known.watched[res] {
			return
		}
		if err := f.watch(res, keys.CustomResource(res.Group, res.Resource)); err != nil {
			f.logger.Warn("watch custom resource", "resource", res.String(), "err", err)
			return
		}
		known.watched[res] = true
		f.factory.Start(ctx)
	}
	_, err := inf.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj api.Object) { add(obj) },
		DeleteFunc: func(obj any) {
			crd, ok := informer.DeletedObject[*api.CustomObject](obj)
			if !ok || crd == nil {
				return
			}
			res, ok := resourceOfCRD(crd)
			if !ok {
				return
			}
			known.mu.Lock()
			defer known.mu.Unlock()
			delete(known.watched, res)
			f.factory.RemoveInformer(res)
		},
	})
	return err
}

// resourceOfCRD is the resource a CustomResourceDefinition serves, at its
// storage version (the first served one if none is marked); ok is false
// for a definition without names or versions.
func resourceOfCRD(obj api.Object) (client.Resource, bool) {
	m, err := toMap(obj)
	if err != nil {
		return client.Resource{}, false
	}
	versions, _ := valueAt(m, "spec", "versions").([]any)
	version := ""
	for _, v := range versions {
		entry, _ := v.(map[string]any)
		name := stringAt(entry, "name")
		if storage, _ := entry["storage"].(bool); storage {
			version = name
			break
		}
		if served, _ := entry["served"].(bool); served && version == "" {
			version = name
		}
	}
	res := client.Resource{
		Group:      stringAt(m, "spec", "group"),
		Version:    version,
		Resource:   stringAt(m, "spec", "names", "plural"),
		Kind:       stringAt(m, "spec", "names", "kind"),
		Namespaced: stringAt(m, "spec", "scope") == "Namespaced",
	}
	if res.Group == "" || res.Version == "" || res.Resource == "" || res.Kind == "" {
		return client.Resource{}, false
	}
	return res, true
}
