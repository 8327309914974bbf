package ctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/ctl/manifest"
	"kplane/pkg/restmapper"
)

// target is one resource a verb acts on, with the object names the user
// gave; no names means every object (narrowed by -l and --field-selector).
type target struct {
	resource restmapper.APIResource
	names    []string
}

// resolveArgs turns a verb's arguments into targets, the forms kubectl
// accepts:
//
//	TYPE                  pods, po, Pod, deployments.apps, all
//	TYPE[,TYPE…] [NAME…]  the names are looked up in each type
//	TYPE/NAME [TYPE/NAME…]
//
// Consecutive TYPE/NAME arguments of one type share a target, so their
// rows print in one table.
func resolveArgs(m *restmapper.Mapper, args []string, commandPath string) ([]target, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if strings.Contains(args[0], "/") || (len(args) > 1 && strings.Contains(args[1], "/")) {
		var targets []target
		for _, arg := range args {
			typ, name, ok := strings.Cut(arg, "/")
			if !ok {
				return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. '%s resource/<resource_name>' instead of '%s resource resource/<resource_name>'", commandPath, commandPath)
			}
			if typ == "" || name == "" {
				return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name")
			}
			// Names never contain "/": pods/x/y is a mistake, not a pod
			// named "x/y" to ask the server for.
			if strings.Contains(name, "/") {
				return nil, fmt.Errorf("arguments in resource/name form may not have more than one slash")
			}
			r, err := m.ResourceFor(typ)
			if err != nil {
				return nil, err
			}
			if n := len(targets); n > 0 && targets[n-1].resource.GroupResource() == r.GroupResource() {
				targets[n-1].names = append(targets[n-1].names, name)
				continue
			}
			targets = append(targets, target{resource: r, names: []string{name}})
		}
		return targets, nil
	}

	names := args[1:]
	var targets []target
	for _, typ := range strings.Split(args[0], ",") {
		if typ == "" {
			continue
		}
		if strings.EqualFold(typ, "all") {
			for _, r := range m.Category("all") {
				targets = append(targets, target{resource: r, names: names})
			}
			continue
		}
		r, err := m.ResourceFor(typ)
		if err != nil {
			return nil, err
		}
		targets = append(targets, target{resource: r, names: names})
	}
	return targets, nil
}

// distinctResources counts the different resources among targets; kubectl
// prefixes names with their kind when there is more than one.
func distinctResources(targets []target) int {
	seen := map[string]bool{}
	for _, t := range targets {
		seen[t.resource.GroupResource()] = true
	}
	return len(seen)
}

// fileObject is one object of a -f file, with the resource serving it and
// the namespace it goes to.
type fileObject struct {
	source    string
	resource  restmapper.APIResource
	object    map[string]any
	namespace string // "" for cluster-scoped resources
	name      string
}

// readFileObjects reads the -f sources and resolves each object's resource
// and namespace. The objects that could be read come back in order; every
// file or object that could not is an error in the second list, worded as
// kubectl words it. With recursive (-R), directories are read with their
// subdirectories. With validate (apply and create), a missing kind or an
// unknown type is reported as kubectl's schema validation reports it.
func readFileObjects(f *factory, m *restmapper.Mapper, filenames []string, recursive, validate bool) ([]fileObject, []error) {
	namespace, explicit, err := f.Namespace()
	if err != nil {
		return nil, []error{err}
	}
	var objects []fileObject
	var errs []error
	for _, item := range manifest.Read(filenames, recursive, f.in()) {
		if item.Err != nil {
			errs = append(errs, item.Err)
			continue
		}
		obj, err := resolveFileObject(m, item, namespace, explicit, validate)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objects = append(objects, obj)
	}
	return objects, errs
}

