package agentctx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/aitexteditor/aite/internal/jsontext"
)

// Object is a JSON object that keeps its keys in insertion order. Setting an
// existing key keeps its position; deleting and re-adding moves it to the end.
// The zero value is an empty object ready to use.
type Object struct {
	keys  []string
	vals  []any          // vals[i] belongs to keys[i]
	index map[string]int // built once the object has more than indexFrom keys
}

// indexFrom is the size above which an object keeps a key index; smaller
// objects (most schema nodes) are searched linearly, which is faster and
// allocates less.
const indexFrom = 8

// NewObject returns an object holding the given key/value pairs in order.
// It panics if kv has an odd length or a key is not a string; it is meant for
// literals in code and tests.
func NewObject(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("agentctx.NewObject: odd number of arguments")
	}
	o := &Object{keys: make([]string, 0, len(kv)/2), vals: make([]any, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in order. The slice must not be modified.
func (o *Object) Keys() []string { return o.keys }

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value stored under key and whether the key exists.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Set stores value under key, appending the key if it is new.
func (o *Object) Set(key string, value any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = value
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, value)
	switch {
	case o.index != nil:
		o.index[key] = len(o.keys) - 1
	case len(o.keys) > indexFrom:
		o.reindex()
	}
}

func (o *Object) reindex() {
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	if o.index != nil {
		if len(o.keys) > indexFrom {
			o.reindex()
		} else {
			o.index = nil
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
		if err := encodeTo(&buf, o.vals[i]); err != nil {
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
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case *Object:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := encodeTo(buf, x.vals[i]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		if x == nil {
			buf.WriteString("null")
			return nil
		}
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeTo(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, x)
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case json.Number:
		if !validNumber(string(x)) {
			return fmt.Errorf("agentctx: invalid number literal %q", string(x))
		}
		buf.WriteString(string(x))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	default:
		return encodeReflect(buf, v)
	}
	return nil
}

// encodeReflect encodes any other value with encoding/json, without HTML
// escaping.
func encodeReflect(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // drop the newline Encode appends
	return nil
}

// writeString writes s as a JSON string the way encoding/json does with
// HTML escaping off (jsontext.AppendString).
func writeString(buf *bytes.Buffer, s string) {
	buf.Write(jsontext.AppendString(buf.AvailableBuffer(), s))
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
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
		c := &Object{keys: append([]string(nil), t.keys...), vals: make([]any, len(t.vals))}
		for i, e := range t.vals {
			c.vals[i] = Clone(e)
		}
		if t.index != nil {
			c.reindex()
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
	for i, k := range s.keys {
		if old, ok := d.Get(k); ok {
			d.Set(k, Merge(old, s.vals[i]))
		} else {
			d.Set(k, Clone(s.vals[i]))
		}
	}
	return d
}
