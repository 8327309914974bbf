package apiserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// annotationIngressClass is the class annotation Ingresses used before
// spec.ingressClassName existed; an Ingress that carries it has chosen.
const annotationIngressClass = "kubernetes.io/ingress.class"

// admitDefaultIngressClass gives a new Ingress that names no class the
// cluster's default IngressClass: the one annotated
// ingressclass.kubernetes.io/is-default-class=true, or, when several are,
// the newest (by name on a tie). Upstream's DefaultIngressClass admission
// plugin does the same, on create only; without a default class the
// Ingress is left alone.
func (s *Server) admitDefaultIngressClass(ctx context.Context, ing *api.Ingress) error {
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := ing.Annotations[annotationIngressClass]; ok {
		return nil
	}
	classes := s.reg.byPluralAny["ingressclasses"]
	entries, _, err := s.caches[classes].List(ctx, classes.keyPrefix(""), 0)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("list ingress classes for the default: %w", err))
	}
	var defaults []*api.IngressClass
	for _, e := range entries {
		class := e.Object.(*storedObject).obj.(*api.IngressClass)
		if class.Annotations[api.AnnotationIsDefaultIngressClass] == "true" {
			defaults = append(defaults, class)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	newest := slices.MaxFunc(defaults, func(a, b *api.IngressClass) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name) // the first name wins a tie
	})
	name := newest.Name
	ing.Spec.IngressClassName = &name
	return nil
}
