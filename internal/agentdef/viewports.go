package agentdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ViewportKind is the kind of a viewport file.
type ViewportKind string

// The viewport kinds.
const (
	ViewportHTML ViewportKind = "html" // <key>.html: the payload is the text
	ViewportQLC  ViewportKind = "qlc"  // <key>.qlc: the payload is a JSON object
)

// ViewportDef is one viewport: viewports/<key>.html or viewports/<key>.qlc.
type ViewportDef struct {
	Key  string // the file's basename, lowercased
	Kind ViewportKind
	HTML string          // ViewportHTML
	QLC  json.RawMessage // ViewportQLC: the object, compacted
	File string
}

// Payload returns the viewport's payload: the HTML text, or the QLC object.
func (v ViewportDef) Payload() any {
	if v.Kind == ViewportQLC {
		return v.QLC
	}
	return v.HTML
}

// checkQLC is the syntax check of a .qlc file: one JSON object.
func checkQLC(data []byte) error {
	tree, err := parseTree(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if err != nil {
		return err
	}
	if tree.kind != nObject {
		return fmt.Errorf("expected a JSON object, found %s", tree.kind)
	}
	return nil
}

// loadViewports reads the viewport files of dir; of two files with the same
// key the first in name order wins.
func loadViewports(dir string, entries []os.DirEntry, src *sources, ws warnings) []ViewportDef {
	var out []ViewportDef
	seen := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		ext := strings.ToLower(filepath.Ext(name))
		v := ViewportDef{Key: strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name))), File: path}
		var check func([]byte) error
		switch ext {
		case ".html":
			v.Kind = ViewportHTML
		case ".qlc":
			v.Kind, check = ViewportQLC, checkQLC
		default:
			ws.warn(path, "", "not a .html or .qlc file; ignored")
			continue
		}
		if prev, dup := seen[v.Key]; dup {
			ws.reject(path, "", "duplicate viewport key %q, already defined by %s (the first in name order wins)", v.Key, prev)
			continue
		}
		data, ok := src.read(path, check, ws)
		if !ok {
			continue
		}
		if v.Kind == ViewportHTML {
			v.HTML = string(data)
		} else {
			var b bytes.Buffer
			_ = json.Compact(&b, bytes.TrimPrefix(data, []byte("\uFEFF"))) // checked by checkQLC
			v.QLC = b.Bytes()
		}
		seen[v.Key] = path
		out = append(out, v)
	}
	return out
}
