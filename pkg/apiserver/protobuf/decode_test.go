package protobuf

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// msg builds a message from fields, each made by one of the helpers below.
func msg(fields ...[]byte) []byte { return bytes.Join(fields, nil) }

// str is a length-delimited field (a string, bytes or nested message).
func str[T string | []byte](num int, v T) []byte {
	var w writer
	w.bytesField(num, []byte(v))
	return w.buf
}

// num is a varint field.
func num(n int, v uint64) []byte {
	var w writer
	w.varintField(n, v)
	return w.buf
}

// body wraps raw in the envelope, claiming it is a v1 Pod.
func body(raw []byte) []byte {
	return append([]byte("k8s\x00"), msg(str(1, msg(str(1, "v1"), str(2, "Pod"))), str(2, raw))...)
}

// TestDecodeSemantics checks protobuf's rules for fields that repeat, are
// packed, or are unknown, on bodies built field by field.
func TestDecodeSemantics(t *testing.T) {
	containers := func(fields ...[]byte) []byte { // spec.containers[0]
		return str(2, str(2, msg(fields...)))
	}
	for _, tc := range []struct {
		name string
		raw  []byte
		want func(*api.Pod)
	}{{
		name: "a repeated message field accumulates",
		raw:  msg(str(2, msg(str(2, str(1, "a")), str(2, str(1, "b"))))),
		want: func(p *api.Pod) { p.Spec.Containers = []api.Container{{Name: "a"}, {Name: "b"}} },
	}, {
		name: "a message that occurs twice is merged",
		raw:  msg(str(1, str(1, "n")), str(1, str(3, "ns"))),
		want: func(p *api.Pod) { p.Name, p.Namespace = "n", "ns" },
	}, {
		name: "the last of a repeated scalar wins",
		raw:  msg(str(1, msg(str(1, "first"), str(1, "second")))),
		want: func(p *api.Pod) { p.Name = "second" },
	}, {
		name: "unknown fields of every wire type are skipped",
		raw: msg(
			num(99, 7),
			[]byte{0xa1, 0x06, 1, 2, 3, 4, 5, 6, 7, 8}, // field 100, fixed64
			[]byte{0xad, 0x06, 1, 2, 3, 4},             // field 101, fixed32
			str(102, "ignored"),
			str(1, msg(str(4, "selfLink is not a kplane field"), str(1, "kept"))),
		),
		want: func(p *api.Pod) { p.Name = "kept" },
	}, {
		name: "negative int32 arrives as a ten-byte varint",
		raw:  msg(str(2, num(25, uint64(0xffffffffffffffff)))), // spec.priority -1
		want: func(p *api.Pod) { p.Spec.Priority = ptr[int32](-1) },
	}, {
		name: "a bool is any non-zero varint",
		raw:  msg(str(2, num(11, 2))), // spec.hostNetwork
		want: func(p *api.Pod) { p.Spec.HostNetwork = true },
	}, {
		name: "repeated numbers may be packed, unpacked, or both",
		raw: msg(str(2, str(14, msg( // spec.securityContext.supplementalGroups
			num(4, 1),
			str(4, []byte{2, 0xac, 0x02}), // packed 2, 300
			num(4, 4),
		)))),
		want: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{SupplementalGroups: []int64{1, 2, 300, 4}}
		},
	}, {
		name: "a map entry without a value maps the key to the zero value",
		raw:  msg(str(1, str(11, str(1, "k")))),
		want: func(p *api.Pod) { p.Labels = map[string]string{"k": ""} },
	}, {
		name: "a later map entry replaces an earlier one with the same key",
		raw:  msg(str(1, msg(str(11, msg(str(1, "k"), str(2, "1"))), str(11, msg(str(1, "k"), str(2, "2")))))),
		want: func(p *api.Pod) { p.Labels = map[string]string{"k": "2"} },
	}, {
		name: "inline structs are nested messages",
		raw: containers(str(1, "c"), str(10, str(1, str(2, msg( // livenessProbe.handler.httpGet
			str(1, "/healthz"), str(2, msg(num(1, 1), str(3, "http")))))))),
		want: func(p *api.Pod) {
			p.Spec.Containers = []api.Container{{Name: "c", LivenessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{
				HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromString("http")},
			}}}}
		},
	}, {
		name: "timestamps keep whole seconds, the zero time is empty",
		raw: msg(
			str(1, msg(str(8, ""), str(9, msg(num(1, 1700000000), num(2, 999))))),
		),
		want: func(p *api.Pod) { p.DeletionTimestamp = ptr(at(1700000000)) },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got api.Pod
			if err := Decode(body(tc.raw), &got); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := api.Pod{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// recursive is a self-nesting type for the depth limit; no kplane type nests
// without end, but a decoder must not trust that.
type recursive struct {
	Child *recursive `protobuf:"bytes,1,opt,name=child"`
}

// unsupported has fields the codec cannot map; decoding into it must fail
// cleanly rather than panic.
type unsupported struct {
	Stringer interface{ String() string } `protobuf:"bytes,1,opt,name=stringer"`
	Small    int8                         `protobuf:"varint,2,opt,name=small"`
}

func TestDecodeErrors(t *testing.T) {
	deep := []byte{}
	for range maxDepth + 5 {
		deep = str(1, deep)
	}
	for _, tc := range []struct {
		name string
		body []byte
		into any
		want string // a substring of the error
	}{
		{"empty body", nil, &api.Pod{}, "does not start with"},
		{"JSON body", []byte(`{"kind":"Pod"}`), &api.Pod{}, "does not start with"},
		{"truncated envelope", []byte("k8s\x00\x0a\x05\x0a"), &api.Pod{}, "unexpected end"},
		{"raw longer than the body", []byte("k8s\x00\x12\x7f\x0a"), &api.Pod{}, "unexpected end"},
		{"field number zero", body([]byte{0x02, 0x00}), &api.Pod{}, "invalid field number 0"},
		{"varint too long", body([]byte{0x98, 0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), &api.Pod{}, "overflows"},
		{"group wire type", body([]byte{0xa3, 0x06}), &api.Pod{}, "unsupported wire type 3"},
		{"content encoding", append([]byte("k8s\x00"), str(3, "gzip")...), &api.Pod{}, `unsupported content encoding "gzip"`},
		{
			"wrong wire type names the field", body(str(2, msg(str(2, str(1, "a")), str(2, num(1, 5))))), &api.Pod{},
			"spec.containers[1].name: wire type 0",
		},
		{"message where a number belongs", body(str(2, str(1, "x"))), &api.Deployment{}, "spec.replicas: wire type 2"},
		{"bad quantity", body(str(2, str(32, msg(str(1, "cpu"), str(2, str(1, "lots")))))), &api.Pod{}, `spec.overhead: quantity "lots"`},
		{"bad int-or-string type", body(str(2, str(4, str(2, str(1, num(1, 7)))))), &api.Deployment{}, "spec.strategy.rollingUpdate.maxUnavailable: int-or-string type 7"},
		{"raw extension that is not JSON", body(str(2, str(1, "{not json"))), &api.ControllerRevision{}, "data: embedded raw document is not valid JSON"},
		{"timestamp out of range", body(str(1, str(8, num(1, 1<<40)))), &api.Pod{}, "metadata.creationTimestamp: timestamp seconds"},
		{"nested too deep", body(deep), &recursive{}, "nested more than"},
		{"not a pointer", body(nil), api.Pod{}, "non-nil pointer to a struct"},
		{"non-empty interface field", body(str(1, str(1, "{}"))), &unsupported{}, "stringer: unsupported Go type"},
		{"int8 field", body(num(2, 1)), &unsupported{}, "small: unsupported Go type int8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Decode(tc.body, tc.into)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodeErrorUnwraps(t *testing.T) {
	err := Decode(body(str(1, str(8, num(1, 1<<40)))), &api.Pod{})
	var fe *fieldError
	if !errors.As(err, &fe) || strings.Join(fe.path, ".") != "metadata.creationTimestamp" {
		t.Errorf("error %v does not carry the field path", err)
	}
}

func TestIsProtobuf(t *testing.T) {
	for contentType, want := range map[string]bool{
		"application/vnd.kubernetes.protobuf":                  true,
		"application/vnd.kubernetes.protobuf; charset=utf-8":   true,
		"Application/Vnd.Kubernetes.Protobuf":                  true,
		"application/vnd.kubernetes.protobuf;stream=watch":     true,
		"application/json":                                     false,
		"application/yaml":                                     false,
		"application/vnd.kubernetes.protobuf+json":             false,
		"application/vnd.kubernetes.protobuf,application/json": false,
		"": false,
	} {
		if got := IsProtobuf(contentType); got != want {
			t.Errorf("IsProtobuf(%q) = %v, want %v", contentType, got, want)
		}
	}
}

func TestDecodeTypeMeta(t *testing.T) {
	apiVersion, kind, err := DecodeTypeMeta(body(nil))
	if err != nil || apiVersion != "v1" || kind != "Pod" {
		t.Errorf("DecodeTypeMeta = %q, %q, %v; want v1, Pod, nil", apiVersion, kind, err)
	}
	if _, _, err := DecodeTypeMeta([]byte("{}")); err == nil {
		t.Error("DecodeTypeMeta accepted a JSON body")
	}
}

func TestEncodeRejectsNonStructs(t *testing.T) {
	for _, obj := range []any{nil, 42, (*api.Pod)(nil), []api.Pod{}} {
		if _, err := Encode(obj, "v1", "Pod"); err == nil {
			t.Errorf("Encode(%T) succeeded", obj)
		}
	}
}
