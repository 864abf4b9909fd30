package recordfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A rotated recording is a set: FILE, the newest part, and its older parts
// beside it, NAME-TIMESTAMP.EXT (rec-2026-11-30T12-00-00.000.jsonl, UTC;
// the names lumberjack gave, so sets it wrote still read).

// stampLayout is a part's timestamp; it sorts as the time it names.
const stampLayout = "2006-01-02T15-04-05.000"

var stampPattern = `\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}`

// PartName is the name of base's part moved aside at t.
func PartName(base string, t time.Time) string {
	ext := filepath.Ext(base)
	return strings.TrimSuffix(base, ext) + "-" + t.UTC().Format(stampLayout) + ext
}

// Parts are the older parts of the recording at path, oldest first (none
// for a recording that never rotated). Only regular files count: a link at
// a part's name is not read.
func Parts(path string) []string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	parts := partsOf(base, entries)
	for i, p := range parts {
		parts[i] = filepath.Join(dir, p)
	}
	return parts
}

func partsOf(base string, entries []fs.DirEntry) []string {
	ext := filepath.Ext(base)
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(strings.TrimSuffix(base, ext)) + `-` + stampPattern + regexp.QuoteMeta(ext) + `$`)
	var parts []string
	for _, e := range entries {
		if e.Type().IsRegular() && re.MatchString(e.Name()) {
			parts = append(parts, e.Name())
		}
	}
	sort.Strings(parts) // fixed-width UTC stamps: in the order written
	return parts
}

var anyPart = regexp.MustCompile(`-` + stampPattern + `(\.[^.]*)?$`)

// IsPart says whether the file named base is an older part of some
// recording (by its name).
func IsPart(base string) bool { return anyPart.MatchString(base) }
