package openapi

//go:generate go run ./internal/gendocs -api .. -out docs_generated.go

import (
	"reflect"

	"kplane/pkg/api/schema"
)

// typeDoc is the doc comment of a pkg/api type, "" for other types.
func typeDoc(t reflect.Type) string {
	if t.PkgPath() != apiPackagePath {
		return ""
	}
	return docs[t.Name()]
}

// fieldDoc is the doc comment of field of struct owner, looked up on the
// struct that declares it: an embedded struct's, for promoted fields such
// as TypeMeta's kind.
func fieldDoc(owner reflect.Type, field *schema.Field) string {
	declaring := owner
	for _, i := range field.Index[:len(field.Index)-1] {
		declaring = declaring.Field(i).Type
		for declaring.Kind() == reflect.Pointer {
			declaring = declaring.Elem()
		}
	}
	if declaring.PkgPath() != apiPackagePath {
		return ""
	}
	return docs[declaring.Name()+"."+field.GoName]
}
