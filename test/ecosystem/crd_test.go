package ecosystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"kplane/test/framework"
)

// guestbookCRDFile is the Guestbook's CustomResourceDefinition: the file the
// Helm chart ships in crds/, which the controller-runtime judge applies
// itself.
var guestbookCRDFile = filepath.Join("testdata", "charts", "guestbook", "crds", "guestbooks.yaml")

// requireCRDsServed fails the test — never skips it — when the cluster does
// not serve apiextensions.k8s.io/v1: a CRD judge that quietly skipped would
// report kplane as compatible when it is not.
func requireCRDsServed(t testing.TB, cfg *rest.Config) {
	t.Helper()
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatalf("discovery client: %v", err)
	}
	resources, err := disco.ServerResourcesForGroupVersion(apiextensionsv1.SchemeGroupVersion.String())
	if err != nil {
		t.Fatalf("kplane does not serve %s, which this judge needs (issue 19: CustomResourceDefinitions): discovery answered: %v",
			apiextensionsv1.SchemeGroupVersion, err)
	}
	for _, r := range resources.APIResources {
		if r.Name == "customresourcedefinitions" {
			return
		}
	}
	t.Fatalf("kplane serves %s but not customresourcedefinitions in it (issue 19); discovery lists %+v",
		apiextensionsv1.SchemeGroupVersion, resources.APIResources)
}

// crdScheme is client-go's built-in kinds, apiextensions.k8s.io/v1 and the
// Guestbook kind.
func crdScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	scheme := newAppScheme(t)
	for _, add := range []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme, guestbookSchemeBuilder.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatalf("build the scheme: %v", err)
		}
	}
	return scheme
}

// readGuestbookCRD decodes the Guestbook's CustomResourceDefinition file.
func readGuestbookCRD(t testing.TB) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(guestbookCRDFile)
	if err != nil {
		t.Fatalf("read the guestbook CRD: %v", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("decode %s: %v", guestbookCRDFile, err)
	}
	return &crd
}

// waitEstablished waits until the CRD named name has accepted its names and
// is Established: from then on its custom resources are served.
func waitEstablished(t testing.TB, kube client.Client, name string) {
	t.Helper()
	framework.Eventually(t, time.Minute, func() (bool, string) {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := kube.Get(context.Background(), client.ObjectKey{Name: name}, &crd); err != nil {
			return false, err.Error()
		}
		conditions := map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{}
		for _, c := range crd.Status.Conditions {
			conditions[c.Type] = c.Status
		}
		ok := conditions[apiextensionsv1.NamesAccepted] == apiextensionsv1.ConditionTrue &&
			conditions[apiextensionsv1.Established] == apiextensionsv1.ConditionTrue
		return ok, fmt.Sprintf("CRD %s conditions %+v", name, crd.Status.Conditions)
	})
}
