package probe

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
)

// JUnit XML, as CI systems read it (Jenkins' junit-10.xsd, which GitLab and
// GitHub's reporters also accept): one testsuite, one testcase per case.
// A failed required case is a <failure>; an informative one that failed
// says so in <system-out> and does not fail the build.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"` // required by the schema; a probe fails, it does not err
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML. A run that stopped before
// judging every case (rep.Stop) has one more testcase, failed, naming why:
// a CI system shows the cause, never an empty or unreadable file.
func WriteJUnit(w io.Writer, rep Report) error {
	_, _, _, skipped := rep.Counts()
	s := junitSuite{Name: "toolscope probe " + ShownURL(rep.URL), Tests: len(rep.Results), Skipped: skipped,
		Time: seconds(rep.Duration.Seconds())}
	for _, r := range rep.Results {
		c := junitCase{Name: r.Case, ClassName: "toolscope.probe", Time: seconds(r.Duration.Seconds())}
		detail := fmt.Sprintf("%s\nexpected %s, actual %s\n%s", r.Title, r.Expected, r.Actual, r.Message)
		switch {
		case r.Skipped:
			c.Skipped = &junitSkipped{Message: r.Message}
		case !r.Pass && r.Required:
			s.Failures++
			c.Failure = &junitFailure{Message: r.Message, Type: "contract", Text: detail}
		case !r.Pass:
			c.SystemOut = "informative, failed: " + detail
		default:
			c.SystemOut = detail
		}
		s.Cases = append(s.Cases, c)
	}
	if st := rep.Stop; st != nil {
		s.Tests++
		s.Failures++
		detail := st.What + ": " + st.Cause
		if st.Check != "" {
			detail += "\n" + st.Check
		}
		s.Cases = append(s.Cases, junitCase{Name: st.Case, ClassName: "toolscope.probe", Time: seconds(0),
			Failure: &junitFailure{Message: st.Error(), Type: st.Case, Text: detail}})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(f float64) string { return fmt.Sprintf("%.3f", f) }

func parseURL(raw string) (*url.URL, error) { return url.Parse(raw) }