// resolveFileObject finds the resource of one manifest object and settles
// its namespace: the object's own, else the command's. An object naming a
// namespace other than an explicit -n is refused, as kubectl refuses it.
func resolveFileObject(m *restmapper.Mapper, item manifest.Item, namespace string, explicit, validate bool) (fileObject, error) {
	obj := item.Object
	if err := checkMetadataTypes(obj); err != nil {
		return fileObject{}, fmt.Errorf("unable to decode %q: %w", item.Source, err)
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	objNamespace, _ := meta["namespace"].(string)

	if apiVersion == "" || kind == "" {
		if validate {
			missing := "kind"
			if apiVersion == "" {
				missing = "apiVersion"
			}
			return fileObject{}, fmt.Errorf("error validating %q: error validating data: %s not set; if you choose to ignore these errors, turn validation off with --validate=false", item.Source, missing)
		}
		data, _ := json.Marshal(obj)
		field := "Kind"
		if apiVersion == "" && kind != "" {
			field = "apiVersion"
		}
		return fileObject{}, fmt.Errorf("unable to decode %q: Object '%s' is missing in '%s'", item.Source, field, data)
	}
	r, err := m.KindFor(apiVersion, kind)
	if err != nil {
		if validate {
			return fileObject{}, fmt.Errorf("error validating %q: error validating data: the server could not find the requested resource; if you choose to ignore these errors, turn validation off with --validate=false", item.Source)
		}
		return fileObject{}, fmt.Errorf("resource mapping not found for name: %q namespace: %q from %q: %w\nensure CRDs are installed first", name, objNamespace, item.Source, err)
	}

	out := fileObject{source: item.Source, resource: r, object: obj, name: name}
	if r.Namespaced {
		switch {
		case objNamespace == "":
			out.namespace = namespace
			if meta == nil {
				meta = map[string]any{}
				obj["metadata"] = meta
			}
			meta["namespace"] = namespace
		case explicit && objNamespace != namespace:
			return fileObject{}, fmt.Errorf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", objNamespace, namespace, objNamespace)
		default:
			out.namespace = objNamespace
		}
	}
	return out, nil
}

// checkMetadataTypes refuses an object whose apiVersion or metadata has
// the wrong JSON type (namespace: 5, annotations: foo), with the message
// kubectl's decoder gives; reading such fields as absent would create the
// object somewhere else or drop what the file says. A kind of the wrong
// type is reported as a missing kind, as kubectl does.
func checkMetadataTypes(obj map[string]any) error {
	if err := checkJSONType(obj["apiVersion"], "string", "metadataOnlyObject.apiVersion", "string"); err != nil {
		return err
	}
	if err := checkJSONType(obj["metadata"], "object", "metadataOnlyObject.metadata", "v1.ObjectMeta"); err != nil {
		return err
	}
	meta, _ := obj["metadata"].(map[string]any)
	for _, field := range []string{"name", "namespace"} {
		if err := checkJSONType(meta[field], "string", "ObjectMeta.metadata."+field, "string"); err != nil {
			return err
		}
	}
	for _, field := range []string{"labels", "annotations"} {
		goField := "ObjectMeta.metadata." + field
		if err := checkJSONType(meta[field], "object", goField, "map[string]string"); err != nil {
			return err
		}
		values, _ := meta[field].(map[string]any)
		for _, key := range slices.Sorted(maps.Keys(values)) {
			if err := checkJSONType(values[key], "string", goField, "string"); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkJSONType returns encoding/json's error for a decoded value that is
// not of the JSON type want; absent (nil) values are fine.
func checkJSONType(v any, want, goField, goType string) error {
	got := jsonTypeName(v)
	if got == "" || got == "null" || got == want {
		return nil
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", got, goField, goType)
}

// jsonTypeName names the JSON type of a decoded value as encoding/json's
// errors do; "" for a value that is absent.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return ""
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number, float64, float32, int, int64, int32, uint64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// errNoFilenames is what a verb that needs -f says without one.
var errNoFilenames = errors.New("must specify one of -f and -k")

// errNoResources is what kubectl's resource builder says when a verb that
// needs objects was given neither arguments nor files.
var errNoResources = errors.New("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
