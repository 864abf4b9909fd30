package model

import "strconv"

// appendContext writes a Context as encoding/json does.
func appendContext(dst []byte, c *Context, term bool) ([]byte, error) {
	dst = append(dst, `{"present":`...)
	dst = strconv.AppendBool(dst, c.Present)
	dst = append(dst, `,"verdict":`...)
	dst = appendString(dst, c.Verdict, term)
	dst = appendIntField(dst, `,"http_status":`, int64(c.HTTPStatus))
	dst = appendIntField(dst, `,"rpc_code":`, int64(c.RPCCode))
	dst = appendStringField(dst, `,"reason":`, c.Reason, term)
	var err error
	if len(c.Header) > 0 {
		dst = append(dst, `,"header":`...)
		if dst, err = appendAnyMap(dst, c.Header, 1, term); err != nil {
			return dst, err
		}
	}
	if len(c.Claims) > 0 {
		dst = append(dst, `,"claims":`...)
		if dst, err = appendAnyMap(dst, c.Claims, 1, term); err != nil {
			return dst, err
		}
	}
	if len(c.Steps) > 0 {
		dst = append(dst, `,"steps":[`...)
		for i := range c.Steps {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendStep(dst, &c.Steps[i], term)
		}
		dst = append(dst, ']')
	}
	if len(c.Warnings) > 0 {
		dst = append(dst, `,"warnings":[`...)
		for i, w := range c.Warnings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, w, term)
		}
		dst = append(dst, ']')
	}
	dst = appendTrueField(dst, `,"credential_present":true`, c.CredentialPresent)
	return append(dst, '}'), nil
}

func appendStep(dst []byte, s *Step, term bool) []byte {
	dst = append(dst, `{"name":`...)
	dst = appendString(dst, s.Name, term)
	dst = append(dst, `,"passed":`...)
	dst = strconv.AppendBool(dst, s.Passed)
	dst = appendStringField(dst, `,"detail":`, s.Detail, term)
	return append(dst, '}')
}

func appendImage(dst []byte, im *Image, term bool) []byte {
	dst = append(dst, '{')
	if im.ID != "" {
		dst = append(dst, `"id":`...)
		dst = appendString(dst, im.ID, term)
		dst = append(dst, ',')
	}
	dst = append(dst, `"mime_type":`...)
	dst = appendString(dst, im.MimeType, term)
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, int64(im.Size), 10)
	dst = appendStringField(dst, `,"problem":`, im.Problem, term)
	return append(dst, '}')
}

// Fields encoding/json leaves out when empty (omitempty). Each name carries
// its leading comma and colon.

func appendStringField(dst []byte, name, s string, term bool) []byte {
	if s == "" {
		return dst
	}
	dst = append(dst, name...)
	return appendString(dst, s, term)
}

func appendIntField(dst []byte, name string, n int64) []byte {
	if n == 0 {
		return dst
	}
	dst = append(dst, name...)
	return strconv.AppendInt(dst, n, 10)
}

// appendTrueField writes field (name and true) when set.
func appendTrueField(dst []byte, field string, set bool) []byte {
	if !set {
		return dst
	}
	return append(dst, field...)
}

func appendRawField(dst []byte, name string, raw []byte, term bool) ([]byte, error) {
	if len(raw) == 0 {
		return dst, nil
	}
	dst = append(dst, name...)
	return appendRawJSON(dst, raw, term)
}
