package apiserver

// Label and field selectors (?labelSelector=, ?fieldSelector=), matched
// against the labels and selectable fields each cached object carries.

import (
	"fmt"
	"net/http"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
)

// selectors are a request's label and field selectors.
type selectors struct {
	labels labels.Selector
	fields fields.Selector
	name   string // a watch on one object's URL watches only that name
}

func (sel selectors) empty() bool { return sel.labels.Empty() && sel.fields.Empty() && sel.name == "" }

func (sel selectors) matches(so *storedObject) bool {
	if sel.name != "" && so.fields["metadata.name"] != sel.name {
		return false
	}
	return sel.labels.Matches(so.labels) && sel.fields.Matches(fields.Set(so.fields))
}

// parseSelectors reads labelSelector and fieldSelector; a bad one is 400.
func parseSelectors(r *http.Request, res *resource) (selectors, error) {
	q := queryOf(r)
	ls, err := labels.Parse(q.string("labelSelector"))
	if err != nil {
		return selectors{}, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
	}
	fs, err := fields.Parse(q.string("fieldSelector"))
	if err != nil {
		return selectors{}, apierrors.NewBadRequest(err.Error())
	}
	allowed := append([]string{"metadata.name", "metadata.namespace"}, res.selectableFields...)
	if err := fields.ValidateFor(fs, allowed); err != nil {
		return selectors{}, apierrors.NewBadRequest(err.Error())
	}
	return selectors{labels: ls, fields: fs}, nil
}
