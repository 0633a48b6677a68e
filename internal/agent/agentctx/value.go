package agentctx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its keys in insertion order. Setting an
// existing key keeps its position; deleting and re-adding moves it to the end.
// The zero value is an empty object ready to use.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an object holding the given key/value pairs in order.
// It panics if kv has an odd length or a key is not a string; it is meant for
// literals in code and tests.
func NewObject(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("agentctx.NewObject: odd number of arguments")
	}
	o := &Object{}
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in order. The slice must not be modified.
func (o *Object) Keys() []string { return o.keys }

// Get returns the value stored under key and whether the key exists.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Set stores value under key, appending the key if it is new.
func (o *Object) Set(key string, value any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = value
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

// MarshalJSON encodes the object with its keys in order and without HTML
// escaping.
func (o *Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := encodeTo(&buf, k); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := encodeTo(&buf, o.vals[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Encode returns the compact JSON of v without HTML escaping. Objects keep
// their key order, so identical values give identical bytes.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeTo(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeTo(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // drop the newline Encode appends
	return nil
}

// Decode parses one JSON value into ordered form: objects become *Object,
// arrays []any, numbers json.Number, plus string, bool and nil. Trailing data
// after the value is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("agentctx: trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return decodeObject(dec)
		}
		return decodeArray(dec)
	default:
		return t, nil
	}
}

func decodeObject(dec *json.Decoder) (any, error) {
	o := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		o.Set(tok.(string), v)
	}
	_, err := dec.Token() // '}'
	return o, err
}

func decodeArray(dec *json.Decoder) (any, error) {
	arr := []any{}
	for dec.More() {
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	_, err := dec.Token() // ']'
	return arr, err
}

// Clone returns a deep copy of an ordered JSON value.
func Clone(v any) any {
	switch t := v.(type) {
	case *Object:
		c := &Object{keys: make([]string, 0, len(t.keys)), vals: make(map[string]any, len(t.keys))}
		for _, k := range t.keys {
			c.Set(k, Clone(t.vals[k]))
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = Clone(e)
		}
		return c
	default:
		return v
	}
}

// Merge deep-merges src into dst and returns the result: when both are
// objects, keys of src are merged into dst recursively (new keys appended in
// src order); otherwise a copy of src replaces dst. dst may be modified.
func Merge(dst, src any) any {
	d, dok := dst.(*Object)
	s, sok := src.(*Object)
	if !dok || !sok {
		return Clone(src)
	}
	for _, k := range s.keys {
		if old, ok := d.Get(k); ok {
			d.Set(k, Merge(old, s.vals[k]))
		} else {
			d.Set(k, Clone(s.vals[k]))
		}
	}
	return d
}
