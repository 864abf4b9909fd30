package model

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// value reads one JSON value and, when writing, writes it redacted;
// credential says the value is a credential's. When only looking, the
// first change stops the walk (errFound).
func (w *jsonWalk) value(credential bool) error {
	switch kind := w.dec.PeekKind(); kind {
	case '{', '[':
		if credential {
			return w.redacted()
		}
		return w.container(kind)
	case '"':
		v, err := w.dec.ReadValue()
		if err != nil {
			return err
		}
		if !credential && !w.x.mayRedact(v) {
			return w.copyValue(v)
		}
		s := unquote(v)
		red := w.x.text(s)
		if credential {
			red = credentialValue(s)
		}
		if red == s {
			return w.copyValue(v)
		}
		return w.replace(red)
	case 'n', 't', 'f':
		v, err := w.dec.ReadValue()
		if err != nil {
			return err
		}
		return w.copyValue(v)
	case '0':
		if credential {
			return w.redacted()
		}
		v, err := w.dec.ReadValue()
		if err != nil {
			return err
		}
		return w.copyValue(v)
	}
	_, err := w.dec.ReadToken() // the error that stopped PeekKind
	if err == nil {
		err = errTrailingData
	}
	return err
}

// container reads an object or an array.
func (w *jsonWalk) container(open jsontext.Kind) error {
	tok, err := w.dec.ReadToken()
	if err != nil {
		return err
	}
	if err := w.copyToken(tok); err != nil {
		return err
	}
	end := jsontext.Kind(']')
	if open == '{' {
		end = '}'
	}
	for w.dec.PeekKind() != end {
		credential := false
		if open == '{' {
			name, err := w.dec.ReadValue()
			if err != nil {
				return err
			}
			if err := w.copyValue(name); err != nil {
				return err
			}
			k := unquote(name)
			if strings.EqualFold(k, ContextHeader) && w.dec.PeekKind() == '"' {
				if err := w.token(); err != nil {
					return err
				}
				continue
			}
			credential = w.x.names.isCredential(k)
		}
		if err := w.value(credential); err != nil {
			return err
		}
	}
	tok, err = w.dec.ReadToken()
	if err != nil {
		return err
	}
	return w.copyToken(tok)
}

// redacted replaces the next value by Redacted.
func (w *jsonWalk) redacted() error {
	if err := w.dec.SkipValue(); err != nil {
		return err
	}
	return w.replace(Redacted)
}

// token reads the context token under its key and writes it without its
// signature.
func (w *jsonWalk) token() error {
	v, err := w.dec.ReadValue()
	if err != nil {
		return err
	}
	s := unquote(v)
	if red := RedactToken(s); red != s {
		return w.replace(red)
	}
	return w.copyValue(v)
}

func (w *jsonWalk) copyValue(v jsontext.Value) error {
	if !w.write {
		return nil
	}
	return w.enc.WriteValue(v)
}

func (w *jsonWalk) copyToken(t jsontext.Token) error {
	if !w.write {
		return nil
	}
	return w.enc.WriteToken(t)
}

// replace writes s in the place of what was read.
func (w *jsonWalk) replace(s string) error {
	w.changed = true
	if !w.write {
		return errFound
	}
	return w.enc.WriteToken(jsontext.String(s))
}

// mayRedact says whether text could change a JSON string: it holds a
// known secret, a JWT, a URL or an escape (which could spell either).
// Most strings hold none: they are copied without being decoded.
func (x redaction) mayRedact(quoted []byte) bool {
	if bytes.IndexByte(quoted, '\\') >= 0 || bytes.Contains(quoted, []byte("eyJ")) || bytes.Contains(quoted, []byte("://")) {
		return true
	}
	for _, v := range x.known {
		if bytes.Contains(quoted, []byte(v)) {
			return true
		}
	}
	return false
}

// unquote is a JSON string's text.
func unquote(quoted []byte) string {
	if len(quoted) >= 2 && bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	b, err := jsontext.AppendUnquote(nil, quoted)
	if err != nil {
		return string(quoted)
	}
	return string(b)
}
