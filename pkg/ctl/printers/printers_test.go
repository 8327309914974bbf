package printers

import (
	"bytes"
	"strings"
	"testing"
)

// serviceTable is the apiserver's Table for four Services (cells as the
// server sends them, ages fixed).
const serviceTable = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"40"},
"columnDefinitions":[
 {"name":"Name","type":"string","format":"name","priority":0},
 {"name":"Type","type":"string","format":"","priority":0},
 {"name":"Cluster-IP","type":"string","format":"","priority":0},
 {"name":"External-IP","type":"string","format":"","priority":0},
 {"name":"Port(s)","type":"string","format":"","priority":0},
 {"name":"Age","type":"string","format":"","priority":0},
 {"name":"Selector","type":"string","format":"","priority":1}],
"rows":[
 {"cells":["kubernetes","ClusterIP","10.96.0.1","<none>","443/TCP","5s","<none>"],"object":{"metadata":{"name":"kubernetes","namespace":"default","labels":{"provider":"kubernetes","component":"apiserver"}}}},
 {"cells":["ng-headless-svc","ClusterIP","None","<none>","8080/TCP","1s","app=ng-headless"],"object":{"metadata":{"name":"ng-headless-svc","namespace":"default"}}},
 {"cells":["nginx","ClusterIP","None","<none>","80/TCP","1s","app=nginx"],"object":{"metadata":{"name":"nginx","namespace":"default","labels":{"app":"nginx"}}}},
 {"cells":["nginx-ss","ClusterIP","None","<none>","80/TCP","1s","app=nginx-ss"],"object":{"metadata":{"name":"nginx-ss","namespace":"default","labels":{"app":"nginx-ss"}}}}]}`

// The expected outputs were printed by kubectl 1.32 for the same objects.
func TestTableLayoutMatchesKubectl(t *testing.T) {
	table, err := DecodeTable([]byte(serviceTable))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts TableOptions
		want string
	}{
		{"plain", TableOptions{}, `
NAME              TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE
kubernetes        ClusterIP   10.96.0.1    <none>        443/TCP    5s
ng-headless-svc   ClusterIP   None         <none>        8080/TCP   1s
nginx             ClusterIP   None         <none>        80/TCP     1s
nginx-ss          ClusterIP   None         <none>        80/TCP     1s
`},
		{"kind prefix, as in get all", TableOptions{KindPrefix: "service"}, `
NAME                      TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE
service/kubernetes        ClusterIP   10.96.0.1    <none>        443/TCP    5s
service/ng-headless-svc   ClusterIP   None         <none>        8080/TCP   1s
service/nginx             ClusterIP   None         <none>        80/TCP     1s
service/nginx-ss          ClusterIP   None         <none>        80/TCP     1s
`},
		{"-A --show-labels with two kinds", TableOptions{WithNamespace: true, ShowLabels: true, KindPrefix: "service"}, `
NAMESPACE   NAME                      TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE   LABELS
default     service/kubernetes        ClusterIP   10.96.0.1    <none>        443/TCP    5s    component=apiserver,provider=kubernetes
default     service/ng-headless-svc   ClusterIP   None         <none>        8080/TCP   1s    <none>
default     service/nginx             ClusterIP   None         <none>        80/TCP     1s    app=nginx
default     service/nginx-ss          ClusterIP   None         <none>        80/TCP     1s    app=nginx-ss
`},
		{"--no-headers", TableOptions{NoHeaders: true}, `
kubernetes        ClusterIP   10.96.0.1   <none>   443/TCP    5s
ng-headless-svc   ClusterIP   None        <none>   8080/TCP   1s
nginx             ClusterIP   None        <none>   80/TCP     1s
nginx-ss          ClusterIP   None        <none>   80/TCP     1s
`},
		{"-o wide --show-labels", TableOptions{Wide: true, ShowLabels: true}, `
