package tool

import (
	"context"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// BenchmarkNew makes a typed tool whose parameters type was seen before
// (every run and every MCP request binds the same tools again).
// BenchmarkNewUncached is the baseline: inferring and resolving the schema
// each time, as New did before the cache.
func BenchmarkNew(b *testing.B) {
	h := func(context.Context, cursorParams) (Result, error) { return Result{}, nil }
	for b.Loop() {
		if _, err := New("cursor", "Makes a cursor.", h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewUncached(b *testing.B) {
	for b.Loop() {
		s, err := schemaFor[cursorParams]()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			b.Fatal(err)
		}
	}
}
