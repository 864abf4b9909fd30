package probe

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// refusedURL is an http URL on loopback where nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/mcp"
}

// silentURL accepts connections and never answers; closed at the test's end.
func silentURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, read never
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// hangUpURL accepts connections and closes them at once.
func hangUpURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 512))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// statusURL answers every request with status and a short JSON body.
func statusURL(t *testing.T, status int, body string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s.URL + "/mcp"
}

// TestUnprobedServerStops: a server the probe cannot judge ends the run at
// once with a Stop that says what failed, where and what to check, never
// "HTTP 0"; a server that is down fails no case one by one.
func TestUnprobedServerStops(t *testing.T) {
	secret := []byte("probe-stop-test-secret-0123456789abcdef")
	cases := []struct {
		name, url, tool string
		timeout         time.Duration
		wantCase        string
		cause, check    string
	}{
		{"refused, listing the tools", refusedURL(t), "", 0, CaseReach, "connection refused", "server is running and listening"},
		{"refused, the first case", refusedURL(t), "ping", 0, CaseReach, "connection refused", "server is running and listening"},
		{"no such host", "http://no-such-host.invalid/mcp", "ping", 0, CaseReach, "does not resolve", "host name"},
		{"silent", silentURL(t), "ping", 300 * time.Millisecond, CaseReach, "no answer within 300ms", "--case-timeout"},
		{"hangs up", hangUpURL(t), "ping", 0, CaseReach, "closed before an answer", "MCP endpoint"},
		{"plain http on https", strings.Replace(statusURL(t, 200, "{}"), "http:", "https:", 1), "ping", 0, CaseReach, "does not speak TLS", "http://"},
		{"tools/list unauthorized", statusURL(t, 401, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"missing credential"}}`), "", 0,
			CaseListTools, "answered HTTP 401, JSON-RPC -32001: missing credential", CredentialEnv},
		{"tools/list not found", statusURL(t, 404, "404 page not found"), "", 0, CaseListTools, "answered HTTP 404 Not Found", "MCP endpoint"},
		{"tools/list empty", statusURL(t, 200, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`), "", 0, CaseListTools, "named no tool", "--tool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			var seen int
			rep, err := Run(context.Background(), Config{URL: tc.url, InstanceID: "aud", Secret: secret, Tool: tc.tool,
				Timeout: timeout, OnCase: func(Result) { seen++ }})
			var stop *Stop
			if !errors.As(err, &stop) || rep.Stop != stop {
				t.Fatalf("err %v, report's stop %v: want a *Stop in both", err, rep.Stop)
			}
			msg := stop.Error()
			if stop.Case != tc.wantCase || !strings.Contains(stop.Cause, tc.cause) || !strings.Contains(stop.Check, tc.check) ||
				!strings.Contains(stop.What, hostOf(t, tc.url)) {
				t.Errorf("stop %+v; want case %s, cause with %q, check with %q, the URL named", stop, tc.wantCase, tc.cause, tc.check)
			}
			if strings.Contains(msg, "HTTP 0") || strings.Contains(msg, "\n") || strings.Contains(msg, `Post "`) {
				t.Errorf("message %q: want one line, without HTTP 0 or net/http's wording", msg)
			}
			if seen != 0 || len(rep.Results) != 0 || rep.OK() {
				t.Errorf("%d cases reported, %d results, OK %v: want none, and not OK", seen, len(rep.Results), rep.OK())
			}
		})
	}
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestStopAfterAnAnswerIsACase: once the server has answered, a case whose
// request gets no answer fails as that case ("no answer: ..."); the run
// goes on.
func TestStopAfterAnAnswerIsACase(t *testing.T) {
	s := startContractServer(t, laxness{})
	cfg := s.config()
	cfg.Only = []string{"valid", "bad_signature"}
	sent := 0
	guarded := s.http.Config.Handler
	s.http.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent++
		if sent == 3 { // tools/list, valid, then this one: hang up
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return
		}
		guarded.ServeHTTP(w, r)
	})
	rep, err := Run(context.Background(), cfg)
	if err != nil || rep.Stop != nil || len(rep.Results) != 2 {
		t.Fatalf("err %v, stop %v, %d results", err, rep.Stop, len(rep.Results))
	}
	if r := rep.Results[1]; r.Pass || r.Message != "no answer: the connection closed before an answer" || r.Actual.String() != "no answer" {
		t.Errorf("bad_signature: pass %v, %q, actual %s", r.Pass, r.Message, r.Actual)
	}
}

