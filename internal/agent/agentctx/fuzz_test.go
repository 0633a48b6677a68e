package agentctx

import (
	"strconv"
	"testing"
)

const fuzzContext = `[
	{"type":"state","log":["a",{"b":[1,2]}],"cfg":{"a":1,"b":{"c":null}},"f":false},
	{"type":"data","kind":"user","_instance":"X","name":"x"},
	{"type":"input","q":"?"}
]`

// FuzzPath parses, reads and writes arbitrary paths: never panics, and a
// parsed path renders back to its input.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"†state.log.-1.b.0", "†state", "†user.name", "†input.q", "state.x", "†a || †b", "†state.cfg.b.c.d", "†state.log.9", "†_x.-"} {
		f.Add(s, "X", "push")
		f.Add(s, "", "erase")
		f.Add(s, "", "set")
	}
	base := mustContextF(f)
	f.Fuzz(func(t *testing.T, s, instance, method string) {
		p, err := ParsePath(s)
		if err != nil {
			if IsReference(s) {
				t.Fatalf("IsReference(%q) but ParsePath failed: %v", s, err)
			}
			return
		}
		if p.String() != s || !IsReference(s) {
			t.Fatalf("round trip %q -> %q", s, p)
		}
		Read(base.View(instance), p)
		m, err := Write{Path: p, Instance: instance, Method: Method(method), Value: NewObject("v", []any{1})}.Message()
		if err != nil {
			return
		}
		c := append(append(Context(nil), base...), m)
		v := c.View(instance)
		got, ok := Read(v, p)
		// In an instance view the global fold is merged under the write,
		// so the exact-value check only holds for the global view.
		if ok && m.OutputMethod == MethodSet && instance == "" && jsonOfF(t, got) != `{"v":[1]}` {
			t.Fatalf("set then read %s = %s", s, jsonOfF(t, got))
		}
		// Erasing an array element shifts the next one into its place, so
		// only paths made of object keys must vanish.
		if m.OutputMethod == MethodErase && ok && len(p.Segments) > 0 && instance == "" && !hasIndex(p) {
			t.Fatalf("erased path %s still exists", s)
		}
		if _, _, err := Resolve(NewObject("p", s), v); err != nil {
			t.Fatalf("Resolve(%q): %v", s, err)
		}
	})
}

// FuzzParseMessage parses arbitrary messages: never panics, and an accepted
// message survives an encode/parse round trip byte for byte.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"state","a":1}`, `{"type":"data","kind":"k","_path":"a.0","_outputMethod":"push","data":[1]}`,
		`{"kind":"advisor","id":"r","persona":"p"}`, `{"type":"tool","tool":{"t":{}}}`, `{"type":"error","data":{"turn":1}}`,
		`{"type":"advice","id":"a","turn":1}`, `{"type":"state","_path":"","_outputMethod":"erase"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMessage(data)
		if err != nil {
			return
		}
		first := jsonOfF(t, m)
		m2, err := ParseMessage([]byte(first))
		if err != nil {
			t.Fatalf("re-parse of %s: %v", first, err)
		}
		if second := jsonOfF(t, m2); second != first {
			t.Fatalf("round trip:\n%s\n%s", first, second)
		}
		c := Context{m, m2}
		for _, k := range c.Kinds() {
			c.Fold(k, m.Instance)
		}
		c.View(m.Instance)
		c.Tools()
		c.Advisors()
		c.LatestAdvice()
	})
}

func mustContextF(f *testing.F) Context {
	c, err := ParseContext([]byte(fuzzContext))
	if err != nil {
		f.Fatal(err)
	}
	return c
}

func jsonOfF(t *testing.T, v any) string {
	b, err := Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return string(b)
}

func hasIndex(p Path) bool {
	for _, s := range p.Segments {
		if _, err := strconv.Atoi(s); err == nil {
			return true
		}
	}
	return false
}
