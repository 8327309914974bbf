package client

// builtinGroupResources holds every resource kplane compiles in, in any
// version it serves, by "<resource>.<group>" (Resource.String).
var builtinGroupResources = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range append(BuiltinResources(),
		EventsV1EventsResource, HorizontalPodAutoscalersV1Resource,
		NodeMetricsResource, PodMetricsResource) {
		m[r.String()] = true
	}
	return m
}()

// IsBuiltin reports whether res is one of kplane's compiled-in resources,
// in any version — as opposed to one discovery reports beside them, such
// as a custom resource. Code that walks every resource discovery lists
// (the garbage collector, the namespace controller) handles the built-in
// ones through their fixed lists and only the others dynamically.
func IsBuiltin(res Resource) bool {
	return builtinGroupResources[res.String()]
}
