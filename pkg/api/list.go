package api

// List is the list form of any resource, e.g. List[Pod] is a PodList: the
// store revision it was read at in metadata and the objects in items. Kind
// is "<Kind>List" on the wire.
type List[T any] struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []T `json:"items"`
}
