package client_test

// Runnable examples of the client on a type of the reader's own: they run
// against fakeapi, the recording fake apiserver of kplane's controller
// tests, taught to serve the custom resource as the apiserver does once its
// CustomResourceDefinition is applied.

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework/fakeapi"
)

// CronTab is upstream's classic custom resource
// (stable.example.com/v1): embedding api.TypeMeta and api.ObjectMeta is
// all it takes to make it an api.Object that the typed client handles.
type CronTab struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           CronTabSpec   `json:"spec"`
	Status         CronTabStatus `json:"status,omitempty"`
}

// CronTabSpec is what the user asks for.
type CronTabSpec struct {
	CronSpec string `json:"cronSpec"`
	Image    string `json:"image"`
	Replicas int32  `json:"replicas,omitempty"`
}

// CronTabStatus is what a controller reports.
type CronTabStatus struct {
	LastScheduleTime string `json:"lastScheduleTime,omitempty"`
}

// cronTabs is where the apiserver serves CronTabs: the CRD's group,
// version, plural and kind.
var cronTabs = client.Resource{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab", Namespaced: true}

// A controller's own kind is read and written with client.For, typed by
// its Go type, exactly like a Pod.
func ExampleFor() {
	server, stop := fakeapi.NewForExample(fakeapi.WithKind(cronTabs, func() api.Object { return &CronTab{} }))
	defer stop()
	ctx := context.Background()

	crontabs := client.For[*CronTab](server.Client(), cronTabs).Namespace("default")
	created, err := crontabs.Create(ctx, &CronTab{
		ObjectMeta: api.ObjectMeta{Name: "backup"},
		Spec:       CronTabSpec{CronSpec: "0 3 * * *", Image: "backup:1.0"},
	}, client.CreateOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("created", created.Namespace+"/"+created.Name, created.APIVersion, created.Kind)

	// A controller reports what it saw through the status subresource,
	// which leaves the spec alone.
	created.Status.LastScheduleTime = "2026-11-28T03:00:00Z"
	if _, err := crontabs.UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
		panic(err)
	}
	list, err := crontabs.List(ctx, client.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, ct := range list.Items {
		fmt.Println("listed", ct.Name, ct.Spec.CronSpec, "last run", ct.Status.LastScheduleTime)
	}
	// Output:
	// created default/backup stable.example.com/v1 CronTab
	// listed backup 0 3 * * * last run 2026-11-28T03:00:00Z
}

// Without a Go type — a tool that handles any kind, such as kubectl apply
// or the garbage collector — objects are JSON maps, through the dynamic
// client. Whole numbers come back as int64.
func ExampleClient_Dynamic() {
	server, stop := fakeapi.NewForExample(fakeapi.WithKind(cronTabs, func() api.Object { return &CronTab{} }))
	defer stop()
	ctx := context.Background()

	crontabs := server.Client().Dynamic(cronTabs).Namespace("default")
	_, err := crontabs.Create(ctx, map[string]any{
		"apiVersion": "stable.example.com/v1",
		"kind":       "CronTab",
		"metadata":   map[string]any{"name": "report", "labels": map[string]any{"team": "finance"}},
		"spec":       map[string]any{"cronSpec": "*/5 * * * *", "image": "report:2", "replicas": 2},
	}, client.CreateOptions{})
	if err != nil {
		panic(err)
	}
	obj, err := crontabs.Get(ctx, "report", client.GetOptions{})
	if err != nil {
		panic(err)
	}
	spec := obj["spec"].(map[string]any)
	fmt.Printf("%s every %q, replicas %d (%T)\n", obj["metadata"].(map[string]any)["name"], spec["cronSpec"], spec["replicas"], spec["replicas"])
	// Output:
	// report every "*/5 * * * *", replicas 2 (int64)
}
