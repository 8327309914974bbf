// Package informer is kplane's informer stack: how a controller, the
// scheduler or a kubelet keeps an up-to-date, in-memory copy of the objects
// it cares about and learns about every change, without asking the
// apiserver again and again. It mirrors client-go's tools/cache, written
// afresh so that each mechanism can be read in one file.
//
// An object travels through five stages on its way from etcd to a
// controller's reconcile loop:
//
//	apiserver
//	   │  LIST, then WATCH from the list's resourceVersion
//	   ▼
//	Reflector             reflector.go, listwatch.go, backoff.go
//	   │  Add / Update / Delete / Replace
//	   ▼
//	DeltaFIFO             delta_fifo.go: per-key Deltas, tombstones, resync
//	  (or RealFIFO)       real_fifo.go: one item per event, in order
//	   │  Pop
//	   ▼
//	handleDeltas ──────────────▶ Indexer     thread_safe_store.go, index.go,
//	   │  shared_informer.go        ▲        store.go, keys.go
//	   ▼                            │
//	event handlers                  │ List / Get (never the network)
//	   │  processor.go, handler.go  │
//	   ▼  key                    Lister[T]   listers.go
//	workqueue                       ▲
//	   │  package workqueue         │
//	   ▼  Get                       │
//	controller's sync(key) ─────────┘
//
// The Reflector lists every object once, then watches for changes from the
// list's resourceVersion. When the watch ends it resumes from the last
// resourceVersion it saw; when the apiserver answers 410 Gone (that
// revision was compacted away) it lists again, and the relist is handed to
// the DeltaFIFO as one Replace.
//
// The DeltaFIFO keeps, for every object, the list of things that happened
// to it since the consumer last looked, and hands objects out in the order
// they first changed. Its Replace is where missed deletions surface: a key
// the consumer knows but the relist lacks gets a Deleted delta carrying a
// DeletedFinalStateUnknown tombstone. Its Resync re-delivers every cached
// object as a Sync delta, giving controllers a periodic second chance.
//
// The shared informer pops the DeltaFIFO, applies each delta to the
// Indexer — a thread-safe map from key ("namespace/name") to object with
// secondary indexes by namespace, owner UID, node name and label — and
// then notifies every registered handler. Handlers do no work themselves:
// they compute the object's key and add it to a controller's workqueue.
// Workers take keys off the queue and reconcile, reading current state from
// Listers, which are typed views of the Indexer. Objects in the Indexer
// are shared by every reader; nobody may modify them without first copying
// them with api.DeepCopy.
//
// The SharedInformerFactory (factory.go, factory_kinds.go, options.go)
// makes sure a process runs one reflector per resource however many
// controllers want it. Dynamic informers (dynamic.go) serve resources
// found at run time, such as custom resources, with objects as
// *api.CustomObject: typed metadata, the rest JSON maps. The optional
// teaching trace (trace.go) reports each
// stage an object passes — list or watch, delta, store, handler, enqueue —
// so a student can follow one Pod through the whole pipeline.
//
// Upstream has replaced the DeltaFIFO by a simpler RealFIFO since 1.33:
// one item per event, handed out in arrival order, nothing merged
// (real_fifo.go). kplane runs the DeltaFIFO by default because its
// per-object histories, tombstones and deduplication are exactly what this
// package is here to teach; WithFIFO(FIFOReal) runs the RealFIFO instead,
// so the two can be compared (fifo.go, docs/lesson-informer-fifo.md).
//
// # Using kplane's client and informers in your own controller
//
// The informers are a public API too. For a kind of your own — a Go type
// embedding api.TypeMeta and api.ObjectMeta, served where a client.Resource
// says (see the client package) — ForResource gives the factory's shared
// informer and a typed Lister, exactly what the factory's Pods() or
// Deployments() give for built-in kinds:
//
//	factory := informer.NewSharedInformerFactory(c, 0)
//	websites := informer.ForResource[*Website](factory, websitesResource)
//	websites.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
//		AddFunc:    func(obj api.Object) { enqueue(obj) },
//		UpdateFunc: func(_, obj api.Object) { enqueue(obj) },
//		DeleteFunc: func(obj any) { enqueue(obj) }, // may be a DeletedFinalStateUnknown
//	})
//	factory.Start(ctx)
//	factory.WaitForCacheSync(ctx)
//	site, err := websites.Lister().Namespace("default").Get("hello") // from the cache
//
// The handlers only compute a key (DeletionHandlingMetaNamespaceKeyFunc)
// and add it to a rate-limited queue (package workqueue); workers take keys
// off it and reconcile from the listers. ExampleForResource
// (example_test.go) runs this against the fake apiserver, and
// examples/controller is a complete controller built on it
// (docs/write-a-controller.md).
//
// The unstructured path: a program that handles kinds chosen at run time
// (the garbage collector and the namespace controller do, for every
// custom resource discovery lists) asks ForDynamicResource for an
// informer whose objects are *api.CustomObject — metadata typed as every
// object's, spec and status JSON maps — and reads fields from Content. A
// controller for one known kind takes the typed path above.
package informer
