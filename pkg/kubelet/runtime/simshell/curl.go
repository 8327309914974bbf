package simshell

// This file holds curl and wget. Both resolve the URL's host like the
// pod would (resolver.go), find where the connection lands (connect.go),
// ask the NetworkPolicies whether it gets there (policy.go) and print the
// answer of the pod there, with curl's and busybox wget's own messages
// and exit codes when there is none — after their own timeout when a
// policy dropped the packets (timeout.go).

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/networkpolicy"
)

// curlVersion is the curl the simulated image claims to be (User-Agent).
const curlVersion = "8.5.0"

// fetchRequest is a parsed curl or wget command line.
type fetchRequest struct {
	method  string
	rawURL  string
	headers http.Header
	// host and port are the URL's; ip is what host resolved to.
	host string
	port int32
	ip   string
	path string
}

// fetchResult is what a fetch got: the answer, or why there is none.
type fetchResult struct {
	resp *http.Response
	body []byte
	dest destination
	// resolveErr: the host did not resolve (a *droppedError when a
	// NetworkPolicy dropped the DNS queries); connectErr: nothing accepted
	// the connection (a *droppedError when a NetworkPolicy dropped it).
	resolveErr, connectErr error
	// judged is set once the NetworkPolicies were asked about the
	// connection: their verdict, or the error that kept them from one.
	judged    bool
	verdict   networkpolicy.Verdict
	policyErr error
}

// parseTarget reads a URL as curl does: no scheme means http, no port
// means the scheme's.
func parseTarget(raw string) (*url.URL, int32, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, 0, fmt.Errorf("URL rejected: Malformed input to a URL function")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, 0, fmt.Errorf("Protocol %q not supported", u.Scheme)
	}
	port := int32(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, 0, fmt.Errorf("URL rejected: Port number was not a decimal number between 0 and 65535")
		}
		port = int32(n)
	}
	return u, port, nil
}

// fetch resolves, routes and sends one request.
func (sh *Shell) fetch(ctx context.Context, fr *fetchRequest) fetchResult {
	res, err := sh.resolver.lookupHost(ctx, fr.host)
	if err != nil || len(res.addrs) == 0 {
		if _, dropped := asDropped(err); dropped {
			return fetchResult{resolveErr: err}
		}
		return fetchResult{resolveErr: errNotFound}
	}
	fr.ip = res.addrs[0]
	dest, err := sh.destinationOf(ctx, fr.ip, fr.port)
	if err != nil {
		return fetchResult{dest: dest, connectErr: err}
	}
	// The policies judge the connection kube-proxy's DNAT made: to the
	// endpoint pod, on its port.
	verdict, policyErr := sh.judge(ctx, destinationEndpoint(dest), dest.port, api.ProtocolTCP)
	judged := fetchResult{dest: dest, judged: true, verdict: verdict, policyErr: policyErr}
	if policyErr == nil && !verdict.Allowed() {
		judged.connectErr = &droppedError{what: fmt.Sprintf("connection to %s port %d", fr.host, fr.port), verdict: verdict}
		return judged
	}
	target := "http://" + net.JoinHostPort(fr.host, strconv.Itoa(int(fr.port))) + fr.path
	req, err := http.NewRequestWithContext(ctx, fr.method, target, nil)
	if err != nil {
		return fetchResult{dest: dest, connectErr: err}
	}
	req.Header = fr.headers.Clone()
	req.Host = hostHeader(fr)
	if ips := sh.podIPs(); len(ips) > 0 {
		req.RemoteAddr = net.JoinHostPort(ips[0], "40000")
	}
	resp, err := sh.serve(dest, req)
	if err != nil {
		judged.connectErr = err
		return judged
	}
	defer resp.Body.Close()
	judged.resp = resp
	judged.body, _ = io.ReadAll(resp.Body)
	return judged
}

// headerOrder is the order nginx writes its response headers in; others
// follow sorted.
var headerOrder = []string{"Server", "Date", "Content-Type", "Content-Length", "Last-Modified", "Connection", "Etag", "Accept-Ranges"}

