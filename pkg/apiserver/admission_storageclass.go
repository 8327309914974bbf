package apiserver

import (
	"context"
	"slices"

	"kplane/pkg/api"
)

// annBetaStorageClass named a claim's class before spec.storageClassName
// existed; a claim that carries it has chosen a class.
const annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"

// admitDefaultStorageClass is upstream's DefaultStorageClass admission
// plugin: a claim created without spec.storageClassName (nil, not "": an
// empty name asks for no class at all) gets the name of the default
// StorageClass, so the class's provisioner will make its volume. Without
// a default class the claim is left as it is. Like upstream, which reads
// an informer's cache, it reads the watch cache without waiting for it to
// catch up: a class created a moment ago may not be the default yet.
func (s *Server) admitDefaultStorageClass(ctx context.Context, claim *api.PersistentVolumeClaim) {
	if claim.Spec.StorageClassName != nil {
		return
	}
	if _, ok := claim.Annotations[annBetaStorageClass]; ok {
		return
	}
	classRes, ok := s.reg.byPluralAny["storageclasses"]
	if !ok {
		return
	}
	entries, _, err := s.caches[classRes].List(ctx, classRes.keyPrefix(""), 1)
	if err != nil {
		// Upstream fails the request here; the claim would then be
		// refused for a reason that has nothing to do with it. A claim
		// without a class is still valid, so kplane admits it as it is.
		s.log.Warn("list storage classes for the default class", "err", err)
		return
	}
	classes := make([]*api.StorageClass, 0, len(entries))
	for _, e := range entries {
		classes = append(classes, e.Object.(*storedObject).obj.(*api.StorageClass))
	}
	if def := defaultStorageClass(classes); def != nil {
		claim.Spec.StorageClassName = &def.Name
	}
}

// defaultStorageClass picks the default among classes: of those marked
// default, the newest, and of equally new ones the first by name
// (upstream's GetDefaultClass, which since 1.26 tolerates several
// defaults so that a new default can be added before the old one is
// unmarked). Nil when none is marked.
func defaultStorageClass(classes []*api.StorageClass) *api.StorageClass {
	var defaults []*api.StorageClass
	for _, c := range classes {
		if api.IsDefaultStorageClass(c) {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	slices.SortFunc(defaults, func(a, b *api.StorageClass) int {
		if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
			return c
		}
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return defaults[0]
}
