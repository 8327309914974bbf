package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// MaxConfigSize is the most bytes a ConfigMap's or Secret's data may hold
// (1 MiB, as upstream): each is stored in etcd as one value, and mounted into
// every pod that uses it.
const MaxConfigSize = 1 << 20

// The keys a Secret of each built-in type must carry.
const (
	serviceAccountNameAnnotation = "kubernetes.io/service-account.name"
	dockerConfigKey              = ".dockercfg"
	dockerConfigJSONKey          = ".dockerconfigjson"
	sshPrivateKeyKey             = "ssh-privatekey"
	tlsCertKey                   = "tls.crt"
	tlsPrivateKeyKey             = "tls.key"
	basicAuthUsernameKey         = "username"
	basicAuthPasswordKey         = "password"
)

// immutableWhenSet is upstream's detail for editing an immutable ConfigMap or Secret.
const immutableWhenSet = "field is immutable when `immutable` is set"

// validateConfigKeys checks the keys of a data map (each becomes a file name
// when mounted) and adds their sizes to *total.
func validateConfigKeys[V string | []byte](data map[string]V, fldPath string, total *int) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, k := range sortedKeys(data) {
		for _, msg := range IsConfigMapKey(k) {
			allErrs = append(allErrs, errors.Invalid(key(fldPath, k), k, msg))
		}
		*total += len(data[k])
	}
	return allErrs
}

// validateConfigMap checks a ConfigMap: valid keys, no key in both data and
// binaryData, and at most 1 MiB in all.
func validateConfigMap(cm *api.ConfigMap) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&cm.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateConfigMapData(cm)...)
}

func validateConfigMapData(cm *api.ConfigMap) errors.FieldErrorList {
	total := 0
	allErrs := validateConfigKeys(cm.Data, "data", &total)
	allErrs = append(allErrs, validateConfigKeys(cm.BinaryData, "binaryData", &total)...)
	for _, k := range sortedKeys(cm.BinaryData) {
		if _, ok := cm.Data[k]; ok {
			allErrs = append(allErrs, errors.Invalid(key("binaryData", k), k, "duplicate of key present in data"))
		}
	}
	if total > MaxConfigSize {
		allErrs = append(allErrs, tooLong("data", MaxConfigSize))
	}
	return allErrs
}

// validateConfigMapUpdate checks an update; an immutable ConfigMap's data,
// and its immutability, are fixed (the kubelet stops watching it).
func validateConfigMapUpdate(cm, old *api.ConfigMap) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, "metadata")
	if isTrue(old.Immutable) {
		if !isTrue(cm.Immutable) {
			allErrs = append(allErrs, errors.Forbidden("immutable", immutableWhenSet))
		}
		if !semanticEqual(cm.Data, old.Data) {
			allErrs = append(allErrs, errors.Forbidden("data", immutableWhenSet))
		}
		if !semanticEqual(cm.BinaryData, old.BinaryData) {
			allErrs = append(allErrs, errors.Forbidden("binaryData", immutableWhenSet))
		}
	}
	return append(allErrs, validateConfigMapData(cm)...)
}

// validateSecret checks a Secret: valid keys, at most 1 MiB, and the keys
// its type promises (a kubernetes.io/tls Secret has tls.crt and tls.key).
// stringData is checked too, in case it has not yet been folded into data.
func validateSecret(s *api.Secret) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&s.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateSecretData(s)...)
}

func validateSecretData(s *api.Secret) errors.FieldErrorList {
	total := 0
	allErrs := validateConfigKeys(s.Data, "data", &total)
	allErrs = append(allErrs, validateConfigKeys(s.StringData, "stringData", &total)...)
	if total > MaxConfigSize {
		allErrs = append(allErrs, tooLong("data", MaxConfigSize))
	}
	has := func(k string) bool {
		if _, ok := s.Data[k]; ok {
			return true
		}
		_, ok := s.StringData[k]
		return ok
	}
	requireKeys := func(keys ...string) {
		for _, k := range keys {
			if !has(k) {
				allErrs = append(allErrs, errors.Required(key("data", k), ""))
			}
		}
	}
	switch s.Type {
	case api.SecretTypeServiceAccountToken:
		if s.Annotations[serviceAccountNameAnnotation] == "" {
			allErrs = append(allErrs, errors.Required(key("metadata.annotations", serviceAccountNameAnnotation), ""))
		}
	case api.SecretTypeDockercfg:
		requireKeys(dockerConfigKey)
	case api.SecretTypeDockerConfigJSON:
		requireKeys(dockerConfigJSONKey)
	case api.SecretTypeBasicAuth:
		if !has(basicAuthUsernameKey) && !has(basicAuthPasswordKey) {
			allErrs = append(allErrs, errors.Required("data[username]", ""), errors.Required("data[password]", ""))
		}
	case api.SecretTypeSSHAuth:
		requireKeys(sshPrivateKeyKey)
	case api.SecretTypeTLS:
		requireKeys(tlsCertKey, tlsPrivateKeyKey)
	}
	return allErrs
}

// validateSecretUpdate checks an update: a Secret's type never changes, and
// an immutable Secret's data is fixed.
func validateSecretUpdate(s, old *api.Secret) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, ValidateImmutableField(string(secretTypeOrDefault(s.Type)), string(secretTypeOrDefault(old.Type)), "type")...)
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			allErrs = append(allErrs, errors.Forbidden("immutable", immutableWhenSet))
		}
		if !semanticEqual(s.Data, old.Data) || len(s.StringData) > 0 {
			allErrs = append(allErrs, errors.Forbidden("data", immutableWhenSet))
		}
	}
	return append(allErrs, validateSecretData(s)...)
}

// validateServiceAccount checks a ServiceAccount: its name only.
func validateServiceAccount(sa *api.ServiceAccount) errors.FieldErrorList {
	return ValidateObjectMeta(&sa.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
}

// secretTypeOrDefault is the type a Secret has once defaulted.
func secretTypeOrDefault(t api.SecretType) api.SecretType {
	if t == "" {
		return api.SecretTypeOpaque
	}
	return t
}

// isTrue reports whether an optional flag is set and true.
func isTrue(b *bool) bool { return b != nil && *b }
