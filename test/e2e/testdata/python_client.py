"""Drive kplane with the official Kubernetes Python client (Debian's
python3-kubernetes), the way a user's script would.

Usage: python3 python_client.py KUBECONFIG NAMESPACE

Prints one line per step, "<step>: <what it saw>", and exits non-zero with a
traceback on the first surprise; test/e2e/python_client_test.go compares the
lines with what a Kubernetes 1.32 cluster answers.
"""

import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def step(name, detail):
    print(f"{name}: {detail}", flush=True)


def gone(read):
    """Reports whether read() answers 404."""
    try:
        read()
    except ApiException as e:
        if e.status == 404:
            return True
        raise
    return False


def wait_for(condition, what, timeout=60):
    """Polls condition() until it is truthy; fails naming what it waited for."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout}s for {what}")
        time.sleep(0.2)


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    # VersionApi asks GET /version/ (with the trailing slash).
    version = client.VersionApi().get_code()
    step("version", f"{version.major}.{version.minor} {version.git_version.split('-')[0]}")

    # componentstatuses: probed at the request, the scheduler, the
    # controller-manager and etcd each with one Healthy condition (waited
    # for: a component announces itself a moment after the cluster is up).
    wait_for(lambda: all(cs.conditions[0].status == "True" for cs in core.list_component_status().items),
             "every component Healthy")
    statuses = core.list_component_status().items
    step("component statuses", " ".join(f"{cs.metadata.name}={cs.conditions[0].status}" for cs in statuses))

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    names = [n.metadata.name for n in core.list_namespace().items]
    step("list namespaces", f"default={'default' in names} {ns}={ns in names}")

    # Create a two-container Deployment, then patch one container's image
    # with a strategic-merge patch: the containers list merges by name, so
    # the sidecar survives (a JSON merge patch would replace the list).
    labels = {"app": "web"}
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=1,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[
                    client.V1Container(name="app", image="nginx:1.25"),
                    client.V1Container(name="sidecar", image="busybox:1.36"),
                ]),
            ),
        ),
    )
    created = apps.create_namespaced_deployment(ns, deployment)
    step("create deployment", f"{created.metadata.name} replicas={created.spec.replicas}")
    # The patch below must reach a Deployment whose first ReplicaSet exists:
    # a patch that lands before the controller's first sync leaves only one
    # template ever seen, hence one ReplicaSet.
    wait_for(lambda: len(apps.list_namespaced_replica_set(ns, label_selector="app=web").items) == 1,
             "the Deployment's first ReplicaSet")

    patched = apps.patch_namespaced_deployment(
        "web", ns, {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.26"}]}}}})
    images = ",".join(f"{c.name}={c.image}" for c in patched.spec.template.spec.containers)
    step("strategic-merge patch", images)

    scale = apps.read_namespaced_deployment_scale("web", ns)
    step("read scale", f"{scale.kind} replicas={scale.spec.replicas}")
    scale = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 3}})
    after = apps.read_namespaced_deployment("web", ns)
    step("patch scale", f"scale replicas={scale.spec.replicas} deployment replicas={after.spec.replicas}")

    # Pagination: five ConfigMaps read two at a time through _continue.
    for i in range(5):
        core.create_namespaced_config_map(ns, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=f"page-{i}", labels={"set": "page"})))
    pages, seen, token = [], [], None
    while True:
        page = core.list_namespaced_config_map(ns, label_selector="set=page", limit=2, _continue=token)
        pages.append(len(page.items))
        seen += [cm.metadata.name for cm in page.items]
        token = page.metadata._continue
        if not token:
            break
    step("paginated list", f"pages={pages} names={','.join(seen)}")

    # A watch from a list's resourceVersion sees the create and the update
    # that follow it. The client sends ?watch=True.
    rv = core.list_namespaced_config_map(ns, label_selector="set=watched").metadata.resource_version
    core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="watched", labels={"set": "watched"}), data={"k": "1"}))
    core.patch_namespaced_config_map("watched", ns, {"data": {"k": "2"}})
    events = []
    w = watch.Watch()
    deadline = time.monotonic() + 20
    for event in w.stream(core.list_namespaced_config_map, ns, label_selector="set=watched",
                          resource_version=rv, timeout_seconds=10):
        events.append(f"{event['type']} {event['object'].metadata.name} k={event['object'].data['k']}")
        if len(events) == 2 or time.monotonic() > deadline:
            w.stop()
    step("watch", "; ".join(events))

    # An invalid object: the ApiException carries the Status as its body.
    try:
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="Not_A_Name")))
        step("invalid create", "accepted")
    except ApiException as e:
        status = json.loads(e.body)
        step("invalid create", f"http={e.status} kind={status['kind']} status={status['status']} "
             f"reason={status['reason']} code={status['code']} name={status['details']['name']} "
             f"field={status['details']['causes'][0]['field']}")

    # dry_run="All" answers with the object it would create and stores nothing.
    dry = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="dry")), dry_run="All")
    stored = [cm.metadata.name for cm in core.list_namespaced_config_map(ns).items if cm.metadata.name == "dry"]
    step("dry run", f"answered={dry.metadata.name} stored={bool(stored)}")

    # orphan_dependents=True (sent as ?orphanDependents=True) deletes the
    # Deployment and leaves its ReplicaSets (one per template: the patch
    # made the second) behind, without an owner.
    wait_for(lambda: len(apps.list_namespaced_replica_set(ns, label_selector="app=web").items) == 2,
             "the Deployment's two ReplicaSets")
    apps.delete_namespaced_deployment("web", ns, orphan_dependents=True)
    wait_for(lambda: gone(lambda: apps.read_namespaced_deployment("web", ns)), "the Deployment to be deleted")
    owners = [len(rs.metadata.owner_references or []) for rs in apps.list_namespaced_replica_set(ns, label_selector="app=web").items]
    step("orphan delete", f"deployment gone, replicasets left={len(owners)} with owners={sum(owners)}")

    # Deleting the namespace empties it, then it is gone.
    core.delete_namespace(ns)
    deadline = time.monotonic() + 60
    while True:
        try:
            phase = core.read_namespace(ns).status.phase
        except ApiException as e:
            if e.status != 404:
                raise
            step("delete namespace", "gone (404)")
            break
        if time.monotonic() > deadline:
            step("delete namespace", f"still {phase} after 60s")
            break
        time.sleep(0.2)


if __name__ == "__main__":
    main()