// writeHeaders writes a response's status line and headers, each line
// starting with prefix ("< " for curl -v) and ending in "\r\n" as on the wire.
func writeHeaders(w io.Writer, resp *http.Response, prefix string) {
	fmt.Fprintf(w, "%sHTTP/1.1 %s\r\n", prefix, statusText(resp))
	names := make([]string, 0, len(resp.Header))
	for name := range resp.Header {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(headerOrder, a), slices.Index(headerOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		for _, v := range resp.Header[name] {
			fmt.Fprintf(w, "%s%s: %s\r\n", prefix, name, v)
		}
	}
	if prefix == "" {
		fmt.Fprint(w, "\r\n")
	} else {
		fmt.Fprintf(w, "%s\r\n", prefix)
	}
}

// statusText is a response's status as its status line says it: "200 OK".
func statusText(resp *http.Response) string {
	if resp.Status != "" {
		return resp.Status
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// cmdCurl is curl [-s] [-S] [-I] [-i] [-v] [-f] [-L] [-X METHOD]
// [-H header] [-o FILE] [-m secs] [--connect-timeout secs] URL.
func cmdCurl(ctx context.Context, sh *Shell, args []string, std stdio) (status int) {
	var silent, showErrors, head, include, verbose, failOnError bool
	// maxTime and connectTimeout are -m and --connect-timeout; zero: none.
	var maxTime, connectTimeout time.Duration
	fr := &fetchRequest{method: http.MethodGet, headers: http.Header{}}
	out, outFile := std.out, "-"
	for i := 1; i < len(args); i++ {
		a := args[i]
		needValue := func() (string, bool) {
			if i+1 >= len(args) {
				fmt.Fprintf(std.err, "curl: option %s: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n", a)
				return "", false
			}
			i++
			return args[i], true
		}
		switch a {
		case "-X", "--request", "-H", "--header", "-o", "--output", "-m", "--max-time", "--connect-timeout", "-w", "--write-out", "-A", "--user-agent":
			v, ok := needValue()
			if !ok {
				return 2
			}
			switch a {
			case "-X", "--request":
				fr.method = v
			case "-H", "--header":
				name, value, _ := strings.Cut(v, ":")
				fr.headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			case "-A", "--user-agent":
				fr.headers.Set("User-Agent", v)
			case "-m", "--max-time", "--connect-timeout":
				seconds, err := strconv.ParseFloat(v, 64)
				if err != nil || seconds < 0 || seconds > 1e9 {
					fmt.Fprintf(std.err, "curl: option %s: expected a proper numerical parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n", a)
					return 2
				}
				if a == "--connect-timeout" {
					connectTimeout = time.Duration(seconds * float64(time.Second))
				} else {
					maxTime = time.Duration(seconds * float64(time.Second))
				}
			case "-o", "--output":
				outFile = v
			}
			continue
		case "--silent":
			silent = true
			continue
		case "--show-error":
			showErrors = true
			continue
		case "--head":
			head = true
			continue
		case "--include":
			include = true
			continue
		case "--verbose":
			verbose = true
			continue
		case "--fail":
			failOnError = true
			continue
		case "--location":
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--") {
			for _, f := range a[1:] {
				switch f {
				case 's':
					silent = true
				case 'S':
					showErrors = true
				case 'I':
					head = true
				case 'i':
					include = true
				case 'v':
					verbose = true
				case 'f':
					failOnError = true
				case 'L', 'k':
				default:
					fmt.Fprintf(std.err, "curl: option -%c: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", f)
					return 2
				}
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			fmt.Fprintf(std.err, "curl: option %s: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", a)
			return 2
		}
		fr.rawURL = a
	}
	if fr.rawURL == "" {
		fmt.Fprintln(std.err, "curl: no URL specified\ncurl: try 'curl --help' or 'curl --manual' for more information")
		return 2
	}
	if head {
		fr.method = http.MethodHead
	}
	if fr.headers.Get("User-Agent") == "" {
		fr.headers.Set("User-Agent", "curl/"+curlVersion)
	}
	if fr.headers.Get("Accept") == "" {
		fr.headers.Set("Accept", "*/*")
	}
	failure := func(code int, text string) int {
		if !silent || showErrors {
			fmt.Fprintf(std.err, "curl: (%d) %s\n", code, text)
		}
		return code
	}
	u, port, err := parseTarget(fr.rawURL)
	if err != nil {
		return failure(3, err.Error())
	}
	fr.host, fr.port, fr.path = u.Hostname(), port, u.RequestURI()

	// Both limits cover resolving and connecting; the shorter one ends a
	// wait for packets that get no answer.
	limit := maxTime
	if connectTimeout > 0 && (limit == 0 || connectTimeout < limit) {
		limit = connectTimeout
	}
	res := sh.fetch(ctx, fr)
	if res.resolveErr != nil {
		if dropped, ok := asDropped(res.resolveErr); ok {
			if verbose {
				fmt.Fprintf(std.err, "* kplane: %v\n", dropped)
			}
			wait, timedOut := clientTimeout(limit, resolverTimeout)
			waited, ok := sh.waitDropped(ctx, wait)
			if !ok {
				return 130
			}
			if timedOut {
				return failure(28, fmt.Sprintf("Resolving timed out after %d milliseconds", waited.Milliseconds()))
			}
		}
		if verbose {
			fmt.Fprintf(std.err, "* Could not resolve host: %s\n", fr.host)
		}
		return failure(6, "Could not resolve host: "+fr.host)
	}
	if verbose {
		fmt.Fprintf(std.err, "*   Trying %s...\n", net.JoinHostPort(fr.ip, strconv.Itoa(int(fr.port))))
		explainRoute(std, res.dest)
		if res.judged {
			explainPolicies(std, res.verdict, res.policyErr)
		}
	}
	if _, ok := asDropped(res.connectErr); ok {
		// No SYN-ACK comes back: the kernel retries until curl's limit
		// or its own ends the wait.
		wait, timedOut := clientTimeout(limit, synTimeout)
		waited, ok := sh.waitDropped(ctx, wait)
		if !ok {
			return 130
		}
		reason := "Couldn't connect to server"
		if timedOut {
			reason = "Timeout was reached"
		}
		text := fmt.Sprintf("Failed to connect to %s port %d after %d ms: %s", fr.host, fr.port, waited.Milliseconds(), reason)
		if verbose {
			fmt.Fprintf(std.err, "* %s\n* Closing connection\n", text)
		}
		return failure(28, text)
	}
	if res.connectErr != nil {
		if verbose {
			fmt.Fprintf(std.err, "* kplane: %v\n", res.connectErr)
		}
		return failure(7, fmt.Sprintf("Failed to connect to %s port %d after 0 ms: Couldn't connect to server", fr.host, fr.port))
	}
	if verbose {
		fmt.Fprintf(std.err, "* Connected to %s (%s) port %d\n", fr.host, fr.ip, fr.port)
		fmt.Fprintf(std.err, "> %s %s HTTP/1.1\r\n> Host: %s\r\n", fr.method, fr.path, hostHeader(fr))
		for _, name := range []string{"User-Agent", "Accept"} {
			fmt.Fprintf(std.err, "> %s: %s\r\n", name, fr.headers.Get(name))
		}
		fmt.Fprint(std.err, ">\r\n")
		writeHeaders(std.err, res.resp, "< ")
	}
	if failOnError && res.resp.StatusCode >= 400 {
		return failure(22, fmt.Sprintf("The requested URL returned error: %d", res.resp.StatusCode))
	}
	switch outFile {
	case "-":
	case "/dev/null":
		out = io.Discard
	default:
		f, err := sh.fs.create(sh.abs(outFile), true)
		if err != nil {
			if !silent || showErrors {
				fmt.Fprintf(std.err, "Warning: Failed to open the file %s: %v\n", outFile, err)
			}
			return failure(23, "Failure writing output to destination")
		}
		out = f
		defer func() {
			if f.err != nil {
				status = failure(23, "Failure writing output to destination")
			}
		}()
	}
	if head || include {
		writeHeaders(out, res.resp, "")
	}
	if !head {
		out.Write(res.body)
	}
	if verbose {
		fmt.Fprintf(std.err, "* Connection #0 to host %s left intact\n", fr.host)
	}
	return 0
}

// hostHeader is the Host header curl sends: the host, with the port when
// it is not 80.
func hostHeader(fr *fetchRequest) string {
	if fr.port == 80 {
		return fr.host
	}
	return net.JoinHostPort(fr.host, strconv.Itoa(int(fr.port)))
}

// explainRoute is kplane's addition to curl -v: the chains the node's
// kube-proxy walked and the endpoint it chose, which a real curl cannot
// see (the kernel's NAT rewrote the destination under it).
func explainRoute(std stdio, dest destination) {
	r := dest.route
	if r == nil {
		if dest.pod != nil {
			fmt.Fprintf(std.err, "* kplane: %s is pod %s/%s's address\n", podAddress(dest), dest.pod.Namespace, dest.pod.Name)
		}
		return
	}
	fmt.Fprintf(std.err, "* kplane: kube-proxy rules for %s: %s\n", r.Service, strings.Join(r.Chains, " -> "))
	if r.Endpoint != nil {
		fmt.Fprintf(std.err, "* kplane: DNAT to endpoint %s:%d (pod %s/%s on %s)\n",
			r.Endpoint.IP, r.Endpoint.Port, r.Endpoint.PodNamespace, r.Endpoint.PodName, r.Endpoint.NodeName)
	}
}

// podAddress is the pod's first IP.
func podAddress(dest destination) string {
	if dest.pod.Status.PodIP != "" {
		return dest.pod.Status.PodIP
	}
	return "the pod"
}

// cmdWget is busybox wget [-q] [-O file] [-S] [-T secs] URL: with -O-
// the body goes to standard output, otherwise to the file (index.html by
// default).
func cmdWget(ctx context.Context, sh *Shell, args []string, std stdio) int {
	quiet, output := false, ""
	var timeout time.Duration // -T; zero: busybox's 900 s, longer than the kernel's
	fr := &fetchRequest{method: http.MethodGet, headers: http.Header{"User-Agent": {"Wget"}}}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-O" || a == "-T" || a == "-U":
			if i+1 >= len(args) {
				fmt.Fprintf(std.err, "wget: option requires an argument -- '%s'\n", a[1:])
				return 1
			}
			i++
			switch a {
			case "-O":
				output = args[i]
			case "-T":
				seconds, err := strconv.ParseUint(args[i], 10, 31)
				if err != nil {
					fmt.Fprintf(std.err, "wget: invalid number '%s'\n", args[i])
					return 1
				}
				timeout = time.Duration(seconds) * time.Second
			}
		case strings.HasPrefix(a, "-O"):
			output = a[2:]
		case a == "-qO-" || a == "-qO" && i+1 < len(args):
			quiet = true
			if a == "-qO" {
				i++
				output = args[i]
			} else {
				output = "-"
			}
		case a == "-q" || a == "--quiet":
			quiet = true
		case a == "-S" || a == "--spider":
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(std.err, "wget: unrecognized option '%s'\n", a)
			return 1
		default:
			fr.rawURL = a
		}
	}
	if fr.rawURL == "" {
		fmt.Fprintln(std.err, "Usage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[-P DIR] [-U AGENT] [-T SEC] URL...")
		return 1
	}
	u, port, err := parseTarget(fr.rawURL)
	if err != nil {
		fmt.Fprintf(std.err, "wget: not an http or ftp url: %s\n", fr.rawURL)
		return 1
	}
	fr.host, fr.port, fr.path = u.Hostname(), port, u.RequestURI()
	res := sh.fetch(ctx, fr)
	if res.resolveErr != nil {
		// busybox's -T covers the connection and the reads, not the
		// look-up: dropped queries last the resolver's own timeout.
		if _, ok := asDropped(res.resolveErr); ok {
			if _, ok := sh.waitDropped(ctx, resolverTimeout); !ok {
				return 130
			}
		}
		fmt.Fprintf(std.err, "wget: bad address '%s'\n", fr.host)
		return 1
	}
	if !quiet {
		fmt.Fprintf(std.err, "Connecting to %s (%s)\n", hostHeader(fr), net.JoinHostPort(fr.ip, strconv.Itoa(int(fr.port))))
	}
	if _, ok := asDropped(res.connectErr); ok {
		wait, timedOut := clientTimeout(timeout, synTimeout)
		if _, ok := sh.waitDropped(ctx, wait); !ok {
			return 130
		}
		if timedOut {
			fmt.Fprintln(std.err, "wget: download timed out")
		} else {
			fmt.Fprintf(std.err, "wget: can't connect to remote host (%s): Connection timed out\n", fr.ip)
		}
		return 1
	}
	if res.connectErr != nil {
		fmt.Fprintf(std.err, "wget: can't connect to remote host (%s): Connection refused\n", fr.ip)
		return 1
	}
	if res.resp.StatusCode >= 400 {
		fmt.Fprintf(std.err, "wget: server returned error: HTTP/1.1 %s\n", statusText(res.resp))
		return 1
	}
	switch output {
	case "-":
		if !quiet {
			fmt.Fprintln(std.err, "writing to stdout")
		}
		std.out.Write(res.body)
		if !quiet {
			fmt.Fprintln(std.err, "written to stdout")
		}
	case "/dev/null":
	default:
		return sh.wgetSave(std, output, res.body, quiet)
	}
	return 0
}

// wgetSave writes a download to a file as busybox wget does: the file
// named by -O, emptied first, or else the URL's index.html, which must not
// exist yet.
func (sh *Shell) wgetSave(std stdio, output string, body []byte, quiet bool) int {
	name, truncate := output, true
	if name == "" {
		name, truncate = "index.html", false
		if _, err := sh.fs.stat(sh.abs(name)); err == nil {
			fmt.Fprintf(std.err, "wget: can't open '%s': %v\n", name, errExist)
			return 1
		}
	}
	f, err := sh.fs.create(sh.abs(name), truncate)
	if err != nil {
		fmt.Fprintf(std.err, "wget: can't open '%s': %v\n", name, err)
		return 1
	}
	if !quiet {
		fmt.Fprintf(std.err, "saving to '%s'\n", name)
	}
	if _, err := f.Write(body); err != nil {
		fmt.Fprintf(std.err, "wget: write error: %v\n", err)
		return 1
	}
	if !quiet {
		fmt.Fprintf(std.err, "%-20.20s 100%% |%s| %5d  0:00:00 ETA\n'%s' saved\n", path.Base(name), strings.Repeat("*", 32), len(body), name)
	}
	return 0
}
