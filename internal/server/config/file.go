package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// StringList is a list of strings written in the config file as a JSON
// array of strings or as one comma-separated string.
type StringList []string

// UnmarshalJSON accepts ["a","b"], "a,b" and null.
func (l *StringList) UnmarshalJSON(data []byte) error {
	var list []string
	if err := json.Unmarshal(data, &list); err == nil {
		*l = splitCSV(strings.Join(list, ","))
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return errors.New("want an array of strings or a comma-separated string")
	}
	*l = splitCSV(s)
	return nil
}

// readFile applies the config file at path over c.
func (c *Config) readFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: config file: %w", ErrInvalid, err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return &Error{Source: path, Reason: describeJSONError(data, err)}
	}
	if top == nil {
		return &Error{Source: path, Reason: "the file must hold a JSON object"}
	}
	set, kerr := checkKeys(top)
	if kerr != nil {
		kerr.Source = path
		return kerr
	}
	if err := json.Unmarshal(data, c); err != nil {
		return fileError(path, data, err)
	}
	for _, k := range set {
		c.setOrigin(k, path)
	}
	return nil
}

// checkKeys reports the first unknown key of the file (in sorted order)
// and returns the server keys it sets.
func checkKeys(top map[string]json.RawMessage) ([]string, *Error) {
	var set []string
	for _, name := range slices.Sorted(maps.Keys(top)) {
		if modelKeys[name] {
			continue
		}
		if _, ok := lookupKey(name); ok {
			set = append(set, name)
			continue
		}
		if !isSection(name) {
			return nil, unknownKey(name)
		}
		raw := bytes.TrimSpace(top[name])
		if bytes.Equal(raw, []byte("null")) {
			continue
		}
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sub); err != nil {
			return nil, &Error{Key: name, Reason: "want an object"}
		}
		for _, s := range slices.Sorted(maps.Keys(sub)) {
			full := name + "." + s
			if _, ok := lookupKey(full); !ok {
				return nil, unknownKey(full)
			}
			set = append(set, full)
		}
	}
	return set, nil
}

// isSection reports whether name is the section of some key ("sse").
func isSection(name string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k.Name, name+".") {
			return true
		}
	}
	return false
}

// unknownKey names an unknown key and, when only its case is wrong, the
// right one.
func unknownKey(name string) *Error {
	reason := "unknown key"
	for _, k := range keys {
		if strings.EqualFold(k.Name, name) {
			return &Error{Key: name, Reason: reason + "; did you mean " + k.Name + "?"}
		}
	}
	for m := range modelKeys {
		if strings.EqualFold(m, name) {
			return &Error{Key: name, Reason: reason + "; did you mean " + m + "?"}
		}
	}
	return &Error{Key: name, Reason: reason + " (see 'aite serve --help' for the keys)"}
}

// fileError turns a decoding error into an Error naming the key.
func fileError(path string, data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &Error{Key: te.Field, Source: path, Reason: fmt.Sprintf("want %s, found %s", typeName(te.Type.Kind().String()), te.Value)}
	}
	if msg := err.Error(); strings.HasPrefix(msg, "want an array of strings") {
		return &Error{Key: "chatImageToken.previousSecrets", Source: path, Reason: msg}
	}
	return &Error{Source: path, Reason: describeJSONError(data, err)}
}

// typeName makes Go kinds readable.
func typeName(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"):
		return "an integer"
	case kind == "bool":
		return "true or false"
	case kind == "string":
		return "a string"
	case kind == "struct" || kind == "map":
		return "an object"
	}
	return kind
}

// describeJSONError names the line of a syntax error.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("not valid JSON at line %d: %v", line, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the file must hold a JSON object"
	}
	return "not valid JSON: " + err.Error()
}
