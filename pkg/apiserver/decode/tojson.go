package decode

import (
	"errors"
	"fmt"
	"mime"

	"kplane/pkg/yamljson"
)

// UnsupportedMediaTypeError is returned by ToJSON for a body in an encoding
// kplane does not speak (protobuf, CBOR). The apiserver answers it with 415
// Unsupported Media Type, as upstream does for an unknown serializer.
type UnsupportedMediaTypeError struct {
	ContentType string
}

// Error names the media type and the ones that are accepted.
func (e *UnsupportedMediaTypeError) Error() string {
	return fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: application/json, application/yaml", e.ContentType)
}

// ErrEmptyBody is returned by ToJSON when the body holds no document at all.
var ErrEmptyBody = errors.New("the request body is empty")

// binaryMediaTypes are encodings upstream can serve but kplane cannot.
var binaryMediaTypes = map[string]bool{
	"application/vnd.kubernetes.protobuf": true,
	"application/cbor":                    true,
	"application/apply-patch+cbor":        true,
}

// ToJSON returns a request body as JSON. The body is sniffed rather than
// trusted to its Content-Type: JSON passes through unchanged whatever the
// header says, and anything else is read as YAML (yamljson.ToJSON), which is
// what `curl --data-binary @pod.yaml` sends. Only binary encodings are
// refused, with an *UnsupportedMediaTypeError.
func ToJSON(body []byte, contentType string) ([]byte, error) {
	if mediaType, _, err := mime.ParseMediaType(contentType); err == nil && binaryMediaTypes[mediaType] {
		return nil, &UnsupportedMediaTypeError{ContentType: mediaType}
	}
	converted, err := yamljson.ToJSON(body)
	if errors.Is(err, yamljson.ErrEmpty) {
		return nil, ErrEmptyBody
	}
	return converted, err
}