NAME              TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE   SELECTOR          LABELS
kubernetes        ClusterIP   10.96.0.1    <none>        443/TCP    5s    <none>            component=apiserver,provider=kubernetes
ng-headless-svc   ClusterIP   None         <none>        8080/TCP   1s    app=ng-headless   <none>
nginx             ClusterIP   None         <none>        80/TCP     1s    app=nginx         app=nginx
nginx-ss          ClusterIP   None         <none>        80/TCP     1s    app=nginx-ss      app=nginx-ss
`},
		{"-L app", TableOptions{LabelColumns: []string{"app"}}, `
NAME              TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE   APP
kubernetes        ClusterIP   10.96.0.1    <none>        443/TCP    5s    
ng-headless-svc   ClusterIP   None         <none>        8080/TCP   1s    
nginx             ClusterIP   None         <none>        80/TCP     1s    nginx
nginx-ss          ClusterIP   None         <none>        80/TCP     1s    nginx-ss
`},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := NewTablePrinter(&out, tt.opts)
		p.PrintTable(table, "")
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimPrefix(tt.want, "\n"); out.String() != want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, out.String(), want)
		}
	}
}

// TestWatchKeepsColumnWidths replays the Tables a `get po -w` receives: the
// first event carries the columns, later ones only a row. kubectl printed
// this for the same events: a wider STATUS widens its column from that row
// on, and the header is printed once.
func TestWatchKeepsColumnWidths(t *testing.T) {
	columns := `"columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Ready","type":"string"},{"name":"Status","type":"string"},{"name":"Restarts","type":"string"},{"name":"Age","type":"string"},{"name":"IP","type":"string","priority":1}]`
	events := []string{
		`{` + columns + `,"rows":[{"cells":["watched-pod-with-long-name","0/1","Pending",0,"0s","<none>"]}]}`,
		`{"rows":[{"cells":["watched-pod-with-long-name","0/1","Pending",0,"0s","<none>"]}]}`,
		`{"rows":[{"cells":["watched-pod-with-long-name","1/1","Running",0,"0s","10.244.2.2"]}]}`,
		`{"rows":[{"cells":["watched-pod-with-long-name","1/1","Terminating",0,"1s","10.244.2.2"]}]}`,
		`{"rows":[{"cells":["watched-pod-with-long-name","1/1","Terminating",0,"1s","10.244.2.2"]}]}`,
	}
	var out bytes.Buffer
	p := NewTablePrinter(&out, TableOptions{})
	for _, ev := range events {
		table, err := DecodeTable([]byte(ev))
		if err != nil {
			t.Fatal(err)
		}
		p.PrintTable(table, "")
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	want := `NAME                         READY   STATUS    RESTARTS   AGE
watched-pod-with-long-name   0/1     Pending   0          0s
watched-pod-with-long-name   0/1     Pending   0          0s
watched-pod-with-long-name   1/1     Running   0          0s
watched-pod-with-long-name   1/1     Terminating   0          1s
watched-pod-with-long-name   1/1     Terminating   0          1s
`
	if out.String() != want {
		t.Errorf("watch output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestCellsAndEvents(t *testing.T) {
	table, err := DecodeTable([]byte(`{"columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Message","type":"string"},{"name":"Count","type":"integer"}],
		"rows":[{"cells":["a","first line\nsecond line",12345678901234567890]},{"cells":["b",null,3]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := NewTablePrinter(&out, TableOptions{})
	p.PrintTable(table, "ADDED")
	p.Flush()
	want := `EVENT   NAME   MESSAGE         COUNT
ADDED   a      first line...   12345678901234567890
ADDED   b                      3
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// eventTable is the apiserver's Table for four Events whose messages hold
// a tab or terminal escape sequences.
const eventTable = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"47"},
"columnDefinitions":[
 {"name":"Last Seen","type":"string","format":"","priority":0},
 {"name":"Type","type":"string","format":"","priority":0},
 {"name":"Reason","type":"string","format":"","priority":0},
 {"name":"Object","type":"string","format":"","priority":0},
 {"name":"Subobject","type":"string","format":"","priority":1},
 {"name":"Source","type":"string","format":"","priority":1},
 {"name":"Message","type":"string","format":"","priority":0},
 {"name":"First Seen","type":"string","format":"","priority":1},
 {"name":"Count","type":"string","format":"","priority":1},
 {"name":"Name","type":"string","format":"name","priority":1}],
"rows":[
 {"cells":["<unknown>","Normal","R","pod/p","","","x\ty","<unknown>",1,"a"]},
 {"cells":["<unknown>","Normal","R","pod/p","","","plain","<unknown>",1,"b"]},
 {"cells":["<unknown>","Normal","R","pod/p","","","long-first-part\tz","<unknown>",1,"c"]},
 {"cells":["<unknown>","Normal","R","pod/p","","","esc \u001b[31mred\u001b[0m","<unknown>",1,"d"]}]}`

// TestTabsAndEscapesMatchKubectl: kubectl 1.32 printed these tables for
// the same Events. A tab ends its cell and starts a column of its own,
// aligned only over the run of rows that have it (rows a and c are not
// neighbours, so "x" and "long-first-part" are padded apart); the escape
// character is shown as "^[" rather than sent to the terminal.
func TestTabsAndEscapesMatchKubectl(t *testing.T) {
	table, err := DecodeTable([]byte(eventTable))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		wide bool
		want string
	}{
		{false, `
LAST SEEN   TYPE     REASON   OBJECT   MESSAGE
<unknown>   Normal   R        pod/p    x     y
<unknown>   Normal   R        pod/p    plain
<unknown>   Normal   R        pod/p    long-first-part   z
<unknown>   Normal   R        pod/p    esc ^[[31mred^[[0m
`},
		{true, `
LAST SEEN   TYPE     REASON   OBJECT   SUBOBJECT   SOURCE   MESSAGE              FIRST SEEN   COUNT       NAME
<unknown>   Normal   R        pod/p                         x                    y            <unknown>   1     a
<unknown>   Normal   R        pod/p                         plain                <unknown>    1           b
<unknown>   Normal   R        pod/p                         long-first-part      z            <unknown>   1     c
<unknown>   Normal   R        pod/p                         esc ^[[31mred^[[0m   <unknown>    1           d
`},
	} {
		var out bytes.Buffer
		p := NewTablePrinter(&out, TableOptions{Wide: tt.wide})
		p.PrintTable(table, "")
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimPrefix(tt.want, "\n"); out.String() != want {
			t.Errorf("wide=%v:\n%s\nwant:\n%s", tt.wide, out.String(), want)
		}
	}
}

// TestEmptyTablePrintsNothing: a table without rows prints not even its
// header, so that ctl get can say "No resources found" instead.
func TestEmptyTablePrintsNothing(t *testing.T) {
	table, err := DecodeTable([]byte(`{"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],"rows":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := NewTablePrinter(&out, TableOptions{})
	p.PrintTable(table, "")
	if err := p.Flush(); err != nil || out.Len() != 0 {
		t.Errorf("a table without rows printed %q (err %v), want nothing", out.String(), err)
	}
}

func TestYAMLAndJSONMatchKubectl(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "nginx", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{\"a\":1}\n"}, "resourceVersion": "36"},
		"spec":     map[string]any{"clusterIPs": []any{"None"}, "ports": []any{map[string]any{"port": 80, "name": "http"}}},
		"status":   map[string]any{"loadBalancer": map[string]any{}},
	}
	var out bytes.Buffer
	if err := PrintYAML(&out, obj); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
kind: Service
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"a":1}
  name: nginx
  resourceVersion: "36"
spec:
  clusterIPs:
  - None
  ports:
  - name: http
    port: 80
status:
  loadBalancer: {}
`
	if out.String() != want {
		t.Errorf("YAML:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := PrintJSON(&out, NewList(nil)); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
    "apiVersion": "v1",
    "items": [],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
`
	if out.String() != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", out.String(), wantJSON)
	}
}
