package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// params is what a typed tool needs of its parameters type: the schema
// (as JSON and resolved for validation) and the facts Call uses.
type params struct {
	schema      json.RawMessage
	resolved    *jsonschema.Resolved
	defaults    bool     // some property has a default to fill in
	stringProps []string // the properties of type string
}

// paramsCache keeps params per parameters type: the same tools are bound
// again for every run and every MCP request, and the schema of a type
// never changes. A resolved schema is only read when validating, so it is
// shared.
var paramsCache sync.Map // reflect.Type → *params

func paramsOf[P any]() (*params, error) {
	t := reflect.TypeFor[P]()
	if p, ok := paramsCache.Load(t); ok {
		return p.(*params), nil
	}
	s, err := schemaFor[P]()
	if err != nil {
		return nil, err
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	p, _ := paramsCache.LoadOrStore(t, &params{schema: raw, resolved: resolved, defaults: hasDefaults(s), stringProps: stringProperties(s)})
	return p.(*params), nil
}

// schemaFor is the parameters schema of P, the one place where every typed
// tool's schema is made (for the agents' model requests, the server's /tools
// and the MCP server alike):
//
//   - One JSON type per property. jsonschema-go makes pointer and slice
//     fields nullable (`"type": ["null", "boolean"]`), which strict clients
//     (the MCP inspector, some model APIs) reject. An optional parameter is
//     simply left out, so null is dropped from every type list.
//   - A field tagged `default:"<JSON>"` gets that default in the schema, and
//     Call fills it in when the argument is absent, so the handler sees the
//     documented default and nothing else decides it.
//   - A field tagged `enum:"a,b,c"` may only take those string values.
//
// Call also takes a number where a string parameter is expected, as its
// text (see numbersAsStrings).
func schemaFor[P any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, err
	}
	dropNull(s)
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Struct {
		return s, nil
	}
	for _, f := range reflect.VisibleFields(t) {
		prop := s.Properties[jsonName(f)]
		if prop == nil {
			continue
		}
		if err := applyTags(prop, f); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return s, nil
}

// dropNull makes every nullable type of s and its subschemas a single type.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else {
			s.Types = types
		}
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

// jsonName is the property name encoding/json uses for f.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// applyTags copies the default and enum tags of f onto its property.
func applyTags(prop *jsonschema.Schema, f reflect.StructField) error {
	if def, ok := f.Tag.Lookup("default"); ok {
		if !json.Valid([]byte(def)) {
			return fmt.Errorf("default tag %q is not JSON", def)
		}
		prop.Default = json.RawMessage(def)
	}
	if enum, ok := f.Tag.Lookup("enum"); ok {
		for v := range strings.SplitSeq(enum, ",") {
			prop.Enum = append(prop.Enum, v)
		}
	}
	return nil
}

// hasDefaults reports whether any property of s declares a default.
func hasDefaults(s *jsonschema.Schema) bool {
	for _, p := range s.Properties {
		if p.Default != nil {
			return true
		}
	}
	return false
}

// stringProperties names the properties of s whose type is string.
func stringProperties(s *jsonschema.Schema) []string {
	var out []string
	for name, p := range s.Properties {
		if p.Type == "string" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
