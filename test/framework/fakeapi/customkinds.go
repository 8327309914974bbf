package fakeapi

import (
	"kplane/pkg/api"
	"kplane/pkg/client"
)

// WithKind makes the server serve res as well as the built-in resources,
// with objects of newObject's Go type: the custom resource of a student's
// own controller (examples/controller's Website), which the real apiserver
// serves once its CustomResourceDefinition is established. Like the
// built-in kinds it has a status subresource: an update leaves the status
// alone and an update of /status changes only the status. (Resources
// without a Go type are added with WithCustomResource, custom.go.)
func WithKind(res client.Resource, newObject func() api.Object) Option {
	return func(s *Server) {
		s.custom[res.Resource] = customResource{resource: res, verbs: allVerbs, newObject: newObject}
	}
}

// newObject returns a new, empty object of the Go type served under
// plural, or nil for a custom resource kept as JSON maps.
func (s *Server) newObject(plural string) api.Object {
	if newObject, ok := kinds[plural]; ok {
		return newObject()
	}
	if c := s.customResources()[plural]; c.newObject != nil {
		return c.newObject()
	}
	return nil
}
