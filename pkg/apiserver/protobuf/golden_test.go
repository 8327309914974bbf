package protobuf

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// The golden bodies below are written out by hand from the protobuf
// encoding rules (https://protobuf.dev/programming-guides/encoding/) and the
// field numbers in upstream's generated.proto files, not produced by this
// package, so the tests check the codec against the specification rather
// than against itself.
//
// How each byte is derived:
//   - a field key is one varint, (field number << 3) | wire type, so field 1
//     length-delimited is 0x0a, field 2 0x12, field 1 varint 0x08, field 11
//     length-delimited 0x5a;
//   - a length-delimited value is a varint byte count and that many bytes;
//   - a varint holds 7 bits per byte, least significant first, with the top
//     bit set on all bytes but the last: 600 = 0b100_1011000 → d8 04;
//   - a map entry is a message with the key as field 1 and the value as
//     field 2.
//
// Each line is hex followed by a comment; hexBody strips the comments.

// configMapGolden is ConfigMap "x" with data a=b, exactly as Encode writes it
// (and as upstream's generated code does, minus ObjectMeta.selfLink, a field
// kplane's ObjectMeta does not have): non-pointer strings, integers and
// structs are written even when empty.
const configMapGolden = `
6b 38 73 00      # magic "k8s\x00"
0a 0f            # Unknown.typeMeta (field 1, bytes), 15 bytes:
  0a 02 7631                 # apiVersion (1) "v1"
  12 09 436f6e6669674d6170   # kind (2) "ConfigMap"
12 19            # Unknown.raw (field 2, bytes), 25 bytes, the ConfigMap:
  0a 0f          # metadata (1), 15 bytes:
    0a 01 78     # name (1) "x"
    12 00        # generateName (2) ""
    1a 00        # namespace (3) ""
    2a 00        # uid (5) ""
    32 00        # resourceVersion (6) ""
    38 00        # generation (7, varint) 0
    42 00        # creationTimestamp (8), empty message = zero time
  12 06          # data (2), one map entry, 6 bytes:
    0a 01 61     # key (1) "a"
    12 01 62     # value (2) "b"
1a 00            # Unknown.contentEncoding (3) ""
22 00            # Unknown.contentType (4) ""
`

// configMapGoldenObject is what configMapGolden holds.
var configMapGoldenObject = &api.ConfigMap{
	TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
	ObjectMeta: api.ObjectMeta{Name: "x"},
	Data:       map[string]string{"a": "b"},
}

// deploymentGolden is a Deployment written the way a minimal (proto3-style)
// writer would: only the fields that are set, plus one field kplane does
// not know (ObjectMeta.selfLink), which must be skipped. It exercises a
// two-byte length, multi-byte varints, a timestamp, a quantity in a map and
// both kinds of int-or-string.
const deploymentGolden = `
6b 38 73 00      # magic
0a 15            # typeMeta, 21 bytes:
  0a 07 617070732f7631             # apiVersion "apps/v1"
  12 0a 4465706c6f796d656e74       # kind "Deployment"
12 8b 01         # raw, 139 bytes (varint 139 = 0x8b 0x01):
  0a 1b          # metadata (1), 27 bytes:
    0a 03 776562                   # name (1) "web"
    22 00                          # selfLink (4): unknown to kplane, skipped
    42 06                          # creationTimestamp (8), 6 bytes:
      08 80e2cfaa06                #   seconds (1) 1700000000 (2023-11-14T22:13:20Z)
    5a 0a                          # labels (11), one entry:
      0a 03 617070  12 03 776562   #   "app" → "web"
  12 6c          # spec (2), 108 bytes:
    08 02                          # replicas (1, varint) 2
    12 0c                          # selector (2), 12 bytes:
      0a 0a                        #   matchLabels (1), one entry:
        0a 03 617070  12 03 776562 #     "app" → "web"
    1a 35                          # template (3), 53 bytes:
      0a 0c                        #   metadata (1):
        5a 0a                      #     labels (11):
          0a 03 617070  12 03 776562
      12 25                        #   spec (2), PodSpec, 37 bytes:
        12 23                      #     containers (2), one Container, 35 bytes:
          0a 05 6e67696e78         #       name (1) "nginx"
          12 05 6e67696e78         #       image (2) "nginx"
          32 02                    #       ports (6), one ContainerPort:
            18 50                  #         containerPort (3, varint) 80
          42 0f                    #       resources (8), 15 bytes:
            0a 0d                  #         limits (1), one entry, 13 bytes:
              0a 03 637075         #           key "cpu"
              12 06                #           value, a Quantity:
                0a 04 3530306d     #             string (1) "500m"
    22 20                          # strategy (4), 32 bytes:
      0a 0d 526f6c6c696e67557064617465   # type (1) "RollingUpdate"
      12 0f                        #   rollingUpdate (2), 15 bytes:
        0a 04                      #     maxUnavailable (1), an IntOrString:
          08 00  10 01             #       type (1) 0 = int, intVal (2) 1
        12 07                      #     maxSurge (2), an IntOrString:
          08 01  1a 03 323525      #       type (1) 1 = string, strVal (3) "25%"
    48 d8 04                       # progressDeadlineSeconds (9, varint) 600
`

// deploymentGoldenObject is what deploymentGolden holds.
var deploymentGoldenObject = &api.Deployment{
	TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
	ObjectMeta: api.ObjectMeta{
		Name:              "web",
		CreationTimestamp: api.NewTime(time.Unix(1700000000, 0).Local()),
		Labels:            map[string]string{"app": "web"},
	},
	Spec: api.DeploymentSpec{
		Replicas: ptr[int32](2),
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: api.PodTemplateSpec{
			ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{
				Name:      "nginx",
				Image:     "nginx",
				Ports:     []api.ContainerPort{{ContainerPort: 80}},
				Resources: api.ResourceRequirements{Limits: api.ResourceList{"cpu": api.MustParseQuantity("500m")}},
			}}},
		},
		Strategy: api.DeploymentStrategy{
			Type: api.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &api.RollingUpdateDeployment{
				MaxUnavailable: ptr(api.FromInt(1)),
				MaxSurge:       ptr(api.FromString("25%")),
			},
		},
		ProgressDeadlineSeconds: ptr[int32](600),
	},
}

// hexBody turns an annotated hex listing into bytes.
func hexBody(t testing.TB, listing string) []byte {
	t.Helper()
	var digits strings.Builder
	for line := range strings.Lines(listing) {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		t.Fatalf("bad golden listing: %v", err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func TestDecodeGolden(t *testing.T) {
	for _, tc := range []struct {
		name    string
		listing string
		want    any
	}{
		{"ConfigMap", configMapGolden, configMapGoldenObject},
		{"Deployment", deploymentGolden, deploymentGoldenObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := reflect.New(reflect.TypeOf(tc.want).Elem()).Interface()
			if err := Decode(hexBody(t, tc.listing), got); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestEncodeGolden checks the encoder writes exactly the hand-derived bytes
// (for the fixture that follows upstream's always-write-scalars style).
func TestEncodeGolden(t *testing.T) {
	got, err := Encode(configMapGoldenObject, "v1", "ConfigMap")
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if want := hexBody(t, configMapGolden); !bytes.Equal(got, want) {
		t.Errorf("Encode:\n got %x\nwant %x", got, want)
	}
}
