package runtime

// This file is what a simulated pod answers over HTTP. Nothing runs in the
// simulated runtime, so nothing listens either; but a student who starts
// nginx pods and then runs `kubectl port-forward` or `curl` inside a pod
// expects nginx's welcome page, and seeing which pod answered is the whole
// lesson of a Service. So a container whose image is nginx answers as
// nginx's default server would: its welcome page (in kplane's words, naming
// the pod), with a Server: nginx header. Both the simulated runtime's
// port-forward and the simulated shell's curl (through
// SimulatedHTTPResponse) answer with nginxResponse, so they always agree.

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"time"

	"kplane/pkg/api"
)

// nginxDefaultPort is where nginx's default server listens (its image's
// /etc/nginx/conf.d/default.conf: listen 80).
const nginxDefaultPort = 80

// SimulatedHTTPResponse is what container of a simulated pod answers to req
// on port, and false when nothing there would answer HTTP. Only a container
// whose image is nginx (any registry, tag or digest) answers, on port 80 or
// on a port its spec declares: GET or HEAD of / and /index.html get the
// welcome page naming the pod, other paths 404 and other methods 405, each
// with nginx's headers and page shape. The response's body is in memory;
// closing it is optional.
func SimulatedHTTPResponse(pod *api.Pod, container *api.Container, port int32, req *http.Request) (*http.Response, bool) {
	if pod == nil || container == nil || !isNginxImage(container.Image) || !listensOn(container, port) {
		return nil, false
	}
	return nginxResponse(pod, req), true
}

// nginxResponse is the simulated nginx's answer to req, for a container
// already known to answer (simulatedHTTPContainer chose it for a
// port-forward; SimulatedHTTPResponse checks it for the simulated shell).
func nginxResponse(pod *api.Pod, req *http.Request) *http.Response {
	status, body := http.StatusOK, welcomePage(pod)
	switch {
	case req.Method != http.MethodGet && req.Method != http.MethodHead:
		status, body = http.StatusMethodNotAllowed, nginxErrorPage(http.StatusMethodNotAllowed, "Not Allowed")
	case req.URL.Path != "/" && req.URL.Path != "/index.html":
		status, body = http.StatusNotFound, nginxErrorPage(http.StatusNotFound, "Not Found")
	}
	resp := &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{},
		ContentLength: int64(len(body)),
		Body:          io.NopCloser(bytes.NewReader(body)),
		Request:       req,
		Close:         req.Close,
	}
	if status == http.StatusMethodNotAllowed {
		resp.Status = "405 Not Allowed" // nginx's own wording
	}
	resp.Header.Set("Server", "nginx")
	resp.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	resp.Header.Set("Content-Type", "text/html")
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp
}

// isNginxImage reports whether image names nginx: "nginx", "nginx:1.27",
// "docker.io/library/nginx:latest", "nginx@sha256:…".
func isNginxImage(image string) bool { return imageName(image) == "nginx" }

// listensOn reports whether the simulated nginx in container answers on
// port: its default 80, or a port the container declares.
func listensOn(container *api.Container, port int32) bool {
	if port == nginxDefaultPort {
		return true
	}
	for _, p := range container.Ports {
		if p.ContainerPort == port && (p.Protocol == "" || p.Protocol == api.ProtocolTCP) {
			return true
		}
	}
	return false
}

// welcomePage is the page nginx's default server shows, shaped like the
// real one (title, heading, two short paragraphs) with a line naming the
// pod that answered.
func welcomePage(pod *api.Pod) []byte {
	name := html.EscapeString(pod.Name)
	namespace := html.EscapeString(pod.Namespace)
	return []byte(`<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>The nginx web server in this pod is up and answering.</p>
<p>Answered by pod <b>` + name + `</b> in namespace <b>` + namespace + `</b>.</p>
<p><em>Simulated by kplane: no nginx process runs; the kubelet's simulated runtime answers for it.</em></p>
</body>
</html>
`)
}

// nginxErrorPage is nginx's page for an error status.
func nginxErrorPage(code int, text string) []byte {
	return []byte(fmt.Sprintf(`<html>
<head><title>%[1]d %[2]s</title></head>
<body>
<center><h1>%[1]d %[2]s</h1></center>
<hr><center>nginx</center>
</body>
</html>
`, code, text))
}
