// Package protobuf reads (and, for tests and tools, writes) Kubernetes'
// protobuf encoding of API objects, the `application/vnd.kubernetes.protobuf`
// media type.
//
// kplane stores and serves JSON, but clients built on client-go's generated
// typed clients send request bodies in protobuf: kubectl create configmap,
// create deployment, run, drain (an Eviction) and many more. Their requests
// accept JSON answers, so only decoding is needed on the server.
//
// A body is the four bytes "k8s\x00" followed by a runtime.Unknown message:
//
//	message Unknown {
//	  TypeMeta typeMeta = 1;        // {apiVersion = 1, kind = 2}
//	  bytes raw = 2;                // the object, as its own protobuf message
//	  string contentEncoding = 3;   // always empty in practice
//	  string contentType = 4;       // likewise
//	}
//
// Upstream generates a Marshal/Unmarshal method per type. kplane instead
// reads the `protobuf:"…"` struct tags its API types carry (the same field
// numbers as upstream's) and decodes by reflection, so adding a field to a
// type needs nothing more than its tag.
package protobuf

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"reflect"

	"kplane/pkg/api"
)

// MediaType is the Content-Type of a Kubernetes protobuf body.
const MediaType = "application/vnd.kubernetes.protobuf"

// magic starts every Kubernetes protobuf body, so a reader can tell it from
// JSON or YAML without trusting the Content-Type.
var magic = []byte("k8s\x00")

// errNotProtobuf is returned for a body without the magic prefix.
var errNotProtobuf = errors.New(`not a Kubernetes protobuf body: it does not start with "k8s\x00"`)

// unknown is runtime.Unknown, the envelope around every object.
type unknown struct {
	TypeMeta        typeMeta `protobuf:"bytes,1,opt,name=typeMeta"`
	Raw             []byte   `protobuf:"bytes,2,opt,name=raw"`
	ContentEncoding string   `protobuf:"bytes,3,opt,name=contentEncoding"`
	ContentType     string   `protobuf:"bytes,4,opt,name=contentType"`
}

// typeMeta is runtime.TypeMeta, the envelope's statement of what raw holds.
type typeMeta struct {
	APIVersion string `protobuf:"bytes,1,opt,name=apiVersion"`
	Kind       string `protobuf:"bytes,2,opt,name=kind"`
}

// IsProtobuf reports whether a Content-Type header names the Kubernetes
// protobuf media type (parameters such as charset are ignored).
func IsProtobuf(contentType string) bool {
	mediaType, _, err := mime.ParseMediaType(contentType)
	return err == nil && mediaType == MediaType
}

// DecodeTypeMeta returns the apiVersion and kind a protobuf body says it
// holds, without decoding the object.
func DecodeTypeMeta(body []byte) (apiVersion, kind string, err error) {
	env, err := readEnvelope(body)
	if err != nil {
		return "", "", err
	}
	return env.TypeMeta.APIVersion, env.TypeMeta.Kind, nil
}

// Decode decodes a protobuf body into obj, a non-nil pointer to a struct
// whose fields carry protobuf tags (any kplane API type). Fields obj does not
// know are skipped, as protobuf intends. If obj embeds api.TypeMeta, it is
// filled from the envelope, as a JSON body's kind and apiVersion would be.
//
// Decode never panics, whatever the body; malformed input is an error that
// names the field where decoding stopped, e.g. "spec.replicas: …".
func Decode(body []byte, obj any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("protobuf: Decode needs a non-nil pointer to a struct, not %T", obj)
	}
	env, err := readEnvelope(body)
	if err != nil {
		return err
	}
	if err := decodeMessage(env.Raw, v.Elem(), 1); err != nil {
		return err
	}
	if o, ok := obj.(interface{ GetTypeMeta() *api.TypeMeta }); ok {
		tm := o.GetTypeMeta()
		tm.APIVersion, tm.Kind = env.TypeMeta.APIVersion, env.TypeMeta.Kind
	}
	return nil
}

// Encode writes obj (a struct or a pointer to one) as a protobuf body with
// the given apiVersion and kind in its envelope, byte for byte as client-go
// would for the fields kplane's types have. kplane serves JSON, so Encode
// exists for tests and tools that need to produce what kubectl sends.
func Encode(obj any, apiVersion, kind string) ([]byte, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: Encode needs a struct or a pointer to one, not %T", obj)
	}
	var raw writer
	if err := encodeMessage(&raw, v); err != nil {
		return nil, err
	}
	if raw.buf == nil {
		raw.buf = []byte{}
	}
	env := unknown{TypeMeta: typeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw.buf}
	out := writer{buf: bytes.Clone(magic)}
	if err := encodeMessage(&out, reflect.ValueOf(env)); err != nil {
		return nil, err
	}
	return out.buf, nil
}

// EncodeMessage writes obj (a struct or a pointer to one) as a bare
// protobuf message, without the "k8s\x00" prefix and runtime.Unknown
// envelope of API objects: the form of documents that are not API objects,
// such as the OpenAPI v2 document client-go reads (gnostic's
// openapi_v2.Document). The struct's fields carry protobuf tags, as
// Encode's do.
func EncodeMessage(obj any) ([]byte, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: EncodeMessage needs a struct or a pointer to one, not %T", obj)
	}
	var w writer
	if err := encodeMessage(&w, v); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// readEnvelope checks the magic prefix and decodes the runtime.Unknown
// around the object.
func readEnvelope(body []byte) (unknown, error) {
	var env unknown
	if !bytes.HasPrefix(body, magic) {
		return env, errNotProtobuf
	}
	if err := decodeMessage(body[len(magic):], reflect.ValueOf(&env).Elem(), 0); err != nil {
		return env, fmt.Errorf("envelope: %w", err)
	}
	// Upstream never compresses objects inside the envelope; a body that
	// claims to is not one kplane (or kube-apiserver) can read.
	if env.ContentEncoding != "" {
		return env, fmt.Errorf("envelope: unsupported content encoding %q", env.ContentEncoding)
	}
	return env, nil
}
