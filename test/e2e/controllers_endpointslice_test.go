package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// endpointSliceManifest is a Service over a 3-replica Deployment whose
// pods name their port "http", which the Service targets by name.
const endpointSliceManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 3
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: web
        image: nginx:1.27.0
        ports:
        - containerPort: 80
          name: http
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector:
    app: shop
  ports:
  - name: web
    port: 8080
    targetPort: http
`

// sliceRow is one row of `kubectl get endpointslices`:
// NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
type sliceRow struct {
	name, addressType, ports, endpoints string
}

// sliceRows parses `kubectl get endpointslices --no-headers`.
func sliceRows(out string) []sliceRow {
	var rows []sliceRow
	for _, line := range nonEmptyLines(out) {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		// ENDPOINTS may read "a,b,c + 2 more...": it runs up to the AGE.
		rows = append(rows, sliceRow{name: f[0], addressType: f[1], ports: f[2], endpoints: strings.Join(f[3:len(f)-1], " ")})
	}
	return rows
}

// endpointCount is how many addresses an ENDPOINTS cell stands for:
// "a,b,c" is 3, "a,b,c + 2 more..." is 5, "<unset>" is 0.
func endpointCount(cell string) int {
	if cell == "<unset>" {
		return 0
	}
	listed, more, _ := strings.Cut(cell, " + ")
	n := len(strings.Split(listed, ","))
	if more != "" {
		var extra int
		fmt.Sscanf(more, "%d more...", &extra)
		n += extra
	}
	return n
}

// sortedAddresses splits an ENDPOINTS cell "a,b,c" into its sorted addresses.
func sortedAddresses(cell string) []string {
	fields := strings.Split(cell, ",")
	slices.Sort(fields)
	return fields
}

// TestControllersEndpointSlicesFollowDeployment: a Service over a
// 3-replica Deployment gets an EndpointSlice that `kubectl get
// endpointslices -l kubernetes.io/service-name=shop` shows with the three
// pod IPs and the resolved target port; scaling to 5 and to 1 follows;
// `kubectl describe svc` lists the endpoints; deleting the Service lets
// the garbage collector delete its slices.
func TestControllersEndpointSlicesFollowDeployment(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	cl := c.Client(t)
	applyYAML(t, c, endpointSliceManifest)

	get := []string{"get", "endpointslices", "-l", api.LabelServiceName + "=shop", "--no-headers"}
	podIPsNow := func() []string { return podIPs(listPods(t, cl, "default", "app=shop")) }
	waitSliceEndpoints := func(n int) []sliceRow {
		t.Helper()
		var rows []sliceRow
		waitKubectl(t, c, controllersTimeout, func(out string) bool {
			rows = sliceRows(out)
			ips := podIPsNow()
			if len(rows) != 1 || endpointCount(rows[0].endpoints) != n || len(ips) != n {
				return false
			}
			// Up to three addresses are listed: then they are the pods'.
			return n > 3 || slices.Equal(sortedAddresses(rows[0].endpoints), ips)
		}, get...)
		return rows
	}

	waitRunningPods(t, c, "default", "app=shop", 3)
	rows := waitSliceEndpoints(3)
	row := rows[0]
	if !regexp.MustCompile(`^shop-`+podNameSuffix+`$`).MatchString(row.name) || row.addressType != "IPv4" || row.ports != "80" {
		t.Errorf("kubectl get endpointslices row %+v, want shop-xxxxx IPv4 80", row)
	}
	header := nonEmptyLines(c.MustKubectl(t, "get", "endpointslices", "-l", api.LabelServiceName+"=shop"))[0]
	if got := strings.Fields(header); !slices.Equal(got, []string{"NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"}) {
		t.Errorf("kubectl get endpointslices header %q", header)
	}

	// The slice says who wrote it and whose it is.
	out := c.MustKubectl(t, "get", "endpointslice", row.name, "-o",
		`jsonpath={.metadata.labels.endpointslice\.kubernetes\.io/managed-by} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.endpoints[*].conditions.ready} {.endpoints[*].targetRef.kind}`)
	if out != "endpointslice-controller.k8s.io Service/shop true true true Pod Pod Pod" {
		t.Errorf("slice labels/owner/conditions = %q", out)
	}

	// describe svc shows the endpoints, ip:targetPort.
	describe := c.MustKubectl(t, "describe", "svc", "shop")
	addr := `10\.244\.\d+\.\d+:80`
	if !regexp.MustCompile(`(?m)^Endpoints:\s+` + addr + `,` + addr + `,` + addr + `$`).MatchString(describe) {
		t.Errorf("kubectl describe svc shop shows no endpoints:\n%s", describe)
	}

	// Scale up and down: the slice follows.
	c.MustKubectl(t, "scale", "deployment", "shop", "--replicas=5")
	waitRunningPods(t, c, "default", "app=shop", 5)
	rows = waitSliceEndpoints(5)
	if !strings.HasSuffix(rows[0].endpoints, " + 2 more...") {
		t.Errorf("ENDPOINTS with 5 pods = %q, want three addresses + 2 more...", rows[0].endpoints)
	}
	c.MustKubectl(t, "scale", "deployment", "shop", "--replicas=1")
	waitRunningPods(t, c, "default", "app=shop", 1)
	rows = waitSliceEndpoints(1)
	if ips := podIPsNow(); rows[0].endpoints != ips[0] {
		t.Errorf("ENDPOINTS with 1 pod = %q, want %s", rows[0].endpoints, ips[0])
	}

	// Delete the Service: the garbage collector deletes its slices.
	c.MustKubectl(t, "delete", "service", "shop")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "" },
		"get", "endpointslices", "-l", api.LabelServiceName+"=shop", "-o", "name")
}
