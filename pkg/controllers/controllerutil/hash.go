package controllerutil

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"kplane/pkg/api"
)

// safeAlphabet is upstream's "safe" alphabet (k8s.io/apimachinery's
// rand.SafeEncodeString): no vowels, so a generated name never spells a
// word, and no characters that look alike (0/o, 1/l/i, 3/e).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// SafeEncodeString maps every byte of s onto safeAlphabet. Applied to the
// decimal digits of a hash it gives the familiar pod-template-hash values
// such as "6b558d4747": each digit character becomes one letter or digit.
func SafeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = safeAlphabet[int(s[i])%len(safeAlphabet)]
	}
	return string(out)
}

// ComputeHash returns the pod-template-hash of template: the Deployment
// controller names a ReplicaSet "<deployment>-<hash>" and adds the hash as
// a label to the ReplicaSet's selector, template and pods, so the pods of
// two templates never mix.
//
// The hash is FNV-32a over the template's JSON (Go's encoder sorts map keys,
// so the encoding is canonical) followed, when collisionCount is set, by
// the count as 8 little-endian bytes, as upstream's controllerutil.ComputeHash
// does. Bumping status.collisionCount therefore yields a new name when a
// different ReplicaSet already holds the one the template hashes to. The
// 32-bit sum is written in decimal and passed through SafeEncodeString.
//
// Upstream hashes a spew dump of the Go struct instead of JSON, so kplane's
// hashes differ from a real cluster's for the same template; what matters,
// and what is kept, is that the hash is stable for one template.
func ComputeHash(template *api.PodTemplateSpec, collisionCount *int32) string {
	hasher := fnv.New32a()
	// A PodTemplateSpec holds only JSON-encodable values, so Marshal
	// cannot fail; were it ever to, every template would hash alike and
	// the AlreadyExists check on create would catch the collision.
	encoded, _ := json.Marshal(template)
	hasher.Write(encoded)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		hasher.Write(b)
	}
	return SafeEncodeString(strconv.FormatUint(uint64(hasher.Sum32()), 10))
}
