package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"toolscope/model"
)

// Stop is why a probe ended before it could judge every case: the server
// could not be reached, tools/list named no tool to call, or the run was
// stopped. It is said on one line (what failed, where, what to check) and
// is one failing testcase in the JUnit file.
type Stop struct {
	Case  string // the JUnit testcase naming it: CaseReach, CaseListTools, CaseStopped
	What  string // what failed, with where: "cannot reach http://127.0.0.1:9/mcp"
	Cause string // why, one line: "connection refused"
	Check string // what to check; "" when nothing is
}

// The testcases a Stop is reported as.
const (
	CaseReach     = "reach_server"
	CaseListTools = "list_tools"
	CaseStopped   = "stopped"
)

func (s *Stop) Error() string {
	msg := s.What + ": " + s.Cause
	if s.Check != "" {
		msg += "; " + s.Check
	}
	return msg
}

// unreachable is the Stop of a request that got no HTTP answer at all.
func unreachable(target string, err error, timeout time.Duration) *Stop {
	cause, check := transportCause(err, timeout)
	return &Stop{Case: CaseReach, What: "cannot reach " + ShownURL(target), Cause: cause, Check: check}
}

// transportCause says, in a few words, why a request got no answer, and
// what to check (timeout: how long it waited; 0 when not said). The URL is never in it (net/http's errors carry the whole
// URL, credentials included): the caller says where.
func transportCause(err error, timeout time.Duration) (cause, check string) {
	var (
		urlErr   *url.Error
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		authErr  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		netErr   net.Error
		recordEr tls.RecordHeaderError
	)
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		if timeout <= 0 {
			return "no answer in time", "check that the server is up and the port open; --case-timeout waits longer"
		}
		return fmt.Sprintf("no answer within %s", timeout),
			"check that the server is up and the port open (a firewall may drop packets); --case-timeout waits longer"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", "check that the server is running and listening on that host and port"
	case errors.As(err, &dnsErr):
		return "its host name " + model.Sanitize(dnsErr.Name) + " does not resolve", "check the URL's host name"
	case errors.As(err, &certErr) || errors.As(err, &authErr) || errors.As(err, &hostErr):
		return "its TLS certificate is not trusted (" + model.Sanitize(err.Error()) + ")", "check the server's certificate and the URL's host name"
	case errors.As(err, &recordEr) || strings.Contains(err.Error(), "HTTP response to HTTPS client"):
		return "it does not speak TLS", "try http:// in place of https://"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "the connection closed before an answer", "check that the URL is the server's MCP endpoint, and the server's log"
	}
	return model.Sanitize(err.Error()), "check the URL and that the server is running"
}

// listFailed is the Stop of a tools/list that named no tool to call.
func listFailed(target string, r reply, rpcErr string, timeout time.Duration) *Stop {
	s := &Stop{Case: CaseListTools, What: "listing the tools at " + ShownURL(target)}
	switch {
	case r.status == 0:
		return unreachable(target, r.err, timeout)
	case rpcErr != "":
		s.Cause = fmt.Sprintf("answered HTTP %d, %s", r.status, rpcErr)
	default:
		s.Cause = fmt.Sprintf("answered HTTP %d %s with no tools/list result%s", r.status, http.StatusText(r.status), readProblem(r))
	}
	switch r.status {
	case http.StatusUnauthorized, http.StatusForbidden:
		s.Check = "check the static credential (" + CredentialEnv + " or --credential-file), or name the tool with --tool to skip tools/list"
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		s.Check = "check the URL's path: it must be the server's MCP endpoint"
	default:
		s.Check = "name the tool with --tool to skip tools/list, or check the server's log"
	}
	return s
}

// CredentialEnv names the variable holding the instance's static
// credential header ("Authorization: Bearer ...").
const CredentialEnv = "TOOLSCOPE_CREDENTIAL_HEADER"
