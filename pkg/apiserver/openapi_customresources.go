package apiserver

import (
	"maps"
	"sync"
)

// OpenAPI of custom resources. Each group-version a CRD serves gets its
// own /openapi/v3 document, as upstream's apiextensions-apiserver
// publishes it: the item path of each kind in the group-version (several
// CRDs may share one), and the component schemas built from each CRD
// version's openAPIV3Schema (pkg/api/openapi, CustomResourceSchemas) —
// the kind with its x-kubernetes-group-version-kind and descriptions, its
// list kind, and ObjectMeta with what it reaches. /openapi/v2 is the
// built-in document with the same kinds merged in, in Swagger 2.0's
// spelling. `kubectl explain crontab.spec` reads the first (kubectl 1.29
// and later) or the second (1.27 and 1.28).
//
// The PATCH operation of a custom kind lists no strategic merge patch:
// kubectl apply, edit and patch look there to choose the patch they send,
// and a custom resource has no Go struct to merge lists by, so they send a
// JSON merge patch (one sent anyway gets upstream's 415,
// errStrategicMergeCustom).
//
// The documents follow the customResourceSet they describe
// (customresource_registry.go): a set is never changed once published, so
// neither is its view, customOpenAPI. It is built the first time a client
// asks after a CRD change, and read without a lock; the built-in
// documents it lists beside the custom ones are built once and shared.

// customOpenAPI is the OpenAPI view of one customResourceSet, built on
// first use.
type customOpenAPI struct {
	once sync.Once
	// index is the /openapi/v3 answer: the built-in documents and the
	// custom ones.
	index []byte
	// docs are the custom group-versions' documents, by root
	// ("apis/stable.example.com/v1").
	docs map[string]openAPIDocument
	// v2 is /openapi/v2 with the custom kinds.
	v2 swaggerDoc
}

// openAPIIndex returns the /openapi/v3 answer for the current set of
// custom resources.
func (s *Server) openAPIIndex() []byte {
	s.buildOpenAPI()
	set := s.custom.set()
	if len(set.discovery) == 0 {
		return s.openapi.indexJSON
	}
	return s.customOpenAPI(set).index
}

// openAPIDocumentAt returns the current document of root, built-in or
// custom.
func (s *Server) openAPIDocumentAt(root string) (openAPIDocument, bool) {
	s.buildOpenAPI()
	if doc, ok := s.openapi.docs[root]; ok {
		return doc, true
	}
	set := s.custom.set()
	if len(set.discovery) == 0 {
		return openAPIDocument{}, false
	}
	doc, ok := s.customOpenAPI(set).docs[root]
	return doc, ok
}

// swagger returns the current /openapi/v2 document.
func (s *Server) swagger() *swaggerDoc {
	set := s.custom.set()
	if len(set.discovery) == 0 {
		return s.builtinSwagger()
	}
	return set.openapi.v2.build(func() swaggerParts {
		builtin := s.builtinSwaggerParts()
		paths, definitions := swaggerPartsOf(set.discovery)
		// The built-ins' entries win: a custom kind's ObjectMeta is the
		// same schema, and a built-in path is never a custom one's.
		maps.Copy(paths, builtin.paths)
		maps.Copy(definitions, builtin.definitions)
		return swaggerParts{paths: paths, definitions: definitions}
	})
}

// customOpenAPI returns set's view, building it the first time.
func (s *Server) customOpenAPI(set *customResourceSet) *customOpenAPI {
	view := set.openapi
	view.once.Do(func() {
		byRoot := map[string][]*resource{}
		for _, res := range set.discovery {
			root := openAPIRoot(res.groupVersion())
			if _, builtin := s.openapi.docs[root]; builtin {
				// A CRD in a built-in group-version (which upstream
				// reserves, kplane does not police): the built-in
				// document stands.
				continue
			}
			byRoot[root] = append(byRoot[root], res)
		}
		index := maps.Clone(s.openapi.index)
		view.docs = make(map[string]openAPIDocument, len(byRoot))
		for root, resources := range byRoot {
			doc := newOpenAPIDocument(root, openAPIDocumentOf(root, resources))
			view.docs[root] = doc
			index[root] = map[string]string{"serverRelativeURL": doc.url(root)}
		}
		view.index = openAPIIndexJSON(index)
	})
	return view
}
