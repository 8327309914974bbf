package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/decode"
	"kplane/pkg/apiserver/protobuf"
)

// decodeReview reads the body of a create-only review (TokenReview,
// SelfSubjectReview) into review, which must be a pointer to a type
// embedding api.TypeMeta. kubectl sends these in Kubernetes protobuf,
// other clients in JSON or YAML; a body naming another kind is a 400.
func decodeReview(r *http.Request, kind string, review any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	cannotHandle := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("decode %s: %v", kind, err))
	}
	var gotKind string
	if protobuf.IsProtobuf(r.Header.Get("Content-Type")) {
		_, k, err := protobuf.DecodeTypeMeta(body)
		if err != nil {
			return cannotHandle(err)
		}
		if err := protobuf.Decode(body, review); err != nil {
			return cannotHandle(err)
		}
		gotKind = k
	} else {
		jsonBody, err := decode.ToJSON(body, r.Header.Get("Content-Type"))
		if err != nil {
			return cannotHandle(err)
		}
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(jsonBody, &meta); err != nil {
			return cannotHandle(err)
		}
		if err := json.Unmarshal(jsonBody, review); err != nil {
			return cannotHandle(err)
		}
		gotKind = meta.Kind
	}
	if gotKind != "" && gotKind != kind {
		return apierrors.NewBadRequest(fmt.Sprintf("expected a %s, got kind %q", kind, gotKind))
	}
	return nil
}
