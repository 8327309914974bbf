package endpoints

import (
	"context"
	"log/slog"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made, in order
// (ExpectActions), and checks what they sent. The Service and pods come
// from controllertest's shared fixtures.

// fixture is a controller built on a fakeapi server.
type fixture struct {
	server *fakeapi.Server
	ctrl   *Controller
	events *events.FakeRecorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, ctrl: ctrl, events: recorder}
}

// sync runs one sync of the Service "default/web".
func (f *fixture) sync(t *testing.T) error {
	t.Helper()
	return f.ctrl.sync(context.Background(), "default/web")
}

// addr is the address controllertest.WebPod(name, ip) gets on node-1.
func addr(name, ip string) api.EndpointAddress {
	node := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &node,
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: name, UID: "uid-" + name}}
}

func tcp(name string, port int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: port, Protocol: api.ProtocolTCP}
}
