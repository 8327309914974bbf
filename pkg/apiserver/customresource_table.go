package apiserver

import (
	"encoding/json"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/humanize"
)

// A custom resource's Table: NAME, then the version's
// additionalPrinterColumns, each cell read at its jsonPath; without any,
// upstream's default NAME and AGE (apiextensions-apiserver's
// tableconvertor).

// customNameColumn is the NAME column every custom resource's Table starts with.
var customNameColumn = api.TableColumnDefinition{Name: "Name", Type: "string", Format: "name",
	Description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"}

// defaultCustomColumns are the columns of a version without
// additionalPrinterColumns: AGE from metadata.creationTimestamp.
var defaultCustomColumns = []api.CustomResourceColumnDefinition{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
	Description: "CreationTimestamp is a timestamp representing the server time when this object was created."}}

// customColumns returns the Table's column definitions for columns.
func customColumns(columns []api.CustomResourceColumnDefinition) []api.TableColumnDefinition {
	if len(columns) == 0 {
		columns = defaultCustomColumns
	}
	defs := []api.TableColumnDefinition{customNameColumn}
	for _, c := range columns {
		defs = append(defs, api.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority})
	}
	return defs
}

// customRow returns one object's row: its name, then each column's cell.
func customRow(columns []api.CustomResourceColumnDefinition, obj *api.CustomObject, now time.Time) api.TableRow {
	if len(columns) == 0 {
		columns = defaultCustomColumns
	}
	cells := []any{obj.Name}
	full := fullContent(obj)
	for _, c := range columns {
		value, found := contentField(full, strings.TrimPrefix(c.JSONPath, "."))
		cells = append(cells, customCell(c, value, found, now))
	}
	return api.TableRow{Cells: cells, Object: &api.PartialObjectMetadata{
		TypeMeta:   api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
		ObjectMeta: obj.ObjectMeta,
	}}
}

// customCell formats one cell as upstream does: a date as the time since
// it, scalars as they are, anything else as its JSON; a missing value is
// nil, which kubectl prints as <none>.
func customCell(c api.CustomResourceColumnDefinition, value any, found bool, now time.Time) any {
	if !found || value == nil {
		return nil
	}
	switch v := value.(type) {
	case string:
		if c.Type == "date" {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				return humanize.Since(t, now)
			}
			return "<invalid>"
		}
		return v
	case int64, float64, bool:
		return v
	}
	b, _ := json.Marshal(value)
	return string(b)
}
