package cel

import (
	"fmt"
	"net/url"
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// This file adds Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go):
//
//	url('https://example.com:8080/a?x=1')   a URL; an error unless the text is an
//	                                        absolute URL or an absolute path
//	isURL('https://example.com') -> bool
//	u.getScheme(), u.getHost(), u.getHostname(), u.getPort(),
//	u.getEscapedPath() -> string            "" where the part is absent
//	u.getQuery() -> map(string, list(string))
//
// Like upstream, it reads URLs as net/url.ParseRequestURI does: 'example.com'
// (no scheme, no leading slash) is not a URL.

// urlType is the CEL type of a URL.
var urlType = cel.ObjectType("kubernetes.URL")

// urlValue is a parsed URL inside CEL.
type urlValue struct{ *url.URL }

// ConvertToNative gives the *url.URL to Go code that asks for one.
func (u urlValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(u.URL).AssignableTo(typeDesc) {
		return u.URL, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return u.URL.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", typeDesc)
}

// ConvertToType converts to string or the type itself.
func (u urlValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case urlType:
		return u
	case types.StringType:
		return types.String(u.URL.String())
	case types.TypeType:
		return urlType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", urlType, typeVal)
}

// Equal compares the URLs' text.
func (u urlValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(urlValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(u.URL.String() == o.URL.String())
}

// Type is kubernetes.URL.
func (u urlValue) Type() ref.Type { return urlType }

// Value is the *url.URL.
func (u urlValue) Value() any { return u.URL }

// urlLibrary declares the functions above.
func urlLibrary() []cel.EnvOption {
	getter := func(name, id string, result *cel.Type, fn func(*url.URL) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{urlType}, result, cel.UnaryBinding(func(v ref.Val) ref.Val {
			u, ok := v.(urlValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(u.URL)
		})))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlType, cel.UnaryBinding(parseURL))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return types.Bool(!types.IsError(parseURL(s))) }))),
		getter("getScheme", "url_get_scheme", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Scheme) }),
		getter("getHost", "url_get_host", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Host) }),
		getter("getHostname", "url_get_hostname", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Hostname()) }),
		getter("getPort", "url_get_port", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Port()) }),
		getter("getEscapedPath", "url_get_escaped_path", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.EscapedPath()) }),
		getter("getQuery", "url_get_query", cel.MapType(cel.StringType, cel.ListType(cel.StringType)), func(u *url.URL) ref.Val {
			return types.DefaultTypeAdapter.NativeToValue(map[string][]string(u.Query()))
		}),
	}
}

func parseURL(s ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	u, err := url.ParseRequestURI(string(str))
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return urlValue{u}
}
