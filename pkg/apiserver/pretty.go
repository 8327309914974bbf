package apiserver

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"kplane/pkg/apiserver/response"
)

// prettyRequest says whether the answer should be indented JSON, as
// upstream decides it: ?pretty= read with Go's strconv.ParseBool (unlike
// the other booleans, so ?pretty=yes is false), and, when the parameter is
// absent or empty, indented for curl, Wget and browsers, whose users read
// the answer themselves.
func prettyRequest(r *http.Request) bool {
	if v := queryOf(r).string("pretty"); v != "" {
		pretty, _ := strconv.ParseBool(v)
		return pretty
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// prettyJSON indents the JSON answers of requests that ask for it. A
// watch is a stream of one compact event per line and stays as it is, as
// upstream's watch encoder ignores pretty; answers that are not JSON (pod
// logs, metrics, health checks) pass through unbuffered.
func prettyJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !prettyRequest(r) || isWatch(r) {
			next.ServeHTTP(w, r)
			return
		}
		pw := &prettyWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(pw, r)
		pw.finish()
	})
}

// prettyWriter buffers a JSON answer to indent it once complete; anything
// else goes straight through. buffering is decided at the first
// WriteHeader or Write, from the Content-Type the handler set.
type prettyWriter struct {
	http.ResponseWriter
	decided, buffering bool
	code               int
	body               bytes.Buffer
}

func (p *prettyWriter) decide() {
	if p.decided {
		return
	}
	p.decided = true
	mediaType, _, _ := mime.ParseMediaType(p.Header().Get("Content-Type"))
	p.buffering = mediaType == response.ContentTypeJSON
}

// WriteHeader records the status of a buffered answer, or sends it.
func (p *prettyWriter) WriteHeader(code int) {
	p.decide()
	if p.buffering {
		p.code = code
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

// Write buffers a JSON answer, or sends anything else.
func (p *prettyWriter) Write(b []byte) (int, error) {
	p.decide()
	if p.buffering {
		return p.body.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

// Flush sends what an unbuffered answer has written so far.
func (p *prettyWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok && !p.buffering {
		f.Flush()
	}
}

// finish indents and sends a buffered answer; a body that is not valid
// JSON is sent as it was.
func (p *prettyWriter) finish() {
	if !p.buffering {
		return
	}
	body := p.body.Bytes()
	var indented bytes.Buffer
	if json.Indent(&indented, bytes.TrimSpace(body), "", "  ") == nil {
		body = indented.Bytes()
	}
	p.Header().Del("Content-Length")
	p.ResponseWriter.WriteHeader(p.code)
	_, _ = p.ResponseWriter.Write(body)
}
