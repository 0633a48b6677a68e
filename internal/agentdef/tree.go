package agentdef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// node is a decoded JSON value that keeps the order and the exact spelling
// of object keys, so checks can name fields as written and report the first
// offending one in document order.
type node struct {
	kind  nodeKind
	keys  []string // object keys, in order (duplicates kept)
	elems []*node  // object values or array elements
	str   string   // string value, or the text of a number
	b     bool
}

type nodeKind int

const (
	nNull nodeKind = iota
	nBool
	nNumber
	nString
	nArray
	nObject
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k nodeKind) String() string { return kindNames[k] }

// maxDepth bounds the nesting of definition files.
const maxDepth = 64

// parseTree decodes one strict JSON value (and nothing after it).
func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("unexpected data after the top-level value")
		}
	}
	if err != nil {
		off := int(dec.InputOffset())
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("invalid JSON at line %d: %v", lineAt(data, off), err)
	}
	return n, nil
}

func readNode(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &node{kind: nArray}
		if t == '{' {
			n.kind = nObject
		}
		for dec.More() {
			if n.kind == nObject {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string)) // the decoder only yields string keys
			}
			v, err := readNode(dec, depth+1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	case string:
		return &node{kind: nString, str: t}, nil
	case json.Number:
		return &node{kind: nNumber, str: t.String()}, nil
	case bool:
		return &node{kind: nBool, b: t}, nil
	default:
		return &node{kind: nNull}, nil
	}
}

// get returns the value of key (the last one if it is repeated), or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != nObject {
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.elems[i]
		}
	}
	return nil
}

// marshal writes n back as strict JSON.
func (n *node) marshal(b *bytes.Buffer) {
	switch n.kind {
	case nNull:
		b.WriteString("null")
	case nBool:
		b.WriteString(strconv.FormatBool(n.b))
	case nNumber:
		b.WriteString(n.str)
	case nString:
		b.Write(quoteJSON(n.str))
	case nArray, nObject:
		open, end := byte('['), byte(']')
		if n.kind == nObject {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == nObject {
				b.Write(quoteJSON(n.keys[i]))
				b.WriteByte(':')
			}
			e.marshal(b)
		}
		b.WriteByte(end)
	}
}

// bytes returns n as strict JSON.
func (n *node) bytes() []byte {
	var b bytes.Buffer
	n.marshal(&b)
	return b.Bytes()
}

// joinPath appends an object key to a JSON path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath appends an array index to a JSON path.
func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
