package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"toolscope/model/userfiles"
	"toolscope/output"
	"toolscope/output/recordfile"
)

// Recording defaults: bodies up to 256 KiB each, files of 100 MB, five
// older parts kept: at most 600 MB on disk, where one tap once wrote
// 1.34 GB with no limit (issue 27).
const (
	defaultRecordBodyLimit = 256 << 10
	defaultRecordMaxSizeMB = 100
	defaultRecordKeep      = 5
	// keepDefaultRecordings is how many of the stdio tap's default-location
	// recordings stay; older ones are removed when a new one starts.
	keepDefaultRecordings = 20
	// recentRecording: a default-location file written this recently may be
	// another run's, still going; it is never pruned.
	recentRecording = 10 * time.Minute
)

// registerRecording adds the flags that bound --record.
func (o *outputFlags) registerRecording(fs *flag.FlagSet) {
	o.recordBodyLimit = defaultRecordBodyLimit
	fs.Func("record-body-limit", "keep at most `N` bytes of each request and response body in --record, and at most a sixteenth of --record-max-size (a cut is said; default 256 KiB; 0: no bodies)", func(s string) error {
		n, err := parseBytes(s)
		o.recordBodyLimit = n
		return err
	})
	fs.IntVar(&o.recordMaxSizeMB, "record-max-size", defaultRecordMaxSizeMB, "rotate --record at `MB` megabytes, keeping --record-keep older parts beside it (0: one file, no limit)")
	fs.IntVar(&o.recordKeep, "record-keep", defaultRecordKeep, "older parts `N` of a rotated --record to keep (at least 1)")
}

// parseBytes reads "262144", "256KiB", "1MiB", "64k", "2M".
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1}}
	lower := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			lower, mult = strings.TrimSuffix(lower, u.suffix), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscanf(lower, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != strings.TrimSpace(lower) {
		return 0, fmt.Errorf("want a size in bytes such as 262144 or 256KiB, not %q", s)
	}
	return n * mult, nil
}

// checkRecording says what is wrong with the recording flags, or "".
func (o *outputFlags) checkRecording() string {
	switch {
	case o.recordMaxSizeMB < 0:
		return "--record-max-size must be 0 or more"
	case o.recordMaxSizeMB > 0 && o.recordKeep < 1:
		return "--record-keep must be 1 or more when --record-max-size rotates"
	}
	return ""
}

// tapBodyLimit is the body limit taps capture with: none without
// --record, and at most a sixteenth of a part, so that a line (a request
// and a response body, escaped) always fits in one part.
func (o *outputFlags) tapBodyLimit() int64 {
	if o.record == "" {
		return 0
	}
	return o.bodyLimit()
}

// bodyLimit is --record-body-limit, at most a sixteenth of a part.
func (o *outputFlags) bodyLimit() int64 {
	if o.recordMaxSizeMB > 0 {
		return min(o.recordBodyLimit, int64(o.recordMaxSizeMB)<<20/16)
	}
	return o.recordBodyLimit
}

// recordingWriter opens --record: a new file (a new recording replaces the
// old one and its older parts), rotated at --record-max-size
// (output/recordfile). What is not a regular file (a FIFO, /dev/stdout,
// /dev/null, a link the user made) is written as it is, never rotated: a
// rotation renames the file. Nothing another user placed at the name is
// written through.
func (o *outputFlags) recordingWriter() (output.Output, error) {
	if msg := o.checkRecording(); msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	w, err := openRecording(o.record, int64(o.recordMaxSizeMB)<<20, o.recordKeep)
	if err != nil {
		return nil, err
	}
	return output.NewWriter(w, output.WriterConfig{Name: "--record " + o.record, Format: output.FormatJSON,
		Closer: w, Wire: true}), nil
}

// openRecording opens the file at path for a recording: a rotated
// recordfile where a regular file is or nothing is, else what is there
// (openRecord: a FIFO nobody reads is said at once), once its owner is
// checked: a link or FIFO of another user's is refused.
func openRecording(path string, maxBytes int64, keep int) (io.WriteCloser, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return recordfile.Create(path, maxBytes, keep)
	}
	if err := userfiles.CheckOwner(path, fi); err != nil {
		return nil, err
	}
	return openRecord(path)
}

// pruneDefaultRecordings removes the stdio tap's oldest default-location
// recordings past keepDefaultRecordings (and their rotated parts); one
// written in the last recentRecording may be another run's and stays.
func pruneDefaultRecordings(dir string) {
	paths, _ := filepath.Glob(filepath.Join(dir, "stdio-*.jsonl"))
	type rec struct {
		path string
		mod  time.Time
	}
	var recs []rec
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && !recordfile.IsPart(filepath.Base(p)) {
			recs = append(recs, rec{p, fi.ModTime()})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].mod.After(recs[j].mod) })
	for i, r := range recs {
		if i < keepDefaultRecordings || time.Since(r.mod) < recentRecording {
			continue
		}
		for _, part := range recordfile.Parts(r.path) {
			os.Remove(part)
		}
		os.Remove(r.path)
	}
}