// junitTime is junit-10.xsd's SUREFIRE_TIME.
var junitTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// xmlNode is any element, for checking a document against the schema.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xmlNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n xmlNode) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// checkJUnit checks a JUnit file against Jenkins' junit-10.xsd (the schema
// GitLab's and GitHub's reporters read too): the elements and attributes it
// allows, those it requires, and counts that agree with the testcases.
// It returns the testcases.
func checkJUnit(t *testing.T, doc []byte) []xmlNode {
	t.Helper()
	if len(bytes.TrimSpace(doc)) == 0 {
		t.Fatal("the JUnit file is empty")
	}
	var root xmlNode
	if err := xml.Unmarshal(doc, &root); err != nil {
		t.Fatalf("the JUnit file is not XML: %v\n%s", err, doc)
	}
	allowed := map[string][]string{
		"testsuites": {"name", "time", "tests", "failures", "errors"},
		"testsuite":  {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		"testcase":   {"name", "time", "classname", "group"},
		"failure":    {"type", "message"},
		"error":      {"type", "message"},
		"skipped":    {"type", "message"},
		"system-out": {},
		"system-err": {},
	}
	children := map[string][]string{
		"testsuites": {"testsuite"},
		"testsuite":  {"testsuite", "properties", "testcase", "system-out", "system-err"},
		"testcase":   {"skipped", "error", "failure", "system-out", "system-err"},
	}
	required := map[string][]string{"testsuite": {"name", "tests", "failures", "errors"}, "testcase": {"name"}}
	var walk func(n xmlNode)
	walk = func(n xmlNode) {
		name := n.XMLName.Local
		names, ok := allowed[name]
		if !ok {
			t.Errorf("<%s> is not in the schema", name)
			return
		}
		for _, a := range n.Attrs {
			if !slices.Contains(names, a.Name.Local) {
				t.Errorf("<%s %s> is not in the schema", name, a.Name.Local)
			}
		}
		for _, r := range required[name] {
			if _, ok := n.attr(r); !ok {
				t.Errorf("<%s> lacks its required %s", name, r)
			}
		}
		if v, ok := n.attr("time"); ok && !junitTime.MatchString(v) {
			t.Errorf("<%s time=%q> is not a SUREFIRE_TIME", name, v)
		}
		for _, c := range n.Children {
			if !slices.Contains(children[name], c.XMLName.Local) {
				t.Errorf("<%s> in <%s> is not in the schema", c.XMLName.Local, name)
			}
			walk(c)
		}
	}
	if root.XMLName.Local != "testsuites" {
		t.Fatalf("root <%s>, want <testsuites>", root.XMLName.Local)
	}
	walk(root)
	var testcases []xmlNode
	for _, suite := range root.Children {
		var tests, failures, skipped int
		for _, c := range suite.Children {
			if c.XMLName.Local != "testcase" {
				continue
			}
			tests++
			testcases = append(testcases, c)
			for _, r := range c.Children {
				switch r.XMLName.Local {
				case "failure":
					failures++
				case "skipped":
					skipped++
				}
			}
		}
		for attr, want := range map[string]int{"tests": tests, "failures": failures, "skipped": skipped, "errors": 0} {
			if v, _ := suite.attr(attr); v != strconv.Itoa(want) {
				t.Errorf("<testsuite %s=%q>, but it holds %d", attr, v, want)
			}
		}
	}
	return testcases
}

// TestJUnitKeepsTheSchema: a full run, a run with failed, informative and
// skipped cases, and a run stopped before any case all write JUnit that
// keeps the schema; a stopped run is one failing testcase naming why.
func TestJUnitKeepsTheSchema(t *testing.T) {
	strict := startContractServer(t, laxness{})
	lax := startContractServer(t, laxness{acceptAlgNone: true, noIdempotency: true})
	noCredential := lax.config()
	noCredential.Credential, noCredential.Tool = Credential{}, "echo"
	reports := map[string]Report{
		"strict server":        runProbe(t, strict.config()),
		"lax, no credential":   runProbe(t, noCredential),
		"stopped, unreachable": {},
	}
	rep, err := Run(context.Background(), Config{URL: refusedURL(t), InstanceID: "aud", Secret: []byte("s"), Tool: "ping"})
	if err == nil {
		t.Fatal("a refused server: no error")
	}
	reports["stopped, unreachable"] = rep
	for name, rep := range reports {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJUnit(&b, rep); err != nil {
				t.Fatal(err)
			}
			cases := checkJUnit(t, b.Bytes())
			want := len(rep.Results)
			if rep.Stop != nil {
				want++
			}
			if len(cases) != want || want == 0 {
				t.Fatalf("%d testcases, want %d", len(cases), want)
			}
			if rep.Stop == nil {
				return
			}
			last := cases[len(cases)-1]
			name, _ := last.attr("name")
			if name != CaseReach || len(last.Children) != 1 || last.Children[0].XMLName.Local != "failure" {
				t.Fatalf("the stop's testcase %q: %+v", name, last)
			}
			msg, _ := last.Children[0].attr("message")
			if !strings.Contains(msg, "cannot reach http://127.0.0.1:") || !strings.Contains(msg, "connection refused") {
				t.Errorf("failure message %q: want where and why", msg)
			}
		})
	}
}
