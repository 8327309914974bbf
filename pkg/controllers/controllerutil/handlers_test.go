package controllerutil

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

func TestAddEventHandlers(t *testing.T) {
	newInformer := func() informer.SharedIndexInformer {
		return informer.NewSharedIndexInformer(nil, &api.Pod{}, time.Minute, nil)
	}
	pods, nodes := newInformer(), newInformer()
	synced, err := AddEventHandlers("test",
		Handlers{Informer: pods, Handler: informer.ResourceEventHandlerFuncs{}},
		Handlers{Informer: nodes, Handler: informer.ResourceEventHandlerFuncs{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 {
		t.Fatalf("got %d HasSynced functions, want one per registration", len(synced))
	}
	// Nothing has run: no cache has synced.
	for i, hasSynced := range synced {
		if hasSynced() {
			t.Errorf("registration %d reports synced before its informer ran", i)
		}
	}

	// A nil handler is refused, and the error names the controller.
	_, err = AddEventHandlers("deployment controller", Handlers{Informer: newInformer(), Handler: nil})
	if err == nil || !strings.HasPrefix(err.Error(), "deployment controller: add event handler: ") {
		t.Errorf("err = %v", err)
	}
}
