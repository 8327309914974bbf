// The ownership graph's storage links, in a real browser: the seeds'
// nginx-ss StatefulSet (examples/statefulset.yaml) given a
// volumeClaimTemplate, so each of its pods gets a PersistentVolumeClaim,
// which the persistentvolume controller binds to one of two
// PersistentVolumes made beforehand. graph_test.go runs it with:
//   KPLANE_UI_LOGIN     the one-time login link `ctl ui` printed
//   KPLANE_ARTIFACT_DIR where the screenshots go
//   KPLANE_KUBECTL, KUBECONFIG, HOME   how to run the real kubectl
//   KPLANE_PV_DIR       a directory for the volumes' hostPaths
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const artifacts = env("KPLANE_ARTIFACT_DIR");
const pvDir = env("KPLANE_PV_DIR");

const volume = (name) => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  capacity:
    storage: 1Gi
  hostPath:
    path: ${join(pvDir, name)}
`;
const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: nginx-ss
spec:
  serviceName: nginx-ss
  replicas: 2
  selector:
    matchLabels:
      app: nginx-ss
  template:
    metadata:
      labels:
        app: nginx-ss
    spec:
      containers:
        - name: nginx-ss
          image: nginx:1.27.0
          volumeMounts:
            - name: www
              mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
    - metadata:
        name: www
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 1Gi
`;
const manifest = join(artifacts, "nginx-ss-with-storage.yaml");
writeFileSync(manifest, [volume("pv001"), volume("pv002"), statefulSet].join("---\n"));

// bothChainsWhole finds, for each nginx-ss pod, the path StatefulSet → Pod
// (owns) → PVC (uses) → PV (bound) in the graph: true when both are whole.
const bothChainsWhole = () => {
  const set = document.querySelector("#graph li[data-graph-kind='StatefulSet'][data-graph-name='nginx-ss']");
  if (!set) return false;
  let whole = 0;
  for (const ordinal of [0, 1]) {
    const pod = set.querySelector(`li[data-graph-kind='Pod'][data-graph-name='nginx-ss-${ordinal}'][data-graph-relation='owns']`);
    const claim = pod?.querySelector(`li[data-graph-kind='PersistentVolumeClaim'][data-graph-name='www-nginx-ss-${ordinal}'][data-graph-relation='uses']`);
    const bound = claim?.querySelector("li[data-graph-kind='PersistentVolume'][data-graph-relation='bound']");
    // The words, not only the indentation, say what each arrow is.
    if (bound && claim.querySelector(":scope > .relation")?.textContent.startsWith("uses")
      && bound.querySelector(":scope > .relation")?.textContent.startsWith("bound to")) whole++;
  }
  return whole === 2;
};

await withBrowser(async (page) => {
  await page.goto(env("KPLANE_UI_LOGIN"));
  await waitFor(page, "the stream is live", () => document.getElementById("connection").dataset.state === "live");

  kubectl("apply", "-f", manifest);
  await waitFor(page, "StatefulSet → Pod → PVC → PV for nginx-ss-0 and nginx-ss-1", bothChainsWhole);
  // The claims are not owned by the pods: no PVC sits under an "owns" arrow.
  const ownedClaims = await page.evaluate(() =>
    document.querySelectorAll("#graph li[data-graph-kind='PersistentVolumeClaim'][data-graph-relation='owns']").length);
  if (ownedClaims !== 0) throw new Error(`${ownedClaims} claims drawn as owned; their ownerReferences are empty`);
  await page.locator("#graph").screenshot({ path: join(artifacts, "graph-nginx-ss-storage.png") });
});
