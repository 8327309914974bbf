package store

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter"
)

// inProcessWatch is the embedded etcd's watch service, called in the
// apiserver's own process through etcd's adapter (as etcd's own v3client
// does) instead of over a gRPC stream on loopback: an event is handed over
// as the server's Go value, not encoded, framed, sent and decoded again.
//
// Only a single-member embedded etcd uses it. The one thing the gRPC path
// adds that the adapter skips is etcd's stream interceptor, whose only check
// kplane relies on is WithRequireLeader (end the watch when the member loses
// its leader); a lone member is always its own leader, so there is nothing
// for it to catch. A member of a multi-member cluster keeps gRPC watches.
type inProcessWatch struct {
	client pb.WatchClient
	// closed is closed when the embedded etcd shuts down. A gRPC watch
	// ends when its connection closes; an in-process one would wait for
	// events forever, so each watch ends with an Error event on this.
	closed <-chan struct{}
}

func newInProcessWatch(server *etcdserver.EtcdServer, closed <-chan struct{}) *inProcessWatch {
	return &inProcessWatch{
		client: adapter.WatchServerToWatchClient(v3rpc.NewWatchServer(server)),
		closed: closed,
	}
}

// newWatcher returns a clientv3 watcher whose streams are in-process. Each
// of its Watch calls opens a stream of its own, as over gRPC.
func (p *inProcessWatch) newWatcher(c *clientv3.Client) clientv3.Watcher {
	return clientv3.NewWatchFromWatchClient(p.client, c)
}
