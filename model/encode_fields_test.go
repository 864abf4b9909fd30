package model

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The encoder writes every field of Event, Context, Step and Image: each
// set alone, and all set at once, encodes as the reflective oracle does. A
// field added to the structs without the encoder fails here.
func TestEncoderCoversEveryField(t *testing.T) {
	all := Event{}
	fill(reflect.ValueOf(&all).Elem())
	assertSameEncoding(t, "every field", all, Redactor{})
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		for _, kind := range []Kind{KindToolCall, KindToolProgress} {
			ev := Event{Kind: kind}
			fill(reflect.ValueOf(&ev).Elem().Field(i))
			assertSameEncoding(t, typ.Field(i).Name, ev, Redactor{})
		}
	}
}

// fill sets v to a value that is not empty, recursively.
func fill(v reflect.Value) {
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2026, 7, 29, 10, 0, 1, 5, time.UTC)))
		return
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage(` {"k" : [1, "<"]} `)))
		return
	case map[string]any:
		v.Set(reflect.ValueOf(map[string]any{"k": "v", "n": 1.5, "b": true}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s<" + v.Type().Name())
	case reflect.Int, reflect.Int64:
		v.SetInt(-7)
	case reflect.Float64:
		v.SetFloat(2.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0))
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(key)
		fill(val)
		m.SetMapIndex(key, val)
		v.Set(m)
	default:
		panic("fill: " + v.Type().String())
	}
}
