package decoder

import (
	"bytes"
	"encoding/base64"
	"mime"
	"strings"

	"toolscope/model"
)

// checkImage summarises one base64 image (block i of the content). MCP's
// rules hold for any call: the data is base64, and bytes of a type
// toolscope recognises are of the declared type. On an AgentArea call the
// platform's limits too: PNG, JPEG, GIF or WebP, at most 5 MB decoded.
func checkImage(i int, declared string, data []byte, agentArea bool, warn warnFunc) model.Image {
	mt := normalizeMime(declared)
	img := model.Image{MimeType: mt}
	size, ok := base64DecodedSize(data)
	if !ok {
		warn(model.WarnImageDataInvalid, "content[%d]: image data is not valid base64", i)
		img.Problem = "data is not valid base64"
		return img
	}
	img.Size = size
	sniffed := sniffImage(data)
	switch {
	case agentArea && !supportedImageTypes[mt]:
		warn(model.WarnImageTypeUnsupported, "content[%d]: image type %q is not PNG, JPEG, GIF or WebP", i, declared)
		img.Problem = "type not supported"
	case sniffed != mt && (supportedImageTypes[mt] || sniffed != ""):
		// A type toolscope cannot sniff (SVG, TIFF on plain MCP) is not judged.
		what := "unrecognisable image bytes"
		if sniffed != "" {
			what = "bytes of " + sniffed
		}
		warn(model.WarnImageMimeMismatch, "content[%d]: declared %s but holds %s", i, mt, what)
	}
	if agentArea && size > model.MaxImageBytes {
		warn(model.WarnImageTooLarge, "content[%d]: %s image is %d bytes; the limit is %d", i, mt, size, model.MaxImageBytes)
		if img.Problem == "" {
			img.Problem = "over 5 MB"
		} else {
			img.Problem += "; over 5 MB"
		}
	}
	return img
}

func normalizeMime(m string) string {
	if t, _, err := mime.ParseMediaType(m); err == nil {
		return t
	}
	return strings.ToLower(strings.TrimSpace(m))
}

// base64Alphabet marks the bytes of standard base64 (a table: images are
// megabytes of it).
var base64Alphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// base64DecodedSize validates standard base64 (padding optional, no
// whitespace) and returns the decoded length without decoding it all.
func base64DecodedSize(s []byte) (int, bool) {
	n := len(s)
	for n > 0 && s[n-1] == '=' {
		n--
	}
	if len(s)-n > 2 || (len(s) != n && len(s)%4 != 0) {
		return 0, false
	}
	for i := 0; i < n; i++ {
		if !base64Alphabet[s[i]] {
			return 0, false
		}
	}
	if n%4 == 1 {
		return 0, false
	}
	return n * 6 / 8, true
}

// sniffImage names the image type the first bytes of base64 data show, or "".
func sniffImage(data []byte) string {
	head := data
	if len(head) > 24 {
		head = head[:24]
	}
	head = bytes.TrimRight(head, "=")
	b, err := base64.RawStdEncoding.DecodeString(string(head[:len(head)/4*4+rawTail(len(head)%4)]))
	if err != nil {
		return ""
	}
	return sniffBytes(b)
}

// rawTail keeps a partial final quantum only when it decodes to whole bytes.
func rawTail(r int) int {
	if r == 1 {
		return 0
	}
	return r
}

func sniffBytes(b []byte) string {
	s := string(b)
	switch {
	case strings.HasPrefix(s, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case strings.HasPrefix(s, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(s, "GIF87a"), strings.HasPrefix(s, "GIF89a"):
		return "image/gif"
	case len(s) >= 12 && s[:4] == "RIFF" && s[8:12] == "WEBP":
		return "image/webp"
	}
	return ""
}
