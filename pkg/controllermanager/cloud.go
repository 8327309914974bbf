package controllermanager

import (
	"slices"
	"strings"
)

// CloudControllers maps the names kube-controller-manager's --controllers
// knows for its cloud controllers (older and newer spellings) to the
// cloud-controller-manager controller that does that job in kplane. Like
// an upstream cluster whose cloud provider is external
// (--cloud-provider=external), kplane runs them in the
// cloud-controller-manager (cmd/cloud-controller-manager), not here:
// naming one is no error, and the manager says where it runs.
var CloudControllers = map[string]string{
	"cloud-node-lifecycle":            "cloud-node-lifecycle",
	"cloud-node-lifecycle-controller": "cloud-node-lifecycle",
	"route":                           "node-route",
	"node-route-controller":           "node-route",
	"service":                         "service-lb",
	"service-lb-controller":           "service-lb",
}

// cloudControllersNamed returns the entries of selection that name a cloud
// controller ("route", "-service"…), in order.
func cloudControllersNamed(selection []string) []string {
	var named []string
	for _, entry := range selection {
		if _, ok := CloudControllers[strings.TrimPrefix(entry, "-")]; ok {
			named = append(named, entry)
		}
	}
	return named
}

// withoutCloudControllers is selection without the entries naming a cloud
// controller.
func withoutCloudControllers(selection []string) []string {
	return slices.DeleteFunc(slices.Clone(selection), func(entry string) bool {
		_, ok := CloudControllers[strings.TrimPrefix(entry, "-")]
		return ok
	})
}
