package informer_test

// A runnable example of an informer over a type of the reader's own,
// against fakeapi (the fake apiserver of kplane's controller tests) taught
// to serve the custom resource as the apiserver does once its
// CustomResourceDefinition is applied. fakeapi serves lists but no
// watches, so this informer syncs from its first list and its reflector
// then retries the watch quietly until the example stops it.

import (
	"context"
	"fmt"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/test/framework/fakeapi"
)

// CronTab is upstream's classic custom resource (stable.example.com/v1):
// embedding api.TypeMeta and api.ObjectMeta makes it an api.Object, which
// is all an informer needs.
type CronTab struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           struct {
		CronSpec string `json:"cronSpec"`
		Image    string `json:"image"`
	} `json:"spec"`
}

var cronTabs = client.Resource{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab", Namespaced: true}

// A controller asks the shared factory for an informer of its own kind with
// ForResource, puts event handlers on it that enqueue keys, starts the
// factory and waits for the cache; its sync then reads through the typed
// lister, never the network.
func ExampleForResource() {
	server, stop := fakeapi.NewForExample(fakeapi.WithKind(cronTabs, func() api.Object { return &CronTab{} }))
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := server.Client()
	for _, name := range []string{"backup", "report"} {
		ct := &CronTab{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"team": "ops"}}}
		ct.Spec.CronSpec = "0 3 * * *"
		if _, err := client.For[*CronTab](c, cronTabs).Create(ctx, ct, client.CreateOptions{}); err != nil {
			panic(err)
		}
	}

	factory := informer.NewSharedInformerFactory(c, 0, informer.WithLogger(slog.New(slog.DiscardHandler)))
	defer factory.Shutdown()
	crontabs := informer.ForResource[*CronTab](factory, cronTabs)
	// A handler only computes the key and hands it on — to a workqueue in
	// a controller, to a channel here.
	keys := make(chan string, 10)
	reg, err := crontabs.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj api.Object) {
			key, _ := informer.MetaNamespaceKeyFunc(obj)
			keys <- key
		},
	})
	if err != nil {
		panic(err)
	}
	factory.Start(ctx)
	// The handler's HasSynced: true once the handler has seen every object
	// of the first list.
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		panic("cache did not sync")
	}
	fmt.Println("handler saw", len(keys), "adds")

	backup, err := crontabs.Lister().Namespace("default").Get("backup")
	if err != nil {
		panic(err)
	}
	fmt.Println("lister:", backup.Name, backup.Spec.CronSpec)
	_, err = crontabs.Lister().Namespace("default").Get("nightly")
	fmt.Println("missing:", err)
	// Output:
	// handler saw 2 adds
	// lister: backup 0 3 * * *
	// missing: crontabs.stable.example.com "nightly" not found
}
