package api

// Table is meta.k8s.io/v1 Table: rows of printable cells with column
// definitions, which the apiserver returns when a client asks for
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. kubectl prints these
// columns as they come, so the columns of `kubectl get` are defined once, on
// the server.
type Table struct {
	TypeMeta          `json:",inline"`
	ListMeta          `json:"metadata"`
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	Rows              []TableRow              `json:"rows"`
}

// TableColumnDefinition describes one column. Priority 0 columns are always
// shown; higher ones only with `-o wide`.
type TableColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// TableRow is one object's cells, in column order, and (per includeObject)
// the object itself or its metadata.
type TableRow struct {
	Cells      []any `json:"cells"`
	Conditions []any `json:"conditions,omitempty"`
	Object     any   `json:"object,omitempty"`
}

// PartialObjectMetadata is an object reduced to its metadata, the default
// `object` of a Table row (kubectl reads labels from it for --show-labels).
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
}
