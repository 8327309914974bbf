package fakeapi

import (
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// customKind is a resource the test added with WithKind: a custom
// resource, as a CustomResourceDefinition would make the apiserver serve
// it, with the Go type its objects decode into.
type customKind struct {
	resource  client.Resource
	newObject func() api.Object
}

// WithKind makes the server serve res as well as the built-in resources,
// with objects of newObject's Go type: the custom resource of a student's
// own controller (examples/controller's Website), which the real apiserver
// serves once its CustomResourceDefinition is established. Like the
// built-in kinds it has a status subresource: an update leaves the status
// alone and an update of /status changes only the status.
func WithKind(res client.Resource, newObject func() api.Object) Option {
	return func(s *Server) {
		if s.custom == nil {
			s.custom = map[string]customKind{}
		}
		s.custom[res.Resource] = customKind{resource: res, newObject: newObject}
	}
}

// resource returns the resource served under plural, built-in or custom.
func (s *Server) resource(plural string) (client.Resource, bool) {
	if res, ok := resources[plural]; ok {
		return res, true
	}
	kind, ok := s.custom[plural]
	return kind.resource, ok
}

// namespaced reports whether the resource served under plural lives in
// namespaces.
func (s *Server) namespaced(plural string) bool {
	res, _ := s.resource(plural)
	return res.Namespaced
}

// newObject returns a new, empty object of the Go type served under plural.
func (s *Server) newObject(plural string) api.Object {
	if newObject, ok := kinds[plural]; ok {
		return newObject()
	}
	return s.custom[plural].newObject()
}

// resourceOf returns the resource that serves obj's Go type, built-in or
// custom.
func (s *Server) resourceOf(obj api.Object) (client.Resource, bool) {
	if res, ok := resourceOf(obj); ok {
		return res, true
	}
	for _, kind := range s.custom {
		if reflect.TypeOf(kind.newObject()) == reflect.TypeOf(obj) {
			return kind.resource, true
		}
	}
	return client.Resource{}, false
}
