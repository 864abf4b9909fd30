package model

import (
	"strings"
	"testing"
	"unsafe"
)

// A preview cut from a long text is a copy: the store keeps the preview,
// and it must not keep the whole text alive with it.
func TestCutPreviewIsACopy(t *testing.T) {
	text := strings.Repeat("x", 3*PreviewChars)
	p := Prefix(text, PreviewChars)
	if p != text[:PreviewChars] {
		t.Fatalf("preview %d bytes", len(p))
	}
	if unsafe.StringData(p) == unsafe.StringData(text) {
		t.Fatal("the preview shares the text's bytes")
	}
	if short := "short"; unsafe.StringData(Prefix(short, PreviewChars)) != unsafe.StringData(short) {
		t.Fatal("an uncut text was copied")
	}
}
